#!/usr/bin/python3
"""gausslab-filter on bad input and bad arguments: every case must end with a clear message on
stderr and the documented exit status (1 for a file that cannot be read, 2 for bad arguments),
never a signal (a crash), never a partial or replaced file.

usage: check_filter_bad_input.py --filter PATH/gausslab-filter [--data tests/data]
Exit status 0 when every case behaves, 1 otherwise. Needs only the Python standard library.
"""
import argparse
import hashlib
import os
import subprocess
import sys
import tempfile

import check_kit

HERE = os.path.dirname(os.path.abspath(__file__))


class Checks(check_kit.Checks):
    def __init__(self, tool, work):
        super().__init__()
        self.tool = tool
        self.work = work

    def run(self, args):
        return subprocess.run([self.tool, *args], capture_output=True, text=True, timeout=300)

    def expect(self, name, args, status, words=(), stdout_words=()):
        """Runs the tool and checks its exit status and that stderr names the problem."""
        self.count += 1
        done = self.run(args)
        problems = []
        if done.returncode < 0:
            problems.append(f"killed by signal {-done.returncode} (a crash)")
        elif done.returncode != status:
            problems.append(f"exit status {done.returncode}, expected {status}")
        if status != 0 and not done.stderr.strip():
            problems.append("no message on stderr")
        for word in words:
            if word.lower() not in done.stderr.lower():
                problems.append(f"stderr does not mention {word!r}")
        for word in stdout_words:
            if word.lower() not in done.stdout.lower():
                problems.append(f"stdout does not mention {word!r}")
        for crash_sign in ("terminate called", "Segmentation", "Traceback", "core dumped"):
            if crash_sign in done.stderr:
                problems.append(f"stderr shows {crash_sign!r}")
        if problems:
            self.failures.append(f"{name}: {'; '.join(problems)}\n      command: {' '.join(args)}\n"
                                 f"      stderr: {done.stderr.strip()[:600]}")
        else:
            said = (done.stderr.strip() or done.stdout.strip() or "(silent)").splitlines()[0]
            print(f"ok  {name}: exit {done.returncode}: {said}")
        return done

    def leftovers(self, folder):
        """Temporary files a failed or refused write might have left behind."""
        return [n for n in os.listdir(folder) if ".tmp-" in n]


