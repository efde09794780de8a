#!/usr/bin/python3
"""Charts of a gausslab-bench run, from DIR/results.json into DIR:

  time_vs_size_7x7_f32.png, time_vs_size_41x41_f32.png, ...   the published papers' figures: time
      against image size, one line per method, log time axis (one chart per kernel and format)
  time_vs_size_sigma2_f32.png, ...                            the same for rows given by sigma
  time_vs_sigma_4096x4096_rgba8.png, time_vs_sigma_8192x...   the crossover plots (--sigma-sweep):
      time against sigma on one image size and format (rgba8, rgba16, rgba32f, f32), both axes log
  time_vs_pixels_sigma2_rgba8.png, ..._sigma32_...             time against the pixel count (the
      sweep's scaling rows), both axes log
Every chart draws the copy-bandwidth limit (one read and one write of the image at the
device-to-device copy bandwidth of the same run) as a dashed black line.

gausslab-bench runs this at the end; by hand:  python3 bench/plot_results.py DIR [--overwrite]
Needs matplotlib (Debian: python3-matplotlib). Existing charts are never replaced without --overwrite.
"""
import argparse
import json
import os
import sys

# The same method keeps the same colour and marker in every chart.
STYLE_CYCLE = [("tab:blue", "o"), ("tab:orange", "s"), ("tab:green", "^"), ("tab:red", "v"),
               ("tab:purple", "D"), ("tab:brown", "P"), ("tab:pink", "X"), ("tab:gray", "*"),
               ("tab:olive", "<"), ("tab:cyan", ">"), ("navy", "h"), ("darkgoldenrod", "d"),
               ("teal", "p"), ("crimson", "8")]


def bytes_per_pixel(fmt):
    """A pixel's bytes from the format's name (pixel_format.hpp): "rgba16" 8, "rgba32f" 16, "f32" 4."""
    channels = {"grey": 1, "greya": 2, "rgb": 3, "rgba": 4}
    if fmt == "f32":
        return 4
    for bits, size in (("32f", 4), ("16f", 2), ("16", 2), ("8", 1)):
        if fmt.endswith(bits) and fmt[:-len(bits)] in channels:
            return channels[fmt[:-len(bits)]] * size
    raise ValueError(f"unknown pixel format '{fmt}'")


def copy_limit_ms(results, width, height, fmt):
    """One read and one write of the image at the run's copy bandwidth, in ms (None if unknown)."""
    gbs = results.get("copy_bandwidth_gbs")
    if not gbs:
        return None
    return 2.0 * width * height * bytes_per_pixel(fmt) / (gbs * 1e9) * 1e3


def draw_copy_limit(axes, results, xs, sizes, fmt):
    """The copy-bandwidth limit at each x (sizes: the (width, height) at each x)."""
    limits = [copy_limit_ms(results, w, h, fmt) for (w, h) in sizes]
    if None in limits:
        return
    label = f"copy-bandwidth limit ({results['copy_bandwidth_gbs']:.0f} GB/s)"
    if len(set(limits)) == 1:
        axes.axhline(limits[0], color="black", linestyle="--", linewidth=1.2, label=label)
    else:
        axes.plot(xs, limits, color="black", linestyle="--", linewidth=1.2, label=label)


def load_results(path):
    with open(path, encoding="utf-8") as file:
        results = json.load(file)
    if "rows" not in results:
        raise ValueError(f"{path} has no 'rows': not a gausslab-bench results.json")
    return results


def device_label(results):
    cuda = results.get("cuda", {})
    if cuda.get("available"):
        return cuda.get("device_name", "GPU")
    return "no CUDA device (CPU methods only)"


def method_styles(rows):
    styles = {}
    for row in rows:
        if row["method"] not in styles:
            styles[row["method"]] = STYLE_CYCLE[len(styles) % len(STYLE_CYCLE)]
    return styles


def ok_rows(rows, **match):
    return [r for r in rows if r["status"] == "ok" and r["ms_median"] is not None
            and all(r.get(k) == v for k, v in match.items())]


