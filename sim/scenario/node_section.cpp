#include "sim/scenario/node_section.hpp"

#include "sim/core/error.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/platform/link_efficiency.hpp"

namespace dtsim::scenario {
namespace {

/// Nodes one rail leaf serves at most: any count up to the 131,072 GPUs a structured platform has (one leaf).
constexpr int kMaxNodesPerLeaf = 131072;

/// NVLinks a GPU has at most: 18 on H100 (NVIDIA H100 Tensor Core GPU datasheet: 18 NVLink 4 links).
constexpr int kMaxNvlinks = 18;

/// `nvlink_payload` (NVLink fabrics) and `pcie_max_payload`, looked up only when present (absent: the links'
/// bandwidths are their payload rates).
void load_payloads(Section& s, platform::NodeSpec& node) {
  if (node.fabric != platform::NodeFabric::pcie && s.has("nvlink_payload")) {
    const std::int64_t bytes = s.size("nvlink_payload");
    if (bytes < platform::kNvlinkFlitBytes || bytes > platform::kNvlinkMaxPayloadBytes ||
        bytes % platform::kNvlinkFlitBytes != 0)
      throw core::InputError(s.where_key("nvlink_payload"),
                             "'platform.node.nvlink_payload' = " + std::to_string(bytes) + " bytes",
                             "an NVLink packet carries 1 to 16 data flits of 16 B: 16B to 256B in steps of 16B");
    node.nvlink_payload_bytes = static_cast<int>(bytes);
  }
  if (s.has("pcie_max_payload")) {
    const std::int64_t bytes = s.size("pcie_max_payload");
    if (bytes < 128 || bytes > 4096 || (bytes & (bytes - 1)) != 0)
      throw core::InputError(s.where_key("pcie_max_payload"),
                             "'platform.node.pcie_max_payload' = " + std::to_string(bytes) + " bytes",
                             "PCIe's max payload size is 128B, 256B, 512B, 1KiB, 2KiB or 4KiB");
    node.pcie_max_payload_bytes = static_cast<int>(bytes);
  }
}

/// `nvlinks`: "hybrid_cube_mesh" or a G x G symmetric matrix of link counts with a zero diagonal.
std::vector<std::vector<int>> load_nvlinks(Section& s, const toml::table& table, int gpus) {
  if (!s.has("nvlinks"))
    throw core::InputError(s.where_table(), "missing key 'platform.node.nvlinks'",
                           "fabric = \"nvlink_mesh\" needs the NVLinks per GPU pair: \"hybrid_cube_mesh\" (DGX-1, 8 "
                           "GPUs) or a " +
                               std::to_string(gpus) + " x " + std::to_string(gpus) + " matrix");
  const toml::node& n = *table.get("nvlinks");
  if (const std::optional<std::string> name = n.value<std::string>(); n.is_string()) {
    if (*name != "hybrid_cube_mesh")
      throw core::unknown_name("NVLink topology", *name, {"hybrid_cube_mesh"}).at(where(n.source()));
    if (gpus != 8)
      throw core::InputError(where(n.source()),
                             "hybrid_cube_mesh joins 8 GPUs, but gpus_per_node = " + std::to_string(gpus),
                             "gpus_per_node = 8, or give the NVLinks as a matrix");
    return platform::hybrid_cube_mesh();
  }
  const std::string shape = std::to_string(gpus) + " lists of " + std::to_string(gpus) + " integers";
  const toml::array* rows = n.as_array();
  if (!rows || static_cast<int>(rows->size()) != gpus)
    throw core::InputError(
        where(n.source()), "'platform.node.nvlinks' must be \"hybrid_cube_mesh\" or " + shape,
        "row i, column j = NVLinks between GPUs i and j of a node (gpus_per_node = " + std::to_string(gpus) + ")");
  std::vector<std::vector<int>> links(static_cast<std::size_t>(gpus));
  for (int i = 0; i < gpus; ++i) {
    const toml::node& row = *rows->get(static_cast<std::size_t>(i));
    const toml::array* entries = row.as_array();
    if (!entries || static_cast<int>(entries->size()) != gpus)
      throw core::InputError(
          where(row.source()),
          "'platform.node.nvlinks[" + std::to_string(i) + "]' is not a list of " + std::to_string(gpus) + " integers",
          "one row per GPU, one column per GPU");
    for (int j = 0; j < gpus; ++j) {
      const toml::node& e = *entries->get(static_cast<std::size_t>(j));
      const std::string name = "'platform.node.nvlinks[" + std::to_string(i) + "][" + std::to_string(j) + "]'";
      const std::optional<std::int64_t> v = e.value<std::int64_t>();
      if (!e.is_integer() || *v < 0 || *v > kMaxNvlinks)
        throw core::InputError(where(e.source()), name + " is not an NVLink count",
                               "a whole number from 0 to " + std::to_string(kMaxNvlinks));
      if (i == j && *v != 0)
        throw core::InputError(where(e.source()), name + " = " + std::to_string(*v) + ": a GPU linked to itself",
                               "0 on the diagonal");
      links[static_cast<std::size_t>(i)].push_back(static_cast<int>(*v));
    }
  }
  for (int i = 0; i < gpus; ++i)
    for (int j = 0; j < i; ++j)
      if (links[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] !=
          links[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)])
        throw core::InputError(
            where(rows->get(static_cast<std::size_t>(i))->source()),
            "nvlinks[" + std::to_string(i) + "][" + std::to_string(j) +
                "] = " + std::to_string(links[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]) +
                " but nvlinks[" + std::to_string(j) + "][" + std::to_string(i) +
                "] = " + std::to_string(links[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)]),
            "an NVLink joins both GPUs: the matrix is symmetric");
  return links;
}

