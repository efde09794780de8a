# kernels (issue 13): tiled_1d, lut_2d, the compile-time small kernels and 2×2 pooling on the GPU.
#   bash scripts/gpu-check.sh kernels          (about 5 minutes on an H100)
# What proves what:
#   kernels-gpu-tests   the GPU sweep's cases of tiled_1d and lut_2d (GpuAccuracy, behaviour,
#                       refusals) and GpuSignals / GpuLut / GpuUnrolled / GpuPooling: 1D signals
#                       within their bound at edge lengths and every border, tiled_1d and lut_2d bit
#                       for bit equal to the CPU loops of their arithmetic, unrolled = looped, pooling
#                       fused = separate = the CPU pooling; "[  PASSED  ]" and no FAILED.
#   kernels-signals     gausslab-filter on .npy signals against scipy.ndimage.gaussian_filter1d with
#                       every method marked [1D], all five borders, float32 and float64.
#   kernels-bench       gausslab-bench --no-main --signals --lut --unrolled --pooling: the tables
#                       printed below (1D signals with the 70 % target line, lookup table against
#                       multiply, unrolled against looped, pooling fused against separate); the full
#                       rows in $OUT/kernels-bench/results.md.
stage kernels-gpu-tests 150 env GAUSSLAB_GPU_TESTS_CSV="$OUT/logs/kernels-accuracy.csv" bash .gpu/run.sh \
  .gpu/bin/gausslab_gpu_tests --gtest_filter='*__tiled_1d:*__lut_2d:*/tiled_1d:*/lut_2d:GpuSignals.*:GpuLut.*:GpuUnrolled.*:GpuPooling.*'
stage kernels-signals 90 bash .gpu/run.sh python3 tests/cli/check_signals_vs_scipy.py \
  --filter .gpu/bin/gausslab-filter --methods all
stage kernels-bench 300 bash .gpu/run.sh .gpu/bin/gausslab-bench --no-main --signals --lut --unrolled --pooling \
  --budget-seconds 270 --no-plot --out "$OUT/kernels-bench"
# The comparison tables (from the first technique heading to the full rows).
if [ -f "$OUT/kernels-bench/results.md" ]; then
  echo "=== kernels-bench tables (GPU: $(grep -m1 '^- GPU' "$OUT/kernels-bench/results.md" | cut -c8-90))"
  grep -m1 '^- device-to-device' "$OUT/kernels-bench/results.md" | cut -c1-120
  awk '/^## (1D signals \(|Lookup table|Compile-time|2×2 pooling)/ {on = 1} /every row|^## Skipped/ {on = 0} on' \
    "$OUT/kernels-bench/results.md"
fi
