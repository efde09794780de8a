// The batch engine with the CPU methods: pipelined and sequential runs write the same bytes as a
// direct filter; a bad file, an injected GPU failure or std::bad_alloc fail that file alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>

#include "gausslab/batch/batch_engine.hpp"
#include "gausslab/core/atomic_file.hpp"
#include "gausslab/core/host_image.hpp"
#include "gausslab/core/image_io.hpp"
#include "gausslab/cuda/registry.hpp"
#include "gausslab/cuda/run_on_host.hpp"
#include "support/test_support.hpp"

namespace gausslab {
namespace {

namespace fs = std::filesystem;

std::string read_bytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

// Sets GAUSSLAB_BATCH_FAULT for one test.
struct FaultSwitch {
  explicit FaultSwitch(const char* value) { setenv("GAUSSLAB_BATCH_FAULT", value, 1); }
  ~FaultSwitch() { unsetenv("GAUSSLAB_BATCH_FAULT"); }
};

class BatchEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Odd sizes, grey, RGB and RGBA inputs.
    const int sizes[][2] = {{31, 17}, {64, 64}, {5, 90}, {128, 33}, {1, 1}, {77, 41}};
    const int channels[] = {3, 4, 1, 3, 4, 2};
    for (int i = 0; i < 6; ++i) {
      const std::string path = scratch_.file("in/img" + std::to_string(i) + ".png");
      fs::create_directories(scratch_.file("in"));
      save_image(path, make_random_rgba8(sizes[i][0], sizes[i][1], 100u + i), channels[i]);
      jobs_.push_back({path, "", fs::file_size(path)});
    }
  }

  std::vector<BatchJob> jobs_into(const std::string& folder) {
    fs::create_directories(scratch_.file(folder));
    std::vector<BatchJob> jobs = jobs_;
    for (BatchJob& job : jobs) job.output = scratch_.file(folder + "/" + fs::path(job.input).filename().string());
    return jobs;
  }

  EngineReport run(const EngineOptions& options, const std::vector<BatchJob>& jobs,
                   std::map<std::size_t, FileOutcome>* outcomes = nullptr) {
    BatchEngine engine(options);
    std::mutex mutex;
    int calls = 0;
    const EngineReport report = engine.run(jobs, [&](std::size_t index, const FileOutcome& outcome) {
      std::lock_guard<std::mutex> lock(mutex);
      ++calls;
      if (outcomes) (*outcomes)[index] = outcome;
    });
    EXPECT_EQ(calls, static_cast<int>(jobs.size()));
    return report;
  }

  // The reference: load, filter with run_on_host, save: what gausslab-filter wrote before the engine.
  std::string direct(const BatchJob& job, const std::string& method_id, const FilterParams& params) {
    const LoadedRgba8 loaded = load_image_rgba8(job.input);
    const std::unique_ptr<Method> method = find_method(method_id)->create();
    const std::string path = job.output + ".direct.png";
    save_image(path, run_on_host(*method, loaded.image, params), loaded.source_channels);
    return read_bytes(path);
  }

  test::ScratchFolder scratch_;
  std::vector<BatchJob> jobs_;
};

TEST_F(BatchEngineTest, PipelinedSequentialAndBandedRunsWriteTheDirectFiltersBytes) {
  FilterParams params;
  params.sigma = 2.5;
  params.border = BorderMode::Mirror;
  for (const char* method : {"cpu_separable", "cpu_openmp"}) {
    EngineOptions options;
    options.method_id = method;
    options.params = params;
    options.threads = 3;
    options.max_in_flight = 2;  // fewer than the files: admission must wait and go on
    const std::vector<BatchJob> pipelined = jobs_into(std::string("p-") + method);
    const EngineReport report = run(options, pipelined);
    EXPECT_EQ(report.done, 6);
    EXPECT_EQ(report.failed, 0);
    EXPECT_EQ(report.stages.count[static_cast<int>(Stage::Filter)], 6);

    options.pipelined = false;
    const std::vector<BatchJob> sequential = jobs_into(std::string("s-") + method);
    EXPECT_EQ(run(options, sequential).done, 6);

    options.pipelined = true;
    options.bands = 4;
    const std::vector<BatchJob> banded = jobs_into(std::string("b-") + method);
    EXPECT_EQ(run(options, banded).banded, 6);

    for (std::size_t i = 0; i < jobs_.size(); ++i) {
      const std::string expected = direct(pipelined[i], method, params);
      EXPECT_EQ(read_bytes(pipelined[i].output), expected) << method << " " << pipelined[i].input;
      EXPECT_EQ(read_bytes(sequential[i].output), expected) << method << " sequential " << sequential[i].input;
      EXPECT_EQ(read_bytes(banded[i].output), expected) << method << " banded " << banded[i].input;
    }
  }
}

