#!/usr/bin/env bash
# gpu-check.sh --prepare runs this: Open MPI's runtime packages for the batch stages (the GPU machine
# has no MPI), into .gpu/mpi/, unpacked there by scripts/gpu-stages/mpi-kit.sh.
exec bash scripts/gpu-stages/mpi-kit.sh download .gpu/mpi
