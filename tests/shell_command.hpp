#pragma once
// Runs a shell command for the tests that use dtsim as a user does: exit code and output.
#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace dtsim::testing {

/// Exit code (-1 when killed) and stdout + stderr of one command.
struct Outcome {
  int code = -1;
  std::string output;
};

/// Runs `command` through /bin/sh with stderr folded into stdout.
inline Outcome shell(const std::string& command) {
  Outcome o;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return o;
  char buffer[4096];
  std::size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) o.output.append(buffer, n);
  const int status = pclose(pipe);
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

/// Runs the dtsim binary under test (DTSIM_BINARY) with `arguments`.
inline Outcome dtsim(const std::string& arguments) { return shell(std::string(DTSIM_BINARY) + " " + arguments); }

}  // namespace dtsim::testing
