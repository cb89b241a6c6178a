// Where a simulation child's standard error goes: a memory file its parent reads, never the
// user's terminal. SimGrid writes its log there ("Deadlock detected", a failed xbt_assert's
// "duration is not finite!"), and so do the C++ runtime and glibc when the child aborts; the
// parent turns a child that died into one line of its own (fork_call.cpp), quoting the last line
// the child wrote. Under AddressSanitizer the whole text is also copied to the parent's stderr
// when the child dies: the sanitizer's report is for the developer running that build.
#pragma once

#include <string>

namespace sim {

class ChildStderr {
 public:
  ChildStderr();  // a memory file; /dev/null where none can be made (the text is then lost)
  ~ChildStderr();
  ChildStderr(const ChildStderr&) = delete;
  ChildStderr& operator=(const ChildStderr&) = delete;

  // In the child, before its work: standard error (file descriptor 2) becomes the file.
  void redirect() const;
  // In the parent, once the child has ended: the last line it wrote that is not blank (at most
  // 300 bytes of it), "" when none.
  std::string last_line() const;
  // In the parent, once the child has ended: the last 64 KiB it wrote.
  std::string tail() const;

 private:
  int fd_ = -1;
};

}  // namespace sim
