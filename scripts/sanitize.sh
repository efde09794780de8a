#!/usr/bin/env bash
# The CPU and CLI tests under AddressSanitizer + UndefinedBehaviorSanitizer (and LeakSanitizer), in
# a second build folder: build-sanitize (or $GAUSSLAB_SANITIZE_BUILD_DIR). scripts/test.sh runs it
# after the normal tests (GAUSSLAB_SKIP_SANITIZE=1 skips it). Host C++ code is instrumented; CUDA
# device code is not, and kernels are built for one architecture only (they are never run here).
# Any report (an overflow, use after free, undefined behaviour, a leak) fails the test that made it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GAUSSLAB_SANITIZE_BUILD_DIR:-$root/build-sanitize}
[ -x /usr/local/cuda/bin/nvcc ] && export PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$build"
generator=()
command -v ninja >/dev/null 2>&1 && [ ! -f "$build/CMakeCache.txt" ] && generator=(-G Ninja)
launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
# -O1 -g1: what ASan recommends (fast enough, exact line numbers) and half the compile time of -O2 -g.
cmake -S "$root" -B "$build" "${generator[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DGAUSSLAB_SANITIZE=ON -DGAUSSLAB_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=75-real "$@" > "$build/configure.log" 2>&1 ||
  { tail -30 "$build/configure.log"; exit 1; }

# The CPU test programs and the command-line programs their scripts drive.
# (The test-video writer exists only where FFmpeg's libraries are installed.)
wanted=(gausslab_core_tests gausslab_cpu_method_tests gausslab_cli_tests gausslab_batch_tests gausslab_sequence_tests
        gausslab_image_tool gausslab_write_test_video gausslab-filter gausslab-bench gausslab-sequence)
available=$(cmake --build "$build" --target help 2>/dev/null)
targets=()
for target in "${wanted[@]}"; do grep -q "^$target:\|^\.\.\. $target\b\|^$target\b" <<<"$available" && targets+=("$target"); done
cmake --build "$build" --parallel "$(nproc)" --target "${targets[@]}"

# protect_shadow_gap=0: the CUDA runtime maps memory where ASan keeps its shadow gap.
export ASAN_OPTIONS=detect_leaks=1:protect_shadow_gap=0:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
cd "$build"
# Everything labelled cpu whose program was built here, but the long comparisons with SciPy (the
# same code paths as FilterBadInput, at 20× the run time under ASan) and the install check (it
# installs the main build's programs, library and Python module), with LeakSanitizer on...
status=0
ctest --output-on-failure --timeout 1200 -j "$(nproc)" -L cpu -LE "gpu|ui|fuzz|scipy|install" -E "_NOT_BUILT|FilterBatch" ||
  status=$?
# ...and the batch test that runs mpirun with it off: Open MPI's components, loaded and unloaded
# with dlopen, leave allocations that cannot even be attributed (no module); ASan and UBSan stay on.
ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0 ctest --output-on-failure --timeout 1200 -R "^FilterBatch$" || status=$?
exit $status
