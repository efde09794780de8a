#!/usr/bin/python3
"""Outputs when writing fails or is interrupted (gausslab-filter and gausslab-bench): a full disk, a
file-size limit, an unwritable folder, /dev/full as the output, SIGINT and SIGTERM in the middle of
a batch. Each must end with a clear message, no partial file under a final name and no temporary
file; the benchmark must not lose its measurements (they go to standard output) nor leave a file
that blocks the next run; outputs get the umask's permissions.

The full disk is a 256 KiB tmpfs where mounting one is allowed (root in a container), otherwise
that case is skipped with the reason; RLIMIT_FSIZE (a kernel-enforced write failure, EFBIG) needs
no privilege and always runs.

usage: check_output_faults.py --filter F --bench B --data tests/data
"""
import argparse
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from check_kit import Checks

LEFTOVER_MARK = ".tmp-"


def leftovers(folder):
    found = []
    for base, _, files in os.walk(folder):
        found += [os.path.join(base, f) for f in files if LEFTOVER_MARK in f]
    return found


def limit_file_size(limit):
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of being killed
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def as_nobody():
    if os.geteuid() == 0:
        os.setgid(65534)
        os.setuid(65534)


def run(command, **kwargs):
    return subprocess.run(command, capture_output=True, text=True, timeout=600, **kwargs)


def mount_small_tmpfs(where):
    if os.geteuid() != 0 or not shutil.which("mount"):
        return "not root: cannot mount a tmpfs"
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", where], capture_output=True, text=True)
    return None if done.returncode == 0 else "mount refused: " + done.stderr.strip()


