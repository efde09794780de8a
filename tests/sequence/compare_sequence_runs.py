#!/usr/bin/python3
"""Compares two gausslab-sequence runs of the same synthetic sky (the GPU's and the CPU's): each
one's shift error against the truth, the whitened noise and the target against the issue's
criteria, and the two against each other. Exit status 1 when a criterion fails.

usage: compare_sequence_runs.py GPU_OUT CPU_OUT --history N
"""
import argparse
import sys

import numpy as np


def rstd(a):
    return 1.4826 * np.median(np.abs(a - np.median(a)))


def summary(out, history):
    est = np.genfromtxt(f"{out}/shifts.csv", delimiter=",", names=True)
    true = np.genfromtxt(f"{out}/true_shifts.csv", delimiter=",", names=True)
    track = np.genfromtxt(f"{out}/target_track.csv", delimiter=",", names=True)
    w = np.load(f"{out}/whitened.npy", mmap_mode="r")
    rms = float(np.sqrt(np.mean((est["dx"] - true["dx"]) ** 2 + (est["dy"] - true["dy"]) ** 2)))
    noise = 0.2 * 0.005
    deviations = [rstd(np.asarray(w[t])) / noise for t in range(history, len(w))]
    target = []
    for t in range(history, len(w)):
        if track["inside"][t]:
            x, y = int(round(track["x"][t])), int(round(track["y"][t]))
            target.append(np.asarray(w[t][y - 1:y + 2, x - 1:x + 2]).max() / rstd(np.asarray(w[t])))
    return est, w, rms, max(deviations), min(target)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("gpu")
    p.add_argument("cpu")
    p.add_argument("--history", type=int, default=20)
    a = p.parse_args()
    ok = True
    results = {}
    for name, out in (("gpu", a.gpu), ("cpu", a.cpu)):
        est, w, rms, dev, target = summary(out, a.history)
        results[name] = (est, w)
        good = rms <= 0.05 and dev <= 1.3 and target >= 2.0
        ok &= good
        print(f"{name}: RMS shift error {rms:.4f} px (<= 0.05), whitened noise at most {dev:.3f} x (<= 1.3), "
              f"target at least {target:.2f} deviations (>= 2): {'ok' if good else 'FAIL'}")
    (eg, wg), (ec, wc) = results["gpu"], results["cpu"]
    shift = float(max(np.max(np.abs(eg["dx"] - ec["dx"])), np.max(np.abs(eg["dy"] - ec["dy"]))))
    whitened = float(max(np.max(np.abs(np.asarray(wg[t]) - np.asarray(wc[t]))) for t in range(len(wg))))
    same = shift <= 1e-6 and whitened <= 1e-5
    ok &= same
    print(f"GPU against CPU: shifts within {shift:.2e} px, whitened frames within {whitened:.2e} "
          f"(float rounding: 1e-5): {'ok' if same else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
