// The batch's smaller parts: dealing files to ranks, stage statistics and the bound, the host
// buffer pool, the thread pool's priorities, memory sizes, the CPU share of a rank, the default
// method rule, the job list between ranks and the world of one.
#include <gtest/gtest.h>

#include <omp.h>

#include <atomic>
#include <future>
#include <numeric>
#include <thread>

#include "gausslab/batch/cpu_share.hpp"
#include "gausslab/batch/default_method.hpp"
#include "gausslab/batch/distributed.hpp"
#include "gausslab/batch/host_buffer_pool.hpp"
#include "gausslab/batch/memory_budget.hpp"
#include "gausslab/batch/mpi_session.hpp"
#include "gausslab/batch/stage_stats.hpp"
#include "gausslab/batch/thread_pool.hpp"
#include "gausslab/core/cli_args.hpp"

namespace gausslab {
namespace {

TEST(DealFiles, EveryFileOnceAndTheRanksLoadedAlike) {
  std::vector<BatchJob> jobs;
  const std::uint64_t sizes[] = {900, 100, 100, 100, 500, 400, 300, 300, 200, 100};
  for (std::uint64_t size : sizes) jobs.push_back({"f" + std::to_string(jobs.size()), "", size});
  const auto dealt = deal_files(jobs, 3);
  ASSERT_EQ(dealt.size(), 3u);
  std::vector<int> seen(jobs.size(), 0);
  std::vector<std::uint64_t> load;
  for (const auto& indices : dealt) {
    EXPECT_TRUE(std::is_sorted(indices.begin(), indices.end()));
    std::uint64_t bytes = 0;
    for (std::size_t i : indices) {
      ++seen[i];
      bytes += jobs[i].size_bytes;
    }
    load.push_back(bytes);
  }
  EXPECT_EQ(seen, std::vector<int>(jobs.size(), 1));
  // 3000 bytes over 3 ranks: the largest first, each to the least loaded, gives 1000 each here.
  EXPECT_EQ(*std::max_element(load.begin(), load.end()) - *std::min_element(load.begin(), load.end()), 0u);
  const auto more_ranks = deal_files({{"a", "", 1}}, 4);
  EXPECT_EQ(more_ranks[0].size() + more_ranks[1].size() + more_ranks[2].size() + more_ranks[3].size(), 1u);
}

TEST(StageStats, BusyTimeIsTheUnionAndTheBoundIsTheBusiestResource) {
  StageRecorder recorder;
  recorder.add(Stage::Upload, 0.0, 1.0);
  recorder.add(Stage::Upload, 0.5, 1.5);  // overlaps: busy 1.5 s, summed 2 s
  recorder.add(Stage::Upload, 3.0, 3.5);
  recorder.add(Stage::Decode, 0.0, 4.0);
  recorder.add(Stage::Decode, 0.0, 4.0);
  const StageTotals totals = recorder.totals();
  EXPECT_DOUBLE_EQ(totals.sum_ms[static_cast<int>(Stage::Upload)], 2500.0);
  EXPECT_DOUBLE_EQ(totals.busy_ms[static_cast<int>(Stage::Upload)], 2000.0);
  EXPECT_EQ(totals.count[static_cast<int>(Stage::Upload)], 3);
  // 8 s of decoding: on 2 threads the pool is busy 4 s, more than the upload's 2 s; on 8 threads
  // only 1 s, and the upload is the bound.
  const BoundReport pool = find_bound(totals, {Stage::Decode}, 2, 4);
  EXPECT_NE(pool.name.find("CPU pool of 2 threads"), std::string::npos) << pool.name;
  EXPECT_DOUBLE_EQ(pool.occupancy_ms, 4000.0);
  EXPECT_DOUBLE_EQ(pool.per_image_ms, 1000.0);
  const BoundReport copy = find_bound(totals, {Stage::Decode}, 8, 4);
  EXPECT_EQ(copy.name, "upload");
  EXPECT_DOUBLE_EQ(copy.occupancy_ms, 2000.0);
  // Syncing on threads of its own is the disk's time, a resource apart: 3 s with two files synced
  // at once is its busy time, and the bound when the pool and the copies are less busy.
  recorder.add(Stage::Sync, 0.0, 2.0);
  recorder.add(Stage::Sync, 1.0, 3.0);
  const BoundReport disk = find_bound(recorder.totals(), {Stage::Decode}, 8, 4);
  EXPECT_EQ(disk.name, "sync");
  EXPECT_DOUBLE_EQ(disk.occupancy_ms, 3000.0);
}

TEST(HostBufferPool, StaysWithinItsBudgetReusesBuffersAndServesWaitersInOrder) {
  HostBufferPool pool(HostBufferPool::Kind::Pageable, 1000);
  HostBufferPool::Lease a = pool.acquire_blocking(600);
  std::vector<int> order;
  HostBufferPool::Lease b_lease, c_lease;
  pool.acquire(500, [&](HostBufferPool::Lease lease, const std::string&) {
    order.push_back(1);
    b_lease = std::move(lease);
  });
  pool.acquire(300, [&](HostBufferPool::Lease lease, const std::string&) {
    order.push_back(2);
    c_lease = std::move(lease);
  });
  EXPECT_TRUE(order.empty());  // 600 + 500 would exceed 1000: both wait, in order
  a.reset();                   // the 600 buffer comes back: it serves the 500, then 300 fits beside it
  ASSERT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_GE(b_lease->capacity, 500u);
  EXPECT_LE(pool.peak_bytes(), 1000u);
  b_lease.reset();
  c_lease.reset();
  const int before = pool.allocations();
  HostBufferPool::Lease again = pool.acquire_blocking(550);  // an idle buffer fits: no allocation
  EXPECT_EQ(pool.allocations(), before);
  again.reset();
  std::string error;
  pool.acquire(2000, [&](HostBufferPool::Lease lease, const std::string& why) {
    EXPECT_FALSE(lease);
    error = why;
  });
  EXPECT_NE(error.find("budget"), std::string::npos) << error;
}

TEST(HostBufferPool, TryAcquireLendsOnlyWhatAcquireWouldLendNowAndNeverWaits) {
  HostBufferPool pool(HostBufferPool::Kind::Pageable, 1000);
  HostBufferPool::Lease a = pool.try_acquire(600);
  ASSERT_TRUE(a);
  EXPECT_GE(a->capacity, 600u);
  EXPECT_FALSE(pool.try_acquire(500));   // 600 + 500 would exceed the budget: no buffer, no wait
  EXPECT_FALSE(pool.try_acquire(2000));  // more than the whole budget
  bool served = false;
  HostBufferPool::Lease waiting;
  pool.acquire(500, [&](HostBufferPool::Lease lease, const std::string&) {
    served = true;
    waiting = std::move(lease);
  });
  EXPECT_FALSE(served);
  EXPECT_FALSE(pool.try_acquire(100));  // would fit, but a request waits before it: first come, first served
  a.reset();
  EXPECT_TRUE(served);
  HostBufferPool::Lease b = pool.try_acquire(400);  // beside the 500 now
  ASSERT_TRUE(b);
  EXPECT_LE(pool.peak_bytes(), 1000u);
  b.reset();
  const int before = pool.allocations();
  EXPECT_TRUE(pool.try_acquire(300));  // the idle 400 fits: reused
  EXPECT_EQ(pool.allocations(), before);
}

TEST(ThreadPool, UrgentTasksRunBeforeNormalOnes) {
  std::vector<std::string> order;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  {
    ThreadPool pool(1);
    pool.submit([released] { released.wait(); });  // holds the only thread
    pool.submit([&] { order.push_back("normal"); });
    pool.submit([&] { order.push_back("urgent"); }, ThreadPool::Priority::Urgent);
    release.set_value();
  }  // the destructor runs what is queued, then joins
  EXPECT_EQ(order, (std::vector<std::string>{"urgent", "normal"}));
}

TEST(MemorySizes, ParsedInBinaryUnitsAndPrinted) {
  EXPECT_EQ(parse_bytes("--max-device-memory", "1GiB"), std::size_t(1) << 30);
  EXPECT_EQ(parse_bytes("--max-device-memory", "512M"), std::size_t(512) << 20);
  EXPECT_EQ(parse_bytes("--max-device-memory", "1.5g"), std::size_t(3) << 29);
  EXPECT_EQ(parse_bytes("--max-device-memory", "4096"), 4096u);
  for (const char* bad : {"", "GiB", "-1G", "0", "1X", "nan", "1e30G"})
    EXPECT_THROW(parse_bytes("--max-device-memory", bad), UsageError) << bad;
  EXPECT_EQ(format_bytes(1536.0 * 1024 * 1024), "1.5 GiB");
  EXPECT_EQ(format_bytes(12), "12 B");
  EXPECT_GT(host_physical_bytes(), 0u);
  EXPECT_GT(peak_resident_bytes(), 0u);
}

// The read buffers threads keep from file to file stay within a quarter of the host budget between
// them (16 threads under a 1 GiB budget: 16 MiB each, not 256), and never above 256 MiB each.
TEST(MemorySizes, KeptReadBuffersStayWithinAShareOfTheHostBudget) {
  const std::size_t gib = std::size_t(1) << 30;
  for (const std::size_t budget : {std::size_t(64) << 20, gib, 8 * gib, 64 * gib})
    for (const int threads : {1, 3, 16, 129}) {
      const std::size_t kept = kept_read_buffer_bytes(budget, threads);
      EXPECT_LE(kept * static_cast<std::size_t>(threads), static_cast<std::size_t>(budget * kReadBufferShare))
          << budget << " B, " << threads << " threads";
      EXPECT_LE(kept, std::size_t(256) << 20);
    }
  EXPECT_EQ(kept_read_buffer_bytes(gib, 16), std::size_t(16) << 20);
  EXPECT_EQ(kept_read_buffer_bytes(64 * gib, 4), std::size_t(256) << 20);
  EXPECT_EQ(kept_read_buffer_bytes(0, 4), 0u);
  EXPECT_EQ(kept_read_buffer_bytes(gib, 0), std::size_t(256) << 20);  // no threads: taken as one
}

TEST(CpuShare, RanksOnOneHostShareItsCoresUnlessThreadsAreGiven) {
  const int cores = host_cores();
  EXPECT_GE(cores, 1);
  EXPECT_LE(cores_allowed(), cores);
  EXPECT_EQ(cpu_threads_per_rank(0, 1), cores_allowed());
  EXPECT_EQ(cpu_threads_per_rank(0, cores + 1), 1);  // more ranks than cores: one each, never 0
  EXPECT_EQ(cpu_threads_per_rank(0, 2), std::max(1, std::min(cores_allowed(), cores / 2)));
  EXPECT_EQ(cpu_threads_per_rank(5, 3), 5);  // --threads wins
}

// Counts the threads of an OpenMP region started from the calling thread.
int openmp_team_size() {
  int team = 0;
#pragma omp parallel
  {
#pragma omp single
    team = omp_get_num_threads();
  }
  return team;
}

TEST(CpuShare, EachThreadSetsItsOwnOpenMpThreadCount) {
  // Why the engine sets the count on every thread that filters: OpenMP keeps it per thread, so a
  // value set on one thread does not reach the pool's threads.
  const auto on_a_new_thread = [] {
    int threads = 0;
    std::thread([&] { threads = omp_get_max_threads(); }).join();
    return threads;
  };
  const int before = on_a_new_thread();
  std::thread([] {
    EXPECT_EQ(use_openmp_threads(1), 1);
    EXPECT_EQ(openmp_team_size(), 1);
    EXPECT_EQ(use_openmp_threads(2), 2);
    EXPECT_EQ(openmp_team_size(), 2);
    EXPECT_EQ(use_openmp_threads(0), 1);  // at least one
  }).join();
  EXPECT_EQ(on_a_new_thread(), before);
}

TEST(DefaultMethod, IsAutoWithTheReason) {
  FilterParams params;
  EXPECT_EQ(choose_default_method(params, false).id, "auto");
  EXPECT_NE(choose_default_method(params, false).reason.find("no CUDA device"), std::string::npos);
  params.sigma = 40;
  EXPECT_EQ(choose_default_method(params, true).id, "auto");
  EXPECT_NE(choose_default_method(params, true).reason.find("measured fastest"), std::string::npos);
}

TEST(DefaultMethod, IsAutoWhereAGpuMethodTakesTheKernelOrRounding) {
  // separable_shared and separable_texture take masks, pairs and rank-1 matrices, naive_2d any
  // matrix, all three floor and ceil: auto chooses among them.
  FilterParams params;
  params.kernel = FilterKernel::mask({1, 2, 1});
  EXPECT_EQ(choose_default_method(params, false).id, "auto");  // auto runs cpu_openmp there
  EXPECT_EQ(choose_default_method(params, true).id, "auto");
  params.kernel = FilterKernel::matrix_2d(3, 3, {1, 2, 3, 4, 5, 6, 7, 8, 10});  // full rank
  EXPECT_EQ(choose_default_method(params, true).id, "auto");
  params = FilterParams{};
  params.rounding = IntegerRounding::Floor;
  EXPECT_EQ(choose_default_method(params, true).id, "auto");
}

TEST(Distributed, TheJobListCrossesRanksIntact) {
  const std::vector<BatchJob> jobs = {{"a b/ü.png", "out/a.png", 12}, {"", "x", 0}, {"c", "d", 1ull << 40}};
  const std::vector<BatchJob> back = deserialize_jobs(serialize_jobs(jobs));
  ASSERT_EQ(back.size(), jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(back[i].input, jobs[i].input);
    EXPECT_EQ(back[i].output, jobs[i].output);
    EXPECT_EQ(back[i].size_bytes, jobs[i].size_bytes);
  }
  EXPECT_THROW(deserialize_jobs(serialize_jobs(jobs).substr(0, 20)), std::runtime_error);
}

TEST(Distributed, ARanksSummaryCrossesRanksIntact) {
  RankSummary in;
  in.rank = 3, in.host = "node7", in.device = 1, in.scatter_ms = 1.5, in.gather_ms = 2.5, in.failure = "no GPU";
  EngineReport& r = in.report;
  r.files = 9, r.done = 7, r.failed = 2, r.banded = 1, r.refused = 1, r.input_bytes = 1ull << 35, r.megapixels = 12.5;
  r.wall_s = 3.25, r.first_finished_s = 0.5, r.last_finished_s = 3.0;
  for (int s = 0; s < kStageCount; ++s) r.stages.sum_ms[s] = s + 0.5, r.stages.busy_ms[s] = s + 0.25, r.stages.count[s] = s;
  r.cpu_stages = {Stage::Read, Stage::Write};
  r.threads = 16, r.openmp_threads = 8, r.lanes = 3, r.pipelined = false, r.pinned = true, r.method_id = "fft", r.device_name = "H100";
  r.peak_pinned_bytes = 1, r.peak_device_bytes = 2, r.peak_device_in_use = 3, r.peak_host_bytes = 4;
  r.device_budget_bytes = 5, r.host_budget_bytes = 6, r.pinned_allocation_ms = 7.5;
  r.failures = {"a", "b"}, r.notes = {"n"};
  const RankSummary out = deserialize_summary(serialize_summary(in));
  EXPECT_EQ(serialize_summary(out), serialize_summary(in));  // every field, written again the same
  EXPECT_EQ(out.host, "node7");
  EXPECT_EQ(out.report.input_bytes, 1ull << 35);
  EXPECT_EQ(out.report.cpu_stages, r.cpu_stages);
  EXPECT_EQ(out.report.failures, r.failures);
  EXPECT_DOUBLE_EQ(out.report.last_finished_s, 3.0);
  EXPECT_DOUBLE_EQ(out.report.stages.busy_ms[6], 6.25);
  EXPECT_THROW(deserialize_summary(serialize_summary(in).substr(0, 40)), std::runtime_error);
}

TEST(Distributed, AloneTheWorldIsOneRankAndRowsMoveLocally) {
  MpiSession alone(nullptr, nullptr);
  EXPECT_EQ(alone.size(), 1);
  EXPECT_EQ(alone.rank(), 0);
  EXPECT_TRUE(alone.root());
  EXPECT_EQ(alone.max_over_ranks(5), 5);
  EXPECT_EQ(alone.gather("x"), std::vector<std::string>{"x"});
  const std::vector<unsigned char> image = {1, 2, 3, 4, 5, 6, 7, 8};  // 4 rows of 2 bytes
  std::vector<unsigned char> mine(4, 0);
  alone.scatter_rows(image.data(), {2}, {1}, 2, mine.data());
  EXPECT_EQ(mine, (std::vector<unsigned char>{3, 4, 5, 6}));
  std::vector<unsigned char> back(8, 0);
  alone.gather_rows(mine.data(), {2}, {2}, 2, back.data(), false);
  EXPECT_EQ(back, (std::vector<unsigned char>{0, 0, 0, 0, 3, 4, 5, 6}));
}

}  // namespace
}  // namespace gausslab