// Typed files (16-bit, half and float, 1-4 channels) go through every way of running the engine in
// their own type: the written file holds the method's own result for that format, bit for bit.
TEST(BatchEngineTypes, EveryRunKeepsTheTypeAndWritesTheMethodsResult) {
  test::ScratchFolder scratch;
  struct Case {
    const char* name;
    PixelFormat format;
    int width, height;
  };
  const Case cases[] = {{"u16rgb.tif", PixelFormat::Rgb16, 37, 23},  {"u16grey.png", PixelFormat::Grey16, 23, 37},
                        {"f32grey.npy", PixelFormat::F32, 41, 19},   {"f32rgba.exr", PixelFormat::Rgba32F, 19, 29},
                        {"f16rgb.tif", PixelFormat::Rgb16F, 31, 17}, {"u8ga.png", PixelFormat::GreyAlpha8, 13, 11}};
  std::vector<BatchJob> jobs;
  std::vector<HostImage> inputs;
  fs::create_directories(scratch.file("in"));
  for (const Case& c : cases) {
    HostImage image(c.width, c.height, c.format);
    const ImageF32 noise = make_random_f32(c.width * image.channels(), c.height, 7u + c.width);
    const float scale = is_integer(sample_type(c.format)) ? static_cast<float>(nominal_max(sample_type(c.format))) : 1.0f;
    for (int y = 0; y < c.height; ++y) {
      std::vector<float> row(noise.data() + static_cast<std::size_t>(y) * noise.width(),
                             noise.data() + static_cast<std::size_t>(y + 1) * noise.width());
      for (float& v : row) v *= scale;
      store_row_samples(row.data(), image.view(), y);
    }
    const std::string path = scratch.file(std::string("in/") + c.name);
    save_image(path, image.view());
    jobs.push_back({path, "", fs::file_size(path)});
    inputs.push_back(std::move(image));
  }
  FilterParams params;
  params.sigma = 1.7;
  params.border = BorderMode::Wrap;
  for (const char* method : {"cpu_separable", "cpu_openmp"}) {
    const std::unique_ptr<Method> direct = find_method(method)->create();
    for (int way = 0; way < 3; ++way) {  // pipelined, sequential, in bands
      EngineOptions options;
      options.method_id = method;
      options.params = params;
      options.threads = 2;
      options.pipelined = way != 1;
      options.bands = way == 2 ? 3 : 0;
      const std::string folder = scratch.file(std::string("out-") + method + std::to_string(way));
      fs::create_directories(folder);
      std::vector<BatchJob> run_jobs = jobs;
      for (BatchJob& job : run_jobs) job.output = folder + "/" + fs::path(job.input).filename().string();
      BatchEngine engine(options);
      std::map<std::size_t, FileOutcome> outcomes;
      std::mutex mutex;
      const EngineReport report = engine.run(run_jobs, [&](std::size_t index, const FileOutcome& outcome) {
        std::lock_guard<std::mutex> lock(mutex);
        outcomes[index] = outcome;
      });
      EXPECT_EQ(report.done, static_cast<int>(jobs.size())) << method << " way " << way;
      for (std::size_t i = 0; i < jobs.size(); ++i) {
        EXPECT_EQ(outcomes[i].format, cases[i].format) << cases[i].name;
        HostImage expected(inputs[i].width(), inputs[i].height(), inputs[i].format());
        run_on_host(*direct, inputs[i].view(), expected.view(), params);
        const LoadedImage written = load_image(run_jobs[i].output);
        EXPECT_EQ(written.image.format(), cases[i].format) << method << " way " << way << " " << cases[i].name;
        EXPECT_TRUE(written.image == expected) << method << " way " << way << " " << cases[i].name;
      }
    }
  }
}

