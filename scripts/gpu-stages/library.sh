# The library's H200 check (issues #38 and #37): the public C++ interface's device tests (device
# images on a caller's stream, batches as one CUDA graph launch equal to the images one by one and
# allocating nothing when repeated, custom kernels), then the Python module built there for the
# machine's python3 (3.12, with CuPy, PyTorch and SciPy) against the carried libgausslab.so.0, its
# tests (device arrays with no host copy, SciPy comparisons) and the side-by-side benchmark against
# CuPy and torchvision (about 90 s; its table in logs/python-bench.md). About 4 minutes in all.
stage library-api-gpu 150 bash .gpu/run.sh .gpu/bin/gausslab_api_tests \
  --gtest_filter='PublicFilterGpu*:PublicCustomKernel*:PublicFilter.*'
library_py=/tmp/gausslab-python
stage library-python-build 120 bash -c "rm -rf $library_py && mkdir -p $library_py/gausslab && \
  cp python/gausslab/*.py $library_py/gausslab/ && \
  g++ -O2 -std=c++17 -shared -fPIC \$(python3 -m pybind11 --includes) -Iapi/include -I/usr/local/cuda/include \
    python/src/module.cpp $root/.gpu/lib/libgausslab.so.0 -L/usr/local/cuda/lib64 -lcudart \
    -Wl,-rpath,$root/.gpu/lib:/usr/local/cuda/lib64 \
    -o $library_py/gausslab/_gausslab\$(python3 -c 'import sysconfig; print(sysconfig.get_config_var(\"EXT_SUFFIX\"))')"
stage library-python-tests 150 bash .gpu/run.sh env PYTHONPATH=$library_py PYTHONDONTWRITEBYTECODE=1 \
  python3 -m pytest -q -p no:cacheprovider tests/python
stage library-python-bench 120 bash .gpu/run.sh env PYTHONPATH=$library_py \
  python3 bench/python/bench_gaussian.py --out "$OUT/logs/python-bench.md"
