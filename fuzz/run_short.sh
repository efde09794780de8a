#!/usr/bin/env bash
# The short CI run of one fuzz target: every file of the regression and seed folders, then RUNS
# mutations from a fixed seed (so the run does not depend on timing). New inputs go to a scratch
# folder, never into the repository; a crash, a leak, a hang over 10 s or an allocation over
# 256 MiB fails the run, and what triggered it is kept in $GAUSSLAB_FUZZ_ARTIFACTS (default
# /tmp/gausslab-fuzz-artifacts) to become a regression file (fuzz/regressions/TARGET/).
# usage: run_short.sh TARGET RUNS FOLDER...
set -uo pipefail
target=$1 runs=$2
shift 2
scratch=$(mktemp -d /tmp/gausslab-fuzz-XXXXXX)
mkdir "$scratch/corpus-new"
trap 'rm -rf "$scratch"' EXIT
artifacts=${GAUSSLAB_FUZZ_ARTIFACTS:-/tmp/gausslab-fuzz-artifacts}
mkdir -p "$artifacts"
folders=()
for folder in "$@"; do [ -d "$folder" ] && folders+=("$folder"); done
"$target" -runs="$runs" -seed=1 -timeout=10 -malloc_limit_mb=256 -rss_limit_mb=2048 -max_len=65536 \
  -print_final_stats=1 -artifact_prefix="$artifacts/$(basename "$target")-" "$scratch/corpus-new" "${folders[@]}" \
  > "$scratch/log" 2>&1 &
wait $! 
status=$?
grep -E "INFO: (seed|Loaded)|INITED|DONE|ERROR|SUMMARY|stat::number_of_executed_units|Test unit written|==[0-9]+==" "$scratch/log" | tail -25
[ $status -eq 0 ] || tail -60 "$scratch/log"
exit $status
