#!/usr/bin/env bash
# The long fuzz runs (docs/fuzzing.md): each libFuzzer target for SECONDS (default 1800), at most
# TWO at a time, at nice 19, starting from the repository's seeds and regressions. New inputs go to
# WORK/<target>/corpus; a crash, hang (> 10 s), leak or allocation over 256 MiB stops that target
# and its input is kept in WORK/<target>/ (turn it into a file in fuzz/regressions/<target>/).
# At the end, WORK/summary.md has one line per target: seconds, executions, coverage, result.
#
# usage: scripts/fuzz-long.sh [--seconds S] [--parallel N] [--work DIR] [--bin DIR] [TARGET...]
#   --bin DIR   where the fuzz targets are (default build/fuzz-build, made by the normal build
#               when clang-14 and libclang-rt-14-dev are installed)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=1800 parallel=2 work=/tmp/gausslab-fuzz-long bin=$root/build/fuzz-build
targets=()
while [ $# -gt 0 ]; do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --parallel) parallel=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_image_load fuzz_image_codecs fuzz_filter_args fuzz_bench_args fuzz_viewer_args fuzz_npy fuzz_sequence_args)
mkdir -p "$work"

seeds_of() {
  case $1 in
    fuzz_image_load) echo "$root/tests/data/formats $root/tests/data/malformed" ;;
    *) echo "$root/fuzz/corpus/$1" ;;
  esac
}
max_len_of() {
  case $1 in fuzz_image_*) echo 65536 ;; *) echo 4096 ;; esac
}

run_one() {
  local target=$1 dir=$work/$1
  mkdir -p "$dir/corpus"
  # shellcheck disable=SC2046
  local status=0
  nice -n 19 "$bin/$target" -max_total_time="$seconds" -timeout=10 -malloc_limit_mb=256 -rss_limit_mb=2048 \
    -max_len="$(max_len_of "$target")" -print_final_stats=1 -artifact_prefix="$dir/" \
    "$dir/corpus" "$root/fuzz/regressions/$target" $(seeds_of "$target") > "$dir/log" 2>&1 || status=$?
  local runs cov result
  runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$dir/log" | tail -1 | awk '{print $2}' || true)
  cov=$(grep -oE '(DONE|pulse|NEW|REDUCE) +cov: [0-9]+' "$dir/log" | tail -1 | awk '{print $NF}' || true)
  if [ $status -eq 0 ]; then
    result="no crash, hang, leak or over-limit allocation"
  else
    result="FAILED (exit $status): $(grep -m1 -E 'ERROR|SUMMARY' "$dir/log" | cut -c1-160 || true); input: $(ls "$dir" | grep -E '^(crash|leak|timeout|oom|slow-unit)-' | head -1 || true)"
  fi
  echo "| $target | $seconds | ${runs:-?} | ${cov:-?} | $result |" > "$dir/summary"
}

active=0
for target in "${targets[@]}"; do
  [ -x "$bin/$target" ] || { echo "fuzz-long: $bin/$target not found; build first" >&2; exit 2; }
  echo "fuzz-long: $target for $seconds s ($(date +%H:%M))"
  run_one "$target" &
  active=$((active + 1))
  if [ $active -ge "$parallel" ]; then
    wait -n || true
    active=$((active - 1))
  fi
done
wait || true

{
  echo "| target | seconds | executions | coverage (edges) | result |"
  echo "|---|---:|---:|---:|---|"
  for target in "${targets[@]}"; do cat "$work/$target/summary"; done
} > "$work/summary.md"
cat "$work/summary.md"
