#!/usr/bin/env bash
# The installed package, from the main build (nothing is rebuilt): cmake --install into a temporary
# prefix; the files it must hold; the public header alone compiles with no internal or CUDA header;
# --version of every installed program; `import gausslab` from the prefix; examples/ built against
# the prefix with find_package(gausslab) alone and its test run (on the CPU here); the Debian package
# from CPack, its file list, and its Depends covering every library the installed files need.
# Usage: check_install.sh BUILD_DIR SOURCE_DIR PYTHON
set -euo pipefail
build=$(cd "$1" && pwd) source=$(cd "$2" && pwd) python=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/gausslab-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
fail() { echo "check_install: $*" >&2; exit 1; }
step() { echo "== $*"; }

step "cmake --install $build --prefix $prefix"
cmake --install "$build" --prefix "$prefix" > "$work/install.log" || { cat "$work/install.log"; fail "the install failed"; }

step "the installed files"
pydir=$prefix/lib/python3/dist-packages/gausslab
for f in bin/gausslab bin/gausslab-filter bin/gausslab-sequence bin/gausslab-bench \
         lib/libgausslab.so lib/libgausslab.so.0 include/gausslab/gausslab.hpp \
         lib/cmake/gausslab/gausslabConfig.cmake lib/cmake/gausslab/gausslabConfigVersion.cmake \
         lib/cmake/gausslab/gausslabTargets.cmake share/applications/gausslab.desktop \
         share/icons/hicolor/scalable/apps/gausslab.svg share/gausslab/plot_results.py share/doc/gausslab/library.md \
         share/man/man1/gausslab.1 share/man/man1/gausslab-filter.1 share/man/man1/gausslab-sequence.1 \
         share/man/man1/gausslab-bench.1 lib/python3/dist-packages/gausslab/__init__.py; do
  [ -e "$prefix/$f" ] || fail "$f is not installed"
done
ls "$pydir"/_gausslab*.so > /dev/null || fail "the Python module's native part is not installed"
# Only the library's own header: nothing of core/, cuda/ or the other layers is installed.
extra=$(cd "$prefix/include" && find . -type f ! -path ./gausslab/gausslab.hpp)
[ -z "$extra" ] || fail "headers other than gausslab/gausslab.hpp are installed: $extra"
for page in gausslab gausslab-filter gausslab-sequence gausslab-bench; do
  # help2man writes an option as \fB\-\-name\fR: a page from the --help text has some.
  [ "$(grep -c 'fB\\-\\-' "$prefix/share/man/man1/$page.1")" -ge 3 ] || fail "$page.1 does not hold its --help's options"
done
if command -v desktop-file-validate > /dev/null; then
  desktop-file-validate "$prefix/share/applications/gausslab.desktop" || fail "the desktop entry is not valid"
fi

step "the public header alone: no internal header, no CUDA header, no warning"
if grep -n '#include' "$prefix/include/gausslab/gausslab.hpp" | grep -v '<[a-z_]*>$'; then
  fail "gausslab.hpp includes a header that is not the C++ standard library's"
fi
echo '#include <gausslab/gausslab.hpp>
int main() { gausslab::Filter f(gausslab::FilterOptions{}); return f.options().kernel.sigma > 0 ? 0 : 1; }' > "$work/header.cpp"
g++ -std=c++17 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I"$prefix/include" "$work/header.cpp" ||
  fail "gausslab.hpp does not compile on its own"

step "--version of every installed program"
for program in gausslab gausslab-filter gausslab-sequence gausslab-bench; do
  out=$("$prefix/bin/$program" --version) || fail "$program --version failed"
  head -1 <<< "$out" | grep -Eq "^$program \(gausslab\) [0-9]+\.[0-9]+\.[0-9]+\+" || fail "$program --version: $out"
  for key in "commit: " "CUDA runtime: " "CUDA driver: " "GPU: "; do
    grep -q "^$key" <<< "$out" || fail "$program --version says no '$key': $out"
  done
  echo "$(head -1 <<< "$out"); $(grep '^GPU: ' <<< "$out" | cut -c1-60)"
