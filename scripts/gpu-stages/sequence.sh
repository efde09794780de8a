# Image sequences (issue 14) on the GPU machine: `bash scripts/gpu-check.sh sequence`, then
# `bash scripts/gpu-check.sh sequence-sanitizer` (the sanitizers, in their own call for time).
# Sourced by gpu-check.sh (stage, sanitize, $OUT). The must-show stages come first. What each proves:
#   sequence-gpu-tests     the GPU engine equals the CPU engine (shifts, decisions, whitened frames
#                          within float rounding), meets the accuracy criteria, CUDA graphs = launches
#   sequence-cli           gausslab-sequence --backend gpu and cpu on a 512² synthetic sky: both meet
#                          the criteria, and they agree (compare_sequence_runs.py)
#   sequence-bench         gausslab-bench --sequence: ms/frame at 512² and 3648×2736, N = 20, GPU and
#                          CPU, per stage, GB/s, % copy, graphs, frames ahead (no host sync): the table
#                          for the README is $OUT/sequence-bench/sequence.md
#   sequence-viewer        the viewer's sequence mode offscreen: $OUT/viewer-sequence.png for the README
stage sequence-bench 300 bash .gpu/run.sh .gpu/bin/gausslab-bench --sequence --out "$OUT/sequence-bench"
stage sequence-viewer 60 bash .gpu/run.sh .gpu/bin/gausslab --offscreen --sequence synthetic --frames 150 \
  --window 1600x1000 --screenshot-view "$OUT/viewer-sequence.png" --screenshot "$OUT/viewer-sequence-whitened.png"
stage sequence-gpu-tests 150 bash .gpu/run.sh .gpu/bin/gausslab_sequence_gpu_tests
# The CLI end to end (skipped, with the reason, when the kit had to leave gausslab-sequence out).
seq_cli=$(mktemp -d)
if [ -x .gpu/bin/gausslab-sequence ]; then
  stage sequence-cli 120 bash -c "
    for path in gpu cpu; do
      bash .gpu/run.sh .gpu/bin/gausslab-sequence --synthetic --size 512x512 --frames 64 --backend \$path \
        --out-dir $seq_cli/\$path --previews --preview-every 20 || exit 1
    done
    bash .gpu/run.sh python3 tests/sequence/compare_sequence_runs.py $seq_cli/gpu $seq_cli/cpu --history 20"
  cp "$seq_cli"/gpu/previews/whitened_00040.png "$OUT/sequence-whitened-00040.png" 2>/dev/null || true
else
  echo "=== sequence-cli: skipped, .gpu/bin/gausslab-sequence is not in the kit (scripts/gpu-stages/sequence.kit)"
fi
