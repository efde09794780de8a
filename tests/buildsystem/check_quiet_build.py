#!/usr/bin/env python3
"""A build prints no warning. Reads the log that scripts/build.sh leaves (BUILD/build.log: the
configure step and the whole build's output) and fails listing each warning with the build step
that printed it. First checks its own pattern on one warning of each kind the toolchain prints
(GCC and Clang, nvcc's front end, ptxas, the host compiler under nvcc, CMake), so that a pattern
that matches nothing cannot pass. Exits 77 (ctest: skipped) when there is no log, as after a build
made without scripts/build.sh (the developers' build script).
Usage: check_quiet_build.py BUILD/build.log"""
import re
import sys

WARNING = re.compile(r"\bwarning\s*(#\d+-D\s*)?:|^CMake (Deprecation )?Warning|\bptxas warning\b|\bnvlink warning\b",
                     re.IGNORECASE)
STEP = re.compile(r"^\[\d+/\d+\] ")

# One line of each kind; each must be found.
SAMPLES = [
    "../core/src/image.cpp:12:5: warning: unused variable 'x' [-Wunused-variable]",
    "../cuda/methods/fft.cu(88): warning #177-D: variable \"n\" was declared but never referenced",
    "ptxas warning : Registers are spilled to local memory in function '_Z3fooPf', 8 bytes spill stores",
    "../tests/gpu/probe.cu:2:3: warning: style of line directive is a GCC extension",
    "CMake Warning at cuda/CMakeLists.txt:3 (message):",
    "CMake Deprecation Warning at CMakeLists.txt:1 (cmake_minimum_required):",
    "nvlink warning : SM Arch ('sm_75') not found in 'x.o'",
]
# Lines a clean build prints that must not be taken for warnings.
CLEAN = [
    "[12/290] Building CXX object core/CMakeFiles/gausslab_core.dir/src/accuracy.cpp.o",
    "-- gausslab-sequence: no video support (FFmpeg's libavformat/libavcodec/libswscale not found or off)",
    "[3/9] Building CXX object tests/CMakeFiles/t.dir/test_warnings_are_errors.cpp.o",
]


def main():
    missed = [s for s in SAMPLES if not WARNING.search(s)] + [s for s in CLEAN if WARNING.search(s)]
    if missed:
        print("check_quiet_build.py: the warning pattern is wrong for:\n  " + "\n  ".join(missed))
        return 1
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    try:
        with open(sys.argv[1], errors="replace") as log:
            lines = log.read().splitlines()
    except FileNotFoundError:
        print(f"no build log at {sys.argv[1]}: this build was not made by scripts/build.sh; nothing to check")
        return 77
    steps = sum(1 for line in lines if STEP.match(line))
    step, found = "(configure)", []
    for line in lines:
        if STEP.match(line):
            step = line
        elif WARNING.search(line):
            found.append((step, line))
    if found:
        print(f"the build printed {len(found)} warning(s) in {steps} build steps (fix them: a build must be quiet):")
        for step, line in found[:40]:
            print(f"  {line}\n      during {step}")
        if len(found) > 40:
            print(f"  ... and {len(found) - 40} more (see {sys.argv[1]})")
        return 1
    print(f"no warning in {sys.argv[1]} ({steps} build steps)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
