// Outputs (sim/core/output_file.hpp): an output file is either the old one or the whole new one, a
// failed write leaves no partial file and no temporary file behind, links are written through,
// and nothing but a regular file (or a new one) is ever replaced.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
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
#include "sim/core/output_file.hpp"

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

TEST_CASE("write_output writes the whole text and leaves no temporary file", "[output]") {
  ScratchDir dir;
  const fs::path out = dir.path / "report.json";
  sim::write_output(out.string(), "first\n");
  CHECK(read(out) == "first\n");
  sim::write_output(out.string(), "second, longer\n");
  CHECK(read(out) == "second, longer\n");
  CHECK(dir.names() == std::vector<std::string>{"report.json"});
}

TEST_CASE("write_output into a missing folder or onto a folder fails and creates nothing", "[output]") {
  ScratchDir dir;
  CHECK_THROWS_AS(sim::write_output((dir.path / "missing" / "r.json").string(), "x"), sim::InputError);
  fs::create_directory(dir.path / "a-folder");
  CHECK_THROWS_AS(sim::write_output((dir.path / "a-folder").string(), "x"), sim::InputError);
  CHECK(dir.names() == std::vector<std::string>{"a-folder"});
  CHECK(fs::is_empty(dir.path / "a-folder"));
}

TEST_CASE("a write that fails midway leaves the old file and no temporary file", "[output]") {
  // The file-size limit (RLIMIT_FSIZE) makes write() fail with EFBIG after 4 KiB: a full disk
  // without one. Set in a child process, since it would bind the whole test otherwise.
  ScratchDir dir;
  const fs::path out = dir.path / "report.json";
  sim::write_output(out.string(), "old report\n");
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);  // fail the write instead of killing the process
    rlimit limit{4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    int code = 1;
    try {
      sim::write_output(out.string(), std::string(1 << 20, 'x'));
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

namespace {

// The one-line message check_outputs gives, or "" when it accepts the outputs.
std::string refusal(const std::vector<sim::OutputArg>& outputs, const std::vector<std::string>& inputs = {}) {
  try {
    sim::check_outputs(outputs, inputs);
  } catch (const sim::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("an output through a symbolic link replaces the link's target, and the link stays", "[output]") {
  ScratchDir dir;
  const fs::path target = dir.path / "real.json", link = dir.path / "link.json";
  sim::write_output(target.string(), "old\n");
  ::chmod(target.c_str(), 0640);
  fs::create_symlink("real.json", link);
  CHECK(refusal({{"-o", link.string()}}).empty());
  sim::write_output(link.string(), "new\n");
  CHECK(fs::is_symlink(link));
  CHECK(read(target) == "new\n");
  CHECK((fs::status(target).permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
  // A dangling link: the file is created where the link points.
  const fs::path dangling = dir.path / "dangling.json";
  fs::create_symlink("made.json", dangling);
  sim::write_output(dangling.string(), "made\n");
  CHECK(fs::is_symlink(dangling));
  CHECK(read(dir.path / "made.json") == "made\n");
  CHECK(dir.names() == std::vector<std::string>{"dangling.json", "link.json", "made.json", "real.json"});
}

TEST_CASE("outputs that are not regular files are refused before anything is written", "[output]") {
  ScratchDir dir;
  const fs::path fifo = dir.path / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const fs::path to_fifo = dir.path / "to-fifo.json", to_null = dir.path / "to-null";
  fs::create_symlink(fifo, to_fifo);
  fs::create_symlink("/dev/null", to_null);
  fs::create_directory(dir.path / "folder");
  // Each names what the path is; a FIFO is refused without opening it (which would block).
  CHECK(refusal({{"-o", fifo.string()}}).find("is a FIFO") != std::string::npos);
  CHECK(refusal({{"-o", to_fifo.string()}}).find("is a FIFO") != std::string::npos);
  CHECK(refusal({{"-o", "/dev/full"}}).find("is a character device") != std::string::npos);
  CHECK(refusal({{"-o", to_null.string()}}).find("is a character device") != std::string::npos);
  CHECK(refusal({{"-o", (dir.path / "folder").string()}}).find("is a directory") != std::string::npos);
  CHECK(refusal({{"-o", (dir.path / "folder/").string() + "/"}}).find("folder") != std::string::npos);
  CHECK(refusal({{"-o", (dir.path / "no/such/r.json").string()}}).find("does not exist") != std::string::npos);
  CHECK_THROWS_AS(sim::write_output("/dev/full", "x"), sim::InputError);
  CHECK(fs::is_character_file("/dev/full"));
  CHECK(fs::is_fifo(fifo));
  CHECK(fs::is_symlink(to_fifo));
  CHECK(dir.names() == std::vector<std::string>{"fifo", "folder", "to-fifo.json", "to-null"});
}

TEST_CASE("an output may be neither an input nor another output", "[output]") {
  ScratchDir dir;
  const fs::path config = dir.path / "config.json", link = dir.path / "alias.json";
  sim::write_output(config.string(), "{}\n");
  fs::create_symlink("config.json", link);
  CHECK(refusal({{"-o", config.string()}}, {config.string()}).find("is the input") != std::string::npos);
  CHECK(refusal({{"-o", link.string()}}, {config.string()}).find("is the input") != std::string::npos);
  // Two outputs naming one new file, once directly and once through another spelling of its folder.
  const std::string a = (dir.path / "r.json").string(), b = (dir.path / "." / "r.json").string();
  CHECK(refusal({{"-o", a}, {"--trace", b}}).find("is the same file as -o") != std::string::npos);
  CHECK(refusal({{"-o", a}, {"--trace", (dir.path / "t.json").string()}}, {config.string()}).empty());
  CHECK(read(config) == "{}\n");
}
