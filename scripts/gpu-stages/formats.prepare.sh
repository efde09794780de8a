#!/usr/bin/env bash
# gpu-check.sh --prepare runs this: the baseline benchmark for the formats stage's old-against-new
# runs, when GAUSSLAB_BENCH_BASELINE names one (for example /work/gpu-baseline/gausslab-bench-97bc3df);
# otherwise nothing (the stage then skips those runs). It goes through prepare.sh like the other
# binaries, so its shared libraries travel too, as .gpu/bin/gausslab-bench-baseline.
set -euo pipefail
baseline=${GAUSSLAB_BENCH_BASELINE:-}
[ -n "$baseline" ] || exit 0
[ -x "$baseline" ] || { echo "GAUSSLAB_BENCH_BASELINE=$baseline is not an executable" >&2; exit 1; }
copy=$(mktemp -d)/gausslab-bench-baseline
cp -L "$baseline" "$copy"
bash ../shared/gpu/prepare.sh "$copy"
