#!/usr/bin/python3
"""What used to fail late, or die without a word, is now decided before the work (issue 40):

- an output name of 245 to 255 bytes is written (its temporary name used to pass NAME_MAX and fail
  after the filtering); one of 256 bytes is refused before any work, in gausslab-filter (-o and
  --out-dir) and the viewer's --screenshot: exit 2, nothing made;
- a symbolic link to nothing as -o is refused up front as an existing name (it was reported after
  the work as a file that "appeared while gausslab was writing");
- gausslab-bench --batch-images 3 without --batch is refused at once (it ran the whole default
  comparison), naming --batch; nothing is written;
- gausslab-bench --codecs with an image that cannot be read fails naming it and leaves no folder
  (its --out folder was made first, and left empty);
- a pipe that closes under gausslab-filter (| head) ends the run with status 1, not SIGPIPE: the
  message is on stderr when stderr is not the pipe; under a pipe of one page read for two lines then
  closed, every output written is whole and no temporary file is left.

usage: check_refused_up_front.py --filter F --bench B --viewer V --data tests/data
(the viewer's case is skipped, saying so, where V is not built: the sanitizer build)
"""
import argparse
import fcntl
import os
import shutil
import subprocess
import sys
import tempfile

from PIL import Image

from check_kit import Checks

TIMEOUT_S = 120


def run(command, cwd, **kwargs):
    return subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S, cwd=cwd, **kwargs)


def check_long_names(c, tool, viewer, data, work):
    folder = os.path.join(work, "names")
    os.makedirs(folder)
    shutil.copy(os.path.join(data, "camera.png"), os.path.join(folder, "in.png"))
    cpu = ["--method", "cpu_separable", "--sigma", "2", "--quiet"]
    for length in (245, 250, 255):
        name = "n" * (length - 4) + ".png"
        done = run([tool, "in.png", "-o", name, *cpu], folder)
        c.check(f"gausslab-filter -o NAME of {length} bytes is written", done.returncode == 0 and
                Image.open(os.path.join(folder, name)).size == (512, 512), done.stderr[-300:])
    before = sorted(os.listdir(folder))
    name = "n" * 252 + ".png"
    done = run([tool, "in.png", "-o", name, *cpu], folder)
    c.check("gausslab-filter -o NAME of 256 bytes: refused before the work, nothing written",
            done.returncode == 2 and "its file name is 256 bytes, more than the 255" in done.stderr and
            sorted(os.listdir(folder)) == before, f"status {done.returncode}: {done.stderr[-300:]}")
    # A batch output one byte too long: the input's name (252 bytes, no extension) + ".png".
    shutil.copy(os.path.join(data, "camera.png"), os.path.join(folder, "q" * 252))
    done = run([tool, "q" * 252, "--out-dir", "out", *cpu], folder)
    c.check("gausslab-filter --out-dir with an output name of 256 bytes: refused before the work",
            done.returncode == 2 and "256 bytes" in done.stderr and not os.path.exists(os.path.join(folder, "out")),
            f"status {done.returncode}: {done.stderr[-300:]}")
    if not os.path.exists(viewer):  # the sanitizer build makes the command-line programs only
        print(f"skipped: the viewer's case ({viewer} is not built here)")
        return
    done = run([viewer, "in.png", "--offscreen", "--frames", "2", "--path", "cpu", "--window", "64x48",
                "--screenshot", name], folder)
    c.check("gausslab --screenshot NAME of 256 bytes: refused at start-up",
            done.returncode == 2 and "256 bytes" in done.stderr and not os.path.exists(os.path.join(folder, name)),
            f"status {done.returncode}: {done.stderr[-300:]}")


def check_dangling_link(c, tool, data, work):
    folder = os.path.join(work, "dangling")
    os.makedirs(folder)
    shutil.copy(os.path.join(data, "camera.png"), os.path.join(folder, "in.png"))
    os.symlink("missing.png", os.path.join(folder, "out.png"))
    done = run([tool, "in.png", "-o", "out.png", "--method", "cpu_separable", "--sigma", "2"], folder)
    c.check("gausslab-filter -o LINK-TO-NOTHING: refused up front, naming the link",
            done.returncode == 2 and "a symbolic link to 'missing.png' that does not exist" in done.stderr
            and "appeared while" not in done.stderr and os.path.islink(os.path.join(folder, "out.png"))
            and sorted(os.listdir(folder)) == ["in.png", "out.png"], f"status {done.returncode}: {done.stderr[-300:]}")


