// The message level's exchanges as a plain S4U program (issue 18): a ring all-reduce of BYTES bytes among the
// first P hosts of a platform file, repeated COUNT times, every step's message a put_async to the next rank and a
// get from the previous one, as dtsim's RingAllreduce plan and execute_steps run it (chunk k of a step: BYTES / P,
// the first BYTES % P chunks one byte more; 2 (P - 1) steps; the ranks meet at a barrier before each
// all-reduce). No plan, no per-rank step tables, no traffic accounting: what SimGrid alone costs per message.
// Usage: s4u_ring PLATFORM.xml P BYTES COUNT [--cfg=...]; hosts are named gpu0, gpu1, ... (dtsim platform show
// --xml). Prints the simulated time of the last all-reduce, the messages and their rate in wall-clock time.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Barrier.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mailbox.hpp>

namespace sg4 = simgrid::s4u;

namespace {

std::int64_t chunk(std::int64_t bytes, int parts, int index) {
  return bytes / parts + (index < bytes % parts ? 1 : 0);
}

}  // namespace

int main(int argc, char** argv) {
  sg4::Engine engine(&argc, argv);
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s PLATFORM.xml P BYTES COUNT [--cfg=...]\n", argv[0]);
    return 2;
  }
  engine.load_platform(argv[1]);
  const int p = std::atoi(argv[2]);
  const std::int64_t bytes = std::atoll(argv[3]);
  const int count = std::atoi(argv[4]);
  if (p < 2 || bytes < 0 || count < 1) {
    std::fprintf(stderr, "P >= 2, BYTES >= 0 and COUNT >= 1\n");
    return 2;
  }
  sg4::BarrierPtr barrier = sg4::Barrier::create(static_cast<unsigned>(p));
  double start = 0;
  for (int r = 0; r < p; ++r)
    sg4::Actor::create("rank" + std::to_string(r), sg4::Host::by_name("gpu" + std::to_string(r)), [&, r] {
      static char payload = 0;
      char* sink = nullptr;
      sg4::Mailbox* next = sg4::Mailbox::by_name(std::to_string((r + 1) % p) + "<" + std::to_string(r));
      sg4::Mailbox* mine = sg4::Mailbox::by_name(std::to_string(r) + "<" + std::to_string((r + p - 1) % p));
      for (int c = 0; c < count; ++c) {
        barrier->wait();
        start = sg4::Engine::get_clock();
        for (int phase = 0; phase < 2; ++phase)
          for (int s = 0; s < p - 1; ++s) {
            const int k = ((phase == 0 ? r - s : r + 1 - s) % p + p) % p;
            sg4::CommPtr send = next->put_async(&payload, static_cast<std::uint64_t>(chunk(bytes, p, k)));
            sink = mine->get<char>();
            send->wait();
          }
      }
      (void)sink;
    });
  const auto wall_start = std::chrono::steady_clock::now();
  engine.run();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  const double messages = static_cast<double>(count) * p * 2 * (p - 1);
  std::printf("simulated %.9g s per all-reduce; %.0f messages in %.3f s: %.0f k messages/s\n",
              sg4::Engine::get_clock() - start, messages, wall, messages / wall / 1000);
  return 0;
}
