#!/usr/bin/python3
"""gausslab-bench smoke test on tiny images (runs on a CPU-only machine in seconds):
results.csv, results.json and results.md exist, parse and agree; every configuration has a row;
the CPU methods were measured with sane numbers and accuracy within their bound; GPU methods
without a device are skipped with the reason; the chart script made its PNGs; a second run into
the same folder is refused and leaves the results untouched; bad options exit 2; a tiny --batch
run names the original system's weights and writes the same bytes every way it runs; a run that
measures nothing (every configuration skipped, GPU methods alone without a device, --batch-configs
that cannot run here) exits 1 saying so.

usage: check_bench_smoke.py --bench PATH/gausslab-bench [--plot-script bench/plot_results.py]
Exit status 0 passed, 1 failed. Charts are checked only where matplotlib imports.
"""
import argparse
import csv
import hashlib
import json
import os
import subprocess
import sys
import tempfile

from check_kit import Checks

HERE = os.path.dirname(os.path.abspath(__file__))
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

SIZES = [40, 100]
KERNELS = [7, 41]
SIGMAS = [1.5]
FORMATS = ["f32", "rgba8"]
SWEEP_SIZE = 96
SWEEP_SIGMAS = [0.5, 3]
SWEEP_FORMATS = ["rgba8", "rgba16"]  # each sweep format its own rows, best-method table and chart
SCALING_SIZES = [32, 64]
SCALING_METHODS = ["auto", "separable_fused", "multires"]  # the bench's default scaling methods
SCALING_SIGMAS = [2, 32]
REQUIRED_COLUMNS = ["section", "method", "backend", "format", "width", "height", "kernel", "sigma", "radius", "taps",
                    "status", "note", "runs", "ms_median", "ms_min", "ms_p90", "mpix_per_s", "bytes_per_pixel",
                    "mb_moved", "gb_per_s",
                    "pct_of_copy_bandwidth", "end_to_end_ms", "max_rel_error", "max_abs_error", "psnr_db",
                    "within_bound"]


def has_matplotlib():
    try:
        import matplotlib  # noqa: F401
        return True
    except ImportError:
        return False


