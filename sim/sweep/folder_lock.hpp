#pragma once
/// A sweep's or a plan's claim on its output folder: flock(2) on <output>/sweep.lock, held for the life of the
/// process and released by the kernel when it ends however it ends (a killed sweep leaves no stale lock).
#include <string>
#include <vector>

namespace dtsim::sweep {

class FolderLock {
 public:
  /// Claims `output_dir` (created if needed) for a sweep running shard `shard` of `shards`, or throws
  /// core::InputError naming the sweep that holds it (pid, host, command) and the way out. A whole sweep
  /// (shards == 1) holds sweep.lock alone; the shards of one job array share it (LOCK_SH) and each holds
  /// shard-<i>-of-<n>.lock alone, so they run side by side but never beside a whole sweep or a twin shard.
  /// `command` is what the holder's refusal message shows of this sweep.
  FolderLock(const std::string& output_dir, int shard, int shards, const std::string& command);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  std::vector<int> fds_;  ///< open lock files, closed (and so unlocked) by the destructor
};

}  // namespace dtsim::sweep
