#pragma once
/// Test helper: the message of the core::InputError that a call throws.
#include <string>

#include "sim/core/error.hpp"

namespace dtsim::models {

/// what() of the core::InputError thrown by `call`, or "no error" when it returns.
template <class Call>
std::string input_error(Call&& call) {
  try {
    call();
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace dtsim::models
