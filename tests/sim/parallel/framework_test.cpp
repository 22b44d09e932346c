// Frameworks' sharded-parameter costs against their closed forms: FSDP's gradient divide factors and the bytes of its
// casts and copies, DeepSpeed ZeRO-3's fetches per sub-module, persistence and prefetch bucket, and what the
// prefetch limit and FSDP's one NCCL stream do to a simple chain of layers.
#include "sim/parallel/framework.hpp"

#include <gtest/gtest.h>

#include "sim/parallel/workload.hpp"
#include "sim/taskgraph/list_schedule.hpp"

namespace dtsim::parallel {
namespace {

using taskgraph::Op;

TEST(Framework, FsdpGradientDivideFactorsAsTorch) {
  // torch/distributed/fsdp/_init_utils.py: factor doubles while world % factor == 0 and world / factor > factor.
  EXPECT_EQ(gradient_predivide_factor(1), 1);
  EXPECT_EQ(gradient_predivide_factor(2), 2);
  EXPECT_EQ(gradient_predivide_factor(6), 4);
  EXPECT_EQ(gradient_predivide_factor(8), 4);
  EXPECT_EQ(gradient_predivide_factor(16), 4);
  EXPECT_EQ(gradient_predivide_factor(64), 8);
}

TEST(Framework, FsdpCopiesClosedForm) {
  // 8e6 parameters on 8 ranks (1e6 a shard), bf16 compute, fp32 reduce, a later micro-batch: the shard cast
  // 1e6 x (4 + 2); the gradient cast 8e6 x (2 + 4) and pre-divide (by 4) 8e6 x (4 + 4); the post-divide (by 2)
  // 1e6 x (4 + 4) and the accumulation 1e6 x (4 + 4 + 4).
  FsdpCopies c = fsdp_copies(8e6, 8, 2, 4, true);
  EXPECT_EQ(c.before_gather.bytes, 6e6);
  EXPECT_EQ(c.before_reduce.bytes, 48e6 + 64e6);
  EXPECT_EQ(c.after_reduce.bytes, 8e6 + 12e6);
  // bf16 reduce, first micro-batch: no gradient cast before; the shard cast back to fp32 after: 1e6 x (2 + 4).
  c = fsdp_copies(8e6, 8, 2, 2, false);
  EXPECT_EQ(c.before_gather.bytes, 6e6);
  EXPECT_EQ(c.before_reduce.bytes, 8e6 * 4);
  EXPECT_EQ(c.after_reduce.bytes, 1e6 * 4 + 1e6 * 6);
  // fp32 throughout on 2 ranks (pre-divide 2, post-divide 1): only the pre-divide.
  c = fsdp_copies(8e6, 2, 4, 4, false);
  EXPECT_EQ(c.before_gather.bytes, 0);
  EXPECT_EQ(c.before_reduce.bytes, 8e6 * 8);
  EXPECT_EQ(c.after_reduce.bytes, 0);
}

TEST(Framework, DeepSpeedCopiesClosedForm) {
  // The gradient into the reduce bucket 8e6 x (2 + 2); the shard into the fp32 partition 1e6 x (2 + 4), or
  // accumulated 1e6 x (2 + 4 + 4).
  FsdpCopies c = deepspeed_copies(8e6, 8, 2, 2, false);
  EXPECT_EQ(c.before_gather.bytes, 0);
  EXPECT_EQ(c.before_reduce.bytes, 32e6);
  EXPECT_EQ(c.after_reduce.bytes, 6e6);
  EXPECT_EQ(deepspeed_copies(8e6, 8, 2, 2, true).after_reduce.bytes, 10e6);
}

TEST(Framework, DeepSpeedPersistenceAndPrefetchBucket) {
  EXPECT_EQ(fetched_elements({100, 99'999, 100'000, 250'000}, 100'000), 350'000);
  EXPECT_EQ(fetched_elements({100, 99'999}, 100'000), 0);
  // Four fetches of 30 elements, bucket 50: fetch 2 is prefetched when fetch 0 computes (30 in flight < 50),
  // fetch 3 when fetch 1 does (60 would not be below 50).
  EXPECT_EQ(prefetched_at({30, 30, 30, 30}, 50), (std::vector<int>{0, 0, 0, 1}));
  EXPECT_EQ(prefetched_at({30, 30, 30, 30}, 0), (std::vector<int>{0, 1, 2, 3}));
  // The fetches after a large one wait for it to compute: 100 in flight is not below 25.
  EXPECT_EQ(prefetched_at({10, 100, 10, 10}, 25), (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(prefetched_at({100, 10, 10, 10}, 25), (std::vector<int>{0, 0, 0, 0}));
}

TEST(Framework, PassGathersPerFramework) {
  const std::vector<std::vector<std::int64_t>> units = {{30, 30}, {30, 30}, {30, 30}, {30, 30}};
  auto after = [](const std::vector<PassGather>& gathers) {
    std::vector<int> a;
    for (const PassGather& g : gathers) a.push_back(g.after);
    return a;
  };
  FrameworkOptions f;  // generic: one gather per unit of 60, two ahead
  EXPECT_EQ(after(pass_gathers(f, units, false)), (std::vector<int>{-1, -1, 0, 1}));
  EXPECT_EQ(pass_gathers(f, units, false)[0].elements, 60);
  f.framework = Framework::fsdp;
  EXPECT_EQ(after(pass_gathers(f, units, true)), (std::vector<int>{-1, -1, 0, 1}));
  f.backward_prefetch = BackwardPrefetch::backward_post;
  EXPECT_EQ(after(pass_gathers(f, units, true)), (std::vector<int>{-1, 0, 1, 2}));
  f.limit_all_gathers = false;
  EXPECT_EQ(after(pass_gathers(f, units, false)), (std::vector<int>{-1, -1, -1, -1}));
  f.framework = Framework::deepspeed;
  f.prefetch_bucket_size = 50;  // fetches 0..7 of 30: prefetched at 0,0,0,1,2,3,4,5 -> units 0,0,0,0,1,1,2,2
  EXPECT_EQ(after(pass_gathers(f, units, false)), (std::vector<int>{-1, -1, -1, -1, 0, 0, 1, 1}));
  EXPECT_EQ(pass_gathers(f, units, false).size(), 8U);
}

/// `n` transformer layers of one linear layer each with `parameters` elements (a single tensor).
models::Model chain(int n, std::int64_t parameters) {
  models::Model m;
  m.name = "chain";
  for (int b = 0; b < n; ++b) {
    models::Layer l;
    l.name = "linear" + std::to_string(b);
    l.block = b;
    l.tensors = {{"weight", {parameters}}};
    l.output_elements = l.input_elements = 10;
    m.layers.push_back(l);
  }
  return m;
}

/// The end of the last forward computation and the makespan of one iteration of `model` under zero3 on two ranks,
/// every forward taking `f[k]`, every backward `b`, an all-gather `gather_s`, a reduce-scatter `reduce_s`, copies free.
std::pair<double, double> run(const models::Model& model, const FrameworkOptions& framework, std::vector<double> f,
                              double b, double gather_s, double reduce_s) {
  Layout layout;
  layout.data = 2;
  layout.micro_batch = 1;
  layout.sharding = Sharding::zero3;
  layout.framework = framework;
  WorkloadInput in;
  in.model = &model;
  for (double forward : f) in.times.push_back(models::LayerTime{forward, b, 0});
  in.recomputed.assign(model.layers.size(), false);
  in.copy = {1e9, 0, 0};
  const Workload w = build_workload(layout, in);
  const auto schedule = taskgraph::list_schedule(w.graph, [&](int, const taskgraph::Task& t) {
    if (t.op == Op::allgather) return gather_s;
    if (t.op == Op::reduce_scatter) return reduce_s;
    return t.category == "copy" ? 0.0 : t.duration_s;
  });
  double forward_end = 0;
  const auto& tasks = w.graph.programs[0].tasks;
  for (std::size_t i = 0; i < tasks.size(); ++i)
    if (tasks[i].category == "forward") forward_end = std::max(forward_end, schedule.spans[0][i].end_s);
  return {forward_end, schedule.makespan_s()};
}

TEST(Framework, RateLimiterBoundsForwardPrefetch) {
  // Four units, the first computing 10 s, the rest nothing, 1 s gathers. With the limiter unit k's gather waits for
  // unit k - 2's computation: units 2 and 3 are gathered after unit 0 computes, G + f0 + 2 G = 13 s. Without it every
  // gather is issued at once and hidden behind unit 0: G + f0 = 11 s.
  const models::Model model = chain(4, 1000);
  FrameworkOptions fsdp;
  fsdp.framework = Framework::fsdp;
  EXPECT_DOUBLE_EQ(run(model, fsdp, {10, 0, 0, 0}, 0, 1, 0).first, 13);
  fsdp.limit_all_gathers = false;
  EXPECT_DOUBLE_EQ(run(model, fsdp, {10, 0, 0, 0}, 0, 1, 0).first, 11);
  FrameworkOptions generic;  // two ahead, as the limiter
  EXPECT_DOUBLE_EQ(run(model, generic, {10, 0, 0, 0}, 0, 1, 0).first, 13);
}

TEST(Framework, FsdpOneNcclStreamSerialisesGathersAndReduceScatters) {
  // Communication-bound chain of 3 units with no computation: generic runs the reduce-scatters beside the gathers
  // (2 x 3 gathers of 1 s, the last reduce-scatter of 0.5 s after the last gather: 6.5 s); FSDP's one NCCL stream
  // runs all of them in turn: 6 + 3 x 0.5 = 7.5 s.
  const models::Model model = chain(3, 1000);
  EXPECT_DOUBLE_EQ(run(model, FrameworkOptions{}, {0, 0, 0}, 0, 1, 0.5).second, 6.5);
  FrameworkOptions fsdp;
  fsdp.framework = Framework::fsdp;
  EXPECT_DOUBLE_EQ(run(model, fsdp, {0, 0, 0}, 0, 1, 0.5).second, 7.5);
}

TEST(Framework, BackwardPrefetchClosedForms) {
  // Two units, forward free, backward 2 s each, gathers 1 s, reduce-scatters 0.5 s. The forward gathers end at 2 s.
  // backward_pre: both backward gathers issued at once: [2, 3], [3, 4]; B(unit 1) [3, 5], RS [5, 5.5];
  // B(unit 0) [5, 7], RS [7, 7.5].
  // backward_post and none: unit 0's gather waits for unit 1's backward: B1 [3, 5]; post: gather [5, 6] then RS
  // [6, 6.5], B0 [6, 8], RS [8, 8.5]; none: RS [5, 5.5] first, gather [5.5, 6.5], B0 [6.5, 8.5], RS [8.5, 9].
  const models::Model model = chain(2, 1000);
  FrameworkOptions fsdp;
  fsdp.framework = Framework::fsdp;
  EXPECT_DOUBLE_EQ(run(model, fsdp, {0, 0}, 2, 1, 0.5).second, 7.5);
  fsdp.backward_prefetch = BackwardPrefetch::backward_post;
  EXPECT_DOUBLE_EQ(run(model, fsdp, {0, 0}, 2, 1, 0.5).second, 8.5);
  fsdp.backward_prefetch = BackwardPrefetch::none;
  EXPECT_DOUBLE_EQ(run(model, fsdp, {0, 0}, 2, 1, 0.5).second, 9);
}

TEST(Framework, CopiesTakeTheirBytesAtTheCopyRate) {
  // One unit of 1e6 parameters on 2 ranks in bf16 with fp32 reduce: forward and backward shard casts 2 x 5e5 x 6,
  // gradient cast 1e6 x 6 and pre-divide 1e6 x 8 (post-divide 1: none), shard cast back: none (fp32). At 1 GB/s.
  const models::Model model = chain(1, 1'000'000);
  Layout layout;
  layout.data = 2;
  layout.micro_batch = 1;
  layout.sharding = Sharding::zero3;
  layout.framework.framework = Framework::fsdp;
  WorkloadInput in;
  in.model = &model;
  in.times = {models::LayerTime{1, 2, 0}};
  in.recomputed = {false};
  in.precision = models::Precision::bf16;
  in.gradient_dtype = models::Precision::fp32;
  in.copy = {1e9, 0, 0};
  const Workload w = build_workload(layout, in);
  double copies = 0;
  for (const auto& t : w.graph.programs[0].tasks)
    if (t.category == "copy") copies += t.duration_s;
  EXPECT_DOUBLE_EQ(copies, (2 * 5e5 * 6 + 1e6 * 6 + 1e6 * 8) / 1e9);
  // The same copy model as DDP's and Horovod's bucket copies (scheduling::CopyCosts): with eager launches each run of
  // kernels is bound by its CPU dispatch or by its gaps and work: the two shard casts (one kernel each, 3 ms of work),
  // the gradient's cast and pre-divide (two kernels, 14 ms).
  in.copy = {1e9, 8e-6, 0.9e-6};
  const Workload eager = build_workload(layout, in);
  copies = 0;
  for (const auto& t : eager.graph.programs[0].tasks)
    if (t.category == "copy") copies += t.duration_s;
  EXPECT_DOUBLE_EQ(copies, 2 * (0.9e-6 + 5e5 * 6 / 1e9) + (2 * 0.9e-6 + (1e6 * 6 + 1e6 * 8) / 1e9));
}

TEST(Framework, MegatronBucketSizeAsMegatronCore) {
  // distributed_data_parallel.py: max(40000000, 1000000 x dp) unless given; none without overlap_grad_reduce, on a
  // later pipeline stage or for a later model chunk.
  FrameworkOptions f;
  f.framework = Framework::megatron;
  EXPECT_EQ(megatron_bucket_size(f, 8, true), 0);
  f.overlap_grad_reduce = true;
  EXPECT_EQ(megatron_bucket_size(f, 8, true), 40'000'000);
  EXPECT_EQ(megatron_bucket_size(f, 64, true), 64'000'000);
  EXPECT_EQ(megatron_bucket_size(f, 64, false), 0);
  f.bucket_size = 1000;
  EXPECT_EQ(megatron_bucket_size(f, 64, true), 1000);
}

TEST(Framework, MegatronBucketsAsTheDistributedOptimizerLaysThemOut) {
  // Tensors of 100, 30 and 70 elements (forward order) laid out last first, buckets of 100, 3 data-parallel ranks.
  // Distributed optimizer: 70 at [0, 70); 30 at [128, 158) (64-element start), the bucket closed at 158 >= 100 and
  // padded to lcm(3, 128) = 384; 100 at [384, 484), closed and padded to 768.
  std::vector<MegatronBucket> b = megatron_buckets({100, 30, 70}, 100, 3, true);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].elements, 384);
  EXPECT_EQ(b[0].first_tensor, 1);
  EXPECT_EQ(b[0].last_tensor, 2);
  EXPECT_EQ(b[1].elements, 384);
  EXPECT_EQ(b[1].first_tensor, 0);
  EXPECT_EQ(b[1].last_tensor, 0);
  // Plain DDP (all-reduce): no padding, 70 + 30 then 100.
  b = megatron_buckets({100, 30, 70}, 100, 3, false);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].elements, 100);
  EXPECT_EQ(b[1].elements, 100);
  // One bucket: 70, 30 at 128, 100 at 192, ending at 292, padded to 384.
  b = megatron_buckets({100, 30, 70}, 0, 3, true);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].elements, 384);
  EXPECT_EQ(b[0].first_tensor, 0);
  EXPECT_EQ(b[0].last_tensor, 2);
}

TEST(Framework, LayoutRefusesAShardingItsFrameworkDoesNotRun) {
  // What the loader refuses with the key, a layout built elsewhere (a plan's sharding what-if) meets here.
  const models::Model model = chain(2, 1000);
  Layout layout;
  layout.data = 2;
  layout.micro_batch = 1;
  layout.framework.framework = Framework::megatron;
  for (const Sharding s : {Sharding::none, Sharding::zero1}) {
    layout.sharding = s;
    EXPECT_EQ(layout_refusal(layout, model, 1), "");
  }
  layout.sharding = Sharding::zero2;
  EXPECT_NE(layout_refusal(layout, model, 1).find("does not run sharding = \"zero2\""), std::string::npos);
  layout.framework.framework = Framework::fsdp;
  EXPECT_NE(layout_refusal(layout, model, 1).find("\"zero3\""), std::string::npos);
  layout.sharding = Sharding::zero3;
  EXPECT_EQ(layout_refusal(layout, model, 1), "");
}

}  // namespace
}  // namespace dtsim::parallel
