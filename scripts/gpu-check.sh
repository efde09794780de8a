#!/usr/bin/env bash
# The whole GPU check, run ON THE GPU MACHINE from the repository root, after this machine ran
#   scripts/gpu-check.sh --prepare        (builds build-h100/ for sm_90; fills .gpu/ with ../shared/gpu/prepare.sh)
# and the device tool was called with carry [".gpu"]:
#   bash scripts/gpu-check.sh tests viewer filter      (first call: correctness and the viewer)
#   bash scripts/gpu-check.sh viewer sanitizer         (second call: the sanitizers)
#   bash scripts/gpu-check.sh racecheck bench          (third call: racecheck and the benchmark)
#   bash scripts/gpu-check.sh ncu                      (Nsight Compute: what limits the kernels)
# Stages write their logs to $OUT/logs (packed into $OUT/logs.tar.gz at the end, as the device tool
# returns few files) and their images and results next to them. Each stage has its own time limit,
# so one stuck stage cannot take the others' time. Exit status: the number of stages that failed.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

if [ "${1:-}" = "--prepare" ]; then
  # The kit must stay under 64 MiB: each binary carries its own fatbin, so the kit is built for the
  # H100 alone (sm_90) in its own folder; build/ keeps every architecture. Video decoding stays out
  # (FFmpeg's libraries and their codecs are hundreds of MiB; nothing on the GPU machine reads video).
  build=${GAUSSLAB_BUILD_DIR:-build-h100}
  GAUSSLAB_BUILD_DIR=$build bash scripts/build.sh -DCMAKE_CUDA_ARCHITECTURES=90-real -DGAUSSLAB_WITH_FFMPEG=OFF >/dev/null || exit 1
  # Further binaries come from scripts/gpu-stages/*.kit (one path under the build folder a line).
  extra=$(cat scripts/gpu-stages/*.kit 2>/dev/null | sed -e 's/#.*//' -e '/^[[:space:]]*$/d' -e "s|^|$build/|")
  bash ../shared/gpu/prepare.sh $build/tests/gpu/gausslab_gpu_tests $build/tests/ui/gausslab_ui_tests \
    $build/tests/ui/gausslab_ui_check $build/app/gausslab $build/filter/gausslab-filter $build/bench/gausslab-bench \
    $extra || exit 1
  # What else the stages carry (Open MPI's packages ...): scripts/gpu-stages/*.prepare.sh, run here.
  for hook in scripts/gpu-stages/*.prepare.sh; do
    [ -f "$hook" ] && { bash "$hook" || exit 1; }
  done
  echo "the whole kit: $(du -sm .gpu | cut -f1) MiB in .gpu/ (a call carries at most 64 MiB)"
  exit 0
fi

OUT=${OUT:-$root/gpu-check-out}
mkdir -p "$OUT/logs"
export GAUSSLAB_TEST_DATA=$root/tests/data PYTHONUNBUFFERED=1
run() { bash .gpu/run.sh "$@"; }
failed=0
deadline=${GAUSSLAB_GPU_CHECK_SECONDS:-560}  # the device tool stops a call at 600 s; leave time to pack
stage() {  # stage NAME SECONDS COMMAND...: runs COMMAND with a limit, its output in logs/NAME.log
  local name=$1 limit=$2; shift 2
  local start=$SECONDS left=$((deadline - SECONDS))
  [ $left -lt $limit ] && limit=$left
  if [ $limit -lt 5 ]; then echo "=== $name: skipped, the call's ${GAUSSLAB_GPU_CHECK_SECONDS:-560}s are spent"; failed=$((failed + 1)); return; fi
  echo "=== $name (limit ${limit}s)"
  timeout --kill-after=10 "$limit" "$@" > "$OUT/logs/$name.log" 2>&1
  local rc=$?
  echo "=== $name: exit $rc after $((SECONDS - start))s"
  tail -n 25 "$OUT/logs/$name.log"
  [ $rc -eq 0 ] || failed=$((failed + 1))
}

# sanitize NAME SECONDS TOOL GTEST_FILTER [VAR=VALUE...]: the quick GPU test subset under
# compute-sanitizer's TOOL, as stage NAME (the VAR=VALUE settings go to the tests' environment).
sanitize() {
  local name=$1 limit=$2 tool=$3 filter=$4; shift 4
  stage "$name" "$limit" env GAUSSLAB_GPU_TESTS_QUICK=1 "$@" bash .gpu/run.sh compute-sanitizer --tool "$tool" \
    --error-exitcode 3 .gpu/bin/gausslab_gpu_tests --gtest_filter="$filter"
}

# Whether the viewer refuses METHOD at SIGMA on its RGBA8 picture (prints the reason; status 0 if so):
# one offscreen frame, exit status 2 with "cannot run here".
refuses() {
  local out
  out=$(timeout 60 bash .gpu/run.sh .gpu/bin/gausslab --offscreen --frames 1 --method "$1" --sigma "$2" 2>&1)
  [ $? -eq 2 ] && grep -o "cannot run here: .*" <<< "$out" | head -1 | cut -c1-160 | grep .
}

# The GPU methods, from the registry (the filter lists them with their backend).
gpu_methods=$(bash .gpu/run.sh .gpu/bin/gausslab-filter --list-methods 2>/dev/null | awk -F"\t" '$2 == "cuda" {print $1}')
run nvidia-smi > "$OUT/logs/nvidia-smi.log" 2>&1; head -3 "$OUT/logs/nvidia-smi.log"

for what in "$@"; do
  case $what in
    tests)
      stage gpu-tests 330 env GAUSSLAB_GPU_TESTS_CSV="$OUT/logs/gpu-accuracy.csv" bash .gpu/run.sh .gpu/bin/gausslab_gpu_tests
      stage ui-interop 90 bash .gpu/run.sh .gpu/bin/gausslab_ui_tests --gtest_filter='GlInterop.*:*Offscreen*'
      ;;
    viewer)
      # The viewer as a user starts it (default picture, default method): its view with the overlay.
      stage viewer-default 60 bash .gpu/run.sh .gpu/bin/gausslab --offscreen --frames 120 \
        --screenshot-view "$OUT/viewer-default.png"
      # Each GPU method's full-resolution result on the interop path against the CPU filter of the
      # same picture (within 1 level on every channel), at a small and a large sigma.
      # A method that refuses the case (its message says why: a 1D method, a float-only one, a radius
      # beyond its kernels) is reported as refused, not failed: refusing is the behaviour asked for.
      shots=$(mktemp -d)
      for m in $gpu_methods; do
        for s in 2 16; do
          if refusal=$(refuses "$m" "$s"); then echo "=== viewer-result-$m-sigma$s: refused ($refusal)"; continue; fi
          stage "viewer-result-$m-sigma$s" 60 bash -c "bash .gpu/run.sh .gpu/bin/gausslab --offscreen --frames 10 \
            --method $m --sigma $s --screenshot $shots/$m-$s.png && bash .gpu/run.sh .gpu/bin/gausslab_ui_check result \
            $shots/$m-$s.png assets/astronaut.png cpu_separable $s reflect 4"
        done
      done
      # Per-frame and per-stage times at the sizes the issues name (default method, then each method).
      for size in 3840x2160 4096x4096; do
        for s in 2 16; do
          stage "viewer-$size-sigma$s" 60 bash .gpu/run.sh .gpu/bin/gausslab --offscreen --frames 300 \
            --size "$size" --window 1920x1080 --sigma "$s"
        done
      done
      for m in $gpu_methods; do
        if refusal=$(refuses "$m" 2); then echo "=== viewer-3840x2160-$m: refused ($refusal)"; continue; fi
        stage "viewer-3840x2160-$m" 60 bash .gpu/run.sh .gpu/bin/gausslab --offscreen --frames 100 \
          --size 3840x2160 --window 1920x1080 --sigma 2 --method "$m"
      done
      stage viewer-4096-split 60 bash .gpu/run.sh .gpu/bin/gausslab --offscreen --frames 200 --size 4096x4096 \
        --window 1600x1000 --sigma 16 --method separable_shared --compare fft --display split \
        --screenshot-view "$OUT/viewer-split.png"
      stage viewer-staging 60 bash .gpu/run.sh .gpu/bin/gausslab --offscreen --frames 100 --size 3840x2160 \
        --window 1920x1080 --sigma 2 --path staging
      ;;
    filter)
      stage filter-vs-scipy 200 bash .gpu/run.sh python3 tests/cli/check_filter_vs_scipy.py \
        --filter .gpu/bin/gausslab-filter --images tests/data --methods gpu --out "$OUT/logs/filter-vs-scipy"
      ;;
    sanitizer)
      # Quick subset (small odd sizes, sigmas up to 33, every border and format), every method at once.
      for tool in memcheck initcheck synccheck; do
        sanitize "sanitizer-$tool" 120 "$tool" '*GpuAccuracy*'
      done
      ;;
    racecheck)
      # racecheck is the slowest tool: one method a stage, so one slow method cannot hide the others'
      # results (about 200 s for all of them on the H100). shared_2d at sigma 33 (radius 132, 81 chunks
      # of taps, each staged and read through shared memory) takes minutes per 127x61 case, so its 1x1
      # cases run every quick sigma (0.1, 1, 8, 33: one chunk and many) and every other size sigmas
      # 0.1, 1 and 8 (8 is already 9 chunks, the same barrier path as 33).
      for m in ${GAUSSLAB_RACECHECK_METHODS:-$gpu_methods}; do
        limit=${GAUSSLAB_RACECHECK_SECONDS:-70}
        if [ "$m" = shared_2d ]; then
          sanitize "racecheck-$m-1x1" "$limit" racecheck "*GpuAccuracy*_1x1__$m"
          sanitize "racecheck-$m-sigma-to-8" "${GAUSSLAB_RACECHECK_SECONDS:-150}" racecheck \
            "*GpuAccuracy*__$m:-*_1x1__$m" GAUSSLAB_GPU_TESTS_SIGMAS=0.1,1,8
        else
          sanitize "racecheck-$m" "$limit" racecheck "*GpuAccuracy*__$m"
        fi
      done
      ;;
    ncu)
      # Where the time goes: Nsight Compute's DRAM and SM throughput (% of peak) and bytes moved, for
      # the methods that should be memory-bound, at 4096² f32 7×7 (the papers' case) and RGBA8 sigma 2
      # (the viewer's). A few launches after the warm-up; the rest of the run is not profiled.
      metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active
      for m in ${GAUSSLAB_NCU_METHODS:-separable_shared separable_texture separable_fused recursive}; do
        for what in "--formats f32 --kernels 7" "--formats rgba8 --sigmas 2"; do
          tag=$(echo "$what" | awk '{print $2}')
          stage "ncu-$m-$tag" 60 bash .gpu/run.sh ncu --launch-skip 8 --launch-count 4 --metrics "$metrics" \
            .gpu/bin/gausslab-bench --quick --no-plot --sizes 4096 $what --methods "$m" --out "$(mktemp -d)/r"
        done
      done
      ;;
    bench)
      stage bench 560 bash .gpu/run.sh .gpu/bin/gausslab-bench --sigma-sweep --budget-seconds 500 \
        --out "$OUT/results"
      ;;
    *)
      # A subsystem's own stages live in scripts/gpu-stages/NAME.sh and use stage/sanitize/run above.
      if [ -f "scripts/gpu-stages/$what.sh" ]; then
        source "scripts/gpu-stages/$what.sh"
      else
        echo "unknown stage '$what' (tests, viewer, filter, sanitizer, racecheck, ncu, bench, or scripts/gpu-stages/*.sh)" >&2
        failed=$((failed + 1))
      fi
      ;;
  esac
done

# The device tool returns at most 8 files: pack the logs and the benchmark's results.
[ -d "$OUT/results" ] && tar -czf "$OUT/results.tar.gz" -C "$OUT" results && rm -rf "$OUT/results"
tar -czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$OUT/logs"
echo "stages failed: $failed"
exit "$failed"