def plain_log_axis(matplotlib, axis):
    """Log axis with tick labels as plain numbers (0.1, 2, 50) instead of powers of ten."""
    axis.set_major_locator(matplotlib.ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda value, _: f"{value:g}"))
    axis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def draw_lines(axes, rows, x_key, styles):
    """One line per method: the median, with the min–p90 spread as error bars. Returns the count."""
    methods = []
    for row in rows:
        if row["method"] not in methods:
            methods.append(row["method"])
    for method in methods:
        points = sorted((r[x_key], r["ms_median"], r["ms_min"], r["ms_p90"]) for r in rows if r["method"] == method)
        xs = [p[0] for p in points]
        medians = [p[1] for p in points]
        below = [max(p[1] - p[2], 0) for p in points]
        above = [max(p[3] - p[1], 0) for p in points]
        colour, marker = styles[method]
        backend = next(r["backend"] for r in rows if r["method"] == method)
        axes.errorbar(xs, medians, yerr=[below, above], color=colour, marker=marker, capsize=3,
                      label=f"{method} ({backend})")
    return len(methods)


def save(figure, path, overwrite, written):
    if os.path.exists(path) and not overwrite:
        raise FileExistsError(f"{path} exists; plot_results.py never replaces charts without --overwrite")
    temporary = path + ".tmp.png"
    figure.savefig(temporary, dpi=120)
    os.replace(temporary, path)
    written.append(path)


def plot_time_vs_size(matplotlib, plt, results, out_dir, overwrite, styles, written):
    rows = [r for r in results["rows"] if r["section"] == "main"]
    groups = []  # (format, kernel or "", sigma or None)
    for row in rows:
        key = (row["format"], row["kernel"], None if row["kernel"] else row["sigma"])
        if key not in groups:
            groups.append(key)
    for fmt, kernel, sigma in groups:
        match = {"section": "main", "format": fmt, "kernel": kernel}
        if sigma is not None:
            match["sigma"] = sigma
        selected = ok_rows(results["rows"], **match)
        if not selected:
            continue
        figure, axes = plt.subplots(figsize=(8, 5.5))
        draw_lines(axes, selected, "width", styles)
        sides = sorted({r["width"] for r in selected})
        draw_copy_limit(axes, results, sides, [(side, side) for side in sides], fmt)
        axes.set_xticks(sides)
        axes.set_xticklabels([f"{s}²" for s in sides])
        axes.set_yscale("log")
        plain_log_axis(matplotlib, axes.yaxis)
        axes.set_xlabel("image size (pixels)")
        axes.set_ylabel("time per filter, ms (median; bars: min to p90)")
        radius = selected[0]["radius"]
        what = (f"{kernel} kernel (radius {radius}, σ = {selected[0]['sigma']:.3g})" if kernel
                else f"σ = {sigma:g} (radius {radius})")
        axes.set_title(f"Gaussian blur, {what}, {fmt}\n{device_label(results)}")
        axes.grid(True, which="both", alpha=0.3)
        axes.legend(fontsize=8)
        figure.tight_layout()
        name = f"time_vs_size_{kernel}_{fmt}.png" if kernel else f"time_vs_size_sigma{sigma:g}_{fmt}.png"
        save(figure, os.path.join(out_dir, name), overwrite, written)
        plt.close(figure)


