# Issue 11, item 5 (the CUDA side): GPU faults, injected and real. Sourced by scripts/gpu-check.sh on
# the GPU machine: bash scripts/gpu-check.sh faults. About a minute on an H100.
#   faults-tests        tests/gpu/test_gpu_faults.cpp: every GPU method under an injected
#                       out-of-memory, a failed launch and no device (typed exception, the size or
#                       the kernel named, no sticky error, the same instance right again after),
#                       fft on 16384x16384 out of memory (injected), and a REAL out-of-memory: the
#                       device filled to 256 MiB free, then fft 16384x16384 F32 and separable_shared
#                       16384x16384 RGBA8 fail with CudaOutOfMemory while every method's small
#                       problem still runs right; the messages are printed as "[ OOM      ]" lines
#   faults-env-*        GAUSSLAB_INJECT_FAULT=<fault> for a whole process: the GPU tests' switch test
#                       (every method fails with the fault's exception) and what gausslab-filter
#                       says and exits with (the batch's handling is issue 11's batch side)
stage faults-tests 240 bash .gpu/run.sh .gpu/bin/gausslab_gpu_tests --gtest_filter='GpuFaults.*'
for fault in out-of-memory launch-failure no-device; do
  stage "faults-env-$fault" 60 bash -c "GAUSSLAB_INJECT_FAULT=$fault bash .gpu/run.sh .gpu/bin/gausslab_gpu_tests \
      --gtest_filter='GpuFaultsFromTheEnvironment.*' && { GAUSSLAB_INJECT_FAULT=$fault bash .gpu/run.sh \
      .gpu/bin/gausslab-filter tests/data/camera.png -o \$(mktemp -d)/out.png --method fft --sigma 4; \
      echo \"gausslab-filter exit status \$? with GAUSSLAB_INJECT_FAULT=$fault\"; }"
done
