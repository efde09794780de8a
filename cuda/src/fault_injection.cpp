#include "gausslab/cuda/fault_injection.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace gausslab {

namespace {

constexpr InjectedFault kFaults[] = {InjectedFault::None, InjectedFault::OutOfMemory, InjectedFault::LaunchFailure,
                                     InjectedFault::NoDevice};

InjectedFault from_environment() {
  const char* value = std::getenv("GAUSSLAB_INJECT_FAULT");
  if (!value || !*value) return InjectedFault::None;
  if (const std::optional<InjectedFault> fault = injected_fault_from_string(value)) return *fault;
  std::fprintf(stderr,
               "gausslab: GAUSSLAB_INJECT_FAULT=%s is not one of none, out-of-memory, launch-failure, no-device; "
               "no fault is injected\n",
               value);
  return InjectedFault::None;
}

// -1: no test override; otherwise the InjectedFault a ScopedFaultInjection set.
std::atomic<int>& test_override() {
  static std::atomic<int> value{-1};
  return value;
}

}  // namespace

const char* to_string(InjectedFault fault) {
  switch (fault) {
    case InjectedFault::None: return "none";
    case InjectedFault::OutOfMemory: return "out-of-memory";
    case InjectedFault::LaunchFailure: return "launch-failure";
    case InjectedFault::NoDevice: return "no-device";
  }
  return "?";
}

std::optional<InjectedFault> injected_fault_from_string(std::string_view name) {
  for (const InjectedFault fault : kFaults)
    if (name == to_string(fault)) return fault;
  return std::nullopt;
}

InjectedFault injected_fault() {
  const int forced = test_override().load();
  if (forced >= 0) return static_cast<InjectedFault>(forced);
  static const InjectedFault from_env = from_environment();
  return from_env;
}

ScopedFaultInjection::ScopedFaultInjection(InjectedFault fault) {
  const int before = test_override().exchange(static_cast<int>(fault));
  if (before >= 0) previous_ = static_cast<InjectedFault>(before);
}

ScopedFaultInjection::~ScopedFaultInjection() { test_override().store(previous_ ? static_cast<int>(*previous_) : -1); }

}  // namespace gausslab
