# Issue 17: the batch engine on every GPU of one host, one MPI rank per GPU (rank = local rank mod
# the device count; no two ranks on one GPU). Sourced by scripts/gpu-check.sh on a multi-GPU machine
# (nvidia-h200-x2 or larger): bash scripts/gpu-check.sh batch-multigpu. About 3-4 minutes.
#   batch-multigpu-workload  the original workload on one GPU (gausslab-bench --batch, gpu-pipelined)
#                            and under mpirun -np <GPUs> (files dealt out; rows scattered): images/s
#                            against one GPU, each rank's GPU named in the table's rank lines
#   batch-multigpu-huge      32768x32768 RGBA8 on one GPU and in bands over every GPU: time, scaling,
#                            and cmp against the one-GPU result
B=${GAUSSLAB_BATCH_WORK:-/tmp/gausslab-batch-multigpu}
rm -rf "$B"
mkdir -p "$B" "$OUT/batch-multigpu-results"
# shellcheck source=scripts/gpu-stages/mpi-kit.sh
source scripts/gpu-stages/mpi-kit.sh
export LD_LIBRARY_PATH=$root/.gpu/lib:/usr/local/cuda/lib64:$LD_LIBRARY_PATH
export B F=$root/.gpu/bin/gausslab-filter BENCH=$root/.gpu/bin/gausslab-bench R=$OUT/batch-multigpu-results
export GPUS=$(nvidia-smi -L | wc -l)
echo "=== batch-multigpu: $GPUS GPUs"; nvidia-smi -L
if [ "$GPUS" -lt 2 ]; then
  echo "batch-multigpu: this machine has $GPUS GPU; the stage needs two or more (nvidia-h200-x2 or larger)"
  failed=$((failed + 1))
else
  stage batch-multigpu-workload 240 bash -c '
    $BENCH --batch --batch-dir $B/workload --batch-configs gpu-pipelined --out $R &&
    mpirun -np $GPUS $BENCH --batch --batch-dir $B/workload --out $R'

  batch_multigpu_huge() {
    local d=$B/huge common=(--method separable_fused --sigma 2 --border mirror) bad=0 start
    mkdir -p "$d"
    $BENCH --make-image 32768x32768 "$d/in.tga" || return 1
    start=$(date +%s%N)
    $F "$d/in.tga" -o "$d/one.tga" "${common[@]}" || return 1
    echo "one GPU: $(( ($(date +%s%N) - start) / 1000000 )) ms end to end"
    start=$(date +%s%N)
    mpirun -np "$GPUS" $F "$d/in.tga" -o "$d/all.tga" "${common[@]}" || bad=1
    echo "$GPUS GPUs (bands over $GPUS ranks): $(( ($(date +%s%N) - start) / 1000000 )) ms end to end"
    if cmp "$d/one.tga" "$d/all.tga"; then echo "cmp: identical ($GPUS GPUs against one)"; else bad=1; fi
    return $bad
  }
  export -f batch_multigpu_huge
  stage batch-multigpu-huge 240 bash -c batch_multigpu_huge

  echo "=== batch-multigpu: summary"
  for f in "$R"/batch*.md; do
    echo "--- $(basename "$f")"
    grep -E '^\| (configuration|gpu|mpi)|^  - rank|^- host' "$f"
  done
  grep -hE "cmp:|end to end|files? done in|filter |memory: peak|rank [0-9]+ on" "$OUT/logs/batch-multigpu-huge.log"
fi
tar -czf "$OUT/batch-multigpu-results.tar.gz" -C "$OUT" batch-multigpu-results && rm -rf "$OUT/batch-multigpu-results"
rm -rf "$B"
