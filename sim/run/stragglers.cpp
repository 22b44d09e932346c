#include "sim/run/stragglers.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "compressors/rng.hpp"

namespace dtsim::run {

SpeedProfile::SpeedProfile(const scenario::Stragglers& s, int worker) {
  if (auto it = s.speed_profiles.find(worker); it != s.speed_profiles.end()) steps_ = it->second;
  if (s.interference && (s.interference->workers.empty() ||
                         std::find(s.interference->workers.begin(), s.interference->workers.end(), worker) !=
                             s.interference->workers.end()))
    interference_ = s.interference;
}

double SpeedProfile::speed_at(double t) const {
  double speed = 1;
  auto step = std::upper_bound(steps_.begin(), steps_.end(), t,
                               [](double time, const scenario::SpeedStep& s) { return time < s.time_s; });
  if (step != steps_.begin()) speed = std::prev(step)->speed;
  if (interference_ && t >= interference_->offset_s &&
      std::fmod(t - interference_->offset_s, interference_->period_s) < interference_->duration_s)
    speed /= interference_->factor;
  return speed;
}

double SpeedProfile::next_change_after(double t) const {
  double next = std::numeric_limits<double>::infinity();
  auto step = std::upper_bound(steps_.begin(), steps_.end(), t,
                               [](double time, const scenario::SpeedStep& s) { return time < s.time_s; });
  if (step != steps_.end()) next = step->time_s;
  if (interference_) {
    const scenario::Interference& i = *interference_;
    if (t < i.offset_s) return std::min(next, i.offset_s);
    const double cycle = std::floor((t - i.offset_s) / i.period_s);
    const double start = i.offset_s + cycle * i.period_s;
    const double boundary = t < start + i.duration_s ? start + i.duration_s : start + i.period_s;
    // Rounding in `cycle` can put the boundary at t itself: step past it rather than stall.
    next = std::min(next, boundary > t ? boundary : std::nextafter(t, next));
  }
  return next;
}

double SpeedProfile::finish_s(double start_s, double work_s, const std::vector<BusySpan>& busy,
                              double busy_slowdown) const {
  if (nominal() && busy.empty()) return start_s + work_s;
  // The spans that end by start_s cannot slow the work: skip them at once (a stage keeps thousands).
  auto span = std::upper_bound(busy.begin(), busy.end(), start_s,
                               [](double at, const BusySpan& b) { return at < b.end_s; });
  double t = start_s, left = work_s;
  for (;;) {
    while (span != busy.end() && span->end_s <= t) ++span;
    const bool inside = span != busy.end() && span->start_s <= t;
    const double speed = speed_at(t) / (inside ? busy_slowdown : 1.0);
    double next = next_change_after(t);
    if (span != busy.end()) next = std::min(next, inside ? span->end_s : span->start_s);
    if ((next - t) * speed >= left) return t + left / speed;
    left -= (next - t) * speed;
    t = next;
  }
}

Slowdown::Slowdown(const scenario::Stragglers& s, int workers) : stragglers_(s) {
  if (!s.enabled()) return;
  auto profiles = std::make_shared<std::vector<SpeedProfile>>();
  for (int w = 0; w < workers; ++w) profiles->emplace_back(s, w);
  profiles_ = std::move(profiles);
}

double Slowdown::factor(int w, int i) const {
  if (!profiles_) return 1.0;
  const scenario::Stragglers& s = stragglers_;
  const bool slow = std::find(s.slow_workers.begin(), s.slow_workers.end(), w) != s.slow_workers.end();
  compressors::Rng rng(compressors::stream_seed(s.seed, static_cast<std::uint64_t>(w), static_cast<std::uint64_t>(i)));
  double factor = slow ? s.slow_factor : 1.0;
  if (s.noise == "lognormal") factor *= std::exp(s.noise_scale * rng.normal());
  if (s.noise == "exponential") factor *= 1.0 - s.noise_scale * compressors::portable_log(1.0 - rng.uniform());
  return factor;
}

const SpeedProfile& Slowdown::profile(int w) const {
  static const SpeedProfile nominal;
  return profiles_ ? (*profiles_)[static_cast<std::size_t>(w)] : nominal;
}

double Slowdown::duration_s(int w, int i, double start_s, double work_s) const {
  const SpeedProfile& p = profile(w);
  const double work = work_s * factor(w, i);
  return p.nominal() ? work : p.finish_s(start_s, work) - start_s;
}

Slowdown slowdown_of(const scenario::Stragglers& s, int workers) { return Slowdown(s, workers); }

}  // namespace dtsim::run
