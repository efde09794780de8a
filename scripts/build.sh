#!/usr/bin/env bash
# Configures and builds gausslab in Release into build/ (or $GAUSSLAB_BUILD_DIR). Everything the
# configure step and the build print is also kept in build/build.log, which the test
# BuildPrintsNoWarning reads (a build prints no warning).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GAUSSLAB_BUILD_DIR:-$root/build}
[ -x /usr/local/cuda/bin/nvcc ] && export PATH=/usr/local/cuda/bin:$PATH
generator=()
command -v ninja >/dev/null 2>&1 && [ ! -f "$build/CMakeCache.txt" ] && generator=(-G Ninja)
mkdir -p "$build"
{
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "$@"
  cmake --build "$build" --parallel "$(nproc)"
} 2>&1 | tee "$build/build.log.partial"
mv "$build/build.log.partial" "$build/build.log"
