#!/usr/bin/python3
"""Summarises the GPU tests' per-case CSV (GAUSSLAB_GPU_TESTS_CSV) as Markdown tables.

  summarise_gpu_accuracy.py gpu-accuracy.csv > docs/results/h100/gpu-accuracy.md

Per method and format: how many problems ran, passed, failed, were refused, and the largest error
measured against the float64 reference (F32: max |error| / max |reference|; RGBA8: 8-bit levels
against the unrounded reference, so 0.5 is the final rounding alone), with the case where it
happened. Then the same per sigma range, which is how the recursive filter's bound is stated.
"""
import csv
import sys
from collections import defaultdict

SIGMA_RANGES = [(0.0, 0.5), (0.5, 1.0), (1.0, 2.0), (2.0, 8.0), (8.0, 32.0), (32.0, 1e9)]


def range_label(low, high):
    return f"[{low:g}, {high:g})" if high < 1e9 else f"[{low:g}, 200]"


def main(path):
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["method"] != "harness_check"]
    if not rows:
        sys.exit(f"{path}: no rows (was it written by gausslab_gpu_tests?)")

    totals = defaultdict(lambda: defaultdict(int))
    worst = {}
    worst_by_range = {}
    for r in rows:
        key = (r["method"], r["format"])
        totals[key][r["outcome"]] += 1
        if r["outcome"] not in ("passed", "failed"):
            continue
        error = float(r["error"])
        sigma = float(r["sigma"])
        case = f'{r["image"]} sigma {r["sigma"]} {r["border"]}'
        if key not in worst or error > worst[key][0]:
            worst[key] = (error, float(r["bound"]), case)
        for low, high in SIGMA_RANGES:
            if low <= sigma < high:
                rkey = (r["method"], r["format"], (low, high))
                if rkey not in worst_by_range or error > worst_by_range[rkey][0]:
                    worst_by_range[rkey] = (error, float(r["bound"]))

    methods = list(dict.fromkeys(r["method"] for r in rows))
    print("| method | format | ran | passed | failed | refused | worst error | its bound | where |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|")
    for method in methods:
        for fmt in ("f32", "rgba8"):
            t = totals[(method, fmt)]
            error, bound, case = worst.get((method, fmt), (float("nan"), float("nan"), "-"))
            ran = t["passed"] + t["failed"]
            print(f"| {method} | {fmt} | {ran} | {t['passed']} | {t['failed']} | {t['refused']} | "
                  f"{error:.3g} | {bound:.3g} | {case} |")
    print()
    print("Worst error per sigma range (F32 relative / RGBA8 levels):")
    print()
    print("| method | " + " | ".join(range_label(*r) for r in SIGMA_RANGES) + " |")
    print("|---|" + "---:|" * len(SIGMA_RANGES))
    for method in methods:
        cells = []
        for rng in SIGMA_RANGES:
            f32 = worst_by_range.get((method, "f32", rng))
            u8 = worst_by_range.get((method, "rgba8", rng))
            cells.append(f"{f32[0]:.2g} / {u8[0]:.3f}" if f32 and u8 else "-")
        print(f"| {method} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: summarise_gpu_accuracy.py GPU_TESTS_CSV")
    main(sys.argv[1])