// --output-type converts by the stated rule; a type the output format cannot hold, and a method
// that refuses the format, refuse the file before it is filtered (nothing written).
TEST(BatchEngineTypes, OutputTypeConvertsAndRefusalsComeBeforeTheFilter) {
  test::ScratchFolder scratch;
  HostImage image(5, 3, PixelFormat::Rgb16);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 5; ++x)
      for (int c = 0; c < 3; ++c) image.set_sample(x, y, c, static_cast<float>(x * 13107 + c * 128 + y));
  const std::string input = scratch.file("in.tif");
  save_image(input, image.view());
  FilterParams params;
  params.fixed_radius = 0;  // the identity: only the conversion changes the samples
  params.sigma = 1;
  EngineOptions options;
  options.method_id = "cpu_separable";
  options.params = params;
  options.output_type = SampleType::U8;
  const auto run_one = [&](const EngineOptions& o, const std::string& output) {
    BatchEngine engine(o);
    FileOutcome got;
    const EngineReport report =
        engine.run({{input, output, 0}}, [&](std::size_t, const FileOutcome& outcome) { got = outcome; });
    return std::make_pair(report, got);
  };
  auto [report, outcome] = run_one(options, scratch.file("u8.png"));
  ASSERT_EQ(report.done, 1) << outcome.message;
  const LoadedImage u8 = load_image(scratch.file("u8.png"));
  ASSERT_EQ(u8.image.format(), PixelFormat::Rgb8);
  for (int x = 0; x < 5; ++x)
    for (int c = 0; c < 3; ++c) {
      const double level = x * 13107 + c * 128;
      EXPECT_EQ(u8.image.sample(x, 0, c), std::floor(level * 255.0 / 65535.0 + 0.5)) << x << " " << c;
    }
  EXPECT_NE(std::find(report.notes.begin(), report.notes.end(), output_conversion_rule(SampleType::U16, SampleType::U8)),
            report.notes.end());

  options.output_type = SampleType::F32;
  std::tie(report, outcome) = run_one(options, scratch.file("f32.png"));  // PNG holds no float
  EXPECT_EQ(report.refused, 1);
  EXPECT_NE(outcome.message.find("tiff, pfm, exr, fits or npy"), std::string::npos) << outcome.message;
  EXPECT_EQ(report.stages.count[static_cast<int>(Stage::Filter)], 0);
  EXPECT_FALSE(fs::exists(scratch.file("f32.png")));

  options.output_type.reset();
  std::tie(report, outcome) = run_one(options, scratch.file("kept.jpg"));  // JPEG holds no 16-bit
  EXPECT_EQ(report.refused, 1);
  EXPECT_NE(outcome.message.find("png, pnm, tiff, fits or npy"), std::string::npos) << outcome.message;
  EXPECT_FALSE(fs::exists(scratch.file("kept.jpg")));
}

TEST_F(BatchEngineTest, ABadFileFailsAloneWithItsReason) {
  std::ofstream(scratch_.file("in/truncated.png"), std::ios::binary) << std::string("\x89PNG\r\n\x1a\n", 8) << "short";
  jobs_.insert(jobs_.begin() + 2, BatchJob{scratch_.file("in/truncated.png"), "", 13});
  jobs_.push_back({scratch_.file("in/missing.png"), "", 0});
  const std::vector<BatchJob> jobs = jobs_into("out");
  EngineOptions options;
  options.method_id = "cpu_separable";
  options.threads = 2;
  std::map<std::size_t, FileOutcome> outcomes;
  const EngineReport report = run(options, jobs, &outcomes);
  EXPECT_EQ(report.done, 6);
  EXPECT_EQ(report.failed, 2);
  EXPECT_NE(outcomes[2].message.find("truncated.png"), std::string::npos) << outcomes[2].message;
  EXPECT_NE(outcomes[7].message.find("no such file"), std::string::npos) << outcomes[7].message;
  for (std::size_t i = 0; i < jobs.size(); ++i)
    EXPECT_EQ(fs::exists(jobs[i].output), i != 2 && i != 7) << jobs[i].output;
  for (const auto& entry : fs::directory_iterator(scratch_.file("out")))
    EXPECT_EQ(entry.path().string().find(".tmp-"), std::string::npos) << "a temporary file was left: " << entry.path();
}

