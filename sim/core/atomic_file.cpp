#include "sim/core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "sim/core/error.hpp"

namespace dtsim::core {
namespace {

constexpr const char* kWayOut = "make the output folder writable and give it room, or write elsewhere (--out or output.dir)";

[[noreturn]] void fail(const std::string& path, const std::string& what, int error) {
  throw core::InputError(path, what + ": " + std::strerror(error), kWayOut);
}

/// Writes all of `bytes` to `fd`, retrying short writes and interrupts; returns 0 or the errno.
int write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

/// Makes a rename inside `folder` durable (POSIX: the directory entry is data of the folder).
void sync_folder(const std::string& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void write_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const std::string folder = target.has_parent_path() ? target.parent_path().string() : ".";
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw core::InputError(folder, "cannot create the folder: " + ec.message(), kWayOut);
  std::ostringstream text;
  write(text);  // a writer that throws leaves nothing behind
  std::string temporary = path + ".XXXXXX";  // unique: concurrent writers of one path never share a temporary
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) fail(path, "cannot create a file next to it", errno);
  const mode_t mask = ::umask(0);  // mkstemp makes 0600; a result file gets the usual 0666 less the umask
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  int error = write_all(fd, text.view());
  if (error == 0 && ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && std::rename(temporary.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlink(temporary.c_str());
    fail(path, "cannot write the file", error);
  }
  sync_folder(folder);
}

}  // namespace dtsim::core
