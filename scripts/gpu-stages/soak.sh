# Issue 11 item 7 on the H100 (sourced by scripts/gpu-check.sh: `bash scripts/gpu-check.sh soak`).
#   soak-10000   10,000 frames of the viewer (offscreen, interop path) cycling through every method in
#                A and in B, B as the original and the exact Gaussian, four sigmas, every border and
#                view, blink and the difference styles, a resampled picture and back, a reload of
#                the file and two window sizes (one step every 15 frames). The last line:
#                  gausslab: soak frames=10000 ... device_used_mib_warm=W ... device_used_mib_end=E
#                  rss_mib_warm=R rss_mib_end=S cycle_starts=K device_used_mib_cycle_starts=a,lo,hi,z
#                  rss_mib_cycle_starts=a,lo,hi,z
#                What is in use depends on the step (window size, view, methods): E - W was 4 MiB
#                on the H100 because the run ends on another step than the warm point. The same
#                step of every cycle is the comparison: device memory 701,701,701,701 MiB (first,
#                lowest, highest, last of 7 cycles), RSS 288-314 MiB without a trend.
#   soak-leaks   compute-sanitizer's leak check over a shorter soak (every step at least once):
#                "LEAK SUMMARY: 0 bytes leaked" / "ERROR SUMMARY: 0 errors" in the log.
# The cycle asks lut_2d and separable_mma for sigmas they refuse, so the viewer shows its fallback
# and ends with exit status 3 (finished on a fallback): 0 and 3 both pass; the sanitizer's own
# error status is 9.
soak_viewer() {  # soak_viewer COMMAND...: the viewer's status, 3 (a fallback was shown) counted as 0
  "$@"
  local rc=$?
  [ $rc -eq 3 ] && rc=0
  return $rc
}
export -f soak_viewer
stage soak-10000 500 bash -c 'soak_viewer bash .gpu/run.sh .gpu/bin/gausslab assets/astronaut.png --offscreen \
  --soak 10000 --window 1280x800'
stage soak-leaks 300 bash -c 'soak_viewer bash .gpu/run.sh compute-sanitizer --tool memcheck --leak-check full \
  --error-exitcode 9 .gpu/bin/gausslab assets/astronaut.png --offscreen --soak 1500 --window 640x400'