TEST_F(BatchEngineTest, InjectedGpuFailuresAndBadAllocFailTheirFileAndTheBatchGoesOn) {
  // The switch reaches the filter stage of any method, so the CPU run here takes the same failure
  // path as a GPU run (the GPU stage of scripts/gpu-stages/batch.sh injects them on the device).
  const FaultSwitch faults("device-oom:img1,launch:img3,bad-alloc:img4");
  for (bool pipelined : {true, false}) {
    const std::vector<BatchJob> jobs = jobs_into(pipelined ? "faults-p" : "faults-s");
    EngineOptions options;
    options.method_id = "cpu_separable";
    options.pipelined = pipelined;
    std::map<std::size_t, FileOutcome> outcomes;
    const EngineReport report = run(options, jobs, &outcomes);
    EXPECT_EQ(report.done, 3);
    EXPECT_EQ(report.failed, 3);
    EXPECT_NE(outcomes[1].message.find("out of device memory"), std::string::npos) << outcomes[1].message;
    EXPECT_NE(outcomes[3].message.find("the GPU failed"), std::string::npos) << outcomes[3].message;
    EXPECT_NE(outcomes[4].message.find("out of host memory"), std::string::npos) << outcomes[4].message;
    for (std::size_t i : {1, 3, 4}) {
      EXPECT_NE(outcomes[i].message.find(jobs[i].input), std::string::npos) << "the message names the file";
      EXPECT_FALSE(fs::exists(jobs[i].output));
    }
    for (std::size_t i : {0, 2, 5}) EXPECT_TRUE(fs::exists(jobs[i].output)) << jobs[i].output;
  }
}

TEST_F(BatchEngineTest, OutputsAreSyncedApartFromThePoolAndASyncThatFailsFailsItsFileAlone) {
  // Pipelined, the outputs are committed (fsync, rename) on the publisher's threads: every file
  // written is synced once, sync is not one of the CPU pool's stages, and a file is reported only once it is
  // in place. A failing fsync (injected: the first commit's, whichever file that is) fails that
  // file alone, with no file and no temporary file left; the others are written.
  const std::vector<BatchJob> jobs = jobs_into("synced");
  EngineOptions options;
  options.method_id = "cpu_separable";
  options.threads = 2;
  std::map<std::size_t, FileOutcome> outcomes;
  BatchEngine engine(options);
  std::mutex mutex;
  inject_file_fault_for_testing(FileStep::Sync, EIO);
  const EngineReport report = engine.run(jobs, [&](std::size_t index, const FileOutcome& outcome) {
    std::lock_guard<std::mutex> lock(mutex);
    if (outcome.ok) {
      EXPECT_TRUE(fs::exists(jobs[index].output)) << "reported before it was in place";
    }
    outcomes[index] = outcome;
  });
  inject_file_fault_for_testing(FileStep::Sync, 0);
  EXPECT_EQ(report.done, 5);
  ASSERT_EQ(report.failed, 1);
  EXPECT_NE(report.failures.front().find("input/output error"), std::string::npos) << report.failures.front();
  EXPECT_EQ(report.stages.count[static_cast<int>(Stage::Sync)], 5);  // timed when it succeeds, as every stage
  EXPECT_EQ(std::count(report.cpu_stages.begin(), report.cpu_stages.end(), Stage::Sync), 0);
  int written = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(fs::exists(jobs[i].output), outcomes[i].ok) << jobs[i].output;
    written += fs::exists(jobs[i].output);
  }
  EXPECT_EQ(written, 5);
  for (const auto& entry : fs::directory_iterator(scratch_.file("synced")))
    EXPECT_EQ(entry.path().string().find(".tmp-"), std::string::npos) << "a temporary file was left: " << entry.path();
}

TEST_F(BatchEngineTest, AnExistingOutputIsNeverReplacedWithoutOverwrite) {
  const std::vector<BatchJob> jobs = jobs_into("keep");
  std::ofstream(jobs[0].output) << "user data";
  EngineOptions options;
  options.method_id = "cpu_separable";
  std::map<std::size_t, FileOutcome> outcomes;
  EXPECT_EQ(run(options, jobs, &outcomes).failed, 1);
  EXPECT_EQ(read_bytes(jobs[0].output), "user data");
  EXPECT_NE(outcomes[0].message.find("exists"), std::string::npos) << outcomes[0].message;
  options.overwrite = Overwrite::Allowed;
  EXPECT_EQ(run(options, jobs).failed, 0);
  EXPECT_NE(read_bytes(jobs[0].output), "user data");
}

