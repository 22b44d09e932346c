// Single-core throughput of the CPU compressors, in GB/s of fp32 input, next to a memcpy of the
// same size and an std::nth_element top-k baseline.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "compressors/registry.hpp"
#include "compressors/rng.hpp"
#include "compressors/top_k_select.hpp"

namespace {

using dtsim::compressors::Compressed;
using dtsim::compressors::Options;

constexpr std::int64_t kSizes[] = {1 << 20, 1 << 22, 1 << 24, 1 << 26};

const std::vector<float>& gradient() {
  static const std::vector<float> x = [] {
    std::vector<float> v(std::size_t{1} << 26);
    dtsim::compressors::Rng rng(2026);
    for (float& f : v) f = static_cast<float>(rng.normal());
    return v;
  }();
  return x;
}

std::span<const float> input(std::int64_t n) { return std::span<const float>(gradient()).first(static_cast<std::size_t>(n)); }

void set_bytes(benchmark::State& state, std::int64_t n) { state.SetBytesProcessed(state.iterations() * n * 4); }

// Times `op` and, in the same iteration, a memcpy of the same size between two other buffers, so
// the "pct_of_memcpy" counter stays meaningful on a machine shared with other jobs.
template <class Op>
void timed_against_memcpy(benchmark::State& state, std::int64_t n, Op op) {
  using Clock = std::chrono::steady_clock;
  std::vector<float> from(static_cast<std::size_t>(n), 1.0f), to(static_cast<std::size_t>(n));
  double op_s = 0.0, memcpy_s = 0.0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    std::memcpy(to.data(), from.data(), to.size() * sizeof(float));
    benchmark::ClobberMemory();
    const auto t1 = Clock::now();
    op();
    benchmark::ClobberMemory();
    const auto t2 = Clock::now();
    const double seconds = std::chrono::duration<double>(t2 - t1).count();
    memcpy_s += std::chrono::duration<double>(t1 - t0).count();
    op_s += seconds;
    state.SetIterationTime(seconds);
  }
  state.counters["pct_of_memcpy"] = 100.0 * memcpy_s / op_s;
  set_bytes(state, n);
}

void memcpy_bench(benchmark::State& state, std::int64_t n) {
  const auto x = input(n);
  std::vector<float> out(x.size());
  for (auto _ : state) {
    std::memcpy(out.data(), x.data(), x.size_bytes());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  set_bytes(state, n);
}

void compress_bench(benchmark::State& state, const std::string& name, const Options& options, std::int64_t n) {
  auto c = dtsim::compressors::make_compressor(name, options);
  const auto x = input(n);
  Compressed msg;  // reused: its payload capacity makes compress allocation-free
  timed_against_memcpy(state, n, [&] {
    c->compress(x, 1, msg);
    benchmark::DoNotOptimize(msg.payload.data());
  });
  state.counters["wire_MB"] = static_cast<double>(msg.wire_size) / 1e6;
}

void decompress_bench(benchmark::State& state, const std::string& name, const Options& options, std::int64_t n) {
  auto c = dtsim::compressors::make_compressor(name, options);
  const auto x = input(n);
  const Compressed msg = c->compress(x, 1);
  std::vector<float> out(x.size());
  timed_against_memcpy(state, n, [&] {
    c->decompress(msg, out);
    benchmark::DoNotOptimize(out.data());
  });
}

void nth_element_top_k(benchmark::State& state, double ratio, std::int64_t n) {
  const auto x = input(n);
  const auto k = static_cast<std::size_t>(static_cast<double>(n) * ratio);
  std::vector<float> magnitude(x.size());
  std::vector<std::int64_t> indices;
  timed_against_memcpy(state, n, [&] {
    for (std::size_t i = 0; i < x.size(); ++i) magnitude[i] = std::fabs(x[i]);
    std::nth_element(magnitude.begin(), magnitude.begin() + static_cast<std::ptrdiff_t>(k - 1), magnitude.end(),
                     std::greater<>());
    const float kth = magnitude[k - 1];
    indices.clear();
    for (std::size_t i = 0; i < x.size() && indices.size() < k; ++i) {
      if (std::fabs(x[i]) >= kth) indices.push_back(static_cast<std::int64_t>(i));
    }
    benchmark::DoNotOptimize(indices.data());
  });
}

void powersgd_exchange(benchmark::State& state, std::int64_t rank) {
  auto c = dtsim::compressors::make_compressor("powersgd", {{"rank", rank}});
  c->set_shape(1, 1024, 1024);
  const auto x = input(1024 * 1024);
  std::vector<float> out(x.size());
  for (auto _ : state) {
    const Compressed p = c->compress(x, 1);
    const Compressed q = c->next_round(c->reduce(std::span<const Compressed>(&p, 1)));
    c->decompress(q, out);
    benchmark::DoNotOptimize(out.data());
  }
  set_bytes(state, 1024 * 1024);
}

struct Case {
  std::string label;
  std::string name;
  Options options;
  std::int64_t max_n;  // slow coders run on the smaller sizes only
};

}  // namespace

