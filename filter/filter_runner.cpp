#include "filter_runner.hpp"

#include <chrono>
#include <cstdio>
#include <exception>

#include "gausslab/core/image_io.hpp"
#include "gausslab/cuda/run_on_host.hpp"

namespace gausslab {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct FileResult {
  enum class Status { Done, Unreadable, Refused, Failed };
  Status status = Status::Done;
  std::string message;  // the reason, when not done
  int width = 0, height = 0, channels = 0;
  double filter_ms = 0;
};

FileResult filter_one(const FilterOptions& options, Method& method, const FileJob& job) {
  FileResult result;
  LoadedImage loaded;
  try {
    loaded = load_image(job.input);
  } catch (const ImageLoadError& error) {
    result.status = FileResult::Status::Unreadable;
    result.message = error.what();
    return result;
  }
  result.width = loaded.image.width();
  result.height = loaded.image.height();
  result.channels = loaded.source_channels;

  const FilterProblem problem{result.width, result.height, PixelFormat::Rgba8, options.params};
  if (std::string reason = method.unsupported_reason(problem); !reason.empty()) {
    result.status = FileResult::Status::Refused;
    result.message = "'" + job.input + "': " + method.info().id + " refuses this " + std::to_string(result.width) +
                     "×" + std::to_string(result.height) + " image: " + reason;
    return result;
  }
  try {
    const auto start = Clock::now();
    const ImageRgba8 filtered = run_on_host(method, loaded.image, options.params);
    result.filter_ms = ms_since(start);
    save_image(job.output, filtered, loaded.source_channels, options.overwrite);
  } catch (const std::bad_alloc&) {
    result.status = FileResult::Status::Failed;
    result.message = "'" + job.input + "': out of memory while filtering " + std::to_string(result.width) + "×" +
                     std::to_string(result.height) + " pixels";
  } catch (const ImageSaveError& error) {  // names the output file itself
    result.status = FileResult::Status::Failed;
    result.message = error.what();
  } catch (const std::exception& error) {  // CudaError, invalid_argument
    result.status = FileResult::Status::Failed;
    result.message = "'" + job.input + "': " + error.what();
  }
  return result;
}

std::string format_ms(double ms) {
  char text[32];
  if (ms < 1000)
    std::snprintf(text, sizeof text, "%.1f ms", ms);
  else
    std::snprintf(text, sizeof text, "%.2f s", ms / 1000);
  return text;
}

}  // namespace

const char* channels_name(int channels) {
  switch (channels) {
    case 1:
      return "grey";
    case 2:
      return "grey+alpha";
    case 3:
      return "RGB";
    default:
      return "RGBA";
  }
}

std::string progress_bar(int done, int total, int width) {
  const int filled = total > 0 ? static_cast<int>(static_cast<long long>(done) * width / total) : width;
  return "[" + std::string(static_cast<std::size_t>(filled), '#') +
         std::string(static_cast<std::size_t>(width - filled), '.') + "]";
}

int run_filter_jobs(const FilterOptions& options, Method& method, const std::vector<FileJob>& jobs, std::ostream& log) {
  const auto start = Clock::now();
  const int total = static_cast<int>(jobs.size());
  const int number_width = static_cast<int>(std::to_string(total).size());
  std::vector<std::string> failures;  // each message names its file
  bool refused = false;

  for (int i = 0; i < total; ++i) {
    const FileJob& job = jobs[static_cast<std::size_t>(i)];
    const FileResult result = filter_one(options, method, job);
    const bool done = result.status == FileResult::Status::Done;
    if (!done) failures.push_back(result.message);
    refused = refused || result.status == FileResult::Status::Refused;

    char counter[32];
    std::snprintf(counter, sizeof counter, "%*d/%d", number_width, i + 1, total);
    const std::string prefix = options.batch() ? progress_bar(i + 1, total, 20) + " " + counter + "  " : "";
    if (done) {
      if (!options.quiet)
        log << prefix << job.input << " -> " << job.output << "  " << result.width << "×" << result.height << " "
            << channels_name(result.channels) << "  " << format_ms(result.filter_ms) << "\n";
    } else if (!options.batch() || !options.quiet) {  // a quiet batch names its failures in the summary
      log << (options.batch() ? prefix + "FAILED: " : "gausslab-filter: ") << result.message << "\n";
    }
    log.flush();
  }

  const int done_count = total - static_cast<int>(failures.size());
  if (options.batch() && (!options.quiet || !failures.empty()))
    log << "gausslab-filter: " << done_count << " of " << total << " file" << (total == 1 ? "" : "s") << " done with "
        << method.info().id << " (" << describe(options.params) << ") in " << format_ms(ms_since(start))
        << (failures.empty() ? "" : "; failed:") << "\n";
  if (options.batch())  // the summary names every failure, also when --quiet
    for (const std::string& failure : failures) log << "  " << failure << "\n";

  if (failures.empty()) return kExitDone;
  if (!options.batch() && refused) return kExitUsage;
  return kExitFileFailed;
}

}  // namespace gausslab