TEST(BatchFileStages, ReadRefusesWhatIsNotARegularFile) {
  test::ScratchFolder scratch;
  EngineOptions options;
  options.method_id = "cpu_separable";
  BatchEngine engine(options);
  EXPECT_THROW(engine.read_and_decode(scratch.path().string()), ImageLoadError);
  EXPECT_THROW(engine.read_and_decode("/dev/zero"), ImageLoadError);  // never read without end
  EXPECT_THROW(engine.read_and_decode(scratch.file("none.png")), ImageLoadError);
  try {
    engine.read_and_decode("/dev/zero");
  } catch (const ImageLoadError& error) {
    EXPECT_NE(std::string(error.what()).find("not a regular file"), std::string::npos) << error.what();
  }
}

TEST(BatchFileStages, WriteEncodesReadDecodesAndBothAreTimed) {
  test::ScratchFolder scratch;
  EngineOptions options;
  options.method_id = "cpu_separable";
  options.pool = PoolMode::Max2x2;
  BatchEngine engine(options);
  const ImageRgba8 image = make_random_rgba8(9, 6, 5u);
  const std::string path = scratch.file("pooled.png");
  DecodedFile rgb;
  rgb.file_format = PixelFormat::Rgb8;
  engine.encode_and_write(path, BatchPixels(image), rgb);
  const DecodedFile back = engine.read_and_decode(path);
  EXPECT_EQ(back.pixels.width(), 4);  // pooled before it was written
  EXPECT_EQ(back.pixels.height(), 3);
  EXPECT_EQ(back.file_format, PixelFormat::Rgb8);
  EXPECT_TRUE(back.pixels.is_rgba8());  // 8-bit images are held as RGBA8
  const StageTotals totals = engine.stage_totals();
  for (Stage stage : {Stage::Read, Stage::Decode, Stage::Encode, Stage::Write, Stage::Sync})
    EXPECT_EQ(totals.count[static_cast<int>(stage)], 1) << to_string(stage);
  EXPECT_THROW(engine.encode_and_write(path, BatchPixels(image), rgb), FileWriteError);  // exists: never replaced
  EXPECT_THROW(engine.encode_and_write(scratch.file("thin.png"), BatchPixels(ImageRgba8(1, 5)), rgb), PoolRefusal);
  EXPECT_FALSE(fs::exists(scratch.file("thin.png")));
}

TEST(BatchFileStages, PixelsInLentMemoryAreEncodedWhereTheyAreAndKeepItUntilCleared) {
  // The pipelined GPU run decodes into a pinned buffer, filters it in place and encodes from it;
  // here any memory stands for the pinned buffer (no GPU needed): the file is the one the image's
  // own pixels give, byte for byte.
  test::ScratchFolder scratch;
  EngineOptions options;
  options.method_id = "cpu_separable";
  BatchEngine engine(options);
  const ImageRgba8 image = make_random_rgba8(11, 6, 8u);
  auto memory = std::make_shared<std::vector<Rgba8>>(image.pixels());
  std::weak_ptr<std::vector<Rgba8>> watch = memory;
  BatchPixels lent(ImageView{memory->data(), 11, 6, 11 * sizeof(Rgba8), PixelFormat::Rgba8}, memory);
  memory.reset();  // the pixels hold it now
  EXPECT_TRUE(lent.lent());
  EXPECT_TRUE(lent.is_rgba8());
  BatchPixels shared = lent;  // a copy shares lent memory
  EXPECT_EQ(shared.data(), lent.data());
  const BatchPixels own = BatchPixels::like(lent);
  EXPECT_FALSE(own.lent());
  EXPECT_NE(own.data(), lent.data());
  EXPECT_EQ(own.size_bytes(), lent.size_bytes());
  EXPECT_EQ(own.format(), PixelFormat::Rgba8);

  DecodedFile rgb;
  rgb.file_format = PixelFormat::Rgb8;
  for (const char* name : {"lent.bmp", "lent.png", "lent.tif"}) {
    const std::string from_lent = scratch.file(std::string("a-") + name), from_own = scratch.file(std::string("b-") + name);
    engine.encode_and_write(from_lent, lent, rgb);
    engine.encode_and_write(from_own, BatchPixels(image), rgb);
    const std::string bytes = read_bytes(from_lent);
    EXPECT_GT(bytes.size(), 11u * 6u) << name;
    EXPECT_EQ(bytes, read_bytes(from_own)) << name;
  }
  lent.clear();
  EXPECT_FALSE(watch.expired());  // the copy still holds it
  shared.clear();
  EXPECT_TRUE(watch.expired());   // given back with the last pixels that used it
}

}  // namespace
}  // namespace gausslab
