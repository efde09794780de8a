# The sequence kernels under compute-sanitizer (issue 14): `bash scripts/gpu-check.sh sequence-sanitizer`.
# memcheck (out-of-bounds, leaks), racecheck (shared memory: the projection tile, the reductions,
# the weights), synccheck (barriers and warp shuffles) on the GPU-vs-CPU tests, graphs included.
# The binaries come from sequence.kit.
seq_quick='GpuSequence.GpuEqualsCpuOnTheAccuracySky:GpuSequence.FlatFramesAreHandledAsOnTheCpu:GpuSequence.CudaGraphs*'
for tool in memcheck racecheck synccheck; do
  stage "sequence-$tool" 150 bash .gpu/run.sh compute-sanitizer --tool "$tool" --error-exitcode 3 \
    .gpu/bin/gausslab_sequence_gpu_tests --gtest_filter="$seq_quick"
done
