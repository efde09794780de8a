#!/usr/bin/env bash
# Installs the Debian 12 packages gausslab needs that this machine lacks (nothing if all are there).
# CUDA's nvcc and cuFFT are expected in /usr/local/cuda (NVIDIA's toolkit; not a Debian package).
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config git
  libimgui-dev libglfw3-dev python3-glad              # viewer: Dear ImGui 1.86 (brings libstb-dev, its font rasteriser), GLFW, glad
  fonts-dejavu-core                                   # viewer: DejaVu Sans, loaded at start (σ ≤ ≥ – ×)
  libxtst6                                            # the window tests' synthetic X input (XTest)
  libpng-dev libjpeg62-turbo-dev libtiff-dev libgif-dev   # image codecs (BMP, TGA, PNM, PFM, NPY are our own); libpng also for gausslab-sequence's 16-bit frames
  libopenexr-dev libcfitsio-dev                       # image codecs: OpenEXR (half and float), FITS
  openexr                                             # exrheader: the EXR files gausslab writes checked by OpenEXR's own tool
  libegl-dev libgl-dev libegl-mesa0 libgl1-mesa-dri   # OpenGL/EGL (Mesa on machines without NVIDIA GL)
  libgtest-dev googletest                             # tests
  xvfb xauth                                          # the viewer's window tests on headless machines
  python3-numpy python3-scipy python3-matplotlib      # SciPy cross-checks, benchmark charts
  libopenmpi-dev openmpi-bin                          # the batch engine across processes and hosts (mpirun)
  libavformat-dev libavcodec-dev libswscale-dev libavutil-dev  # video frames (optional at build time)
  python3-pil python3-opencv                          # the image codecs checked against PIL and OpenCV
  python3-tifffile python3-astropy                    # ... and every pixel type against tifffile (TIFF) and astropy (FITS)
  time                                                # /usr/bin/time: the corpora test's peak memory of each reader run
  python3-markdown-it                                 # tests/docs: the docs' tables, links and numbers, parsed as Markdown
  clang-14 libclang-rt-14-dev                         # libFuzzer: the fuzz targets' short CI run
  pybind11-dev python3-pybind11 python3-dev python3-pytest   # the Python module gausslab and its tests
  help2man desktop-file-utils                         # the installed man pages; the desktop entry's check
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "gausslab: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "gausslab: nvcc was not found. Install NVIDIA's CUDA toolkit (12.x or 13.x, with cuFFT) into" >&2
  echo "/usr/local/cuda; gausslab builds its kernels everywhere and runs them where a GPU is." >&2
  exit 1
fi
