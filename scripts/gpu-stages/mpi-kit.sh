#!/usr/bin/env bash
# Open MPI for the GPU machine, which has none: Debian 12's runtime packages carried as .deb files
# in .gpu/mpi/ and unpacked there into a private prefix (never into /).
#   bash scripts/gpu-stages/mpi-kit.sh download .gpu/mpi   on the build machine (gpu-check.sh --prepare runs it)
#   source scripts/gpu-stages/mpi-kit.sh                  on the GPU machine, from the repository root:
#                                                          unpacks into $GAUSSLAB_MPI_PREFIX (default
#                                                          /tmp/gausslab-openmpi) and exports the environment
# The runtime: mpirun (orterun), libmpi and its components, PMIx, hwloc, libevent, and the libraries
# of the optional network components (libfabric, UCX, verbs, PSM), so that none fails to load.
# About 6 MiB of packages, 21 MiB unpacked.
gausslab_mpi_packages="openmpi-bin libopenmpi3 openmpi-common libhwloc15 libevent-core-2.1-7
  libevent-pthreads-2.1-7 libpmix2 libmunge2 libfabric1 libucx0 libibverbs1 librdmacm1 libnl-3-200
  libnl-route-3-200 libpsm-infinipath1 libpsm2-2 libnuma1 libudev1"

if [ "${1:-}" = "download" ]; then
  set -euo pipefail
  dir=${2:?usage: mpi-kit.sh download DIR}
  mkdir -p "$dir"
  if [ "$(ls "$dir"/*.deb 2>/dev/null | wc -l)" -lt 18 ]; then
    o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/gpu-apt-lists -oAPT::Sandbox::User=root'
    mkdir -p /tmp/gpu-apt-lists/partial
    apt-get $o update >/dev/null
    # shellcheck disable=SC2086
    (cd "$dir" && apt-get $o download $gausslab_mpi_packages >/dev/null)
  fi
  echo "Open MPI for the GPU machine: $(ls "$dir"/*.deb | wc -l) packages, $(du -sm "$dir" | cut -f1) MiB in $dir"
  exit 0
fi

# Sourced on the GPU machine.
gausslab_mpi_prefix=${GAUSSLAB_MPI_PREFIX:-/tmp/gausslab-openmpi}
if [ ! -x "$gausslab_mpi_prefix/usr/bin/orterun" ]; then
  for deb in .gpu/mpi/*.deb; do dpkg -x "$deb" "$gausslab_mpi_prefix"; done
  ln -sf orterun "$gausslab_mpi_prefix/usr/bin/mpirun"  # Debian makes this link in a maintainer script
fi
export OPAL_PREFIX=$gausslab_mpi_prefix/usr               # Open MPI finds its components and help files here
export OPAL_SYSCONFDIR=$gausslab_mpi_prefix/etc/openmpi   # and Debian's default settings
export PATH=$gausslab_mpi_prefix/usr/bin:$PATH
export LD_LIBRARY_PATH=$gausslab_mpi_prefix/usr/lib/x86_64-linux-gnu:$gausslab_mpi_prefix/usr/lib/x86_64-linux-gnu/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1  # the GPU machine runs everything as root
export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1         # one host: shared memory, no network probing
export OMPI_MCA_btl_vader_single_copy_mechanism=none    # containers forbid process_vm_readv (CMA)
export OMPI_MCA_rmaps_base_oversubscribe=1              # ranks may outnumber the cores given to the job
export OMPI_MCA_mca_base_component_show_load_errors=0
command -v ssh >/dev/null 2>&1 || export OMPI_MCA_plm=isolated  # no ssh there: start ranks locally
