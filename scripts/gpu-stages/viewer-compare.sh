# Issue 15 on the H100 (sourced by scripts/gpu-check.sh: `bash scripts/gpu-check.sh viewer-compare`).
#   viewer-compare-shots    the screenshots the issue lists, rendered offscreen through EGL on the
#                           GPU at 4096x4096 (separable_shared against fft, sigma 16) by a script
#                           (viewer-compare-shots.script): split with labels, difference with false
#                           colour and legend, inspector with values on pixels, timing graph,
#                           compare-all table, help overlay; packed with their JSON sidecars into
#                           $OUT/viewer-compare-shots.tar.gz (the device tool returns 8 files).
#   viewer-compare-session  (after a 100-frame warm-up run) a scripted session at 4096x4096 switching methods, views, sigma, border
#                           and slots every half second with A and B processed every frame
#                           (viewer-compare-session.script): the last lines of its log are the
#                           frame-time p50/p90/p99 and every frame slower than 2x the median within
#                           4 frames of a switch: "slow_switch_frames=" (2x the run's median and the
#                           new setting's, and over the previous setting's p99), "over_2x_p50_near_steps="
#                           (2x the run's median whatever the setting) and "as_slow_before_step="
#                           (over the first two limits, not over the previous setting's p99), each
#                           with its frames listed.
#                           Slow GPU methods (shared_2d at sigma 32, naive_2d) now run sliced.
#   viewer-compare-numbers  the A-vs-B numbers of two GPU methods reduced on the GPU, and 0 for A = B.
#   viewer-compare-gpu-tests the GPU reduction against the CPU implementation, and sliced runs against
#                           whole runs byte for byte (gausslab_gpu_tests).
shots=$(mktemp -d)
mkdir -p "$shots/views"
stage viewer-compare-shots 240 bash .gpu/run.sh .gpu/bin/gausslab --offscreen --window 1600x1000 --size 4096x4096 \
  --method separable_shared --compare fft --sigma 16 --save-folder "$shots/views" \
  --script scripts/gpu-stages/viewer-compare-shots.script
tar -czf "$OUT/viewer-compare-shots.tar.gz" -C "$shots" views
# A warm-up run first: the first run on a freshly started machine has a lower median frame time
# (docs/results/h100/viewer-session.md), so its 2x-median threshold is not the session's.
stage viewer-compare-warm-up 120 bash .gpu/run.sh .gpu/bin/gausslab --offscreen --window 1920x1080 --size 4096x4096 \
  --method separable_shared --compare fft --sigma 2 --frames 100
stage viewer-compare-session 180 bash .gpu/run.sh .gpu/bin/gausslab --offscreen --window 1920x1080 --size 4096x4096 \
  --method separable_shared --compare fft --sigma 2 --script scripts/gpu-stages/viewer-compare-session.script
stage viewer-compare-numbers 120 bash -c "bash .gpu/run.sh .gpu/bin/gausslab --offscreen --frames 30 --size 4096x4096 \
    --method separable_shared --compare separable_fused --sigma 8 --window 1280x800 && \
  bash .gpu/run.sh .gpu/bin/gausslab --offscreen --frames 30 --size 4096x4096 --method fft --compare fft --sigma 8 \
    --window 1280x800 | grep -E 'ab_max_abs=0 ab_mean_abs=0 '"
stage viewer-compare-gpu-tests 60 bash .gpu/run.sh .gpu/bin/gausslab_gpu_tests --gtest_filter='ImageDifferenceGpu*:SlicedRunGpu*'
