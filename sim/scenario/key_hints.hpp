#pragma once
/// "Did you mean" for unknown scenario keys: a key of another table, or another tool's name for a dtsim key
/// (PyTorch DDP's bucket_cap_mb, Horovod's HOROVOD_FUSION_THRESHOLD).
#include <string>

namespace dtsim::scenario {

class Section;

/// "did you mean 'bucket_cap' in [strategy.ddp] (...)?" for `key` found unknown in `table`: another tool's name
/// for a key, else (when no key of `table` is near, which Section::allow suggests) the same key in other tables;
/// "" when neither fits.
std::string key_hint(const std::string& table, const std::string& key);
/// Section::allow with the registry's keys of `table` and key_hint for the first unknown key.
void allow_keys(const Section& section, const std::string& table);

}  // namespace dtsim::scenario
