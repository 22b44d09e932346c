#include "sim/parallel/layout.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace dtsim::parallel {
namespace {

constexpr std::array<std::string_view, 5> kShardings{"none", "zero1", "zero2", "zero3", "hybrid"};
constexpr std::array<DimensionEntry, 6> kDimensions{{
    {"tensor", &Layout::tensor, false, true},
    {"context", &Layout::context, true, false},
    {"pipeline", &Layout::pipeline, false, true},
    {"data", &Layout::data, true, true},
    {"expert_tensor", &Layout::expert_tensor, false, false, true},
    {"expert", &Layout::expert, false, false, true},
}};
constexpr std::string_view kFoldedData = "expert_data";  // what the last folded dimension leaves

/// The names of the registered dimensions, for messages.
std::string dimension_names(bool folded = true) {
  std::string names;
  for (const DimensionEntry& d : kDimensions)
    if (folded || !d.folded) names += (names.empty() ? "" : ", ") + std::string(d.name);
  return names;
}

}  // namespace

std::span<const DimensionEntry> dimension_registry() { return kDimensions; }

std::vector<std::string> Layout::default_order() {
  std::vector<std::string> order;
  for (const DimensionEntry& d : kDimensions)
    if (!d.folded) order.emplace_back(d.name);
  return order;
}

int Layout::ranks() const {
  int ranks = 1;
  for (const DimensionEntry& d : kDimensions)
    if (!d.folded) ranks *= this->*d.extent;
  return ranks;
}

bool Layout::data_parallel_only() const {
  for (const DimensionEntry& d : kDimensions)
    if (d.name != "data" && this->*d.extent > 1) return false;
  return sharding == Sharding::none && framework.framework == Framework::generic;
}

int Layout::replicas() const {
  int ranks = 1;
  for (const DimensionEntry& d : kDimensions)
    if (d.replicates) ranks *= this->*d.extent;
  return ranks;
}

std::vector<std::string> sharding_names() { return {kShardings.begin(), kShardings.end()}; }

Sharding parse_sharding(std::string_view name) {
  for (std::size_t i = 0; i < kShardings.size(); ++i)
    if (kShardings[i] == name) return static_cast<Sharding>(i);
  throw core::unknown_name("sharding", name, sharding_names());
}

std::string_view sharding_name(Sharding s) { return kShardings[static_cast<std::size_t>(s)]; }

std::vector<std::string> parse_order(std::string_view text, const Layout& layout) {
  std::vector<std::string> order;
  const std::string allowed = "each of " + dimension_names(false) +
                              " at most once, comma-separated, innermost first (one of extent 1 may be left out)";
  for (std::size_t begin = 0; begin <= text.size();) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    std::string_view word = text.substr(begin, end - begin);
    while (!word.empty() && word.front() == ' ') word.remove_prefix(1);
    while (!word.empty() && word.back() == ' ') word.remove_suffix(1);
    const bool known = std::any_of(kDimensions.begin(), kDimensions.end(),
                                   [&](const DimensionEntry& d) { return d.name == word && !d.folded; });
    if (!known || std::find(order.begin(), order.end(), word) != order.end())
      throw core::InputError("parallel order '" + std::string(text) + "'", allowed);
    order.emplace_back(word);
    begin = end + 1;
  }
  for (const DimensionEntry& d : kDimensions)
    if (!d.folded && std::find(order.begin(), order.end(), d.name) == order.end()) {
      if (layout.*d.extent > 1)
        throw core::InputError("parallel order '" + std::string(text) + "' leaves out " + std::string(d.name) + " = " +
                                   std::to_string(layout.*d.extent),
                               allowed);
      order.emplace_back(d.name);
    }
  return order;
}

std::string extents_name(const Layout& layout) {
  std::string text;
  for (const DimensionEntry& d : kDimensions)
    if (d.named_when_one || layout.*d.extent > 1)
      text += (text.empty() ? "" : " x ") + std::string(d.name) + " " + std::to_string(layout.*d.extent);
  return text;
}

std::string order_name(const std::vector<std::string>& order) {
  std::string text;
  for (const std::string& d : order) text += (text.empty() ? "" : ",") + d;
  return text;
}

Placement::Placement(const Layout& layout, int gpus_per_node) : layout_(layout), gpus_per_node_(gpus_per_node) {
  for (const DimensionEntry& d : kDimensions) axes_.push_back({d.name, layout.*d.extent, 1});
  int stride = 1;
  for (const std::string& name : layout.order) {
    auto at = std::find_if(axes_.begin(), axes_.end(), [&](const Axis& a) { return a.name == name; });
    DTSIM_CHECK(at != axes_.end(), "parallel order names a dimension that is not registered");
    at->stride = stride;
    stride *= at->extent;
  }
}

const Placement::Axis* Placement::axis(std::string_view name) const {
  for (const Axis& a : axes_)
    if (a.name == name) return &a;
  return nullptr;
}

int Placement::coordinate(int rank, std::string_view dimension) const {
  const Axis* a = axis(dimension);
  DTSIM_CHECK(a, "not a layout dimension");
  return rank / a->stride % a->extent;
}

int Placement::moved(int rank, std::string_view dimension, int to) const {
  const Axis* a = axis(dimension);
  DTSIM_CHECK(a, "not a layout dimension");
  return rank + (to - rank / a->stride % a->extent) * a->stride;
}

