# Issue 11 item 7 on the H100 (sourced by scripts/gpu-check.sh: `bash scripts/gpu-check.sh soak`).
#   soak-10000   10,000 frames of the viewer (offscreen, interop path) cycling through every method in
#                A and in B, B as the original and the exact Gaussian, four sigmas, every border and
#                view, blink and the difference styles, a resampled picture and back, a reload of
#                the file and two window sizes (one step every 15 frames). The last line:
#                  gausslab: soak frames=10000 ... device_used_mib_warm=W ... device_used_mib_end=E
#                  rss_mib_warm=R rss_mib_end=S
#                W = E (device memory in use after one whole cycle and at the end) and R ~ S prove
#                nothing grows.
#   soak-leaks   compute-sanitizer's leak check over a shorter soak (every step at least once):
#                "LEAK SUMMARY: 0 bytes leaked" / "ERROR SUMMARY: 0 errors" in the log.
stage soak-10000 500 bash .gpu/run.sh .gpu/bin/gausslab assets/astronaut.png --offscreen --soak 10000 \
  --window 1280x800
stage soak-leaks 300 bash .gpu/run.sh compute-sanitizer --tool memcheck --leak-check full --error-exitcode 3 \
  .gpu/bin/gausslab assets/astronaut.png --offscreen --soak 1500 --window 640x400
