# formats (issues #35 and #37, the GPU methods): pixel formats, custom kernels and floor/ceil on the GPU.
#   bash scripts/gpu-check.sh formats          (about 4-5 minutes on an H200)
# The old-against-new comparison needs the baseline benchmark in the kit: prepare with
#   GAUSSLAB_BENCH_BASELINE=/work/gpu-baseline/gausslab-bench-97bc3df bash scripts/gpu-check.sh --prepare
# (formats.prepare.sh copies it to .gpu/bin/gausslab-bench-baseline; a .gpu/bin/gausslab-bench-<commit> gathered
# by ../shared/gpu/prepare.sh itself serves too; without either those runs are skipped).
# What proves what:
#   formats-gpu-tests   the accuracy sweep's cases in every format but RGBA8 and F32 (RGBA16 and
#                       RGBA32F kernels of their own, the twelve formats through the channel adapter,
#                       auto and auto_exact per format with their per-format calibration) and the
#                       behaviour tests (pitches, problem changes) in every format, quick sizes;
#                       "[  PASSED  ]" and no FAILED.
#   formats-kernels     GpuCustomKernels.*: masks, pairs, rank-1 and full matrices in every border,
#                       six formats, nearest/floor/ceil within each method's bound; normalised integer
#                       tables by floor byte for byte against integer arithmetic at 1920×1080; the
#                       41-tap pair and the 5×5 table at 4096²; the other methods' refusals.
#   formats-bench       RGBA16 and RGBA32F against sigma 0.5-64 at 4096² ("Best method per sigma"
#                       per format with its % of copy bandwidth: issue #35 asks >= 50 % at sigma <= 8),
#                       and the custom-kernel table (41-tap pair, 5×5 table, beside the Gaussian of the
#                       same reach)
#   formats-old/new-*   RGBA8 and F32 at 4096², 7×7 and 41×41, every fast GPU method, with the
#                       baseline (97bc3df) and this build in turn (new, old, new): "within noise" when
#                       the old times lie between or near the two new ones.
export XDG_CACHE_HOME=$OUT/cache
formats_filter='Methods/GpuAccuracy.*:Methods/GpuMethodBehaviour.*:-*/rgba8_*:*/f32_*'
stage formats-gpu-tests 100 env GAUSSLAB_GPU_TESTS_QUICK=1 GAUSSLAB_GPU_TESTS_CSV="$OUT/logs/formats-accuracy.csv" \
  bash .gpu/run.sh .gpu/bin/gausslab_gpu_tests --gtest_filter="$formats_filter"
stage formats-kernels 60 bash .gpu/run.sh .gpu/bin/gausslab_gpu_tests --gtest_filter='GpuCustomKernels.*'
stage formats-bench 90 bash .gpu/run.sh .gpu/bin/gausslab-bench --no-main --sigma-sweep --sweep-formats rgba16,rgba32f \
  --sweep-sizes 4096 --sweep-sigmas 0.5,1,2,4,8,16,32,64 --scaling-sizes 4096 --custom-kernels --formats rgba8,f32 \
  --methods separable_shared,separable_texture,separable_fused,recursive,fft,naive_2d --quick --no-plot \
  --budget-seconds 80 --out "$OUT/formats-bench"
if [ -f "$OUT/formats-bench/results.md" ]; then
  grep -m1 '^- device-to-device' "$OUT/formats-bench/results.md" | cut -c1-120
  awk '/^## (Best method per sigma|Custom kernels)/ {on = 1} /every row|^## Skipped/ {on = 0} on' "$OUT/formats-bench/results.md"
fi
fast_methods=separable_shared,separable_texture,separable_fused,separable_int8,separable_mma,separable_tf32,recursive,recursive_tiled,multires,fft,naive_2d,shared_2d,lut_2d
baseline=$(ls .gpu/bin/gausslab-bench-baseline .gpu/bin/gausslab-bench-[0-9a-f]* 2>/dev/null | head -1)
if [ -n "$baseline" ]; then
  for run in new old new2; do
    bench=.gpu/bin/gausslab-bench
    [ "$run" = old ] && bench=$baseline
    stage "formats-$run-rgba8-f32" 40 bash .gpu/run.sh "$bench" --sizes 4096 --kernels 7,41 --formats rgba8,f32 \
      --methods "$fast_methods" --quick --no-plot --budget-seconds 35 --out "$OUT/formats-$run"
  done
  # method, format, kernel: the median ms of each run side by side, and old / mean of the two new.
  echo "=== old against new (median ms: new, old, new again; old / new)"
  python3 - "$OUT"/formats-{new,old,new2}/results.csv <<'EOF' | tee "$OUT/logs/formats-old-new.txt"
import csv, os, sys
runs = []
for path in sys.argv[1:]:
    rows = {}
    if os.path.exists(path):
        for r in csv.DictReader(open(path)):
            if r["status"] == "ok":
                rows[(r["method"], r["format"], r["kernel"], r["variant"])] = float(r["ms_median"])
    runs.append(rows)
new, old, new2 = runs
for key in sorted(new):
    if key in old and key in new2:
        mean = (new[key] + new2[key]) / 2
        print("%-18s %-6s %-6s %-9s %9.4f %9.4f %9.4f  %5.2f" % (*key, new[key], old[key], new2[key], old[key] / mean))
EOF
else
  echo "=== formats-old/new: skipped (no .gpu/bin/gausslab-bench-baseline; see the top of scripts/gpu-stages/formats.sh)"
fi
