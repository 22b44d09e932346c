#include "sim/core/digest.hpp"

#include <array>
#include <cinttypes>
#include <cstdio>
#include <fstream>

#include "sim/core/error.hpp"

namespace dtsim::core {

Digest& Digest::add(std::string_view bytes) {
  constexpr std::uint64_t kPrime = 0x100000001b3ull;
  for (unsigned char c : bytes) state_ = (state_ ^ c) * kPrime;
  for (std::size_t n = bytes.size(), i = 0; i < 8; ++i, n >>= 8) state_ = (state_ ^ (n & 0xff)) * kPrime;
  return *this;
}

std::string Digest::hex() const {
  char text[17];
  std::snprintf(text, sizeof text, "%016" PRIx64, state_);
  return text;
}

std::string file_digest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "cannot read the file", "give the path of a readable file");
  Digest digest;
  std::array<char, 1 << 16> buffer;
  while (in.read(buffer.data(), buffer.size()) || in.gcount() > 0)
    digest.add(std::string_view(buffer.data(), static_cast<std::size_t>(in.gcount())));
  return digest.hex();
}

}  // namespace dtsim::core
