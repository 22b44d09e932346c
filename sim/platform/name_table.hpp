#pragma once
/// Names of a fabric's vertices or links, kept as a pattern and its numbers ("node#_nic#" with 12 and 3 is
/// "node12_nic3") and written out only when asked for. A fabric of 100,000 GPUs has 375,000 vertices and 560,000
/// links but a few dozen patterns: kept as strings, the names took 40 % of its set-up time and a third of its memory.
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace dtsim::platform {

/// `name` with each run of digits as one '#': the kind of thing it names ("su#_rail#_spine_UP").
std::string name_kind(std::string_view name);

/// Names indexed 0, 1, ... in the order they are added.
class NameTable {
 public:
  /// Id of the pattern `text`, each '#' in it standing for a number ("node#_nic#"); added on first use.
  int pattern(std::string_view text);
  /// Id of the pattern that is `name` verbatim, '#' included (a name from the user's file).
  int literal(std::string_view name);
  /// Appends the name of pattern `pattern` with `numbers` (one per '#', each >= 0); returns its index.
  int add(int pattern, std::initializer_list<int> numbers);
  /// Appends name `a` of table `ta`, then `separator`, then name `b` of table `tb` ("router3" "-" "router4");
  /// returns its index.
  int add_joined(const NameTable& ta, int a, std::string_view separator, const NameTable& tb, int b);
  /// Appends name `a` of table `ta` followed by `suffix` ("top_switch" "_reduce"); returns its index.
  int add_suffixed(const NameTable& ta, int a, std::string_view suffix);
  /// Name `index` written out.
  std::string str(int index) const;
  /// The kind of name `index`: the name with each run of digits as one '#' ("node#_nic#" for "node12_nic3").
  /// Numbers are digit runs, so every name of a pattern has its pattern's kind.
  const std::string& kind(int index) const { return patterns_[pattern_of_[static_cast<std::size_t>(index)]].kind; }
  int size() const { return static_cast<int>(pattern_of_.size()); }
  /// Numbers held by all names together.
  std::size_t numbers() const { return numbers_.size(); }
  /// Room for `names` names holding `numbers` numbers in all.
  void reserve(std::size_t names, std::size_t numbers);

 private:
  /// Literal text around the numbers: pieces.size() = numbers + 1.
  struct Pattern {
    std::vector<std::string> pieces;
    std::string kind;
  };
  /// Pattern pieces and numbers of one name, to build another from.
  struct Parts {
    std::vector<std::string> pieces;
    std::vector<int> numbers;
  };
  Parts parts(int index) const;
  int intern(std::vector<std::string> pieces);
  /// Appends a name of pattern `pattern` whose numbers are [first, last).
  int append(int pattern, const int* first, const int* last);

  std::vector<Pattern> patterns_;
  std::map<std::vector<std::string>, int> ids_;         ///< pieces -> pattern id
  std::map<std::string, int, std::less<>> by_text_;     ///< pattern() texts seen -> pattern id
  std::vector<std::uint32_t> pattern_of_;        ///< per name
  std::vector<std::uint32_t> first_number_;      ///< per name: where its numbers start in numbers_
  std::vector<int> numbers_;
};

}  // namespace dtsim::platform
