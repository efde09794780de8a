# Issue 11 item 5 on the H100 (sourced by scripts/gpu-check.sh: `bash scripts/gpu-check.sh viewer-faults`):
# the viewer meets GPU failures, goes on with what can run and says so. Each run must end with exit
# status 3 (finished, but on a fallback) and a summary line whose fallback="..." names the failure.
#   viewer-fault-oom      every device allocation fails (GAUSSLAB_INJECT_FAULT=out-of-memory): the
#                         picture cannot go to the GPU, the viewer continues on the cpu path.
#   viewer-fault-launch   every launch fails (launch-failure): A falls back to cpu_openmp.
#   viewer-fault-real-oom a real out-of-memory: fft at 16384x16384 pads to more than the device
#                         holds together with the other buffers? (if it fits, the log says so and
#                         the run ends 0: the H100 has 80 GB.)
for fault in out-of-memory launch-failure; do
  stage "viewer-fault-$fault" 90 bash -c "GAUSSLAB_INJECT_FAULT=$fault bash .gpu/run.sh .gpu/bin/gausslab --offscreen \
    --frames 20 --method separable_shared --compare fft --window 800x600; test \$? -eq 3"
done
stage viewer-fault-real-oom 120 bash -c "bash .gpu/run.sh .gpu/bin/gausslab --offscreen --frames 10 --size 16384x16384 \
  --method fft --window 800x600; echo exit \$?"