def plot_time_vs_sigma(matplotlib, plt, results, out_dir, overwrite, styles, written):
    selected = ok_rows(results["rows"], section="sigma_sweep")
    for fmt in sorted({r["format"] for r in selected}):
        for side in sorted({(r["width"], r["height"]) for r in selected if r["format"] == fmt}):
            rows = [r for r in selected if r["format"] == fmt and (r["width"], r["height"]) == side]
            figure, axes = plt.subplots(figsize=(8, 5.5))
            draw_lines(axes, rows, "sigma", styles)
            draw_copy_limit(axes, results, [min(r["sigma"] for r in rows)], [side], fmt)
            axes.set_xscale("log")
            axes.set_yscale("log")
            plain_log_axis(matplotlib, axes.yaxis)
            sigmas = sorted({r["sigma"] for r in rows})
            axes.set_xticks(sigmas)
            axes.set_xticklabels([f"{s:g}" for s in sigmas])
            axes.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
            axes.set_xlabel("sigma (pixels; radius = floor(truncate·σ + 0.5))")
            axes.set_ylabel("time per filter, ms (median; bars: min to p90)")
            axes.set_title(f"Time against sigma, {side[0]}×{side[1]} {fmt}\n{device_label(results)}")
            axes.grid(True, which="both", alpha=0.3)
            axes.legend(fontsize=8)
            figure.tight_layout()
            name = f"time_vs_sigma_{side[0]}x{side[1]}_{fmt}.png"
            save(figure, os.path.join(out_dir, name), overwrite, written)
            plt.close(figure)


def plot_time_vs_pixels(matplotlib, plt, results, out_dir, overwrite, styles, written):
    selected = ok_rows(results["rows"], section="scaling")
    for fmt in sorted({r["format"] for r in selected}):
        for sigma in sorted({r["sigma"] for r in selected if r["format"] == fmt}):
            rows = [dict(r, pixels=r["width"] * r["height"]) for r in selected
                    if r["format"] == fmt and r["sigma"] == sigma]
            figure, axes = plt.subplots(figsize=(8, 5.5))
            draw_lines(axes, rows, "pixels", styles)
            sizes = sorted({(r["width"], r["height"]) for r in rows}, key=lambda s: s[0] * s[1])
            draw_copy_limit(axes, results, [w * h for (w, h) in sizes], sizes, fmt)
            axes.set_xscale("log")
            axes.set_yscale("log")
            plain_log_axis(matplotlib, axes.yaxis)
            axes.set_xticks([w * h for (w, h) in sizes])
            axes.set_xticklabels([f"{w}²" if w == h else f"{w}×{h}" for (w, h) in sizes])
            axes.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
            axes.set_xlabel("image size (pixels, log scale: a line parallel to the copy limit is linear)")
            axes.set_ylabel("time per filter, ms (median; bars: min to p90)")
            axes.set_title(f"Time against pixels, σ = {sigma:g}, {fmt}\n{device_label(results)}")
            axes.grid(True, which="both", alpha=0.3)
            axes.legend(fontsize=8)
            figure.tight_layout()
            save(figure, os.path.join(out_dir, f"time_vs_pixels_sigma{sigma:g}_{fmt}.png"), overwrite, written)
            plt.close(figure)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dir", help="the gausslab-bench --out folder (charts are written there too)")
    parser.add_argument("--results", help="results.json to read (default DIR/results.json)")
    parser.add_argument("--overwrite", action="store_true", help="replace existing charts")
    args = parser.parse_args()

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker  # noqa: F401 (used through the matplotlib name)
    except ImportError as error:
        print(f"plot_results.py: matplotlib is missing ({error}); install python3-matplotlib", file=sys.stderr)
        return 2
    results_path = args.results or os.path.join(args.dir, "results.json")
    try:
        results = load_results(results_path)
    except (OSError, ValueError) as error:
        print(f"plot_results.py: cannot read {results_path}: {error}", file=sys.stderr)
        return 2
    if not os.path.isdir(args.dir):
        print(f"plot_results.py: {args.dir} is not a folder", file=sys.stderr)
        return 2

    styles = method_styles(results["rows"])
    written = []
    try:
        plot_time_vs_size(matplotlib, plt, results, args.dir, args.overwrite, styles, written)
        plot_time_vs_sigma(matplotlib, plt, results, args.dir, args.overwrite, styles, written)
        plot_time_vs_pixels(matplotlib, plt, results, args.dir, args.overwrite, styles, written)
    except FileExistsError as error:
        print(f"plot_results.py: {error}", file=sys.stderr)
        return 2
    if not written:
        print("plot_results.py: no measured rows to chart (every configuration was skipped?)", file=sys.stderr)
        return 1
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
