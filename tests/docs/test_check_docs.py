#!/usr/bin/python3
"""check_docs.py finds what it should and nothing else: each case writes a small tree of Markdown (and
a source file) into a temporary folder, runs the checker on it and compares the problems it reports
with the expected ones. Usage: test_check_docs.py [--checker PATH]"""
import argparse
import os
import subprocess
import sys
import tempfile

CHECKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_docs.py")


def run(files, checker):
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            full = os.path.join(root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as f:
                f.write(text)
        out = subprocess.run([sys.executable, checker, "--root", root], capture_output=True, text=True)
        problems = [line for line in out.stdout.splitlines()
                    if line.split(":", 1)[0] in ("tables", "links", "numbers", "lengths", "references", "results")]
        return out.returncode, problems


TABLE = "| method | ms |\n|---|---:|\n| a | 1 |\n"

CASES = [
    # (name, files, expected problem fragments; an empty list means the tree must pass)
    ("a clean tree passes", {"README.md": "# T\n\n" + TABLE, "docs/a.md": "# A\n\n[up](../README.md)\n"}, []),
    ("a paragraph between the rows breaks the table",
     {"README.md": "# T\n\n" + TABLE + "\na paragraph\n| b | 2 |\n"}, ["tables: README.md:8: a table row"]),
    ("a line right under a table is one more row (GitHub's rule), a cell short",
     {"README.md": "# T\n\n" + TABLE + "a paragraph\n"}, ["tables: README.md:6: 1 cell under a header of 2"]),
    ("a row without its delimiter row is no table", {"README.md": "# T\n\n| a | b |\n| 1 | 2 |\n"},
     ["tables: README.md:3:", "tables: README.md:4:"]),
    ("a row with a cell more than its header", {"README.md": "# T\n\n" + TABLE + "| b | 2 | 3 |\n"},
     ["tables: README.md:6: 3 cells under a header of 2"]),
    ("a pipe in a fenced block is no table", {"README.md": "# T\n\n```\n| not | a table |\n```\n"}, []),
    ("a link to a missing file, image and anchor",
     {"README.md": "# T\n\n## Hello, world σ\n\n[a](docs/none.md) ![i](x.png) <img src=\"y.png\">\n"
                   "[b](#nope) [c](#hello-world-σ) [d](docs/a.md#part) [e](docs/a.md#missing)\n",
      "docs/a.md": "# A\n\n## Part\n"},
     ["docs/none.md does not exist", "x.png does not exist", "y.png does not exist",
      "README.md has no heading or id '#nope'", "docs/a.md has no heading or id '#missing'"]),
    ("a pending page may be linked before it lands", {"README.md": "# T\n\n[b](docs/batch.md)\n"}, []),
    ("a source comment naming a docs/ path that is gone",
     {"README.md": "# T\n", "core/x.cpp": "// see docs/results/old/README.md\n// and docs/README.md\n",
      "docs/README.md": "# D\n"}, ["references: core/x.cpp:1: names docs/results/old/README.md"]),
    ("a measured figure in three files", {f"docs/{n}.md": f"# {n}\n\nIt took 0.0942 ms.\n" for n in "abc"},
     ["numbers: '0.0942 ms' is written in 3 files"]),
    ("a measured figure in two files is a quote", {f"docs/{n}.md": f"# {n}\n\nIt took 0.0942 ms.\n" for n in "ab"},
     []),
    ("the same number with and without its unit, and in a table under its unit",
     {"docs/a.md": "# A\n\nCopy bandwidth 2973 GB/s.\n", "docs/b.md": "# B\n\n(H100: 2973)\n",
      "docs/c.md": "# C\n\n| run | GB/s |\n|---|---:|\n| one | 2973 |\n"},
     ["numbers: '2973 GB/s' is written in 3 files"]),
    ("one number, two facts: different units", {"docs/a.md": "# A\n\n51.1 µs\n", "docs/b.md": "# B\n\n51.1 µs\n",
                                                 "docs/c.md": "# C\n\n51.1 M instructions\n"}, []),
    ("sizes, dates, versions, sigmas and design sizes are constants",
     {f"docs/{n}.md": f"# {n}\n\n4096×4096 at σ 0.667 on 2026-11-29, driver 580.159.04, CUDA 13.0, 4096², "
                      f"41×41, 47.6 KiB and 64 registers.\n" for n in "abcd"}, []),
    ("a share is one fact per method", {"docs/methods/separable_int8.md": "# s\n",
                                         "docs/a.md": "# A\n\n`separable_int8` 37 %\n",
                                         "docs/b.md": "# B\n\n| m | % |\n|---|---:|\n| `separable_int8` | 37 % |\n",
                                         "docs/c.md": "# C\n\nseparable_int8 reaches 37 %.\n"},
     ["numbers: '37 % (separable_int8)' is written in 3 files"]),
    ("the same share of different methods is not repeated",
     {"docs/methods/multires.md": "# m\n\nissue 37 %\n", "docs/methods/fft.md": "# f\n\n37 % busy\n",
      "docs/c.md": "# C\n\n`separable_int8` 37 %\n"}, []),
    ("a benchmark's own report is data, not prose",
     {f"docs/results/{n}/results.md": "# gausslab-bench results\n\n0.0942 ms\n" for n in "abc"}, []),
    ("one flat results folder per GPU kind",
     {"docs/results/README.md": "# R\n", "docs/results/h200/results.csv": "a\n",
      "docs/results/h200/2026-12-01/results.csv": "a\n", "docs/results/results.csv": "a\n"},
     ["results: docs/results/h200/2026-12-01/results.csv: one run per GPU kind",
      "results: docs/results/results.csv: a run's file belongs"]),
    ("README.md at most 300 lines", {"README.md": "# T\n" + "line\n" * 300}, ["lengths: README.md: 301 lines"]),
    ("the README's stand-in is checked in its place, its links from the root",
     {"README.md": "# old\n" + "line\n" * 400 + "[gone](docs/gone.md)\n",
      "docs/_readme_next.md": "# new\n\n[a](docs/a.md)\n", "docs/a.md": "# A\n"}, []),
    ("a stand-in's broken link is reported",
     {"README.md": "# old\n", "docs/_readme_next.md": "# new\n\n[a](docs/b.md)\n"},
     ["links: docs/_readme_next.md:3: link to docs/b.md: docs/b.md does not exist"]),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--checker", default=CHECKER)
    a = parser.parse_args()
    failures = 0
    for name, files, expected in CASES:
        code, problems = run(files, a.checker)
        missing = [e for e in expected if not any(e in p for p in problems)]
        unexpected = [p for p in problems if not any(e in p for e in expected)]
        wrong_status = (code != 0) != bool(expected)
        if missing or unexpected or wrong_status:
            failures += 1
            print(f"FAIL {name}: exit {code}")
            for e in missing:
                print(f"  expected, not reported: {e}")
            for p in unexpected:
                print(f"  reported, not expected: {p}")
        else:
            print(f"ok   {name}")
    print(f"{len(CASES) - failures} of {len(CASES)} cases as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