/// `gpu_nic`: the NIC of each GPU, G integers in [0, K); default GPU g uses NIC g K / G, recorded in the table
/// as Section records its defaults.
std::vector<int> load_gpu_nic(Section& s, toml::table& table, int gpus, int nics) {
  std::vector<int> map;
  if (!s.has("gpu_nic")) {
    toml::array recorded;
    for (int g = 0; g < gpus; ++g) {
      map.push_back(g * nics / gpus);
      recorded.push_back(map.back());
    }
    table.insert("gpu_nic", std::move(recorded));
    return map;
  }
  const toml::node& n = *table.get("gpu_nic");
  const toml::array* entries = n.as_array();
  if (!entries || static_cast<int>(entries->size()) != gpus)
    throw core::InputError(where(n.source()), "'platform.node.gpu_nic' must list one NIC per GPU",
                           std::to_string(gpus) + " integers (gpus_per_node), e.g. [0, 0, 1, 1]");
  for (std::size_t g = 0; g < entries->size(); ++g) {
    const toml::node& e = *entries->get(g);
    const std::optional<std::int64_t> v = e.value<std::int64_t>();
    if (!e.is_integer() || *v < 0 || *v >= nics)
      throw core::InputError(
          where(e.source()), "'platform.node.gpu_nic[" + std::to_string(g) + "]' names no NIC of the node",
          "NICs are numbered 0 to " + std::to_string(nics - 1) + " (nics = " + std::to_string(nics) + ")");
    map.push_back(static_cast<int>(*v));
  }
  return map;
}

}  // namespace

platform::LinkSpec load_link(Section& parent, const std::string& prefix, const std::string& key) {
  auto link = parent.table(key);
  if (!link)
    throw core::InputError(parent.where_table(), "missing table [" + prefix + key + "]",
                           "give its bandwidth and latency, e.g. bandwidth = \"10Gbps\", latency = \"5us\"");
  link->allow({"bandwidth", "latency"});
  platform::LinkSpec spec{link->bandwidth("bandwidth"), link->duration("latency")};
  link->finish();
  return spec;
}

void load_node(Section& s, toml::table& table, platform::PlatformSpec& spec) {
  s.allow({"fabric", "nvlink", "nvlinks", "pcie", "pcie_switches", "nics", "gpu_nic", "gpudirect", "rails",
           "nodes_per_leaf", "units_per_pod", "core_oversubscription", "nvls", "nvlink_payload", "pcie_max_payload"});
  platform::NodeSpec& node = spec.node;
  const int gpus = spec.gpus_per_node;
  node.structured = true;
  if (!s.has("fabric"))
    throw core::InputError(s.where_table(), "missing key 'platform.node.fabric'",
                           "what joins the GPUs: " + core::join_names(platform::node_fabric_names()));
  node.fabric = platform::parse_node_fabric(s.choice("fabric", "", platform::node_fabric_names()));
  if (node.fabric != platform::NodeFabric::pcie) node.nvlink = load_link(s, "platform.node.", "nvlink");
  if (node.fabric == platform::NodeFabric::nvlink_mesh) node.nvlinks = load_nvlinks(s, table, gpus);
  node.pcie = load_link(s, "platform.node.", "pcie");
  load_payloads(s, node);
  node.pcie_switches = static_cast<int>(s.integer("pcie_switches", 1, 1, gpus));
  node.nics = static_cast<int>(s.integer("nics", 1, 1, gpus));
  node.gpu_nic = load_gpu_nic(s, table, gpus, node.nics);
  node.gpudirect = s.boolean("gpudirect", true);
  node.rails = s.boolean("rails", false);
  if (node.rails && node.nics < 2)
    throw core::InputError(s.where_key("rails"), "rails = true with one NIC per node",
                           "rails put NIC k of every node on switch k: give nics >= 2, or rails = false");
  if (table.contains("nodes_per_leaf")) {  // looked up only when present: absent, one leaf serves the whole rail
    if (!node.rails)
      throw core::InputError(s.where_key("nodes_per_leaf"), "nodes_per_leaf with rails = false",
                             "it is the nodes under one leaf switch of a rail: set rails = true, or leave it out");
    node.nodes_per_leaf = static_cast<int>(s.integer("nodes_per_leaf", 0, 1, kMaxNodesPerLeaf));
  }
  if (table.contains("units_per_pod")) {  // looked up only when present, as nodes_per_leaf: absent, two tiers
    if (node.nodes_per_leaf == 0)
      throw core::InputError(s.where_key("units_per_pod"), "units_per_pod without rails and nodes_per_leaf",
                             "a pod groups scalable units of nodes_per_leaf nodes on rails: set rails = true and "
                             "nodes_per_leaf, or leave it out");
    node.units_per_pod = static_cast<int>(s.integer("units_per_pod", 0, 1, kMaxNodesPerLeaf));
  }
  if (table.contains("core_oversubscription")) {
    if (node.units_per_pod == 0)
      throw core::InputError(s.where_key("core_oversubscription"), "core_oversubscription without units_per_pod",
                             "it is the pods' spine-to-core ratio of a three-tier fabric: set units_per_pod, or leave "
                             "it out");
    node.core_oversubscription = s.number("core_oversubscription", 1, 1024);
  }
  if (table.contains("nvls")) node.nvls = s.boolean("nvls", false);  // looked up only when present, as sharp
  if (const std::string why = platform::reduction_refusal(spec); !why.empty())
    throw core::InputError(s.where_key("nvls"), why, "nvls = false, or a node that has it");
  s.finish();
}

}  // namespace dtsim::scenario
