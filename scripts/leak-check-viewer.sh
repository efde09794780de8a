#!/usr/bin/env bash
# The viewer's CPU path for a few hundred frames under valgrind (memcheck): no invalid read or
# write, no use of uninitialised memory, and no memory lost by our code (a definite leak fails the
# run; indirect leaks hang off a definite one, so they fail it through their root). Mesa's software OpenGL
# (llvmpipe) and EGL keep caches until exit and JIT-compile shaders: what they hold is listed as
# "still reachable" and not counted; scripts/valgrind-mesa.supp names the few reports inside Mesa
# itself. Prints valgrind's summary and exits non-zero on any error or definite/indirect leak.
#
# usage: scripts/leak-check-viewer.sh [--frames N] [--build DIR] [-- extra viewer options]
# Takes a few minutes on two cores (valgrind runs the viewer ~30× slower); not part of CI.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
frames=300 build=$root/build extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --frames) frames=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
command -v valgrind >/dev/null || { echo "leak-check-viewer: install valgrind" >&2; exit 2; }
log=$(mktemp /tmp/gausslab-valgrind-XXXXXX.log)
shot=$(mktemp -u /tmp/gausslab-valgrind-XXXXXX.png)
# Mesa's software renderer in one thread keeps the run short; the CPU method is single-threaded too
# (OpenMP threads would be serialised by valgrind anyway).
# No shader disk cache: its compressing thread (libzstd) reads uninitialised padding, a known
# valgrind false report, and a cache would make runs differ.
export LIBGL_ALWAYS_SOFTWARE=1 LP_NUM_THREADS=0 OMP_NUM_THREADS=1 EGL_PLATFORM=surfaceless MESA_SHADER_CACHE_DISABLE=true
status=0
valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite \
  --track-origins=no --num-callers=30 --error-exitcode=99 --suppressions="$root/scripts/valgrind-mesa.supp" \
  --log-file="$log" \
  "$build/app/gausslab" --offscreen --path cpu --method cpu_separable --sigma 3 --frames "$frames" \
  --window 320x240 --size 256x256 --screenshot "$shot" "${extra[@]}" || status=$?
rm -f "$shot"
grep -E "ERROR SUMMARY|definitely lost|indirectly lost|possibly lost|still reachable|suppressed:" "$log" | sed 's/^==[0-9]*== //'
echo "leak-check-viewer: $frames frames, valgrind exit status $status (log: $log)"
exit "$status"
