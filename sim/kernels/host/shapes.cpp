#include "sim/kernels/host/shapes.hpp"

#include <sys/stat.h>

#include <charconv>
#include <fstream>
#include <sstream>

#include "sim/core/file_kind.hpp"

namespace sim::kernels {

namespace {

constexpr int64_t kMaxDim = (int64_t(1) << 31) - 1;

class LineParser {
 public:
  LineParser(const std::string& file, int line, std::vector<std::string> words)
      : where_(file + ":" + std::to_string(line) + ": "), words_(std::move(words)) {}

  [[noreturn]] void fail(const std::string& what, const std::string& expected) const {
    throw ShapesError(where_ + what + " (expected " + expected + ")");
  }

  void expect_fields(const char* syntax) const {
    if (words_.size() != count_fields(syntax) + 1)
      fail("'" + words_[0] + "' takes " + std::to_string(count_fields(syntax)) + " numbers, got " +
               std::to_string(words_.size() - 1),
           std::string("'") + syntax + "'");
  }

  int64_t dim(size_t i, const char* name, int64_t min, int64_t max) const {
    const std::string& w = words_[i];
    int64_t v = 0;
    auto res = std::from_chars(w.data(), w.data() + w.size(), v);
    if (res.ec != std::errc() || res.ptr != w.data() + w.size())
      fail(std::string(name) + " '" + w + "' is not a whole number", "a whole number");
    if (v < min || v > max)
      fail(std::string(name) + " " + w + " is out of range",
           std::to_string(min) + " <= " + name + " <= " + std::to_string(max));
    return v;
  }

 private:
  static size_t count_fields(const char* syntax) {
    std::istringstream s(syntax);
    std::string w;
    size_t n = 0;
    while (s >> w) ++n;
    return n - 1;  // the keyword itself
  }
  std::string where_;
  std::vector<std::string> words_;
};

}  // namespace

ShapeList parse_shapes(std::istream& in, const std::string& file) {
  ShapeList shapes;
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words_in(line);
    std::vector<std::string> words;
    for (std::string w; words_in >> w;) words.push_back(w);
    if (words.empty()) continue;
    LineParser p(file, lineno, words);
    if (words[0] == "gemm") {
      p.expect_fields("gemm M N K BATCH");
      shapes.gemm.push_back({p.dim(1, "M", 1, kMaxDim), p.dim(2, "N", 1, kMaxDim), p.dim(3, "K", 1, kMaxDim),
                             p.dim(4, "BATCH", 1, kMaxDim)});
    } else if (words[0] == "attention") {
      p.expect_fields("attention BATCH HEADS SEQ HEAD_DIM CAUSAL");
      shapes.attention.push_back({p.dim(1, "BATCH", 1, kMaxDim), p.dim(2, "HEADS", 1, kMaxDim),
                                  p.dim(3, "SEQ", 1, kMaxDim), p.dim(4, "HEAD_DIM", 1, kMaxDim),
                                  p.dim(5, "CAUSAL", 0, 1) == 1});
    } else {
      p.fail("unknown shape kind '" + words[0] + "'", "'gemm' or 'attention'");
    }
  }
  return shapes;
}

ShapeList load_shapes(const std::string& path) {
  // A FIFO with no writer would block the open forever; a device never ends.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw ShapesError(path + ": is " + sim::file_kind(st.st_mode) + ", not a regular file (expected a shapes file)");
  std::ifstream in(path);
  if (!in) throw ShapesError(path + ": cannot open the shapes file");
  return parse_shapes(in, path);
}

}  // namespace sim::kernels
