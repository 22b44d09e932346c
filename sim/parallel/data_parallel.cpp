#include "sim/parallel/data_parallel.hpp"

#include "sim/core/error.hpp"
#include "sim/results/trace_names.hpp"

namespace dtsim::parallel {

using taskgraph::Dep;
using taskgraph::Op;
using taskgraph::Stream;
using taskgraph::Task;

namespace {

Task compute(std::string name, const char* category, Stream stream, double duration_s, int item) {
  Task t;
  t.stream = stream;
  t.name = std::move(name);
  t.category = category;
  t.duration_s = duration_s;
  t.item = item;
  return t;
}

}  // namespace

taskgraph::TaskGraph data_parallel_iteration(const scheduling::IterationPlan& plan, bool exchanges, double launch_s,
                                             bool exchange_in_flight, const ExchangeFragment& fragment) {
  using Kind = ExchangeFragment::Kind;
  const bool priority = plan.credit_bytes > 0;
  DTSIM_CHECK(!priority || fragment.kind == Kind::collective, "a priority plan's exchanges are collectives");
  DTSIM_CHECK(fragment.kind != Kind::push_pull || fragment.sum_s.size() == plan.buckets.size(),
              "a push-pull fragment sums every bucket");
  DTSIM_CHECK(!priority || exchanges, "a priority plan exchanges every iteration");
  DTSIM_CHECK(!priority || !exchange_in_flight, "a priority plan applies each exchange in the next forward");
  taskgraph::TaskGraph graph;
  taskgraph::Program& p = graph.programs.emplace_back();
  p.role = "worker";
  p.credit_bytes = plan.credit_bytes;
  const int layers = static_cast<int>(plan.layers.size());
  std::vector<int> update_of(plan.layers.size(), -1);  // priority: the carried update before each forward
  int previous = -1;  // on the compute stream
  for (int l = 0; l < layers; ++l) {
    const scheduling::LayerPhase& layer = plan.layers[static_cast<std::size_t>(l)];
    if (priority) {
      Task u = compute("update " + layer.name, "update", Stream::compute, layer.update_s, l);
      u.carried = true;
      if (previous >= 0) u.deps = {previous};
      previous = update_of[static_cast<std::size_t>(l)] = p.add(std::move(u));
    }
    Task t = compute(run::forward_event(layer), "forward", Stream::compute, layer.forward_s, l);
    if (previous >= 0) t.deps = {previous};
    previous = p.add(std::move(t));
  }
  const int last_forward = previous;
  int stream_last = -1;         // on the data stream
  int pull_last = -1;           // push_pull: on the gather stream
  std::size_t b = 0;
  for (int l = layers - 1; l >= 0; --l) {
    const scheduling::LayerPhase& layer = plan.layers[static_cast<std::size_t>(l)];
    Task t = compute(run::backward_event(layer), "backward", Stream::compute, layer.backward_s, l);
    if (previous >= 0) t.deps = {previous};
    previous = p.add(std::move(t));
    for (; b < plan.buckets.size() && plan.buckets[b].ready_layer == l; ++b) {
      if (!exchanges) continue;
      const auto id = static_cast<int>(b);
      const double cycle_s = plan.buckets[b].not_before_s;
      // Issued once its gradients are ready and its cycle reached.
      std::vector<Dep> issued = {Dep(previous)};
      if (cycle_s > 0 && last_forward >= 0) issued.emplace_back(last_forward, cycle_s);
      const scheduling::BucketWork* work = plan.work.empty() ? nullptr : &plan.work[b];
      // ByteScheduler: the bucket is one job of the credit stream, by its layer's priority.
      auto job = [&](Task task) {
        task.priority = priority ? l : 0;
        task.credit_bytes = priority ? plan.buckets[b].bytes : 0;
        return p.add(std::move(task));
      };
      // The framework's negotiation and copies in, once the bucket is issued; its call follows them.
      if (const double before_s = plan.buckets[b].framework_before_s; before_s > 0) {
        Task f = compute(run::framework_before_event(id), "framework", Stream::data, before_s, id);
        f.deps = std::move(issued);
        issued = {Dep(job(std::move(f)))};
      }
      std::vector<Dep> deps;
      for (const Dep& d : issued) deps.emplace_back(d.task, d.lag_s + launch_s);
      if (work && work->compress_s > 0) {
        Task c = compute(run::compress_event(id), "compress", Stream::data, work->compress_s, id);
        c.deps = issued;
        deps.emplace_back(job(std::move(c)));
      }
      Task x;
      x.op = fragment.kind == Kind::push_pull    ? Op::push
             : fragment.kind == Kind::neighbours ? Op::neighbours
                                                 : Op::allreduce;
      x.stream = Stream::data;
      x.name = run::bucket_event(id);
      x.category = "comm";
      x.group = "data";
      x.item = id;
      if (work)
        for (const scheduling::Exchange& e : work->exchanges) x.bytes += e.bytes;
      else
        x.bytes = plan.buckets[b].bytes;
      x.deps = std::move(deps);
      const std::int64_t payload = x.bytes;
      stream_last = job(std::move(x));
      if (fragment.kind == Kind::push_pull) {
        int pulled_after = stream_last;
        if (const double sum_s = fragment.sum_s[b]; sum_s > 0) {
          Task sum = compute(run::sum_event(id), "sum", Stream::server, sum_s, id);
          sum.deps = {stream_last};
          pulled_after = p.add(std::move(sum));
        }
        Task pull;
        pull.op = Op::pull;
        pull.stream = Stream::gather;
        pull.name = run::pull_event(id);
        pull.category = "comm";
        pull.group = "data";
        pull.item = id;
        pull.bytes = payload;
        pull.deps = {pulled_after};
        pull_last = p.add(std::move(pull));
      }
      if (work && work->decompress_s > 0) {
        Task d = compute(run::decompress_event(id), "compress", Stream::data, work->decompress_s, id);
        d.deps = {stream_last};
        stream_last = job(std::move(d));
      }
      if (const double after_s = plan.buckets[b].framework_after_s; after_s > 0) {
        Task f = compute(run::framework_after_event(id), "framework", Stream::data, after_s, id);
        f.deps = {stream_last};
        stream_last = job(std::move(f));
      }
      // The next iteration's update of layer l applies the bucket.
      if (priority) p.tasks[static_cast<std::size_t>(update_of[static_cast<std::size_t>(l)])].deps.push_back(Dep::of_previous(stream_last));
    }
  }
  DTSIM_CHECK(b == plan.buckets.size(), "buckets must be in non-increasing ready_layer order");
  if (priority) return graph;
  double update_s = 0;
  for (const auto& layer : plan.layers) update_s += layer.update_s;
  Task step = compute("update", "update", Stream::compute, update_s, -1);
  if (previous >= 0) step.deps.emplace_back(previous);
  for (const int last : {stream_last, pull_last})
    if (last >= 0) step.deps.push_back(exchange_in_flight ? Dep::of_previous(last) : Dep(last));
  p.add(std::move(step));
  return graph;
}

const char* data_parallel_lane(const Task& task) {
  if (task.op != Op::compute || task.stream == Stream::server) return "comm";
  return task.stream == Stream::compute ? "compute" : "compress";
}

}  // namespace dtsim::parallel
