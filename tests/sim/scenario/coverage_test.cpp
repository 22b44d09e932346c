// The coverage table cites only settings the loader accepts and tests that exist; docs/COVERAGE.md is its
// markdown byte for byte (also checked by the docs label, with the binary).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "sim/scenario/coverage.hpp"
#include "sim/scenario/keys.hpp"
#include "tests/read_file.hpp"

namespace dtsim::scenario {
namespace {

using dtsim::testing::read;

const KeySpec* find_key(std::string_view dotted) {
  const std::size_t dot = dotted.rfind('.');
  const std::string_view table = dot == std::string_view::npos ? "" : dotted.substr(0, dot);
  const std::string_view key = dot == std::string_view::npos ? dotted : dotted.substr(dot + 1);
  for (const KeySpec& spec : scenario_keys())
    if (spec.table == table && spec.key == key) return &spec;
  return nullptr;
}

TEST(Coverage, EveryImplementedMethodCitesAnAcceptedSetting) {
  for (const CoverageRow& row : coverage_table()) {
    if (row.status != Coverage::kImplemented) continue;
    const KeySpec* spec = find_key(row.key);
    ASSERT_NE(spec, nullptr) << row.method << ": no scenario key " << row.key;
    if (row.value.empty()) continue;
    ASSERT_TRUE(spec->choices) << row.method << ": " << row.key << " takes no named value";
    const std::vector<std::string> choices = spec->choices();
    EXPECT_NE(std::find(choices.begin(), choices.end(), row.value), choices.end())
        << row.method << ": " << row.key << " does not accept '" << row.value << "'";
  }
}

TEST(Coverage, EveryImplementedMethodCitesAnExistingTest) {
  for (const CoverageRow& row : coverage_table()) {
    if (row.status != Coverage::kImplemented) continue;
    const std::size_t space = row.test.find(' ');
    ASSERT_NE(space, std::string_view::npos) << row.method << ": test '" << row.test << "' is not 'FILE Suite.Name'";
    const std::string file(row.test.substr(0, space));
    const std::string name(row.test.substr(space + 1));
    const std::size_t dot = name.find('.');
    ASSERT_NE(dot, std::string::npos) << row.method << ": '" << name << "' is not Suite.Name";
    const std::string source = read(std::string(DTSIM_SOURCE_DIR) + "/" + file);
    ASSERT_FALSE(source.empty()) << row.method << ": no file " << file;
    const std::string declared = "(" + name.substr(0, dot) + ", " + name.substr(dot + 1) + ")";
    EXPECT_NE(source.find(declared), std::string::npos) << row.method << ": " << file << " has no TEST" << declared;
  }
}

TEST(Coverage, EveryOtherMethodSaysWhy) {
  std::set<std::pair<std::string_view, std::string_view>> seen;
  for (const CoverageRow& row : coverage_table()) {
    EXPECT_TRUE(seen.insert({row.area, row.method}).second) << row.method << " listed twice";
    EXPECT_FALSE(row.paper.empty()) << row.method;
    if (row.status == Coverage::kImplemented) continue;
    EXPECT_FALSE(row.note.empty()) << row.method << " needs the reason it is " << (row.status == Coverage::kMissing ? "missing" : "out of scope");
    EXPECT_TRUE(row.key.empty() && row.value.empty() && row.test.empty()) << row.method << " cites a setting it does not have";
  }
}

TEST(Coverage, AreasAreContiguousAndTheDocumentIsCurrent) {
  std::set<std::string_view> finished;
  std::string_view area;
  for (const CoverageRow& row : coverage_table()) {
    if (row.area == area) continue;
    EXPECT_TRUE(finished.insert(area).second || area.empty()) << area;
    EXPECT_EQ(finished.count(row.area), 0u) << row.area << " appears in two places";
    area = row.area;
  }
  EXPECT_EQ(read(std::string(DTSIM_SOURCE_DIR) + "/docs/COVERAGE.md"), coverage_markdown())
      << "regenerate it: ./build/dtsim list coverage > docs/COVERAGE.md";
}

}  // namespace
}  // namespace dtsim::scenario
