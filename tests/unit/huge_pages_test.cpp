// The heap on transparent huge pages (sc_main/huge_pages.h): checked from the kernel's own account
// of the process's mappings (/proc/self/smaps), not from what the function returns.
#include "sc_main/huge_pages.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

namespace famsim {
namespace {

// The VmFlags line of the mapping holding `address`, or "" when none holds it.
std::string vm_flags_of(const void* address) {
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t lo = 0;
    std::uintptr_t hi = 0;
    char dash = 0;
    std::istringstream range(line);
    // A mapping's first line: "lo-hi perms offset dev inode [path]", in hexadecimal.
    if (range >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = a >= lo && a < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

// Whether this build and machine can do it: Linux with glibc's allocator and THP not "never".
bool huge_pages_possible() {
#if !defined(__linux__) || !defined(__GLIBC__) || defined(__SANITIZE_ADDRESS__)
  return false;
#else
  std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  return std::getline(thp, modes) && modes.find("[never]") == std::string::npos;
#endif
}

// famsim calls place_heap_on_huge_pages() first thing, before any block was freed. In a test
// process that has run other tests, later blocks may come from memory those freed, outside the
// marked range. So the check runs in a fresh process: this executable again, with only the test
// below (which does nothing unless asked through the environment).
TEST(HugePages, BlocksAllocatedAfterwardsLieInAMappingMarkedForHugePages) {
  if (!huge_pages_possible()) GTEST_SKIP() << "no glibc heap or THP switched off here";
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  ASSERT_GT(n, 0);
  self[n] = '\0';
  const std::string command = std::string("FAMSIM_HUGE_PAGES_CHILD=1 '") + self +
                              "' --gtest_filter=HugePagesFreshProcess.* >/dev/null 2>&1";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << command;
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "the fresh process's check failed: run " << command << " without the redirection";
}

TEST(HugePagesFreshProcess, BlocksAllocatedAfterwardsLieInAMappingMarkedForHugePages) {
  if (!std::getenv("FAMSIM_HUGE_PAGES_CHILD")) GTEST_SKIP() << "run by HugePages.* only";
  unsetenv("FAMSIM_HUGE_PAGES");
  ASSERT_TRUE(place_heap_on_huge_pages(std::size_t{64} << 20));
  // Blocks of 256 KiB and 4 MiB, which glibc would otherwise map each on its own (its mmap
  // threshold starts at 128 KiB), both from the marked range, whose flags include "hg"
  // (VM_HUGEPAGE, proc(5)). (A small block may come from memory this process freed before.)
  void* medium = std::malloc(std::size_t{256} << 10);
  void* large = std::malloc(std::size_t{4} << 20);
  ASSERT_NE(medium, nullptr);
  ASSERT_NE(large, nullptr);
  EXPECT_NE(vm_flags_of(medium).find(" hg"), std::string::npos) << vm_flags_of(medium);
  EXPECT_NE(vm_flags_of(large).find(" hg"), std::string::npos) << vm_flags_of(large);
  std::free(large);
  std::free(medium);
}

TEST(HugePages, EnvironmentVariableSwitchesItOff) {
  setenv("FAMSIM_HUGE_PAGES", "0", 1);
  EXPECT_FALSE(huge_pages_wanted());
  EXPECT_FALSE(place_heap_on_huge_pages(std::size_t{64} << 20));
  unsetenv("FAMSIM_HUGE_PAGES");
}

TEST(HugePages, EnvironmentVariableTakesZeroOrOne) {
  unsetenv("FAMSIM_HUGE_PAGES");
  EXPECT_TRUE(huge_pages_wanted());
  setenv("FAMSIM_HUGE_PAGES", "", 1);
  EXPECT_TRUE(huge_pages_wanted());
  setenv("FAMSIM_HUGE_PAGES", "1", 1);
  EXPECT_TRUE(huge_pages_wanted());
  for (const char* bad : {"off", "yes", "2", " 0"}) {
    setenv("FAMSIM_HUGE_PAGES", bad, 1);
    try {
      huge_pages_wanted();
      ADD_FAILURE() << "FAMSIM_HUGE_PAGES='" << bad << "' was taken";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("FAMSIM_HUGE_PAGES is '" + std::string(bad) + "'"),
                std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("expected 0"), std::string::npos) << e.what();
    }
  }
  unsetenv("FAMSIM_HUGE_PAGES");
}

}  // namespace
}  // namespace famsim