std::optional<std::vector<int>> Placement::folded_members(int rank, std::string_view name) const {
  // The stage's ranks in rank order, numbered i = f0 + F0 (f1 + F1 (... + rest)) over the folded extents F.
  int radix = 1, stride = 0, extent = 0;
  for (std::size_t d = 0; d < kDimensions.size(); ++d) {
    if (!kDimensions[d].folded) continue;
    if (kDimensions[d].name == name) stride = radix, extent = axes_[d].extent;
    radix *= axes_[d].extent;
  }
  if (name == kFoldedData) stride = radix, extent = 0;
  else if (stride == 0) return std::nullopt;
  std::vector<int> stage{rank};
  for (std::size_t d = 0; d < kDimensions.size(); ++d) {
    if (kDimensions[d].folded || kDimensions[d].name == "pipeline") continue;
    std::vector<int> wider;
    for (int r : stage)
      for (int i = 0; i < axes_[d].extent; ++i) wider.push_back(moved(r, axes_[d].name, i));
    stage = std::move(wider);
  }
  std::sort(stage.begin(), stage.end());
  if (extent == 0) extent = static_cast<int>(stage.size()) / radix;
  const int self = static_cast<int>(std::find(stage.begin(), stage.end(), rank) - stage.begin());
  const int base = self - self / stride % extent * stride;
  std::vector<int> ranks;
  for (int i = 0; i < extent; ++i) ranks.push_back(stage[static_cast<std::size_t>(base + i * stride)]);
  return ranks;
}

std::vector<int> Placement::members(int rank, std::string_view group) const {
  if (std::optional<std::vector<int>> folded = folded_members(rank, group)) return *folded;
  const bool derived = group == "shard" || group == "replica";
  if (!derived && group != "data") {
    const Axis* a = axis(group);
    if (!a)
      throw core::InputError("unknown parallel group '" + std::string(group) + "'",
                             dimension_names() + ", shard, replica, " + std::string(kFoldedData));
    std::vector<int> ranks;
    for (int i = 0; i < a->extent; ++i) ranks.push_back(moved(rank, a->name, i));
    return ranks;
  }
  // The replicas' group: every combination of the replicating dimensions' coordinates, in rank order.
  std::vector<int> ranks{rank};
  for (std::size_t d = 0; d < kDimensions.size(); ++d) {
    if (!kDimensions[d].replicates) continue;
    std::vector<int> wider;
    for (int r : ranks)
      for (int i = 0; i < axes_[d].extent; ++i) wider.push_back(moved(r, axes_[d].name, i));
    ranks = std::move(wider);
  }
  std::sort(ranks.begin(), ranks.end());
  if (!derived) return ranks;
  // Hybrid sharding: a replica's place in its node's shard is how many of the group's earlier ranks share its node.
  std::vector<int> place(ranks.size());
  std::vector<std::pair<int, int>> seen;  // (node, ranks so far)
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const int node = ranks[i] / gpus_per_node_;
    auto at = std::find_if(seen.begin(), seen.end(), [&](const auto& n) { return n.first == node; });
    if (at == seen.end()) at = seen.insert(seen.end(), {node, 0});
    place[i] = at->second++;
  }
  const auto self = static_cast<std::size_t>(std::find(ranks.begin(), ranks.end(), rank) - ranks.begin());
  std::vector<int> chosen;
  for (std::size_t i = 0; i < ranks.size(); ++i)
    if (group == "shard" ? ranks[i] / gpus_per_node_ == rank / gpus_per_node_ : place[i] == place[self])
      chosen.push_back(ranks[i]);
  return chosen;
}

bool Placement::leads(int rank, std::string_view group) const {
  if (std::optional<std::vector<int>> folded = folded_members(rank, group)) return folded->front() == rank;
  if (group == "data") {
    for (std::size_t d = 0; d < kDimensions.size(); ++d)
      if (kDimensions[d].replicates && rank / axes_[d].stride % axes_[d].extent != 0) return false;
    return true;
  }
  if (group == "shard" || group == "replica") {
    const Axis* spread = nullptr;  // the one replicating dimension of extent > 1, if only one is
    int spread_dimensions = 0;
    for (std::size_t d = 0; d < kDimensions.size(); ++d)
      if (kDimensions[d].replicates && axes_[d].extent > 1) spread = &axes_[d], ++spread_dimensions;
    if (spread_dimensions != 1) return members(rank, group).front() == rank;
    const int node = rank / gpus_per_node_, at = rank / spread->stride % spread->extent;
    if (group == "shard") return at == 0 || (rank - spread->stride) / gpus_per_node_ != node;
    return node == (rank - at * spread->stride) / gpus_per_node_;
  }
  if (const Axis* a = axis(group)) return rank / a->stride % a->extent == 0;
  throw core::InputError("unknown parallel group '" + std::string(group) + "'",
                         dimension_names() + ", shard, replica, " + std::string(kFoldedData));
}

int ranks_per_node(const std::vector<int>& members, int gpus_per_node) {
  if (members.empty()) return 1;
  std::size_t per = 0;
  while (per < members.size() && members[per] / gpus_per_node == members[0] / gpus_per_node) ++per;
  for (std::size_t i = 0; i < members.size(); ++i) {
    const int node = members[i] / gpus_per_node, first = members[i - i % per] / gpus_per_node;
    if (node != first || (i % per == 0 && i > 0 && node == members[i - 1] / gpus_per_node)) return 1;
  }
  return members.size() % per == 0 ? static_cast<int>(per) : 1;
}

}  // namespace dtsim::parallel
