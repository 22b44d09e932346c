#include "sim/platform/name_table.hpp"

#include <iterator>

#include "sim/core/error.hpp"

namespace dtsim::platform {

std::string name_kind(std::string_view name) {
  std::string kind;
  for (std::size_t k = 0; k < name.size(); ++k) {
    const bool digit = name[k] >= '0' && name[k] <= '9';
    if (!digit)
      kind += name[k];
    else if (k == 0 || name[k - 1] < '0' || name[k - 1] > '9')
      kind += '#';
  }
  return kind;
}

int NameTable::pattern(std::string_view text) {
  if (const auto it = by_text_.find(text); it != by_text_.end()) return it->second;
  std::vector<std::string> pieces(1);
  for (const char c : text)
    if (c == '#')
      pieces.emplace_back();
    else
      pieces.back() += c;
  const int id = intern(std::move(pieces));
  by_text_.emplace(text, id);
  return id;
}

int NameTable::literal(std::string_view name) { return intern({std::string(name)}); }

int NameTable::intern(std::vector<std::string> pieces) {
  if (const auto it = ids_.find(pieces); it != ids_.end()) return it->second;
  // Every number written as 0 is a digit run where any number is: the kind of the pattern's every name.
  std::string zeros = pieces.front();
  for (std::size_t k = 1; k < pieces.size(); ++k) zeros += "0" + pieces[k];
  const int id = static_cast<int>(patterns_.size());
  ids_.emplace(pieces, id);
  patterns_.push_back({std::move(pieces), name_kind(zeros)});
  return id;
}

int NameTable::append(int pattern, const int* first, const int* last) {
  const Pattern& p = patterns_[static_cast<std::size_t>(pattern)];
  DTSIM_CHECK(static_cast<std::size_t>(last - first) + 1 == p.pieces.size(), "a name needs one number per '#'");
  for (const int* n = first; n != last; ++n) DTSIM_CHECK(*n >= 0, "numbers in names are not negative");
  pattern_of_.push_back(static_cast<std::uint32_t>(pattern));
  first_number_.push_back(static_cast<std::uint32_t>(numbers_.size()));
  numbers_.insert(numbers_.end(), first, last);
  return size() - 1;
}

int NameTable::add(int pattern, std::initializer_list<int> numbers) {
  return append(pattern, numbers.begin(), numbers.end());
}

NameTable::Parts NameTable::parts(int index) const {
  const auto i = static_cast<std::size_t>(index);
  const std::vector<std::string>& pieces = patterns_[pattern_of_[i]].pieces;
  const auto first = numbers_.begin() + first_number_[i];
  return {pieces, std::vector<int>(first, first + static_cast<long>(pieces.size() - 1))};
}

int NameTable::add_joined(const NameTable& ta, int a, std::string_view separator, const NameTable& tb, int b) {
  Parts joined = ta.parts(a);
  Parts right = tb.parts(b);
  joined.pieces.back() += std::string(separator) + right.pieces.front();
  joined.pieces.insert(joined.pieces.end(), std::next(right.pieces.begin()), right.pieces.end());
  joined.numbers.insert(joined.numbers.end(), right.numbers.begin(), right.numbers.end());
  return append(intern(std::move(joined.pieces)), joined.numbers.data(), joined.numbers.data() + joined.numbers.size());
}

int NameTable::add_suffixed(const NameTable& ta, int a, std::string_view suffix) {
  Parts name = ta.parts(a);
  name.pieces.back() += suffix;
  return append(intern(std::move(name.pieces)), name.numbers.data(), name.numbers.data() + name.numbers.size());
}

std::string NameTable::str(int index) const {
  const auto i = static_cast<std::size_t>(index);
  const std::vector<std::string>& pieces = patterns_[pattern_of_[i]].pieces;
  std::string name = pieces.front();
  for (std::size_t k = 1; k < pieces.size(); ++k)
    name += std::to_string(numbers_[first_number_[i] + k - 1]) + pieces[k];
  return name;
}

void NameTable::reserve(std::size_t names, std::size_t numbers) {
  pattern_of_.reserve(names);
  first_number_.reserve(names);
  numbers_.reserve(numbers);
}

}  // namespace dtsim::platform
