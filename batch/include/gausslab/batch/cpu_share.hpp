#pragma once
// How many CPU threads one process of a batch uses. Ranks on one host share its cores: each takes
// cores / ranks on the host (at least 1), for its pool of threads and for cpu_openmp's OpenMP
// threads alike, unless --threads says otherwise. Without this each rank's OpenMP would start a
// thread per core: mpirun -np 3 on 2 cores ran 4-6× slower than one process.
namespace gausslab {

// The host's cores (std::thread::hardware_concurrency; at least 1).
int host_cores();
// The cores this process may run on (its affinity mask: one when mpirun bound it to a core).
int cores_allowed();

// `requested` when above 0 (--threads); otherwise host_cores() / ranks_on_host, at most
// cores_allowed(), at least 1.
int cpu_threads_per_rank(int requested, int ranks_on_host);

// Makes the OpenMP regions that the calling thread starts use `threads` threads, and returns the
// number OpenMP will now use (omp_get_max_threads). OpenMP keeps this setting per thread: every
// thread that filters with cpu_openmp calls it, not only the one that started the batch.
int use_openmp_threads(int threads);

}  // namespace gausslab
