#pragma once
/// Error types shared by every dtsim library: the user's mistakes and ours.
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace dtsim::core {

/// Bad input from the user: "where: problem; what is allowed". The CLI maps it to exit code 2.
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& where, const std::string& problem, const std::string& allowed);
  /// Same error without a location (the caller adds one with `at`).
  InputError(const std::string& problem, const std::string& allowed);
  const std::string& problem() const { return problem_; }
  const std::string& allowed() const { return allowed_; }
  /// Returns this error placed at `where` (for example "file.toml:3:7").
  InputError at(const std::string& where) const { return InputError(where, problem_, allowed_); }

 private:
  std::string problem_;
  std::string allowed_;
};

/// A broken invariant inside dtsim (a bug of ours). The CLI maps it to exit code 1.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

/// "a, b, c": the list part of error messages.
std::string join_names(const std::vector<std::string>& names);

/// "unknown <what> '<name>'; known: a, b, c": the error of every registry lookup.
InputError unknown_name(std::string_view what, std::string_view name, const std::vector<std::string>& known);

[[noreturn]] void fail_check(const char* condition, const char* file, int line, const std::string& message);

}  // namespace dtsim::core

/// Checks an internal invariant; throws InternalError with our file:line when it does not hold.
#define DTSIM_CHECK(condition, message)                                          \
  do {                                                                           \
    if (!(condition)) ::dtsim::core::fail_check(#condition, __FILE__, __LINE__, (message)); \
  } while (false)
