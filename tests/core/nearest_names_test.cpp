#include "sim/core/nearest_names.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "sim/core/printable.hpp"

namespace dtsim::core {
namespace {

const std::vector<std::string> kModels{"resnet50", "llama2_70b", "llama3_8b", "llama3_70b", "llama3_405b",
                                       "gpt3_125m", "gpt3_1_3b", "gpt3_175b", "bert_base"};

TEST(EditDistance, CountsInsertionsDeletionsSubstitutionsAndSwaps) {
  EXPECT_EQ(edit_distance("workers", "workers"), 0u);
  EXPECT_EQ(edit_distance("worker", "workers"), 1u);
  EXPECT_EQ(edit_distance("wrokers", "workers"), 1u);  // one swap of neighbours
  EXPECT_EQ(edit_distance("wfpb", "wfbp"), 1u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
}

TEST(FoldedName, DropsCaseDashesUnderscoresDotsAndSpaces) {
  EXPECT_EQ(folded_name("Llama-3-70B"), "llama370b");
  EXPECT_EQ(folded_name("gpt3_1.3b"), "gpt313b");
  EXPECT_EQ(folded_name("batch size"), "batchsize");
}

TEST(NearestNames, SpellingsOfOneNameFindIt) {
  EXPECT_EQ(nearest_names("llama-3-70b", kModels), std::vector<std::string>{"llama3_70b"});
  EXPECT_EQ(nearest_names("Llama3-70B", kModels), std::vector<std::string>{"llama3_70b"});
  EXPECT_EQ(nearest_names("gpt3-1.3b", kModels), std::vector<std::string>{"gpt3_1_3b"});
  EXPECT_EQ(nearest_names("resnet-50", kModels), std::vector<std::string>{"resnet50"});
}

TEST(NearestNames, TiesAreAllNamedInRegistryOrder) {
  // One edit from both Llama 70Bs.
  EXPECT_EQ(nearest_names("llama_70b", kModels), (std::vector<std::string>{"llama2_70b", "llama3_70b"}));
  EXPECT_EQ(nearest_names("p100", {"v100", "a100", "h100", "rtx2080ti"}),
            (std::vector<std::string>{"v100", "a100", "h100"}));
}

TEST(NearestNames, APrefixNamesTheFamily) {
  EXPECT_EQ(nearest_names("llama3", kModels), (std::vector<std::string>{"llama3_8b", "llama3_70b", "llama3_405b"}));
  EXPECT_EQ(nearest_names("gpt3", kModels), (std::vector<std::string>{"gpt3_125m", "gpt3_1_3b", "gpt3_175b"}));
}

TEST(NearestNames, FarNamesSuggestNothing) {
  EXPECT_TRUE(nearest_names("exact", {"analytic", "flow", "message"}).empty());
  EXPECT_TRUE(nearest_names("x", {"y", "z"}).empty());  // one edit, but the whole name
  EXPECT_TRUE(nearest_names("", kModels).empty());
  // Two edits in a short name is the limit; three is another name.
  EXPECT_EQ(nearest_names("fp8", {"fp32", "fp16", "bf16"}), (std::vector<std::string>{"fp32", "fp16"}));
  EXPECT_TRUE(nearest_names("tpu", {"gpu_count"}).empty());
}

TEST(DidYouMean, WordsOneTwoOrMoreNames) {
  EXPECT_EQ(did_you_mean("llama-3-70b", kModels), "did you mean 'llama3_70b'?");
  EXPECT_EQ(did_you_mean("llama_70b", kModels), "did you mean 'llama2_70b' or 'llama3_70b'?");
  EXPECT_EQ(did_you_mean("llama3", kModels), "did you mean 'llama3_8b', 'llama3_70b' or 'llama3_405b'?");
  EXPECT_EQ(did_you_mean("bogus", kModels), "");
  EXPECT_EQ(with_suggestion("bogus", kModels, "known: a"), "known: a");
  EXPECT_EQ(with_suggestion("resnet5", kModels, "known: a"), "did you mean 'resnet50'? known: a");
}

TEST(UnknownName, SuggestsTheNearestNamesBeforeTheList) {
  EXPECT_STREQ(unknown_name("model", "llama-3-70b", {"llama3_8b", "llama3_70b"}).what(),
               "unknown model 'llama-3-70b'; did you mean 'llama3_70b'? known: llama3_8b, llama3_70b");
}

TEST(NearestCounts, MultiplesBelowAndAbove) {
  EXPECT_EQ(nearest_multiples(12, 8), "8 or 16");
  EXPECT_EQ(nearest_multiples(6, 8), "8");  // no positive multiple below
  EXPECT_EQ(nearest_multiples(100, 3), "99 or 102");
}

TEST(NearestCounts, DivisorsBelowAndAbove) {
  EXPECT_EQ(nearest_divisors(3, 32), "2 or 4");
  EXPECT_EQ(nearest_divisors(5, 36), "4 or 6");
  EXPECT_EQ(nearest_divisors(64, 32), "32");  // above the total: the total itself
  EXPECT_EQ(nearest_divisors(12, 13), "1 or 13");
}

TEST(Printable, EscapesControlCharactersOnly) {
  EXPECT_EQ(printable(std::string("res\0net", 7)), "res\\0net");
  EXPECT_EQ(printable("a\tb\nc\rd\x7f" "e\x01"), "a\\tb\\nc\\rd\\x7fe\\x01");
  EXPECT_EQ(printable("h\xc3\xa9llo"), "h\xc3\xa9llo");  // UTF-8 is printed as it is
}

TEST(InputError, ANulInAMessageDoesNotCutIt) {
  const InputError e("f.toml:1:1", std::string("unknown x 'a\0b'", 15), "known: c");
  EXPECT_STREQ(e.what(), "f.toml:1:1: unknown x 'a\\0b'; known: c");
  EXPECT_STREQ(unknown_name("model", std::string("resnet\0", 7), {"resnet50"}).what(),
               "unknown model 'resnet\\0'; did you mean 'resnet50'? known: resnet50");
}

}  // namespace
}  // namespace dtsim::core
