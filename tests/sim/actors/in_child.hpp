#pragma once
// SimGrid allows one engine per process: a test that compares simulated times runs each simulation in a forked
// child and gets its one number back through a pipe.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <limits>

namespace dtsim::testing {

/// `simulate()` in a child process; aborts the test process when the child fails.
inline double in_child(const std::function<double()>& simulate) {
  int fds[2];
  if (pipe(fds) != 0) std::abort();
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const double t = simulate();
    _exit(write(fds[1], &t, sizeof t) == static_cast<ssize_t>(sizeof t) ? 0 : 1);
  }
  close(fds[1]);
  double t = std::numeric_limits<double>::quiet_NaN();
  const ssize_t n = read(fds[0], &t, sizeof t);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (n != static_cast<ssize_t>(sizeof t) || !WIFEXITED(status) || WEXITSTATUS(status) != 0) std::abort();
  return t;
}

}  // namespace dtsim::testing
