// Atomic writes: the target is either the old file or the complete new one, never a partial one, and no
// temporary is left behind when writing fails.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "sim/core/atomic_file.hpp"
#include "sim/core/error.hpp"
#include "tests/read_file.hpp"

namespace dtsim::core {
namespace {

using dtsim::testing::read;

namespace fs = std::filesystem;

fs::path fresh(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("atomic-" + name);
  fs::remove_all(dir);
  return dir;
}

TEST(AtomicFile, WritesCreatesTheFolderAndLeavesNoTemporary) {
  const fs::path dir = fresh("ok");
  write_atomically((dir / "a/b.txt").string(), [](std::ostream& out) { out << "new"; });
  EXPECT_EQ(read(dir / "a/b.txt"), "new");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir / "a")) ++entries;
  EXPECT_EQ(entries, 1);
  EXPECT_EQ(fs::status(dir / "a/b.txt").permissions() & fs::perms::owner_read, fs::perms::owner_read);
  fs::remove_all(dir);
}

TEST(AtomicFile, AFailingWriterLeavesTheOldFileUntouched) {
  const fs::path dir = fresh("throw");
  write_atomically((dir / "f").string(), [](std::ostream& out) { out << "old"; });
  EXPECT_THROW(write_atomically((dir / "f").string(),
                                [](std::ostream& out) {
                                  out << "partial";
                                  throw std::runtime_error("writer failed");
                                }),
               std::runtime_error);
  EXPECT_EQ(read(dir / "f"), "old");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1);
  fs::remove_all(dir);
}

TEST(AtomicFile, AnUnwritablePlaceIsAnInputErrorWithTheWayOut) {
  const fs::path dir = fresh("blocked");
  write_atomically((dir / "file").string(), [](std::ostream& out) { out << "x"; });
  try {
    write_atomically((dir / "file/inside.json").string(), [](std::ostream& out) { out << "y"; });
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind((dir / "file").string() + ": cannot create the folder: ", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("write elsewhere (--out or output.dir)"), std::string::npos);
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dtsim::core
