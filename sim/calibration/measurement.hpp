#pragma once
/// Measured collective times and the files they come in: nccl-tests output, vTrain's CSV tables and a
/// plain CSV. Every reader fails with core::InputError located "path:line:col".
#include <string>
#include <vector>

#include "sim/collectives/collective.hpp"

namespace dtsim::calibration {

/// One measured collective: its group of GPUs, the vector size per GPU and the time it took.
struct Measurement {
  collectives::Group group;  ///< ranks = GPUs, ranks_per_node = GPUs per node
  double bytes = 0;          ///< vector size per GPU (nccl-tests' "size")
  double time_s = 0;
  std::string where;  ///< "path:line:1", the row it was read from
};

/// Reads any of the formats below, recognised by content: nccl-tests output when a line is its "# nThread" or
/// "#  size ..." line (banners before it may have commas); else a first non-blank line with a comma is a CSV
/// (vTrain when its first field is "size(B)", plain otherwise); anything else is nccl-tests output.
std::vector<Measurement> read_measurements(const std::string& path);

/// nccl-tests stdout of all_reduce_perf: the GPUs are the "#  Rank" lines, the nodes their distinct host
/// names; each row of the table under "#  size count type redop root time algbw busbw #wrong ..." gives size
/// and the out-of-place time in microseconds. Several runs may follow each other ("# nThread" starts one).
/// Lines outside the table (ssh, mpirun banners, NCCL INFO) are skipped; rows of another collective's test
/// (all_gather_perf, reduce_scatter_perf, ...) are refused.
std::vector<Measurement> read_nccl_tests(const std::string& path);

/// vTrain's tables (github.com/VIA-Research/vTrain, trace/*/AR_GPU<n>_*): the header
/// size(B),count,type,time(ns),busbw(GB/s),time(ns),busbw(GB/s), out-of-place time in ns; n GPUs, one node.
std::vector<Measurement> read_vtrain_csv(const std::string& path);

/// A plain CSV with the header gpus,gpus_per_node,bytes,time_us.
std::vector<Measurement> read_plain_csv(const std::string& path);

}  // namespace dtsim::calibration
