#include "kit/method_tests.hpp"

namespace gausslab::test {

namespace {
std::vector<MethodTests>& declarations() {
  static std::vector<MethodTests> list;  // filled by static initialisers: made on first use
  return list;
}
}  // namespace

bool declare_method_tests(const char* method_id, const char* suite) {
  declarations().push_back({method_id, suite});
  return true;
}

const std::vector<MethodTests>& declared_method_tests() { return declarations(); }

}  // namespace gausslab::test
