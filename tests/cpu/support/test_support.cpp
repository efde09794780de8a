#include "test_support.hpp"

#include <cstdlib>
#include <random>
#include <stdexcept>
#include <vector>

namespace gausslab::test {

namespace fs = std::filesystem;

std::string test_data_path(const std::string& file_name) {
  std::vector<fs::path> folders;
  if (const char* from_env = std::getenv("GAUSSLAB_TEST_DATA"); from_env && *from_env) folders.emplace_back(from_env);
#ifdef GAUSSLAB_TEST_DATA_DIR
  folders.emplace_back(GAUSSLAB_TEST_DATA_DIR);
#endif
  folders.emplace_back("tests/data");
  folders.emplace_back(".gpu/data");

  std::string looked;
  for (const fs::path& folder : folders) {
    const fs::path candidate = folder / file_name;
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
    looked += (looked.empty() ? "" : ", ") + candidate.string();
  }
  throw std::runtime_error("test image '" + file_name + "' not found (looked in " + looked +
                           "); run from the repository root or set GAUSSLAB_TEST_DATA to the tests/data folder");
}

ScratchFolder::ScratchFolder() {
  std::random_device entropy;
  const fs::path base = fs::temp_directory_path();
  for (int attempt = 0; attempt < 100; ++attempt) {
    const fs::path candidate = base / ("gausslab-test-" + std::to_string(entropy()));
    std::error_code ec;
    if (fs::create_directory(candidate, ec)) {  // false when it already exists: try another name
      path_ = candidate;
      return;
    }
  }
  throw std::runtime_error("could not create a scratch folder under " + base.string());
}

ScratchFolder::~ScratchFolder() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string ScratchFolder::file(const std::string& name) const { return (path_ / name).string(); }

}  // namespace gausslab::test