def check_bench_flags(c, bench, work):
    done = run([bench, "--batch-images", "3", "--out", "results"], work)
    c.check("gausslab-bench --batch-images 3 without --batch: refused at once",
            done.returncode == 2 and "--batch-images applies to --batch" in done.stderr
            and not os.path.exists(os.path.join(work, "results")), f"status {done.returncode}: {done.stderr[-300:]}")


def check_codecs_leave_no_folder(c, bench, data, work):
    # A --codecs image that cannot be read fails the run (status 1, naming it) before any folder is made.
    shutil.copy(os.path.join(data, "malformed", "png_truncated.png"), os.path.join(work, "cut.png"))
    for image, words in (("missing.png", "cannot open 'missing.png'"), ("cut.png", "'cut.png' is not a valid PNG")):
        done = run([bench, "--codecs", image, "--quick", "--out", "codecs/a/b"], work)
        c.check(f"gausslab-bench --codecs {image}: status 1, the image named, no folder left",
                done.returncode == 1 and words in done.stderr and not os.path.exists(os.path.join(work, "codecs")),
                f"status {done.returncode}: {done.stderr[-300:]}")
    done = run([bench, "--codecs", "cut.png", "--quick", "--out", "cut.png/results"], work)
    c.check("gausslab-bench --codecs --out under a file: refused before any work",
            done.returncode == 2 and "'cut.png' is a file, not a folder" in done.stderr, f"status {done.returncode}: "
            f"{done.stderr[-300:]}")


def check_broken_pipe(c, tool, data, work):
    # stdout a pipe whose reader has gone: the first write to it fails. The message reaches stderr.
    read_end, write_end = os.pipe()
    os.close(read_end)
    with open(os.path.join(work, "help-stderr.txt"), "w+") as stderr:
        status = subprocess.run([tool, "--help"], stdout=write_end, stderr=stderr, timeout=TIMEOUT_S).returncode
        os.close(write_end)
        stderr.seek(0)
        message = stderr.read()
    c.check("gausslab-filter --help | (a closed pipe): status 1 and the reason on stderr, not SIGPIPE",
            status == 1 and "the pipe that the output goes to was closed" in message, f"status {status}: {message!r}")

    # A batch whose log is a one-page pipe, read for two lines and closed while it still writes.
    folder = os.path.join(work, "pipe")
    os.makedirs(os.path.join(folder, "in"))
    tiny = Image.open(os.path.join(data, "camera.png")).resize((24, 16))
    for i in range(300):
        tiny.save(os.path.join(folder, "in", f"image-{i:03d}.png"))
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 4096)
    child = subprocess.Popen([tool, "in", "--out-dir", "out", "--method", "cpu_separable", "--sigma", "1",
                              "--threads", "1"], cwd=folder, stdout=subprocess.DEVNULL, stderr=write_end)
    os.close(write_end)
    seen = b""
    while seen.count(b"\n") < 2:
        chunk = os.read(read_end, 64)
        if not chunk:
            break
        seen += chunk
    os.close(read_end)  # like head -2: the filter's next write finds no reader
    status = child.wait(timeout=TIMEOUT_S)
    written = sorted(os.listdir(os.path.join(folder, "out"))) if os.path.isdir(os.path.join(folder, "out")) else []
    leftovers = [n for n in written if ".tmp-" in n]
    broken = []
    for name in written:
        if ".tmp-" in name:
            continue
        try:
            with Image.open(os.path.join(folder, "out", name)) as image:
                image.load()
                if image.size != (24, 16):
                    broken.append(name)
        except Exception as error:  # a partial file
            broken.append(f"{name}: {error}")
    c.check("gausslab-filter DIR --out-dir O 2>&1 | head -2: status 1 (not killed by SIGPIPE), the run stopped",
            status == 1 and len(written) < 300, f"status {status}, {len(written)} of 300 outputs")
    c.check("... every output written is whole, no temporary file left", not broken and not leftovers,
            f"broken {broken[:3]}, leftovers {leftovers[:3]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--filter", required=True)
    parser.add_argument("--bench", required=True)
    parser.add_argument("--viewer", required=True)
    parser.add_argument("--data", required=True)
    args = parser.parse_args()
    c = Checks()
    with tempfile.TemporaryDirectory(prefix="gausslab-up-front-") as work:
        check_long_names(c, args.filter, args.viewer, args.data, work)
        check_dangling_link(c, args.filter, args.data, work)
        check_bench_flags(c, args.bench, work)
        check_codecs_leave_no_folder(c, args.bench, args.data, work)
        check_broken_pipe(c, args.filter, args.data, work)
    return c.summary()


if __name__ == "__main__":
    sys.exit(main())
