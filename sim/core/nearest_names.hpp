#pragma once
/// "Did you mean": the known names nearest to a mistyped one, for every registry's and table's error message.
#include <string>
#include <string_view>
#include <vector>

namespace dtsim::core {

/// Edits (insert, delete, substitute, swap two neighbours) from a to b: the optimal string alignment distance
/// (Damerau 1964, Levenshtein 1966), which counts "wrokers" as one edit from "workers".
std::size_t edit_distance(std::string_view a, std::string_view b);
/// `name` as it is compared: lower case, without '-', '_', '.' and spaces ("Llama-3-70B" -> "llama370b").
std::string folded_name(std::string_view name);
/// The known names nearest to `name` after folding, in the order of `known`, at most 8: those equal to it after
/// folding, else those it begins when it has 3 characters or more ("gpt3" -> every gpt3_*), else those at the
/// smallest edit distance when it is at most max(2, a third of the folded name) and below both folded lengths.
std::vector<std::string> nearest_names(std::string_view name, const std::vector<std::string>& known);
/// "did you mean 'a'?", "did you mean 'a' or 'b'?", "did you mean 'a', 'b' or 'c'?", or "" when none is near.
std::string did_you_mean(std::string_view name, const std::vector<std::string>& known);
/// The "what is allowed" part of an error about `name`: `allowed` after the suggestion when there is one
/// ("did you mean 'workers'? allowed at the top level: ...").
std::string with_suggestion(std::string_view name, const std::vector<std::string>& known, const std::string& allowed);

/// "8 or 16": the multiples of `step` nearest to `value`, below (when there is one) and above; for counts that a
/// layout or a node size must divide.
std::string nearest_multiples(int value, int step);
/// "4 or 8": the divisors of `total` nearest to `value`, below and above (each when there is one).
std::string nearest_divisors(int value, int total);

}  // namespace dtsim::core
