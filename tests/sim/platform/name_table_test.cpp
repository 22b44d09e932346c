#include "sim/platform/name_table.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"

namespace dtsim::platform {
namespace {

TEST(NameTable, WritesEachNameFromItsPatternAndNumbers) {
  NameTable names;
  const int nic = names.pattern("node#_nic#");
  EXPECT_EQ(names.pattern("node#_nic#"), nic);  // one pattern, looked up again
  EXPECT_EQ(names.add(nic, {12, 3}), 0);
  EXPECT_EQ(names.add(names.pattern("sw2_#"), {7}), 1);
  EXPECT_EQ(names.add(names.pattern("switch"), {}), 2);
  EXPECT_EQ(names.add(nic, {0, 10}), 3);
  EXPECT_EQ(names.str(0), "node12_nic3");
  EXPECT_EQ(names.str(1), "sw2_7");
  EXPECT_EQ(names.str(2), "switch");
  EXPECT_EQ(names.str(3), "node0_nic10");
  EXPECT_EQ(names.size(), 4);
  EXPECT_EQ(names.numbers(), 5u);
}

TEST(NameTable, LiteralNamesKeepTheirHashes) {
  NameTable names;
  const int id = names.add(names.literal("tor#1"), {});
  EXPECT_EQ(names.str(id), "tor#1");
  EXPECT_EQ(names.kind(id), "tor##");
  EXPECT_THROW(names.add(names.pattern("tor#"), {}), core::InternalError);  // a '#' needs its number
}

TEST(NameTable, JoinsAndSuffixesNamesOfAnotherTable) {
  NameTable vertices;
  NameTable links;
  const int router = vertices.pattern("router#_#_#");
  const int a = vertices.add(router, {0, 1, 2});
  const int b = vertices.add(router, {3, 4, 5});
  const int top = vertices.add(vertices.literal("top_switch"), {});
  EXPECT_EQ(links.str(links.add_joined(vertices, a, "-", vertices, b)), "router0_1_2-router3_4_5");
  EXPECT_EQ(links.str(links.add_suffixed(vertices, top, "_reduce")), "top_switch_reduce");
  EXPECT_EQ(vertices.str(vertices.add_suffixed(vertices, b, "_reduce")), "router3_4_5_reduce");
}

TEST(NameTable, KindOfEveryNameIsItsNameWithDigitRunsAsHash) {
  NameTable names;
  const int p = names.pattern("sw1_#-sw2_#_p#");
  const int q = names.pattern("a#9#");
  for (int n : {0, 7, 12, 305})
    for (const int id : {names.add(p, {n, n + 1, 3}), names.add(q, {n, 4})}) {
      EXPECT_EQ(names.kind(id), name_kind(names.str(id))) << names.str(id);
    }
  EXPECT_EQ(name_kind("su12_rail3_spine_UP"), "su#_rail#_spine_UP");
  EXPECT_EQ(name_kind("a19b"), "a#b");
  EXPECT_EQ(names.kind(names.add(q, {1, 2})), "a#");
}

}  // namespace
}  // namespace dtsim::platform
