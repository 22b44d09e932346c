#pragma once
/// Which dtsim made a result: the release and the git commit it was built from (cmake/version.cmake).
#include <string_view>

namespace dtsim::core {

/// "0.1.0+g<12 hex digits of the commit>", with ".dirty" when built from a tree with uncommitted changes.
std::string_view dtsim_version();

}  // namespace dtsim::core