def digest(path):
    with open(path, "rb") as file:
        return hashlib.sha256(file.read()).hexdigest()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--filter", required=True, help="the gausslab-filter executable")
    parser.add_argument("--data", default=os.path.join(HERE, "..", "data"), help="the tests/data folder")
    args = parser.parse_args()
    data = os.path.abspath(args.data)
    good = os.path.join(data, "camera.png")
    good_rgb = os.path.join(data, "chelsea.png")

    with tempfile.TemporaryDirectory(prefix="gausslab-filter-bad-") as work:
        c = Checks(args.filter, work)
        cpu = ["--method", "cpu_openmp", "--sigma", "2"]
        out = os.path.join(work, "out.png")

        # Unreadable inputs: exit 1, the message names the problem, nothing written.
        empty = os.path.join(work, "empty.png")
        open(empty, "wb").close()
        text = os.path.join(work, "notes.png")
        with open(text, "w") as file:
            file.write("this is a text file, not a PNG\n" * 20)
        unreadable = [
            ("truncated JPEG", os.path.join(data, "truncated.jpg"), ["truncated"]),
            ("empty file", empty, ["empty"]),
            ("text file named .png", text, ["not an image"]),
            ("missing file", os.path.join(work, "no-such-image.png"), ["no such file"]),
            ("a folder as input", work, ["folder"]),
            ("/dev/zero as input", "/dev/zero", ["not a regular file"]),
            ("/dev/urandom as input", "/dev/urandom", ["not a regular file"]),
        ]
        fifo = os.path.join(work, "pipe.png")
        os.mkfifo(fifo)  # no writer: a blocking open would hang (the test's timeout would fail it)
        unreadable.append(("a FIFO as input", fifo, ["FIFO"]))
        malformed = os.path.join(data, "malformed")
        for name in sorted(os.listdir(malformed)):
            if name != "README.md":
                unreadable.append((f"malformed {name}", os.path.join(malformed, name), [name]))
        for name, path, words in unreadable:
            target = out[:-4] + ".npy" if path.endswith(".npy") else out  # a .npy input is a signal: its output is .npy
            c.expect(name, [path, "-o", target, *cpu], 1, words)
            c.check(f"{name}: no output written", not os.path.exists(target), f"{target} exists")
        os.remove(fifo)
        c.check("no temporary files left", not c.leftovers(work), str(c.leftovers(work)))

        # A 16-bit TIFF is read, filtered and written in 16 bits, and the log says so.
        c.expect("16-bit TIFF", [os.path.join(data, "chessboard_GRAY_U16.tif"), "-o", out, *cpu], 0,
                 ["16-bit grey images filtered in float64 and written in their own type"])
        c.check("16-bit TIFF: output written", os.path.exists(out), f"{out} missing")
        os.remove(out)

        # Bad arguments: exit 2 before any work.
        c.expect("unknown method lists the ids", [good, "-o", out, "--method", "gaussian9000", "--sigma", "2"], 2,
                 ["unknown method", "cpu_separable", "cpu_openmp"])
        for sigma, words in (("nan", ["sigma", "not a number"]), ("abc", ["sigma", "not a number"]),
                             ("-1", ["sigma", "outside"]), ("0", ["sigma", "outside"]), ("500", ["sigma", "outside"]),
                             ("inf", ["sigma"])):
            c.expect(f"sigma {sigma}", [good, "-o", out, "--method", "cpu_openmp", "--sigma", sigma], 2, words)
        c.expect("no sigma", [good, "-o", out, "--method", "cpu_openmp"], 2, ["sigma"])
        c.expect("no -o", [good, *cpu], 2, ["-o"])
        c.expect("two inputs and -o", [good, good_rgb, "-o", out, *cpu], 2, ["--out-dir"])
        c.expect("unknown border", [good, "-o", out, *cpu, "--border", "zero"], 2, ["border", "reflect"])
        c.expect("radius and truncate together", [good, "-o", out, *cpu, "--radius", "5", "--truncate", "3"], 2,
                 ["--radius", "--truncate"])
        c.expect("radius out of range", [good, "-o", out, *cpu, "--radius", "999999"], 2, ["--radius"])
        c.expect("unknown option", [good, "-o", out, *cpu, "--frobnicate"], 2, ["unknown option"])
        c.expect("output type unknown", [good, "-o", os.path.join(work, "out.webp"), *cpu], 2, [".png", ".jpg"])
        c.expect("output folder missing", [good, "-o", os.path.join(work, "missing", "out.png"), *cpu], 2,
                 ["does not exist"])
        os.makedirs(os.path.join(work, "batch-clash"))
        c.expect("two inputs, one output name", [good, os.path.join(work, "camera.jpg"), "--out-dir",
                                                 os.path.join(work, "batch-clash"), *cpu], 2, ["both"])
        c.check("nothing written by refused commands", not os.path.exists(out) and not os.listdir(os.path.join(work, "batch-clash")),
                "an output appeared")

        # A GPU method where there is no device: refused with the reason, exit 2.
        listing = c.run(["--list-methods"]).stdout.splitlines()
        unavailable = [line.split("\t")[0] for line in listing if "\tunavailable: " in line]
        if unavailable:
            c.expect(f"{unavailable[0]} without a CUDA device", [good, "-o", out, "--method", unavailable[0],
                                                                   "--sigma", "2"], 2, ["cannot run", "cpu_openmp"])
        else:
            print("--  every method can run here: the 'GPU method without a device' case does not apply")

        # An existing output is never replaced without --overwrite, and stays byte for byte.
        existing = os.path.join(work, "existing.png")
        with open(existing, "wb") as file:
            file.write(b"user data that must survive")
        before = digest(existing)
        c.expect("existing output", [good, "-o", existing, *cpu], 2, ["exists", "--overwrite"])
        c.check("existing output untouched", digest(existing) == before, "its content changed")
        os.makedirs(os.path.join(work, "batch-existing"))
        kept = os.path.join(work, "batch-existing", "camera.png")
        with open(kept, "wb") as file:
            file.write(b"another user file")
        kept_before = digest(kept)
        c.expect("existing output in a batch", [good, good_rgb, "--out-dir", os.path.join(work, "batch-existing"),
                                                *cpu], 2, ["exist", "--overwrite"])
        c.check("batch: existing output untouched and nothing else written",
                digest(kept) == kept_before and os.listdir(os.path.join(work, "batch-existing")) == ["camera.png"],
                str(os.listdir(os.path.join(work, "batch-existing"))))
        c.expect("--overwrite replaces it", [good, "-o", existing, *cpu, "--overwrite", "--quiet"], 0)
        default = os.path.join(work, "default-method.png")
        c.expect("no --method: the default is used and named", [good, "-o", default, "--sigma", "2"], 0,
                 ["with auto", "cpu_openmp" if unavailable else "measured fastest"])
        c.check("no --method: the output is written", os.path.exists(default), "no output")
        c.expect("the input is never the output", [existing, "-o", existing, *cpu, "--overwrite"], 2, ["input"])
        with open(existing, "rb") as file:
            c.check("--overwrite wrote a PNG", file.read(8) == b"\x89PNG\r\n\x1a\n", "not a PNG")

        # A batch with bad files among good ones: the good ones are done, exit 1, the summary names the bad.
        batch_dir = os.path.join(work, "batch")
        os.makedirs(batch_dir)
        done = c.expect("batch with bad files", [good, os.path.join(data, "truncated.jpg"), empty, good_rgb,
                                                 "--out-dir", batch_dir, *cpu], 1,
                        ["2 of 4", "truncated.jpg", "empty.png"])
        written = sorted(os.listdir(batch_dir))
        c.check("batch: the readable files were filtered", written == ["camera.png", "chelsea.png"], str(written))
        c.check("batch: progress line per file", done.stderr.count("/4") >= 4, done.stderr[:400])
        os.makedirs(os.path.join(work, "quiet"))
        quiet = c.expect("quiet batch still names its failures", [good_rgb, empty, "--out-dir",
                                                                  os.path.join(work, "quiet"), *cpu, "--quiet"], 1,
                         ["1 of 2", "empty.png"])
        c.check("quiet batch prints no progress", "->" not in quiet.stderr, quiet.stderr)

        # Good use: help, list, BMP output.
        c.expect("--help", ["--help"], 0, stdout_words=["usage", "--out-dir", "cpu_openmp"])
        listed = c.expect("--list-methods", ["--list-methods"], 0, stdout_words=["cpu_separable\tcpu"])
        c.check("--list-methods: id first on every line", all(line.split("\t")[0] and len(line.split("\t")) >= 3
                                                              for line in listed.stdout.splitlines()), listed.stdout)
        bmp = os.path.join(work, "out.bmp")
        c.expect("BMP output", [good_rgb, "-o", bmp, *cpu, "--quiet"], 0)
        with open(bmp, "rb") as file:
            c.check("BMP output is a BMP", file.read(2) == b"BM", "no BM signature")
        c.check("no temporary files left at the end", not c.leftovers(work) and not c.leftovers(batch_dir),
                str(c.leftovers(work) + c.leftovers(batch_dir)))

    for failure in c.failures:
        print(f"FAIL {failure}")
    return c.summary()


if __name__ == "__main__":
    sys.exit(main())
