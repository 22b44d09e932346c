#include "sim/scenario/key_hints.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "sim/core/nearest_names.hpp"
#include "sim/scenario/keys.hpp"
#include "sim/scenario/section.hpp"

namespace dtsim::scenario {
namespace {

/// A name other tools give a dtsim key, lower case with '_' for '-'.
struct ForeignKey {
  const char* name;
  const char* table;
  const char* key;
  const char* note;
};

constexpr std::array kForeignKeys{
    ForeignKey{"bucket_cap_mb", "strategy.ddp", "bucket_cap", "PyTorch DDP's bucket_cap_mb, with its unit: \"25MiB\""},
    ForeignKey{"fusion_threshold", "strategy.fusion", "threshold", "Horovod's fusion threshold, with its unit: \"128MiB\""},
    ForeignKey{"fusion_threshold_mb", "strategy.fusion", "threshold",
               "Horovod's --fusion-threshold-mb, with its unit: \"128MiB\""},
    ForeignKey{"horovod_fusion_threshold", "strategy.fusion", "threshold",
               "Horovod's HOROVOD_FUSION_THRESHOLD, with its unit: \"128MiB\""},
    ForeignKey{"cycle_time_ms", "strategy.fusion", "cycle_time", "Horovod's --cycle-time-ms, with its unit: \"1ms\""},
    ForeignKey{"horovod_cycle_time", "strategy.fusion", "cycle_time",
               "Horovod's HOROVOD_CYCLE_TIME, with its unit: \"1ms\""},
    ForeignKey{"byteps_partition_bytes", "strategy.ps", "partition",
               "BytePS's BYTEPS_PARTITION_BYTES, with its unit: \"4096000B\""},
};

std::string place(const std::string& table) { return table.empty() ? "at the top level" : "in [" + table + "]"; }

std::string folded(const std::string& key) {
  std::string out = key;
  for (char& c : out) c = c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string key_hint(const std::string& table, const std::string& key) {
  const std::string name = folded(key);
  for (const ForeignKey& f : kForeignKeys)
    if (name == f.name) return "did you mean '" + std::string(f.key) + "' " + place(f.table) + " (" + f.note + ")?";
  if (!core::did_you_mean(key, keys_of(table)).empty()) return "";  // a near key of its own table comes first
  std::vector<std::string> tables;
  for (const KeySpec& k : scenario_keys())
    if (k.key == key && k.table != table && std::find(tables.begin(), tables.end(), k.table) == tables.end())
      tables.push_back(k.table);
  if (tables.empty()) return "";
  std::string places;
  for (std::size_t i = 0; i < tables.size(); ++i)
    places += (i == 0 ? "" : i + 1 == tables.size() ? " or " : ", ") + place(tables[i]);
  return "did you mean '" + key + "' " + places + "?";
}

void allow_keys(const Section& section, const std::string& table) {
  section.allow(keys_of(table), [&](const std::string& key) { return key_hint(table, key); });
}

}  // namespace dtsim::scenario