def check_filter(c, tool, data, work):
    image = os.path.join(data, "coffee.png")  # 600×400: about 500 KB as PNG
    cpu = ["--method", "cpu_openmp", "--sigma", "2"]

    # A file-size limit of 64 KiB: the write fails with EFBIG half-way.
    out = os.path.join(work, "limited", "out.png")
    os.makedirs(os.path.dirname(out))
    done = run([tool, image, "-o", out, *cpu], preexec_fn=limit_file_size(64 << 10))
    c.check("filter, file-size limit: exit 1", done.returncode == 1, f"exit {done.returncode}: {done.stderr[-300:]}")
    c.check("filter, file-size limit: the message names the file and the cause",
            "out.png" in done.stderr and "larger than" in done.stderr, done.stderr[-300:])
    c.check("filter, file-size limit: no output, no temporary file", os.listdir(os.path.dirname(out)) == [],
            str(os.listdir(os.path.dirname(out))))

    # A full disk: a 256 KiB tmpfs.
    disk = os.path.join(work, "disk")
    os.makedirs(disk)
    why = mount_small_tmpfs(disk)
    if why:
        print(f"skip filter, full disk: {why}")
    else:
        try:
            done = run([tool, image, "-o", os.path.join(disk, "out.bmp"), *cpu])  # 720 KB: does not fit
            c.check("filter, full disk: exit 1 and 'disk is full'", done.returncode == 1 and "disk is full" in done.stderr,
                    f"exit {done.returncode}: {done.stderr[-300:]}")
            c.check("filter, full disk: no output, no temporary file", os.listdir(disk) == [], str(os.listdir(disk)))
        finally:
            subprocess.run(["umount", disk])

    # An unwritable folder (as nobody when running as root, who may write anywhere).
    locked = os.path.join(work, "locked")
    os.makedirs(locked)
    os.chmod(work, 0o755)
    os.chmod(locked, 0o555)
    done = run([tool, image, "-o", os.path.join(locked, "out.png"), *cpu], preexec_fn=as_nobody)
    c.check("filter, unwritable folder: refused naming the cause", done.returncode in (1, 2) and
            "permission" in done.stderr, f"exit {done.returncode}: {done.stderr[-300:]}")
    c.check("filter, unwritable folder: nothing written", os.listdir(locked) == [], str(os.listdir(locked)))

    # /dev/full is not a file to write an image to.
    done = run([tool, image, "-o", "/dev/full", *cpu])
    c.check("filter, /dev/full as output: refused (exit 2)", done.returncode == 2, f"exit {done.returncode}")

    # The umask decides the permissions.
    out = os.path.join(work, "umask.png")
    done = run([tool, image, "-o", out, *cpu], preexec_fn=lambda: os.umask(0o027))
    mode = os.stat(out).st_mode & 0o777 if os.path.exists(out) else None
    c.check("filter: the output's permissions follow the umask (027 gives 640)", mode == 0o640, f"mode {mode and oct(mode)}")

    # SIGINT and SIGTERM in the middle of a batch: every file present is complete, no temporary file.
    inputs = os.path.join(work, "many")
    os.makedirs(inputs)
    for i in range(40):
        shutil.copy(image, os.path.join(inputs, f"in{i:02d}.png"))
    for sig in (signal.SIGINT, signal.SIGTERM):
        out_dir = os.path.join(work, f"out-{sig.name}")
        process = subprocess.Popen([tool, inputs, "--out-dir", out_dir, *cpu, "--threads", "2"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        # Wait for the event, not for a time: the first finished output.
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and process.poll() is None:
            if os.path.isdir(out_dir) and any(f.endswith(".png") for f in os.listdir(out_dir)):
                break
            time.sleep(0.01)
        process.send_signal(sig)
        process.wait(timeout=300)
        written = sorted(f for f in os.listdir(out_dir)) if os.path.isdir(out_dir) else []
        complete = all(run([sys.executable, "-c", "import sys; from PIL import Image; Image.open(sys.argv[1]).load()",
                            os.path.join(out_dir, f)]).returncode == 0 for f in written if LEFTOVER_MARK not in f)
        c.check(f"filter, {sig.name} during a batch: no temporary file left", not leftovers(out_dir),
                str(leftovers(out_dir)))
        c.check(f"filter, {sig.name} during a batch: every output present is a complete image "
                f"({len(written)} of 40 written)", complete, str(written))


def check_bench(c, tool, work):
    quick = ["--sizes", "40", "--kernels", "7", "--formats", "f32", "--methods", "cpu_separable", "--quick",
             "--no-plot"]
    out = os.path.join(work, "bench")
    # Every write fails (a 1-byte file-size limit): the measurements must reach standard output.
    done = run([tool, *quick, "--out", out], preexec_fn=limit_file_size(1))
    c.check("bench, writes failing: exit 1", done.returncode == 1, f"exit {done.returncode}: {done.stderr[-400:]}")
    c.check("bench, writes failing: the CSV is on standard output", "cpu_separable" in done.stdout and
            "ms_median" in done.stdout, done.stdout[-300:])
    c.check("bench, writes failing: the message says the results could not be saved",
            "could not all be saved" in done.stderr, done.stderr[-400:])
    left = os.listdir(out) if os.path.isdir(out) else []
    c.check("bench, writes failing: no empty or partial file left in the folder", left == [], str(left))
    done = run([tool, *quick, "--out", out])
    c.check("bench: the next run into the same folder is not blocked", done.returncode == 0,
            f"exit {done.returncode}: {done.stderr[-300:]}")
    c.check("bench: that run's results are complete and no partial file is left",
            sorted(os.listdir(out)) == ["results.csv", "results.json", "results.md"], str(sorted(os.listdir(out))))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--filter", required=True)
    parser.add_argument("--bench", required=True)
    parser.add_argument("--data", required=True)
    args = parser.parse_args()
    c = Checks()
    with tempfile.TemporaryDirectory(prefix="gausslab-faults-") as work:
        check_filter(c, args.filter, args.data, work)
        check_bench(c, args.bench, work)
    return c.summary()


if __name__ == "__main__":
    sys.exit(main())
