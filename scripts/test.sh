#!/usr/bin/env bash
# The second command: install what is missing, build, and run every test (GPU tests skip with the
# reason where there is no CUDA device; the viewer tests run under Xvfb and with Mesa's EGL).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
cd "${GAUSSLAB_BUILD_DIR:-$root/build}"
# ctest lists skipped tests without their reason: say where the GPU tests run, or why they skip.
{ ./tests/gpu/gausslab_gpu_tests --gtest_filter='GpuRefusals.*' 2>&1 || true; } | grep -m1 '^gausslab GPU tests on' || true
ctest --output-on-failure --timeout 1200 -j "$(nproc)" "$@"
# The same CPU and CLI tests under ASan + UBSan + LeakSanitizer, in build-sanitize (docs/fuzzing.md).
# (Not when only some tests were asked for.)
[ $# -gt 0 ] || [ "${GAUSSLAB_SKIP_SANITIZE:-0}" = 1 ] || GAUSSLAB_SANITIZE_BUILD_DIR="${GAUSSLAB_BUILD_DIR:-$root/build}-sanitize" bash "$root/scripts/sanitize.sh"
