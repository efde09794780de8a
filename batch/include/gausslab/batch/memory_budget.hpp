#pragma once
// How much memory a batch may hold, and how much it held: the stated shares of the host's and the
// GPU's memory, divided among the ranks that share them, and the peaks for the summary.
#include <cstddef>
#include <string>

namespace gausslab {

// Shares of memory the engine allows itself (of each rank's part when ranks share a host or a GPU).
inline constexpr double kHostMemoryShare = 0.5;    // images in flight: decoded, on loan, encoded
inline constexpr double kPinnedMemoryShare = 0.25;  // of that, page-locked buffers
inline constexpr double kDeviceMemoryShare = 0.8;   // of the device memory free at the start
inline constexpr double kReadBufferShare = 0.25;    // of the host budget: the threads' kept read buffers

// The largest read buffer (a file's bytes) each of `threads` threads keeps for its next file: at
// most 256 MiB, and less where that many threads would hold more than kReadBufferShare of the host
// budget between them (the batch's admission of images counts them as held). 0: none kept.
std::size_t kept_read_buffer_bytes(std::size_t host_budget, int threads);

// Physical memory of this host (sysconf), bytes; 0 if unknown.
std::size_t host_physical_bytes();
// The process's peak resident set (VmHWM from /proc/self/status), bytes; 0 if unknown.
std::size_t peak_resident_bytes();
// The process's current resident set (VmRSS), bytes; 0 if unknown.
std::size_t resident_bytes();

// "1.5 GiB", "37.7 MiB", "512 KiB", "12 B".
std::string format_bytes(double bytes);
// Parses "1GiB", "512MiB", "1.5G", "2048M", "1000000" (bytes); 1G = 1 GiB. Throws UsageError
// naming `flag` for anything else or a value that is not positive.
std::size_t parse_bytes(const std::string& flag, const std::string& text);

}  // namespace gausslab
