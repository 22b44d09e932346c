#pragma once
/// Numbers for people: three significant digits and a unit, as the reports print them.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace dtsim::viz {

/// "340 ms", "40.8 ms", "710 us", "1.46 s": three significant digits in the unit that keeps them below 1000.
std::string duration_text(double seconds);
/// "36 %", "4.5 %", "0.12 %": a fraction as a percentage with two significant digits below 10 %.
std::string percent_text(double fraction);
/// "40Gbps", "12.5Gbps": a bandwidth in bytes/s as the bits-per-second string a scenario file accepts.
std::string bandwidth_setting(double bytes_per_s);

/// "GEMM 4.1 s (21 %), attention 1.2 s (6.2 %), ...": each (name, seconds) part with its share of their sum.
std::string parts_text(const std::vector<std::pair<std::string, double>>& parts);

/// "nic3_UP", or "nic3_UP x4096" for a class of 4,096 links alike (report.json "links": name and count).
std::string link_class_text(const std::string& name, std::int64_t count);

}  // namespace dtsim::viz
