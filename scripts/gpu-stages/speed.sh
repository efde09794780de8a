# Issue #16's must-show numbers (sourced by scripts/gpu-check.sh: `bash scripts/gpu-check.sh speed`,
# about 7 minutes on an H100). What each step proves:
#   speed-gpu-tests   multires, recursive_tiled, separable_mma, separable_tf32, separable_int8 and auto meet their
#                     bounds on this GPU
#                     (quick subset of the accuracy sweep); the first auto test measures auto's table
#                     (cached in $OUT/cache, copied into the logs as auto-calibration.txt)
#   speed-bench       results/: 4096² F32 7×7 and 41×41 (must-show 2), F32 sigma 4 (must-show 3:
#                     recursive_tiled), the RGBA8 sweep at 4096² and 8192² with the "Best method per
#                     sigma" table and % of copy bandwidth (must-show 1), time against pixels at sigma 2
#                     and 32 (must-show 5), charts with the copy-bandwidth line
#   speed-multires-*  multires with the fused reduce up to d 2 and up to d 8 (the default is 6)
#   speed-ncu-*       Nsight Compute limiters of the best methods' kernels (must-show 6):
#                     speed-ncu.sh, also a stage of its own; GAUSSLAB_SPEED_NCU=0 leaves it out here
#   speed-viewer-*    the viewer at 3840×2160 with auto at sigma 2, 8, 32, 64, and 4096² split against the
#                     exact Gaussian: the summary line's frame_ms and its stages (must-show 4; issue 41's 3)
export XDG_CACHE_HOME=$OUT/cache
speed_methods=separable_fused,separable_shared,separable_mma,separable_tf32,separable_int8,multires,recursive,recursive_tiled,fft,auto
stage speed-gpu-tests 70 env GAUSSLAB_GPU_TESTS_QUICK=1 GAUSSLAB_GPU_TESTS_CSV="$OUT/logs/speed-gpu-accuracy.csv" \
  bash .gpu/run.sh .gpu/bin/gausslab_gpu_tests --gtest_filter='*multires*:*recursive_tiled*:*separable_mma*:*separable_tf32*:*separable_int8*:*auto*'
cp "$OUT/cache/gausslab/auto-calibration.txt" "$OUT/logs/auto-calibration.txt" 2>/dev/null
stage speed-bench 230 bash .gpu/run.sh .gpu/bin/gausslab-bench --sizes 4096 --kernels 7,41 --sigmas 4 \
  --formats f32,rgba8 --methods "$speed_methods" --sigma-sweep --budget-seconds 215 --out "$OUT/results"
grep -A12 "^## Best method per sigma" "$OUT/results/results.md" 2>/dev/null
for s in 2 8 32 64; do
  stage "speed-viewer-sigma$s" 25 bash .gpu/run.sh .gpu/bin/gausslab --offscreen --frames 300 --size 3840x2160 \
    --window 1920x1080 --sigma "$s"
done
stage speed-viewer-split-exact 40 bash .gpu/run.sh .gpu/bin/gausslab --offscreen --frames 300 --size 4096x4096 \
  --window 1920x1080 --sigma 2 --compare exact --display split
[ "${GAUSSLAB_SPEED_NCU:-1}" = 0 ] || source scripts/gpu-stages/speed-ncu.sh
for d in 2 8; do
  stage "speed-multires-fused$d" 20 env GAUSSLAB_MULTIRES_FUSED_MAX_D=$d bash .gpu/run.sh .gpu/bin/gausslab-bench \
    --sizes 4096 --sigmas 8,12,16,20,24,32 --formats rgba8,f32 --methods multires --no-plot --quick \
    --budget-seconds 15 --out "$OUT/logs/multires-fused$d"
done
