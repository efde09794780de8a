// Which CUDA call held a thread, and for how long: a diagnostic for the viewer's slow frames.
//
// Loaded by the CUDA driver itself, without changing or rebuilding the program:
//   CUDA_INJECTION64_PATH=/path/to/libgausslab_cuda_hold_trace.so GAUSSLAB_CUDA_HOLD_MS=1 gausslab ...
// It subscribes to CUPTI's callbacks for the runtime and driver APIs and prints, to stderr, one line
// per call that took at least GAUSSLAB_CUDA_HOLD_MS milliseconds (default 1):
//   cuda hold: 3.412 ms cudaLaunchKernel(shared2dKernel...) thread 4711 (main) from 123456.789 ms
// "from" is CLOCK_MONOTONIC in milliseconds, the clock of the frame trace's "mono=" (app/frame_trace),
// so a slow frame's section can be matched with the call that held it, in its own thread or
// another (a driver lock held by a worker's cudaMalloc shows as the worker's long call overlapping
// the main thread's). A driver call made inside a runtime call is not printed again.
// Nsight Systems would show the same, but cannot make a report on the GPU machine we measure on.
#include <cupti.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

double g_threshold_ms = 1.0;
thread_local int t_runtime_depth = 0;  // >0 while this thread is inside a runtime API call

double monotonic_ms() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) * 1e-6;
}

void CUPTIAPI on_api_call(void*, CUpti_CallbackDomain domain, CUpti_CallbackId, const void* data) {
  const auto* call = static_cast<const CUpti_CallbackData*>(data);
  const bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
  if (!runtime && t_runtime_depth > 0) return;
  // correlationData is one 64-bit word kept from a call's entry to its exit: the start time.
  if (call->callbackSite == CUPTI_API_ENTER) {
    if (runtime) ++t_runtime_depth;
    const double now = monotonic_ms();
    static_assert(sizeof(double) == sizeof(std::uint64_t));
    __builtin_memcpy(call->correlationData, &now, sizeof now);
    return;
  }
  if (runtime) --t_runtime_depth;
  double start = 0;
  __builtin_memcpy(&start, call->correlationData, sizeof start);
  const double held_ms = monotonic_ms() - start;
  if (held_ms < g_threshold_ms) return;
  const long thread = syscall(SYS_gettid);
  std::fprintf(stderr, "cuda hold: %.3f ms %s%s%s%s thread %ld (%s) from %.3f ms\n", held_ms, call->functionName,
               call->symbolName ? "(" : "", call->symbolName ? call->symbolName : "", call->symbolName ? ")" : "",
               thread, thread == getpid() ? "main" : "worker", start);
}

}  // namespace

extern "C" int InitializeInjection() {
  if (const char* text = std::getenv("GAUSSLAB_CUDA_HOLD_MS")) g_threshold_ms = std::atof(text);
  CUpti_SubscriberHandle subscriber{};
  if (cuptiSubscribe(&subscriber, on_api_call, nullptr) != CUPTI_SUCCESS ||
      cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API) != CUPTI_SUCCESS ||
      cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API) != CUPTI_SUCCESS) {
    std::fprintf(stderr, "cuda hold: CUPTI would not subscribe to the API callbacks; no trace\n");
    return 0;
  }
  std::fprintf(stderr, "cuda hold: tracing CUDA API calls of %.3f ms or more\n", g_threshold_ms);
  return 1;
}
