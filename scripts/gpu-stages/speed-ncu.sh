# Issue #16's must-show 6: what limits the best methods' kernels, from Nsight Compute (sourced by
# scripts/gpu-check.sh, as a stage of its own, `bash scripts/gpu-check.sh speed-ncu`, or from
# speed.sh). Each step profiles a few launches of one method after its warm-up, at 4096²; the
# metrics are time, DRAM and SM throughput, bytes moved, the FMA and tensor pipes, issue activity,
# registers and the warps in use (scripts/summarise_ncu.py tabulates such logs).
speed_metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_active,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_imma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active
speed_ncu() {  # NAME SKIP COUNT BENCH-ARGS...: the kernels of one method's runs after SKIP launches
  local name=$1 skip=$2 count=$3; shift 3
  stage "speed-ncu-$name" 35 bash .gpu/run.sh ncu --launch-skip "$skip" --launch-count "$count" \
    --metrics "$speed_metrics" .gpu/bin/gausslab-bench --quick --no-plot --sizes 4096 "$@" --out "$(mktemp -d)/r"
}
speed_ncu fused-f32-7x7 3 1 --formats f32 --kernels 7 --methods separable_fused
speed_ncu fused-rgba8-sigma0.5 3 1 --formats rgba8 --sigmas 0.5 --methods separable_fused
speed_ncu int8-rgba8-sigma2 3 1 --formats rgba8 --sigmas 2 --methods separable_int8
speed_ncu int8-rgba8-sigma4 3 1 --formats rgba8 --sigmas 4 --methods separable_int8
speed_ncu multires-rgba8-sigma8 12 4 --formats rgba8 --sigmas 8 --methods multires
speed_ncu multires-rgba8-sigma32 12 4 --formats rgba8 --sigmas 32 --methods multires
speed_ncu rtiled-f32-sigma4 20 5 --formats f32 --sigmas 4 --methods recursive_tiled
speed_ncu tf32-f32-41x41 3 1 --formats f32 --kernels 41 --methods separable_tf32
