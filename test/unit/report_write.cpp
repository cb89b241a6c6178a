// write_file_atomic (sim/report/json_report.hpp): an output file is either the old one or the whole
// new one, and a failed write leaves no partial file and no temporary file behind.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/report/json_report.hpp"

namespace fs = std::filesystem;

namespace {

struct ScratchDir {
  fs::path path;
  ScratchDir() {
    std::string tmpl = (fs::temp_directory_path() / "trainsim-write-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~ScratchDir() { fs::remove_all(path); }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("write_file_atomic writes the whole text and leaves no temporary file", "[report]") {
  ScratchDir dir;
  const fs::path out = dir.path / "report.json";
  sim::write_file_atomic(out.string(), "first\n");
  CHECK(read(out) == "first\n");
  sim::write_file_atomic(out.string(), "second, longer\n");
  CHECK(read(out) == "second, longer\n");
  CHECK(dir.names() == std::vector<std::string>{"report.json"});
}

TEST_CASE("write_file_atomic into a missing folder or onto a folder fails and creates nothing", "[report]") {
  ScratchDir dir;
  CHECK_THROWS_AS(sim::write_file_atomic((dir.path / "missing" / "r.json").string(), "x"), sim::InputError);
  fs::create_directory(dir.path / "a-folder");
  CHECK_THROWS_AS(sim::write_file_atomic((dir.path / "a-folder").string(), "x"), sim::InputError);
  CHECK(dir.names() == std::vector<std::string>{"a-folder"});
  CHECK(fs::is_empty(dir.path / "a-folder"));
}

TEST_CASE("a write that fails midway leaves the old file and no temporary file", "[report]") {
  // The file-size limit (RLIMIT_FSIZE) makes write() fail with EFBIG after 4 KiB: a full disk
  // without one. Set in a child process, since it would bind the whole test otherwise.
  ScratchDir dir;
  const fs::path out = dir.path / "report.json";
  sim::write_file_atomic(out.string(), "old report\n");
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);  // fail the write instead of killing the process
    rlimit limit{4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    int code = 1;
    try {
      sim::write_file_atomic(out.string(), std::string(1 << 20, 'x'));
    } catch (const sim::InputError&) {
      code = 0;
    }
    ::_exit(code);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  INFO("the child exits 0 when the write threw an InputError");
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  CHECK(read(out) == "old report\n");
  CHECK(dir.names() == std::vector<std::string>{"report.json"});
}
