// A sweep and the processes around it: a second sweep into a folder in use is refused, naming the first; a
// SIGKILLed sweep takes its `dtsim run` children with it, and a re-run completes with the results of a clean run.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/sim/sweep/sweep_folder.hpp"

namespace {

namespace fs = std::filesystem;
using dtsim::testing::Outcome;
using dtsim::testing::read;
using dtsim::testing::sweep_folder;
using dtsim::testing::sweep_in;

/// Six analytic points (one iteration each), two at once.
const char* const kSixPoints =
    "jobs = 2\n[set]\n\"strategy.fidelity\" = \"analytic\"\n"
    "[[axis]]\nkey = \"workers\"\nvalues = [2, 3, 4, 5, 6, 7]\n";

/// `dtsim sweep ARGUMENTS` started in `dir` as a child of this process, output to dir/LOG; returns its pid.
pid_t start_sweep(const fs::path& dir, const std::string& arguments, const std::string& log) {
  const std::string command =
      "cd " + dir.string() + " && exec " + DTSIM_BINARY + " sweep " + arguments + " >" + log + " 2>&1";
  const pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", command.c_str(), nullptr);
    _exit(127);
  }
  return pid;
}

/// The state letter of `pid` from /proc/<pid>/stat (R, S, T, Z...), and its parent; '\0' when it is gone.
char state_of(pid_t pid, pid_t* parent = nullptr) {
  const std::string stat = read("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 4 > stat.size()) return '\0';
  if (parent) *parent = std::stoi(stat.substr(close + 4));
  return stat[close + 2];
}

/// The children of `pid` that run a point (`dtsim run`, past exec) and have not exited.
std::vector<pid_t> running_points(pid_t pid) {
  std::vector<pid_t> out;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    pid_t parent = 0;
    const char state = state_of(std::stoi(name), &parent);
    if (parent != pid || state == '\0' || state == 'Z' || state == 'X') continue;
    const std::string argv = read(entry.path() / "cmdline");  // NUL-separated
    const std::size_t second = argv.find('\0') + 1;
    if (second > 0 && argv.compare(second, 4, std::string("run\0", 4)) == 0) out.push_back(std::stoi(name));
  }
  return out;
}

/// Stops `sweep` at a moment when it runs at least one point, stops those points too and returns them.
std::vector<pid_t> stop_while_running_points(pid_t sweep) {
  for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
       std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(std::chrono::milliseconds(1))) {
    kill(sweep, SIGSTOP);
    while (state_of(sweep) != 'T' && state_of(sweep) != 'Z') std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::vector<pid_t> stopped;
    for (pid_t child : running_points(sweep)) {
      kill(child, SIGSTOP);
      char state;
      while ((state = state_of(child)) != 'T' && state != 'Z' && state != '\0')
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      if (state == 'T') stopped.push_back(child);
    }
    if (!stopped.empty()) return stopped;
    kill(sweep, SIGCONT);
  }
  return {};
}

/// True while some process holds a lock on `path` that excludes a shared one.
bool locked(const fs::path& path) {
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return false;
  const bool held = flock(fd, LOCK_SH | LOCK_NB) != 0;
  close(fd);
  return held;
}

TEST(SweepProcesses, ASecondSweepIntoAFolderInUseIsRefusedNamingTheFirst) {
  const fs::path dir = sweep_folder("lock", kSixPoints);
  const std::string file = (dir / "sweep.toml").string();
  const pid_t first = start_sweep(dir, file, "first.log");
  const std::vector<pid_t> points = stop_while_running_points(first);
  ASSERT_FALSE(points.empty()) << read(dir / "first.log");
  ASSERT_TRUE(locked(dir / "sweep-out/sweep.lock"));
  const Outcome second = sweep_in(dir, file);
  EXPECT_EQ(second.code, 2) << second.output;
  const std::string pid = std::to_string(first);
  EXPECT_NE(second.output.find("sweep-out: another dtsim sweep or plan is writing into this folder (pid " + pid + " on "),
            std::string::npos)
      << second.output;
  EXPECT_NE(second.output.find(": dtsim sweep " + file + "); wait for it to finish, end it (kill " + pid + ")"),
            std::string::npos)
      << second.output;
  EXPECT_EQ(second.output.find("internal error"), std::string::npos) << second.output;
  // The first goes on undisturbed and finishes all its points; then the folder is free again.
  for (pid_t p : points) kill(p, SIGCONT);
  kill(first, SIGCONT);
  int status = 0;
  ASSERT_EQ(waitpid(first, &status, 0), first);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << read(dir / "first.log");
  EXPECT_NE(read(dir / "first.log").find("6 of 6 points have a result, 0 failed"), std::string::npos);
  const Outcome third = sweep_in(dir, file);
  EXPECT_EQ(third.code, 0) << third.output;
  EXPECT_NE(third.output.find("reusing 6 of 6 points"), std::string::npos) << third.output;
  fs::remove_all(dir);
}

TEST(SweepProcesses, AKilledSweepTakesItsPointsWithItAndARerunCompletesAsACleanRunDoes) {
  // Orphans of the sweep become children of this process, so that their end can be waited for and read.
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  const fs::path dir = sweep_folder("killed", kSixPoints);
  const std::string file = (dir / "sweep.toml").string();
  const pid_t sweep = start_sweep(dir, file, "killed.log");
  // The points are stopped too: one that outlived the sweep would stay, stopped, for as long as we look.
  const std::vector<pid_t> points = stop_while_running_points(sweep);
  ASSERT_FALSE(points.empty()) << read(dir / "killed.log");
  kill(sweep, SIGKILL);
  int status = 0;
  ASSERT_EQ(waitpid(sweep, &status, 0), sweep);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  for (pid_t p : points) {
    pid_t ended = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while ((ended = waitpid(p, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_EQ(ended, p) << "point process " << p << " outlived its sweep";
    if (ended != p) {
      kill(p, SIGKILL);
      waitpid(p, nullptr, 0);
      continue;
    }
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  }
  prctl(PR_SET_CHILD_SUBREAPER, 0);
  // The killed sweep's folder holds interrupted points (a report without point.json, or less); the re-run
  // completes and its results are those of a clean run, byte for byte.
  const Outcome rerun = sweep_in(dir, file);
  ASSERT_EQ(rerun.code, 0) << rerun.output;
  const fs::path clean = sweep_folder("clean", kSixPoints);
  ASSERT_EQ(sweep_in(clean, (clean / "sweep.toml").string()).code, 0);
  EXPECT_EQ(read(dir / "sweep-out/results.csv"), read(clean / "sweep-out/results.csv"));
  EXPECT_EQ(read(dir / "sweep-out/results.jsonl"), read(clean / "sweep-out/results.jsonl"));
  fs::remove_all(dir);
  fs::remove_all(clean);
}

}  // namespace