int main(int argc, char** argv) {
  const std::vector<Case> cases = {
      {"none", "none", {}, 1 << 26},
      {"fp16", "fp16", {}, 1 << 26},
      {"bf16", "bf16", {}, 1 << 26},
      {"int8", "int8", {}, 1 << 26},
      {"natural", "natural", {}, 1 << 26},
      {"qsgd", "qsgd", {}, 1 << 26},
      {"terngrad", "terngrad", {}, 1 << 26},
      {"signsgd", "signsgd", {}, 1 << 26},
      {"signum", "signum", {}, 1 << 26},
      {"efsignsgd", "efsignsgd", {}, 1 << 26},
      {"onebit", "onebit", {}, 1 << 26},
      {"onebit_adam", "onebit_adam", {}, 1 << 26},
      {"topk_0.1%", "topk", {{"ratio", 0.001}}, 1 << 26},
      {"topk_1%", "topk", {{"ratio", 0.01}}, 1 << 26},
      {"randomk_1%", "randomk", {{"ratio", 0.01}}, 1 << 26},
      {"threshold", "threshold", {{"threshold", 3.0}}, 1 << 26},
      {"dgc_0.1%", "dgc", {}, 1 << 26},
      {"sidco_exp_0.1%", "sidco", {}, 1 << 26},
      {"sidco_gamma_0.1%", "sidco", {{"distribution", std::string("gamma")}}, 1 << 26},
      {"adacomp", "adacomp", {}, 1 << 26},
      {"polar_R0.5", "polar", {}, 1 << 20},
      {"eightbit", "eightbit", {}, 1 << 26},
      {"srq_16", "srq", {}, 1 << 26},
      {"gaussiank_1%", "gaussiank", {}, 1 << 26},
      {"gspar_1%", "gspar", {}, 1 << 26},
      {"ecqsgd_4", "ecqsgd", {}, 1 << 26},
      {"redsync_1%", "redsync", {}, 1 << 26},
      {"redsync_bs_1%", "redsync", {{"selection", std::string("binary_search")}}, 1 << 26},
      {"aqsgd_3", "aqsgd", {}, 1 << 26},
  };
  for (const std::int64_t n : kSizes) {
    benchmark::RegisterBenchmark(("memcpy/" + std::to_string(n)).c_str(), memcpy_bench, n)->UseRealTime();
  }
  for (const Case& c : cases) {
    for (const std::int64_t n : kSizes) {
      if (n > c.max_n) continue;
      benchmark::RegisterBenchmark(("compress/" + c.label + "/" + std::to_string(n)).c_str(), compress_bench, c.name, c.options, n)
          ->UseManualTime();
      benchmark::RegisterBenchmark(("decompress/" + c.label + "/" + std::to_string(n)).c_str(), decompress_bench, c.name, c.options, n)
          ->UseManualTime();
    }
  }
  for (const double ratio : {0.001, 0.01}) {
    for (const std::int64_t n : kSizes) {
      benchmark::RegisterBenchmark(("nth_element_topk/" + std::to_string(ratio * 100) + "%/" + std::to_string(n)).c_str(),
                                   nth_element_top_k, ratio, n)
          ->UseManualTime();
    }
  }
  benchmark::RegisterBenchmark("powersgd_exchange/rank4/1024x1024", powersgd_exchange, std::int64_t{4})->UseRealTime();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
