#pragma once
/// Quantities with units written as strings in scenario files ("10Gbps", "5us", "25MiB").
/// Everything inside dtsim is SI: seconds, bytes, bytes per second, flop per second.
#include <cstdint>
#include <string>
#include <string_view>

namespace dtsim::core {

using Seconds = double;
using Bytes = std::int64_t;
using BytesPerSecond = double;
using FlopsPerSecond = double;
using Flops = double;

/// "12.5GBps" or "10Gbps" (bit/s, divided by 8), also written "12.5GB/s", "10Gb/s" -> bytes per second. Throws
/// InputError.
BytesPerSecond parse_bandwidth(std::string_view text);
/// "5us", "1.2ms", "3s", "40ns", "2min" -> seconds. Throws InputError.
Seconds parse_duration(std::string_view text);
/// "25MiB", "1MB", "512B", "4KiB" -> bytes (must be a whole number of bytes). Throws InputError.
Bytes parse_size(std::string_view text);
/// nccl-tests' sizes: "8" (bytes), "1K", "128M", "1G" (powers of 1024, either case); anything else as
/// parse_size ("64MiB", "1MB"). Throws InputError.
Bytes parse_nccl_size(std::string_view text);
/// "15.7TFLOPS", "312TFLOPS", "900GFLOPS" -> flop per second. Throws InputError.
FlopsPerSecond parse_flop_rate(std::string_view text);

/// Human-readable forms used by reports: "10 Gb/s"-style is avoided; these print SI with units.
std::string format_bytes(double bytes);
/// 354823168 -> "354,823,168".
std::string format_count(std::int64_t n);
std::string format_duration(Seconds s);

}  // namespace dtsim::core
