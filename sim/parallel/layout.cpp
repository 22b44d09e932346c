#include "sim/parallel/layout.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace dtsim::parallel {
namespace {

constexpr std::array<std::string_view, 5> kShardings{"none", "zero1", "zero2", "zero3", "hybrid"};
constexpr std::array<std::string_view, 3> kDimensions{"tensor", "pipeline", "data"};

std::size_t index(Dimension d) { return static_cast<std::size_t>(d); }

}  // namespace

std::vector<std::string> sharding_names() { return {kShardings.begin(), kShardings.end()}; }

Sharding parse_sharding(std::string_view name) {
  for (std::size_t i = 0; i < kShardings.size(); ++i)
    if (kShardings[i] == name) return static_cast<Sharding>(i);
  throw core::unknown_name("sharding", name, sharding_names());
}

std::string_view sharding_name(Sharding s) { return kShardings[static_cast<std::size_t>(s)]; }

std::array<Dimension, 3> parse_order(std::string_view text) {
  std::array<Dimension, 3> order{};
  std::size_t n = 0, begin = 0;
  bool seen[3] = {false, false, false};
  const std::string allowed = "the three of tensor, pipeline, data, comma-separated, innermost first";
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    std::string_view word = text.substr(begin, end - begin);
    while (!word.empty() && word.front() == ' ') word.remove_prefix(1);
    while (!word.empty() && word.back() == ' ') word.remove_suffix(1);
    const auto at = std::find(kDimensions.begin(), kDimensions.end(), word);
    if (at == kDimensions.end() || n == 3 || seen[at - kDimensions.begin()])
      throw core::InputError("parallel order '" + std::string(text) + "'", allowed);
    seen[at - kDimensions.begin()] = true;
    order[n++] = static_cast<Dimension>(at - kDimensions.begin());
    begin = end + 1;
  }
  if (n != 3) throw core::InputError("parallel order '" + std::string(text) + "'", allowed);
  return order;
}

std::string order_name(const std::array<Dimension, 3>& order) {
  std::string text;
  for (Dimension d : order) text += (text.empty() ? "" : ",") + std::string(kDimensions[index(d)]);
  return text;
}

Placement::Placement(const Layout& layout, int gpus_per_node) : layout_(layout), gpus_per_node_(gpus_per_node) {
  int stride = 1;
  for (Dimension d : layout.order) {
    stride_[index(d)] = stride;
    stride *= extent(d);
  }
}

int Placement::extent(Dimension d) const {
  return d == Dimension::tensor ? layout_.tensor : d == Dimension::pipeline ? layout_.pipeline : layout_.data;
}

Coordinates Placement::coordinates(int rank) const {
  auto at = [&](Dimension d) { return rank / stride_[index(d)] % extent(d); };
  return {at(Dimension::tensor), at(Dimension::pipeline), at(Dimension::data)};
}

int Placement::rank(const Coordinates& c) const {
  return c.tensor * stride_[index(Dimension::tensor)] + c.pipeline * stride_[index(Dimension::pipeline)] +
         c.data * stride_[index(Dimension::data)];
}

int Placement::stage_rank(int rank, int stage) const {
  Coordinates c = coordinates(rank);
  c.pipeline = stage;
  return this->rank(c);
}

std::vector<int> Placement::members(int rank, std::string_view group) const {
  const Coordinates c = coordinates(rank);
  std::vector<int> ranks;
  auto along = [&](Dimension d) {
    for (int i = 0; i < extent(d); ++i) {
      Coordinates m = c;
      (d == Dimension::tensor ? m.tensor : d == Dimension::pipeline ? m.pipeline : m.data) = i;
      ranks.push_back(this->rank(m));
    }
  };
  if (group == "tensor") along(Dimension::tensor);
  else if (group == "pipeline") along(Dimension::pipeline);
  else if (group == "data") along(Dimension::data);
  else if (group == "shard" || group == "replica") {
    along(Dimension::data);
    // A data-parallel rank's place in its node's shard: how many of the group's earlier ranks share its node.
    std::vector<int> place(ranks.size());
    std::vector<std::pair<int, int>> seen;  // (node, ranks so far)
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      const int node = ranks[i] / gpus_per_node_;
      auto at = std::find_if(seen.begin(), seen.end(), [&](const auto& n) { return n.first == node; });
      if (at == seen.end()) at = seen.insert(seen.end(), {node, 0});
      place[i] = at->second++;
    }
    const auto self = static_cast<std::size_t>(c.data);
    std::vector<int> chosen;
    for (std::size_t i = 0; i < ranks.size(); ++i)
      if (group == "shard" ? ranks[i] / gpus_per_node_ == rank / gpus_per_node_ : place[i] == place[self])
        chosen.push_back(ranks[i]);
    return chosen;
  } else {
    throw core::InputError("unknown parallel group '" + std::string(group) + "'",
                           "tensor, pipeline, data, shard, replica");
  }
  return ranks;
}

bool Placement::leads(int rank, std::string_view group) const {
  const Coordinates c = coordinates(rank);
  if (group == "tensor") return c.tensor == 0;
  if (group == "pipeline") return c.pipeline == 0;
  if (group == "data") return c.data == 0;
  const int node = rank / gpus_per_node_;
  const int stride = stride_[index(Dimension::data)];
  if (group == "shard") return c.data == 0 || (rank - stride) / gpus_per_node_ != node;
  if (group == "replica") return node == (rank - c.data * stride) / gpus_per_node_;
  throw core::InputError("unknown parallel group '" + std::string(group) + "'", "tensor, pipeline, data, shard, replica");
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
