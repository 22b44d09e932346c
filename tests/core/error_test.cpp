#include "sim/core/error.hpp"

#include <gtest/gtest.h>

namespace dtsim::core {
namespace {

TEST(InputError, FormatsLocationProblemAndAllowed) {
  const InputError e("a.toml:3:7", "unknown key 'x'", "allowed: y, z");
  EXPECT_STREQ(e.what(), "a.toml:3:7: unknown key 'x'; allowed: y, z");
  EXPECT_STREQ(InputError("bad", "good").at("f:1:2").what(), "f:1:2: bad; good");
}

TEST(InputError, UnknownNameListsKnownNames) {
  EXPECT_STREQ(unknown_name("model", "vgg", {"resnet18", "resnet50"}).what(),
               "unknown model 'vgg'; known: resnet18, resnet50");
  EXPECT_STREQ(unknown_name("model", "resnet5", {"resnet18", "resnet50"}).what(),
               "unknown model 'resnet5'; did you mean 'resnet50'? known: resnet18, resnet50");
}

TEST(Check, ThrowsInternalErrorWithOurLocation) {
  try {
    DTSIM_CHECK(1 + 1 == 3, "arithmetic");
    FAIL() << "no error";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("error_test.cpp"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("arithmetic"), std::string::npos);
  }
}

}  // namespace
}  // namespace dtsim::core
