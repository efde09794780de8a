#!/usr/bin/env python3
"""Summarises the ncu logs of `scripts/gpu-check.sh ncu` (logs/ncu-METHOD-FORMAT.log) as a Markdown
table: one row per profiled kernel launch, with its time and DRAM / SM throughput.

usage: summarise_ncu.py LOG...    (prints Markdown on stdout)
"""
import re
import sys
from pathlib import Path

METRICS = {
    "gpu__time_duration.sum": "µs",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "DRAM % of peak",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed": "SM % of peak",
    "dram__bytes_read.sum": "DRAM read MB",
    "dram__bytes_write.sum": "DRAM write MB",
    "lts__t_sector_hit_rate.pct": "L2 hit %",
    "launch__registers_per_thread": "registers",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "warps active %",
}
# A kernel line: "  void (anonymous namespace)::Name<...>(args) (grid)x(block), Context ..."
KERNEL = re.compile(r"^\s{2}(?:void )?(?:\(anonymous namespace\)::|unnamed>::)?([A-Za-z_]\w*)(<.*?>)?\(.*\) \(\d+, \d+, \d+\)x\(\d+, \d+, \d+\)")
METRIC = re.compile(r"^\s+(\S+)\s+(\S+)\s+([\d.,]+)\s*$")
UNIT_TO_MB = {"byte": 1e-6, "Kbyte": 1e-3, "Mbyte": 1.0, "Gbyte": 1e3}
UNIT_TO_US = {"nsecond": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3}


def parse(path):
    rows, current = [], None
    for line in Path(path).read_text(errors="replace").splitlines():
        kernel = KERNEL.match(line)
        if kernel:
            current = {"kernel": kernel.group(1) + (kernel.group(2) or "")}
            rows.append(current)
            continue
        metric = METRIC.match(line)
        if current is not None and metric and metric.group(1) in METRICS:
            name, unit, value = metric.group(1), metric.group(2), float(metric.group(3).replace(",", ""))
            if name.startswith("dram__bytes"):
                value *= UNIT_TO_MB.get(unit, 1.0)
            elif name == "gpu__time_duration.sum":
                value *= UNIT_TO_US.get(unit, 1.0)
            current[name] = value
    return rows


def main(paths):
    if not paths:
        sys.exit(__doc__)
    print("| run | kernel | " + " | ".join(METRICS.values()) + " |")
    print("|---|---|" + "---:|" * len(METRICS))
    for path in paths:
        run = Path(path).stem.removeprefix("ncu-")
        rows = parse(path)
        if not rows:
            print(f"| {run} | (no kernel in the log: see {Path(path).name}) |" + " |" * len(METRICS))
        for row in rows:
            kernel = row["kernel"] if len(row["kernel"]) <= 70 else row["kernel"][:67] + "..."
            cells = [f"{row[m]:.4g}" if m in row else "–" for m in METRICS]
            print(f"| {run} | `{kernel}` | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