def digest(path):
    with open(path, "rb") as file:
        return hashlib.sha256(file.read()).hexdigest()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", required=True, help="the gausslab-bench executable")
    parser.add_argument("--plot-script", default=os.path.join(HERE, "..", "..", "bench", "plot_results.py"))
    args = parser.parse_args()
    c = Checks()

    with tempfile.TemporaryDirectory(prefix="gausslab-bench-smoke-") as work:
        out = os.path.join(work, "results")
        env = dict(os.environ, GAUSSLAB_PLOT_SCRIPT=os.path.abspath(args.plot_script))
        command = [args.bench, "--sizes", ",".join(map(str, SIZES)), "--kernels", ",".join(map(str, KERNELS)),
                   "--sigmas", ",".join(map(str, SIGMAS)), "--formats", ",".join(FORMATS), "--sigma-sweep",
                   "--sweep-size", str(SWEEP_SIZE), "--sweep-sigmas", ",".join(map(str, SWEEP_SIGMAS)),
                   "--sweep-formats", ",".join(SWEEP_FORMATS),
                   "--scaling-sizes", ",".join(map(str, SCALING_SIZES)),
                   "--quick", "--out", out]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
        c.check("bench exits 0", done.returncode == 0, f"exit {done.returncode}\n{done.stderr[-2000:]}")
        if done.returncode != 0:
            return 1
        c.check("progress lines on stderr", "[" in done.stderr and "cpu_separable" in done.stderr, done.stderr[:500])
        c.check("total time printed", "total time" in done.stderr, done.stderr[-500:])

        c.check("the partial CSV is gone after a complete run", not os.path.exists(os.path.join(out, "results.partial.csv")),
                "results.partial.csv is still there")

        # results.csv
        with open(os.path.join(out, "results.csv"), newline="", encoding="utf-8") as file:
            rows = list(csv.DictReader(file))
        columns = list(rows[0].keys()) if rows else []
        missing = [col for col in REQUIRED_COLUMNS if col not in columns]
        c.check("CSV has every column", not missing, f"missing {missing}")
        with open(os.path.join(out, "results.json"), encoding="utf-8") as file:
            results = json.load(file)
        listed = subprocess.run([args.bench, "--help"], capture_output=True, text=True).stdout
        methods = listed.split("--methods ID,...       default all: ")[1].splitlines()[0].split(", ")
        per_image = len(KERNELS) + len(SIGMAS)
        scaling = len([m for m in SCALING_METHODS if m in methods]) * len(SCALING_SIGMAS) * len(SCALING_SIZES)
        expected = len(methods) * (len(FORMATS) * len(SIZES) * per_image + len(SWEEP_FORMATS) * len(SWEEP_SIGMAS)) + \
            scaling
        c.check("one CSV row per configuration", len(rows) == expected, f"{len(rows)} rows, expected {expected}")
        c.check("JSON rows equal CSV rows", len(results["rows"]) == len(rows)
                and all(j["method"] == r["method"] and j["status"] == r["status"] for j, r in zip(results["rows"], rows)),
                "the JSON and CSV rows differ")

        cpu_rows = [r for r in rows if r["backend"] == "cpu"]
        c.check("CPU methods measured", cpu_rows and all(r["status"] == "ok" for r in cpu_rows),
                str([(r["method"], r["status"], r["note"]) for r in cpu_rows if r["status"] != "ok"][:3]))
        sane = all(0 < float(r["ms_min"]) <= float(r["ms_median"]) <= float(r["ms_p90"]) and int(r["runs"]) >= 1
                   and float(r["mpix_per_s"]) > 0 for r in cpu_rows if r["status"] == "ok")
        c.check("CPU timings ordered min <= median <= p90, runs >= 1", sane, "a row breaks min <= median <= p90")
        c.check("CPU accuracy within the bound", all(r["within_bound"] == "yes" for r in cpu_rows),
                str([(r["method"], r["format"], r["width"], r["sigma"], r["max_rel_error"], r["max_abs_error"])
                     for r in cpu_rows if r["within_bound"] != "yes"][:3]))
        c.check("f32 CPU relative error at float rounding", all(float(r["max_rel_error"]) < 1e-5 for r in cpu_rows
                                                                if r["format"] == "f32"), "an f32 error is >= 1e-5")
        kernel_rows = [r for r in rows if r["kernel"] == "41x41"]
        c.check("41x41 means radius 20, sigma 20/3", kernel_rows and all(
            r["radius"] == "20" and abs(float(r["sigma"]) - 20 / 3) < 1e-4 and r["taps"] == "41" for r in kernel_rows),
            str(kernel_rows[:1]))
        sweep = [r for r in rows if r["section"] == "sigma_sweep"]
        c.check("sweep rows in every sweep format at the sweep size", sweep and all(
            r["format"] in SWEEP_FORMATS and r["width"] == str(SWEEP_SIZE) for r in sweep)
            and {r["format"] for r in sweep} == set(SWEEP_FORMATS), str(sweep[:1]))
        c.check("bytes moved from the format's own pixel size", all(
            abs(float(r["mb_moved"]) - 2 * int(r["width"]) * int(r["height"]) * int(r["bytes_per_pixel"]) / 1e6) < 1e-3
            and int(r["bytes_per_pixel"]) == {"rgba8": 4, "rgba16": 8, "f32": 4}[r["format"]]
            for r in rows if r["section"] in ("main", "sigma_sweep")), str(rows[:1]))
        scaling_rows = [r for r in rows if r["section"] == "scaling"]
        c.check("scaling rows at every scaling size and sigma", sorted({(r["width"], float(r["sigma"]))
                for r in scaling_rows}) == sorted((str(w), float(s)) for w in SCALING_SIZES for s in SCALING_SIGMAS),
                str(scaling_rows[:1]))
        c.check("auto's rows name the method it chose", all(r["note"].startswith("auto chose ")
                for r in rows if r["method"] == "auto" and r["status"] == "ok"), "an ok auto row without its choice")
        summary_path = os.path.join(out, "results.md")
        with open(summary_path, encoding="utf-8") as file:
            summary = file.read()
            c.check("results.md has the best method per sigma for each sweep format", all(
                f"## Best method per sigma ({f}," in summary for f in SWEEP_FORMATS), "no best-method table")

        cuda = results["cuda"]
        gpu_rows = [r for r in rows if r["backend"] == "cuda"]
        if not cuda["available"]:
            c.check("GPU rows skipped with the reason", gpu_rows and all(
                r["status"] == "skipped" and r["note"] == cuda["reason"] for r in gpu_rows), str(gpu_rows[:1]))
            c.check("copy bandwidth absent without a device", results["copy_bandwidth_gbs"] is None,
                    str(results["copy_bandwidth_gbs"]))
        else:
            c.check("GPU rows ok or skipped/failed with a note", all(
                r["status"] == "ok" or r["note"] for r in gpu_rows), str(gpu_rows[:1]))

        header_keys = ["date_utc", "command_line", "git_commit", "host", "cuda", "copy_bandwidth_gbs", "timing_notes",
                       "total_seconds"]
        c.check("JSON header complete", all(k in results for k in header_keys),
                f"missing {[k for k in header_keys if k not in results]}")
        c.check("JSON names the CPU", results["host"]["cpu_threads"] >= 1 and results["host"]["cpu_model"], str(results["host"]))
        c.check("JSON keeps the command line", "--sigma-sweep" in results["command_line"], results["command_line"])
        c.check("timing notes say how runs are chosen", any("at least" in n and "runs" in n for n in results["timing_notes"])
                and any("sigma = radius/3" in n for n in results["timing_notes"]), str(results["timing_notes"]))

        with open(os.path.join(out, "results.md"), encoding="utf-8") as file:
            markdown = file.read()
        c.check("Markdown has the tables", "| method | backend |" in markdown and "## Time against sigma" in markdown,
                markdown[:300])
        c.check("Markdown has the speed-up section", "Speed-up over the CPU" in markdown, markdown[-300:])

        charts = sorted(n for n in os.listdir(out) if n.endswith(".png"))
        if has_matplotlib():
            wanted = [f"time_vs_size_{k}x{k}_{f}.png" for k in KERNELS for f in FORMATS] + \
                     [f"time_vs_sigma_{SWEEP_SIZE}x{SWEEP_SIZE}_{f}.png" for f in SWEEP_FORMATS]
            c.check("charts made", all(w in charts for w in wanted), f"have {charts}, want {wanted}")
            valid = True
            for name in charts:
                with open(os.path.join(out, name), "rb") as file:
                    valid = valid and file.read(8) == PNG_SIGNATURE and os.path.getsize(os.path.join(out, name)) > 5000
            c.check("charts are PNG images", valid and charts, str(charts))
        else:
            print("--  matplotlib is not importable here: the charts are not checked")

        # A second run into the same folder is refused before any work, and changes nothing.
        before = {n: digest(os.path.join(out, n)) for n in os.listdir(out)}
        again = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
        c.check("second run into the same folder refused", again.returncode == 2 and "--overwrite" in again.stderr,
                f"exit {again.returncode}: {again.stderr[-300:]}")
        after = {n: digest(os.path.join(out, n)) for n in os.listdir(out)}
        c.check("results untouched by the refused run", before == after, "a file changed")

        for name, bad in (("unknown method", ["--methods", "nosuch"]), ("even kernel", ["--kernels", "8"]),
                          ("sigma out of range", ["--sigmas", "0"]), ("unknown option", ["--frobnicate"]),
                          ("bad format", ["--formats", "rgb12"])):
            bad_run = subprocess.run([args.bench, *bad, "--out", os.path.join(work, "bad")], capture_output=True,
                                     text=True, timeout=60)
            c.check(f"bad option ({name}) exits 2 with a message", bad_run.returncode == 2 and bad_run.stderr.strip(),
                    f"exit {bad_run.returncode}: {bad_run.stderr.strip()}")
        c.check("bad options created no output folder", not os.path.exists(os.path.join(work, "bad")), "it exists")

        # --batch, tiny: the original system's workload says what it filters with (its 5×5 table is a
        # Gaussian of sigma 1.5, radius 2, zero border), and its ways of running agree byte for byte.
        batch_out = os.path.join(work, "batch")
        batch = subprocess.run([args.bench, "--batch", "--batch-images", "2", "--batch-size", "64x48",
                                "--batch-configs", "cpu-1-thread,cpu-openmp,cpu-pool", "--out", batch_out],
                               capture_output=True, text=True, timeout=300)
        c.check("--batch exits 0 and writes batch.md", batch.returncode == 0 and
                os.path.exists(os.path.join(batch_out, "batch.md")), f"exit {batch.returncode}: {batch.stderr[-800:]}")
        c.check("--batch: the original's weights, said so",
                "5×5 Gaussian (sigma 1.5, radius 2): the original system's weights, border constant (zero" in batch.stdout,
                batch.stdout[:1200])
        c.check("--batch: every way of running wrote the same bytes",
                "Identical outputs (byte for byte): cpu-1-thread = cpu-openmp = cpu-pool" in batch.stdout,
                batch.stdout[-600:])

        # Nothing measured is not a success. Every configuration skipped (a CPU cap below any run): exit 1,
        # saying so, the results files kept with each reason.
        capped_out = os.path.join(work, "capped")
        capped = subprocess.run([args.bench, "--sizes", "40", "--kernels", "7", "--formats", "f32", "--methods",
                                 "cpu_separable", "--cpu-cap-seconds", "1e-9", "--quick", "--no-plot", "--out",
                                 capped_out], capture_output=True, text=True, timeout=300)
        c.check("every configuration skipped: exit 1, 'nothing was measured' with the reason",
                capped.returncode == 1 and "nothing was measured" in capped.stderr and "--cpu-cap-seconds" in capped.stderr
                and os.path.exists(os.path.join(capped_out, "results.md")),
                f"exit {capped.returncode}: {capped.stderr[-600:]}")
        if not cuda["available"]:  # GPU methods alone on a machine without a device: refused before any work
            gpu_out = os.path.join(work, "gpu-only")
            gpu_only = subprocess.run([args.bench, "--sizes", "40", "--kernels", "7", "--formats", "f32", "--methods",
                                       "separable_shared", "--quick", "--no-plot", "--out", gpu_out],
                                      capture_output=True, text=True, timeout=300)
            c.check("GPU methods alone without a device: exit 1, 'nothing to measure here', no folder made",
                    gpu_only.returncode == 1 and "nothing to measure here" in gpu_only.stderr
                    and "--methods cpu_separable" in gpu_only.stderr and not os.path.exists(gpu_out),
                    f"exit {gpu_only.returncode}: {gpu_only.stderr[-600:]}")
        lone_out = os.path.join(work, "batch-mpi-alone")
        lone = subprocess.run([args.bench, "--batch", "--batch-images", "2", "--batch-size", "64x48", "--batch-configs",
                               "mpi-files", "--out", lone_out], capture_output=True, text=True, timeout=300)
        c.check("--batch-configs mpi-files without mpirun: exit 1, 'nothing to measure here' and why, no folder made",
                lone.returncode == 1 and "nothing to measure here" in lone.stderr and "runs only under mpirun" in lone.stderr
                and not os.path.exists(lone_out), f"exit {lone.returncode}: {lone.stderr[-600:]}")
        some_out = os.path.join(work, "batch-some")
        some = subprocess.run([args.bench, "--batch", "--batch-images", "2", "--batch-size", "64x48", "--batch-configs",
                               "cpu-pool,mpi-rows", "--out", some_out], capture_output=True, text=True, timeout=300)
        c.check("--batch-configs cpu-pool,mpi-rows alone: cpu-pool measured (exit 0), mpi-rows named as not run here",
                some.returncode == 0 and "not run here: mpi-rows" in some.stderr
                and "Asked for and not run here: mpi-rows" in some.stdout, f"exit {some.returncode}: {some.stderr[-600:]}")

        if c.failures:
            print("the bench's stderr, for the diagnosis:\n" + done.stderr[-4000:])
    return c.summary()


if __name__ == "__main__":
    sys.exit(main())
