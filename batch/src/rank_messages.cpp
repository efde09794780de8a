// A rank's summary and the job list as bytes and back (distributed.hpp): each field listed once,
// for the writer and the reader alike.
#include "gausslab/batch/distributed.hpp"
#include "wire.hpp"

namespace gausslab {

namespace {

// Every field of RankSummary and its EngineReport, in order. Summary is RankSummary for the
// reader and const RankSummary for the writer.
template <class Io, class Summary>
void summary_fields(Io& io, Summary& s) {
  auto& r = s.report;
  io(s.rank, s.host, s.device, s.scatter_ms, s.gather_ms, s.failure);
  io(r.files, r.done, r.failed, r.banded, r.refused);
  io(r.input_bytes, r.megapixels, r.wall_s, r.first_finished_s, r.last_finished_s);
  io(r.stages.sum_ms, r.stages.busy_ms, r.stages.count, r.cpu_stages);
  io(r.threads, r.openmp_threads, r.lanes, r.pipelined, r.pinned, r.method_id, r.device_name);
  io(r.peak_pinned_bytes, r.peak_device_bytes, r.peak_device_in_use, r.peak_host_bytes);
  io(r.device_budget_bytes, r.host_budget_bytes, r.pinned_allocation_ms);
  io(r.failures, r.notes);
}

template <class Io, class Job>
void job_fields(Io& io, Job& job) {
  io(job.input, job.output, job.size_bytes);
}

}  // namespace

std::string serialize_summary(const RankSummary& summary) {
  WireWriter out;
  summary_fields(out, summary);
  return out.take();
}

RankSummary deserialize_summary(const std::string& bytes) {
  WireReader in(bytes);
  RankSummary summary;
  summary_fields(in, summary);
  return summary;
}

std::string serialize_jobs(const std::vector<BatchJob>& jobs) {
  WireWriter out;
  out(static_cast<std::uint64_t>(jobs.size()));
  for (const BatchJob& job : jobs) job_fields(out, job);
  return out.take();
}

std::vector<BatchJob> deserialize_jobs(const std::string& bytes) {
  WireReader in(bytes);
  std::uint64_t count = 0;
  in(count);
  std::vector<BatchJob> jobs;
  for (std::uint64_t i = 0; i < count; ++i) {
    BatchJob job;
    job_fields(in, job);
    jobs.push_back(std::move(job));
  }
  return jobs;
}

}  // namespace gausslab
