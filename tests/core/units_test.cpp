#include "sim/core/units.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"

namespace dtsim::core {
namespace {

TEST(Units, BandwidthInBitsAndBytes) {
  EXPECT_DOUBLE_EQ(parse_bandwidth("10Gbps"), 1.25e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("12.5GBps"), 12.5e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("100 Mbps"), 12.5e6);
  EXPECT_DOUBLE_EQ(parse_bandwidth("1GiBps"), 1073741824.0);
}

TEST(Units, BandwidthAsDtsimAndNcclTestsPrintIt) {
  EXPECT_DOUBLE_EQ(parse_bandwidth("10Gb/s"), 1.25e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("12.5 GB/s"), 12.5e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("100Mb/s"), 12.5e6);
  EXPECT_DOUBLE_EQ(parse_bandwidth("1GiB/s"), 1073741824.0);
  EXPECT_THROW(parse_bandwidth("10G/s"), InputError);
}

TEST(Units, NcclTestsSizesArePowersOf1024) {
  EXPECT_EQ(parse_nccl_size("8"), 8);
  EXPECT_EQ(parse_nccl_size("1K"), 1024);
  EXPECT_EQ(parse_nccl_size("128M"), 128 * 1048576);
  EXPECT_EQ(parse_nccl_size("1G"), 1073741824);
  EXPECT_EQ(parse_nccl_size("1g"), 1073741824);
  EXPECT_EQ(parse_nccl_size("64MiB"), 64 * 1048576);  // dtsim's units still apply
  EXPECT_EQ(parse_nccl_size("1MB"), 1000000);
  try {
    parse_nccl_size("1X");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.problem(), "'1X' has an unknown unit 'X'");
    EXPECT_NE(e.allowed().find("\"1G\""), std::string::npos) << e.allowed();
  }
  EXPECT_THROW(parse_nccl_size("1.5K"), InputError);
  EXPECT_THROW(parse_nccl_size("-8"), InputError);
}

TEST(Units, Durations) {
  EXPECT_DOUBLE_EQ(parse_duration("5us"), 5e-6);
  EXPECT_DOUBLE_EQ(parse_duration("1.2ms"), 1.2e-3);
  EXPECT_DOUBLE_EQ(parse_duration("40ns"), 40e-9);
  EXPECT_DOUBLE_EQ(parse_duration("2min"), 120.0);
  EXPECT_DOUBLE_EQ(parse_duration("0s"), 0.0);
  // A plan's time to train: hours and days (issue 27: "14d" and "336h" were refused).
  EXPECT_DOUBLE_EQ(parse_duration("336h"), 336 * 3600.0);
  EXPECT_DOUBLE_EQ(parse_duration("14d"), 14 * 86400.0);
  EXPECT_DOUBLE_EQ(parse_duration("1.5h"), 5400.0);
}

TEST(Units, Sizes) {
  EXPECT_EQ(parse_size("25MiB"), 25 * 1048576);
  EXPECT_EQ(parse_size("1MB"), 1000000);
  EXPECT_EQ(parse_size("512B"), 512);
  EXPECT_EQ(parse_size("1.5KiB"), 1536);
}

TEST(Units, FlopRates) { EXPECT_DOUBLE_EQ(parse_flop_rate("15.7TFLOPS"), 15.7e12); }

TEST(Units, OutsideThePlausibleRangeIsRefusedWithTheRange) {
  try {
    parse_bandwidth("1e-300GBps");  // would give an iteration of 9e301 s
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "bandwidth '1e-300GBps' is below the plausible range; a bandwidth is 1Kbps to 1000TBps");
  }
  EXPECT_DOUBLE_EQ(parse_bandwidth("1Kbps"), 125.0);  // the ends are allowed
  EXPECT_DOUBLE_EQ(parse_bandwidth("1000TBps"), 1e15);
  EXPECT_THROW(parse_bandwidth("999bps"), InputError);
  EXPECT_THROW(parse_bandwidth("1001TBps"), InputError);
  EXPECT_DOUBLE_EQ(parse_duration("3650d"), 315360000.0);
  EXPECT_THROW(parse_duration("5256001min"), InputError);
  EXPECT_THROW(parse_duration("1e300s"), InputError);
  EXPECT_EQ(parse_size("1024TiB"), 1125899906842624);
  EXPECT_THROW(parse_size("1025TiB"), InputError);
  EXPECT_THROW(parse_nccl_size("2000000G"), InputError);
  EXPECT_DOUBLE_EQ(parse_flop_rate("1GFLOPS"), 1e9);
  EXPECT_THROW(parse_flop_rate("0.5GFLOPS"), InputError);
  EXPECT_THROW(parse_flop_rate("1001PFLOPS"), InputError);
}

TEST(Units, AnUnknownUnitNamesTheNearestUnits) {
  try {
    parse_bandwidth("10gbps");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.problem(), "'10gbps' has an unknown unit 'gbps'");
    EXPECT_EQ(e.allowed().rfind("did you mean 'Gbps' or 'GBps'? a bandwidth is", 0), 0u) << e.allowed();
  }
}

TEST(Units, ErrorsSayWhatIsAllowed) {
  try {
    parse_bandwidth("10Gbit");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.problem(), "'10Gbit' has an unknown unit 'Gbit'");
    EXPECT_NE(e.allowed().find("Gbps"), std::string::npos);
  }
  EXPECT_THROW(parse_duration("fast"), InputError);
  EXPECT_THROW(parse_duration("-1s"), InputError);
  EXPECT_THROW(parse_duration("5"), InputError);
  EXPECT_THROW(parse_size("0.5B"), InputError);
  EXPECT_THROW(parse_bandwidth("0Gbps"), InputError);
  EXPECT_THROW(parse_duration("nanus"), InputError);
  try {
    parse_duration("2weeks");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.problem(), "'2weeks' has an unknown unit 'weeks'");
    EXPECT_EQ(e.allowed(), "a duration is a number and a unit such as \"5us\", \"1.2ms\", \"8h\", \"14d\"; units ns us ms s min h d");
  }
}

}  // namespace
}  // namespace dtsim::core

namespace dtsim::core {
namespace {

TEST(FormatCount, ThousandsSeparated) {
  EXPECT_EQ(format_count(0), "0");
  EXPECT_EQ(format_count(999), "999");
  EXPECT_EQ(format_count(354823168), "354,823,168");
  EXPECT_EQ(format_count(-1234567), "-1,234,567");
  EXPECT_EQ(format_count(-123), "-123");
}

}  // namespace
}  // namespace dtsim::core
