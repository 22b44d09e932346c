#include "sim/sweep/folder_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "sim/core/error.hpp"

namespace dtsim::sweep {
namespace {

constexpr const char* kWayOut =
    "make the output folder writable, or give it another output (output = \"...\" in its file, or --out)";

int open_lock_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);  // O_CLOEXEC: points never hold it
  if (fd < 0) throw core::InputError(path, std::string("cannot open the lock file: ") + std::strerror(errno), kWayOut);
  return fd;
}

/// flock(fd, operation | LOCK_NB): true when taken, false when another process holds a conflicting lock.
bool try_lock(int fd, int operation, const std::string& path) {
  int result;
  do result = ::flock(fd, operation | LOCK_NB);
  while (result != 0 && errno == EINTR);
  if (result == 0) return true;
  if (errno == EWOULDBLOCK) return false;
  throw core::InputError(path, std::string("cannot lock the lock file: ") + std::strerror(errno),
                         "use a folder on a file system with locks (flock), or give it another output");
}

/// What the holder of `fd` wrote: "<pid> <host> <command>".
std::string holder_record(int fd) {
  std::string text(4096, '\0');
  const ssize_t n = ::pread(fd, text.data(), text.size(), 0);
  text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

/// Replaces the lock file's record with `record` ("" clears it). A record that cannot be written only leaves
/// another sweep's refusal without this one's pid; the lock itself is held either way.
void set_record(int fd, const std::string& record) {
  if (::ftruncate(fd, 0) != 0 || record.empty()) return;
  const ssize_t written = ::pwrite(fd, record.data(), record.size(), 0);
  static_cast<void>(written);
}

/// This process's record: "<pid> <host> <command>".
std::string own_record(const std::string& command) {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return std::to_string(::getpid()) + " " + host + " " + command + "\n";
}

/// "pid 123 on host (dtsim sweep a.toml)" from a record, and the pid alone.
std::string describe(const std::string& record, std::string& pids) {
  std::istringstream in(record);
  std::string pid, host, command;
  in >> pid >> host;
  std::getline(in >> std::ws, command);
  if (pid.empty()) return "one that is starting";
  pids += (pids.empty() ? "" : " ") + pid;
  return "pid " + pid + " on " + host + ": " + command;
}

[[noreturn]] void refuse(const std::string& output_dir, const std::vector<std::string>& records) {
  std::string pids, holders;
  for (const std::string& r : records) holders += (holders.empty() ? "" : "; ") + describe(r, pids);
  throw core::InputError(output_dir, "another dtsim sweep or plan is writing into this folder (" + holders + ")",
                         "wait for it to finish, end it (kill " + (pids.empty() ? std::string("PID") : pids) +
                             "), or give this one another output (output = \"...\" in its file, or --out)");
}

/// The records of the shards that hold their lock in `output_dir` now.
std::vector<std::string> running_shards(const std::string& output_dir) {
  std::vector<std::string> records;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(output_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("shard-", 0) != 0 || entry.path().extension() != ".lock") continue;
    const int fd = ::open(entry.path().c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    if (::flock(fd, LOCK_SH | LOCK_NB) != 0) records.push_back(holder_record(fd));
    ::close(fd);  // releases the probe's lock, if it got one
  }
  return records;
}

}  // namespace

FolderLock::FolderLock(const std::string& output_dir, int shard, int shards, const std::string& command) {
  std::error_code ec;
  std::filesystem::create_directories(output_dir, ec);
  if (ec) throw core::InputError(output_dir, "cannot create the folder: " + ec.message(), kWayOut);
  const std::string whole = output_dir + "/sweep.lock";
  fds_.push_back(open_lock_file(whole));
  if (shards == 1) {
    if (!try_lock(fds_[0], LOCK_EX, whole)) {
      std::vector<std::string> shard_records = running_shards(output_dir);
      if (shard_records.empty()) shard_records.push_back(holder_record(fds_[0]));
      ::close(fds_[0]);
      refuse(output_dir, shard_records);
    }
    set_record(fds_[0], own_record(command));
    return;
  }
  if (!try_lock(fds_[0], LOCK_SH, whole)) {
    const std::string record = holder_record(fds_[0]);
    ::close(fds_[0]);
    refuse(output_dir, {record});
  }
  const std::string own = output_dir + "/shard-" + std::to_string(shard) + "-of-" + std::to_string(shards) + ".lock";
  fds_.push_back(open_lock_file(own));
  if (!try_lock(fds_[1], LOCK_EX, own)) {
    const std::string record = holder_record(fds_[1]);
    for (int fd : fds_) ::close(fd);
    refuse(output_dir, {record});
  }
  set_record(fds_[1], own_record(command));
}

FolderLock::~FolderLock() {
  // Cleared first, so that a record is only ever read from a lock its writer holds (or held when killed).
  set_record(fds_.back(), "");
  for (int fd : fds_) ::close(fd);
}

}  // namespace dtsim::sweep
