#!/usr/bin/python3
"""gausslab-bench --sequence, tiny and quick: the three result files appear, the table has a row per
size, path and weighting method (the GPU rows say why they are skipped where there is no device),
the CSV parses, and a second run refuses to replace the results without --overwrite.

usage: check_bench_sequence.py --bench PATH/gausslab-bench
"""
import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bench", required=True)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="gausslab-bench-sequence-")
    failures = []
    try:
        out = os.path.join(work, "r")
        command = [args.bench, "--sequence", "--sequence-sizes", "64x48,40x40", "--sequence-history", "4", "--quick",
                   "--out", out]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            failures.append(f"exit {done.returncode}: {done.stderr[-800:]}")
        for name in ("sequence.md", "sequence.csv", "sequence_timeline.csv"):
            if not os.path.exists(os.path.join(out, name)):
                failures.append(f"{name} is missing")
        rows = list(csv.DictReader(open(os.path.join(out, "sequence.csv")))) if not failures else []
        paths = sorted((r["width"], r["height"], r["path"], r["weights"]) for r in rows)
        expected = sorted((w, h, p, m) for w, h in (("64", "48"), ("40", "40")) for p in ("gpu", "cpu")
                          for m in ("polynomial", "correlation"))
        if paths != expected:
            failures.append(f"rows {paths}, expected {expected}")
        for r in rows:
            if r["path"] == "cpu" and not (r["status"] == "ok" and float(r["frame_ms"]) > 0):
                failures.append(f"the CPU row is not measured: {r}")
            if r["path"] == "gpu" and r["status"] != "ok" and not r["status"].startswith("skipped"):
                failures.append(f"the GPU row failed: {r['status']}")
        markdown = open(os.path.join(out, "sequence.md")).read() if os.path.exists(os.path.join(out, "sequence.md")) else ""
        for word in ("ms/frame", "as a CUDA graph", "% copy", "coefficients", "target removal", "correlation"):
            if word not in markdown:
                failures.append(f"sequence.md does not mention {word!r}")
        if any(r["path"] == "gpu" and r["status"].startswith("skipped") for r in rows):
            # No device: the GPU path alone measures nothing, and says so before making the folder.
            gpu_out = os.path.join(work, "gpu-only")
            gpu_only = subprocess.run([args.bench, "--sequence", "--sequence-sizes", "40x40", "--sequence-paths", "gpu",
                                       "--quick", "--out", gpu_out], capture_output=True, text=True, timeout=600)
            if gpu_only.returncode != 1 or "nothing to measure here" not in gpu_only.stderr or os.path.exists(gpu_out):
                failures.append(f"--sequence-paths gpu without a device: exit {gpu_only.returncode}, "
                                f"folder made: {os.path.exists(gpu_out)}: {gpu_only.stderr[-300:]}")
        again = subprocess.run(command, capture_output=True, text=True, timeout=600)
        if again.returncode != 2 or "already exists" not in again.stderr:
            failures.append(f"a second run did not refuse to overwrite: exit {again.returncode} {again.stderr[-300:]}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print("FAIL", f)
    print("ok" if not failures else f"{len(failures)} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
