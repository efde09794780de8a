#pragma once
// The viewer's heavy CPU work (the exact Gaussian, CPU methods in the slots, compare-all, the
// numbers' CPU paths) runs on worker threads whose OpenMP teams would otherwise take every core.
// The UI thread, the CUDA and GL drivers' threads and the workers that enqueue GPU work then wait
// for a core: on the H100 machine (16 cores), with the exact Gaussian computing on all 16, the UI
// thread was taken off its core for a scheduler tick (~4 ms) in 16–49 frames of a 13 s session,
// and in 2–7 with 12 threads. These calls give a worker's OpenMP teams a share that leaves cores free.
namespace gausslab {

// The OpenMP team size for background work on a machine with `hardware_threads` threads: all but a
// quarter of them (at least 1, at most 4 left free), and never more than `openmp_limit` (the
// user's OMP_NUM_THREADS, when set).
int background_cpu_threads(int hardware_threads, int openmp_limit);

// For the calling thread (and the OpenMP teams it starts), once (later calls do nothing):
// background_cpu_threads of this machine; with `lower_priority`, also nice 10 (only for threads that make no CUDA calls: a lowered thread
// holding a driver lock would hold up the UI thread's calls behind it).
void use_background_cpu_share(bool lower_priority);

}  // namespace gausslab