done

step "import gausslab from the prefix"
(cd "$work" && PYTHONPATH="$prefix/lib/python3/dist-packages" "$python" -c '
import numpy as np, gausslab
assert gausslab.__file__.startswith("'"$prefix"'"), gausslab.__file__
out = gausslab.gaussian_filter(np.ones((5, 6), np.float32), 1.0)
assert abs(float(out.mean()) - 1.0) < 1e-6
assert gausslab.correlate1d(np.ones(5, np.float32), [1, 1, 1], mode="constant").tolist() == [2, 3, 3, 3, 2]
print("gausslab", gausslab.__version__, "from", gausslab.__file__)') || fail "import gausslab from the prefix failed"

step "examples/ against the prefix, with find_package(gausslab) alone"
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
cmake -S "$source/examples" -B "$work/example" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF > "$work/example.log" 2>&1 || { cat "$work/example.log"; fail "examples/ does not configure"; }
cmake --build "$work/example" > "$work/example-build.log" 2>&1 || { cat "$work/example-build.log"; fail "examples/ does not build"; }
! grep -i "warning" "$work/example-build.log" || fail "examples/ builds with warnings"
ctest --test-dir "$work/example" --output-on-failure || fail "the example's test failed"
"$work/example/blur_example"

step "the Debian package (cpack -G DEB)"
(cd "$build" && cpack -G DEB -B "$work/package" > "$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; fail "cpack failed"; }
deb=$(ls "$work/package"/*.deb)
dpkg-deb -c "$deb" | awk '{print $6}' > "$work/package-files.txt"
for f in ./usr/bin/gausslab ./usr/bin/gausslab-filter ./usr/bin/gausslab-sequence ./usr/bin/gausslab-bench \
         ./usr/include/gausslab/gausslab.hpp ./usr/lib/cmake/gausslab/gausslabConfig.cmake \
         ./usr/lib/python3/dist-packages/gausslab/__init__.py ./usr/share/applications/gausslab.desktop \
         ./usr/share/man/man1/gausslab-filter.1; do
  grep -qx -- "$f" "$work/package-files.txt" || fail "the package lacks $f"
done
grep -q '^./usr/lib/libgausslab.so.0' "$work/package-files.txt" || fail "the package lacks libgausslab.so.0"
echo "$(basename "$deb"): $(wc -l < "$work/package-files.txt") entries, $(du -h "$deb" | cut -f1)"
depends=$(dpkg-deb -f "$deb" Depends)
depends_names=$(tr ',' '\n' <<< "$depends" | sed 's/^ *//; s/[ (].*//')
# Each library an installed ELF file needs belongs to a package in Depends (or to NVIDIA's CUDA toolkit).
missing=()
while read -r file; do
  for needed in $(readelf -d "$file" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    case $needed in libcudart.so.*|libcufft.so.*|libgausslab.so.*) continue ;; esac
    path=$(ldconfig -p | awk -v n="$needed" '$1 == n && /x86-64/ {print $NF}' | head -1) || true
    [ -n "$path" ] || { missing+=("$needed (not found)"); continue; }
    owner=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -1 | cut -d: -f1) ||
      owner=$(dpkg -S "$path" 2>/dev/null | head -1 | cut -d: -f1) || true
    [ -n "$owner" ] || continue
    grep -qxF -- "$owner" <<< "$depends_names" || missing+=("$owner (for $needed)")
  done
done < <(find "$prefix" -type f \( -perm -u+x -o -name '*.so*' \))
[ ${#missing[@]} -eq 0 ] || fail "CPACK_DEBIAN_PACKAGE_DEPENDS (packaging/CMakeLists.txt) lacks: $(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')"
echo "Depends: $depends"
echo "check_install: all good"
