// Content digests and shell quoting: the pieces that key sweep points and record command lines.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "sim/core/digest.hpp"
#include "sim/core/error.hpp"
#include "sim/core/shell_quote.hpp"

namespace dtsim::core {
namespace {

TEST(Digest, SameBytesSameDigestAndPiecesAreDelimited) {
  EXPECT_EQ(Digest().add("workers=4").hex(), Digest().add("workers=4").hex());
  EXPECT_NE(Digest().add("workers=4").hex(), Digest().add("workers=8").hex());
  EXPECT_NE(Digest().add("ab").add("c").hex(), Digest().add("a").add("bc").hex());
  EXPECT_EQ(Digest().add("").hex().size(), 16u);
}

TEST(Digest, FileDigestIsTheDigestOfItsBytesReadInBlocks) {
  const std::string path = ::testing::TempDir() + "/digest_test.bin";
  std::string bytes(200000, 'x');
  bytes[123457] = 'y';
  std::ofstream(path, std::ios::binary) << bytes;
  const std::string first = file_digest(path);
  EXPECT_EQ(first, file_digest(path));
  bytes[5] = 'z';
  std::ofstream(path, std::ios::binary) << bytes;
  EXPECT_NE(first, file_digest(path));
  std::remove(path.c_str());
  EXPECT_THROW(file_digest(path), InputError);
}

TEST(ShellQuote, SafeWordsStayBareOthersAreSingleQuoted) {
  EXPECT_EQ(shell_quote("--set"), "--set");
  EXPECT_EQ(shell_quote("platform.inter_link.bandwidth=25Gbps"), "platform.inter_link.bandwidth=25Gbps");
  EXPECT_EQ(shell_quote("strategy.scheduler=\"wfbp\""), "'strategy.scheduler=\"wfbp\"'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote(""), "''");
}

}  // namespace
}  // namespace dtsim::core
