#pragma once
// Helpers shared by the CPU and GPU test suites: where the test images are, and a scratch folder
// that cleans up after itself.
#include <filesystem>
#include <string>

namespace gausslab::test {

// Full path of a file in tests/data. Looks, in order, in $GAUSSLAB_TEST_DATA, in the tests/data
// folder of the checkout this was built from, in ./tests/data and in ./.gpu/data (the GPU machine
// runs from a copy of the repository root). Throws std::runtime_error naming every place it looked.
std::string test_data_path(const std::string& file_name);

// A fresh, empty folder under the system's temporary folder, removed with everything in it when
// the object goes out of scope.
class ScratchFolder {
 public:
  ScratchFolder();
  ~ScratchFolder();
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // path() / name, as a string.
  std::string file(const std::string& name) const;

 private:
  std::filesystem::path path_;
};

}  // namespace gausslab::test
