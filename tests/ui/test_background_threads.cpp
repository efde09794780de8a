// The share of the cores the viewer's heavy CPU workers take (app/comparison/background_threads.hpp).
#include <gtest/gtest.h>

#include "comparison/background_threads.hpp"

namespace gausslab {
namespace {

TEST(BackgroundThreads, LeaveAQuarterOfTheCoresFreeUpToFour) {
  EXPECT_EQ(background_cpu_threads(16, 16), 12);
  EXPECT_EQ(background_cpu_threads(8, 8), 6);
  EXPECT_EQ(background_cpu_threads(4, 4), 3);
  EXPECT_EQ(background_cpu_threads(64, 64), 60);
}

TEST(BackgroundThreads, SmallMachinesKeepAtLeastOneWorkerThread) {
  EXPECT_EQ(background_cpu_threads(2, 2), 1);
  EXPECT_EQ(background_cpu_threads(1, 1), 1);
  EXPECT_EQ(background_cpu_threads(0, 1), 1);  // hardware_concurrency() may report 0
}

TEST(BackgroundThreads, NeverMoreThanTheUsersOpenMpLimit) {
  EXPECT_EQ(background_cpu_threads(16, 4), 4);
  EXPECT_EQ(background_cpu_threads(16, 0), 1);
}

}  // namespace
}  // namespace gausslab
