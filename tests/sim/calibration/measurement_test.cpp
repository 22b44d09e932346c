// The measurement readers: nccl-tests output, vTrain CSV, plain CSV, format detection and located errors.
#include "sim/calibration/measurement.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "tests/sim/calibration/temp_files.hpp"

namespace dtsim::calibration {
namespace {

using testing::error_of;
using testing::write_file;

// all_reduce_perf -b 8M -e 16M -f 2 -g 4 under mpirun on two hosts (nccl-tests 2.13 layout).
const std::string kNcclTests =
    "# nThread 1 nGpus 4 minBytes 8388608 maxBytes 16777216 step: 2(factor) warmup iters: 5 iters: 20 "
    "agg iters: 1 validation: 1 graph: 0\n"
    "#\n"
    "# Using devices\n"
    "#  Rank  0 Group  0 Pid  41 on    node01 device  0 [0x07] NVIDIA A100-SXM4-40GB\n"
    "#  Rank  1 Group  0 Pid  41 on    node01 device  1 [0x0f] NVIDIA A100-SXM4-40GB\n"
    "#  Rank  2 Group  0 Pid  52 on    node02 device  0 [0x07] NVIDIA A100-SXM4-40GB\n"
    "#  Rank  3 Group  0 Pid  52 on    node02 device  1 [0x0f] NVIDIA A100-SXM4-40GB\n"
    "#\n"
    "#                                                              out-of-place                       in-place\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
    "#wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
    "node01:41:41 [0] NCCL INFO Launch mode Parallel\n"
    "     8388608       2097152     float     sum      -1    412.5   20.34   30.51      0    410.1   20.45   30.68     "
    " 0\n"
    "    16777216       4194304     float     sum      -1    801.0   20.95   31.42      0    799.9   20.97   31.46     "
    " 0\n"
    "# Out of bounds values : 0 OK\n"
    "# Avg bus bandwidth    : 31.0173\n";

TEST(NcclTests, ReadsGpusNodesSizesAndOutOfPlaceTimes) {
  const std::string path = write_file("nccl.txt", kNcclTests);
  const std::vector<Measurement> m = read_nccl_tests(path);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].group.ranks, 4);
  EXPECT_EQ(m[0].group.ranks_per_node, 2);
  EXPECT_EQ(m[0].bytes, 8388608);
  EXPECT_DOUBLE_EQ(m[0].time_s, 412.5e-6);
  EXPECT_DOUBLE_EQ(m[1].time_s, 801.0e-6);
  EXPECT_EQ(m[1].where, path + ":14:1");
}

TEST(NcclTests, ReadsTablesWithoutRootAndRunsOneAfterAnother) {
  const std::string text =
      "# nThread 1 nGpus 2 minBytes 1024 maxBytes 1024\n"
      "#  Rank  0 Group  0 Pid  7 on h device  0 [0x07] Tesla V100-SXM2-32GB\n"
      "#  Rank  1 Group  0 Pid  7 on h device  1 [0x0a] Tesla V100-SXM2-32GB\n"
      "#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "        1024           256     float     sum    12.25    0.08    0.08  0e+00    12.00    0.09    0.09  0e+00\n"
      "# nThread 1 nGpus 3 minBytes 2048 maxBytes 2048\n"
      "#  Rank  0 Group  0 Pid  8 on h device  0 [0x07] Tesla V100-SXM2-32GB\n"
      "#  Rank  1 Group  0 Pid  8 on h device  1 [0x0a] Tesla V100-SXM2-32GB\n"
      "#  Rank  2 Group  0 Pid  8 on h device  2 [0x0b] Tesla V100-SXM2-32GB\n"
      "#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "        2048           512     float     sum    20.50    0.10    0.13  0e+00    20.00    0.10    0.14  0e+00\n";
  const std::vector<Measurement> m = read_nccl_tests(write_file("two_runs.txt", text));
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].group.ranks, 2);
  EXPECT_EQ(m[0].group.ranks_per_node, 2);
  EXPECT_DOUBLE_EQ(m[0].time_s, 12.25e-6);
  EXPECT_EQ(m[1].group.ranks, 3);
  EXPECT_EQ(m[1].group.ranks_per_node, 3);
  EXPECT_EQ(m[1].bytes, 2048);
  EXPECT_DOUBLE_EQ(m[1].time_s, 20.5e-6);
}

TEST(NcclTests, ErrorsAreLocated) {
  const std::string header = "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n";
  const std::string ranks = "#  Rank  0 Group  0 Pid  1 on a device 0\n#  Rank  1 Group  0 Pid  1 on a device 1\n";
  const std::string row = "1024 256 float sum -1 10.0 0.1 0.1 0 10.0 0.1 0.1 0\n";
  const auto error = [](const std::string& name, const std::string& text) {
    const std::string path = write_file(name, text);
    return std::pair{path, error_of([&] { read_nccl_tests(path); })};
  };
  const std::string table = "a table row under the header '#  size count type redop root time algbw busbw ...'";
  auto [p1, e1] = error("no_header.txt", ranks + row);  // a row before any header is not in a table
  EXPECT_EQ(e1, p1 + ":1:1: no nccl-tests table rows; " + table);
  auto [p2, e2] = error("no_ranks.txt", header + row);
  EXPECT_EQ(e2, p2 + ":2:1: no '#  Rank' line before the table: the GPU count is unknown; the whole nccl-tests "
                     "output, with its '#  Rank <r> ... on <host> ...' lines");
  auto [p3, e3] = error("short_row.txt", ranks + header + "1024 256 float sum -1 10.0\n");
  EXPECT_EQ(e3, p3 + ":4:27: 6 fields, the header has 13; one field per column");
  auto [p4, e4] = error("bad_time.txt", ranks + header + "1024 256 float sum -1 fast 0.1 0.1 0 10.0 0.1 0.1 0\n");
  EXPECT_EQ(e4, p4 + ":4:23: time 'fast' is not a number; a finite number > 0");
  auto [p5, e5] = error("uneven.txt", ranks + "#  Rank  2 Group  0 Pid  1 on b device 0\n" + header + row);
  EXPECT_EQ(e5, p5 + ":5:1: 3 ranks are spread unevenly over 2 hosts; the same number of GPUs on every host");
  auto [p6, e6] = error("empty_table.txt", ranks + header);
  EXPECT_EQ(e6, p6 + ":1:1: no nccl-tests table rows; " + table);
  auto [p7, e7] = error("one_gpu.txt", "#  Rank  0 Group  0 Pid  1 on a device 0\n" + header + row);
  EXPECT_EQ(e7, p7 + ":3:1: the run has 1 GPU; a run over at least 2 GPUs");
  auto [p8, e8] = error("zero_size.txt", ranks + header + "0 0 float sum -1 10.0 0.1 0.1 0 10.0 0.1 0.1 0\n");
  EXPECT_EQ(e8, p8 + ":4:1: size 0 is below 1; a whole number >= 1");
}

const std::string kLogs = std::string(DTSIM_SOURCE_DIR) + "/tests/sim/calibration/logs/";

TEST(NcclTests, AMultiNodeMpirunLogWithBannersAroundTheTable) {
  // ssh and mpirun banners before the run, NCCL INFO lines in the table, Open MPI help messages after it.
  const std::vector<Measurement> m = read_nccl_tests(kLogs + "all_reduce_2x8_mpirun.log");
  ASSERT_EQ(m.size(), 6u);
  EXPECT_EQ(m[0].group.ranks, 16);
  EXPECT_EQ(m[0].group.ranks_per_node, 8);
  EXPECT_EQ(m[0].bytes, 1048576);
  EXPECT_DOUBLE_EQ(m[0].time_s, 816.2e-6);
  EXPECT_EQ(m[0].where, kLogs + "all_reduce_2x8_mpirun.log:32:1");
  EXPECT_DOUBLE_EQ(m[5].time_s, 169833.0e-6);
}

TEST(NcclTests, OtherCollectivesTestsAreRefused) {
  EXPECT_EQ(error_of([] { read_nccl_tests(kLogs + "all_gather_8.log"); }),
            kLogs + "all_gather_8.log:16:41: a row of all_gather_perf, alltoall_perf or sendrecv_perf (redop none, root "
                    "-1, count below size), not of an all-reduce; all_reduce_perf output for an all-reduce fit: redop "
                    "sum, root -1, count x type bytes = size");
  const std::string head = "#  Rank  0 Group  0 Pid  1 on a device 0\n#  Rank  1 Group  0 Pid  1 on a device 1\n"
                           "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n";
  const auto test_of = [&](const std::string& name, const std::string& row) {
    const std::string path = write_file(name, head + row);
    const std::string e = error_of([&] { read_nccl_tests(path); });
    return e.substr(e.find(": a row of ") + 11, e.find(" (redop") - e.find(": a row of ") - 11);
  };
  EXPECT_EQ(test_of("reduce_scatter.txt", "2048 256 float sum -1 10 0.1 0.1 0 10 0.1 0.1 0\n"), "reduce_scatter_perf");
  EXPECT_EQ(test_of("broadcast.txt", "2048 512 float none 0 10 0.1 0.1 0 10 0.1 0.1 0\n"), "broadcast_perf");
  EXPECT_EQ(test_of("reduce.txt", "2048 512 float sum 0 10 0.1 0.1 0 10 0.1 0.1 0\n"), "reduce_perf");
  EXPECT_EQ(read_nccl_tests(write_file("half.txt", head + "2048 1024 half sum -1 10 0.1 0.1 0 10 0.1 0.1 0\n")).size(),
            1u);
}

const std::string kVtrainHeader = "size(B),count,type,time(ns),busbw(GB/s),time(ns),busbw(GB/s)\n";

TEST(VtrainCsv, GpuCountFromTheFileNameAndOutOfPlaceNanoseconds) {
  const std::string path = write_file("AR_GPU4_1M_2M_LUT", kVtrainHeader +
                                                               "1048576,262144,float,61180,25.71,60260,26.10\n"
                                                               "2097152,524288,float,90000,34.95,91000,34.57\n");
  const std::vector<Measurement> m = read_vtrain_csv(path);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].group.ranks, 4);
  EXPECT_EQ(m[0].group.ranks_per_node, 4);
  EXPECT_EQ(m[0].bytes, 1048576);
  EXPECT_DOUBLE_EQ(m[0].time_s, 61180e-9);
  EXPECT_DOUBLE_EQ(m[1].time_s, 90000e-9);
  EXPECT_EQ(m[1].where, path + ":3:1");
}

TEST(VtrainCsv, ErrorsAreLocated) {
  const std::string header_allowed = "the vTrain header size(B),count,type,time(ns),busbw(GB/s),time(ns),busbw(GB/s)";
  const std::string bad_name = write_file("allreduce.csv", kVtrainHeader + "1048576,262144,float,1,1,1,1\n");
  EXPECT_EQ(error_of([&] { read_vtrain_csv(bad_name); }),
            bad_name +
                ":1:1: the file name 'allreduce.csv' does not give the GPU count; a vTrain file named "
                "AR_GPU<n>_..., n >= 2 GPUs");
  const std::string bad_header = write_file("AR_GPU2_a", "size(B),count,type,time(us)\n1,1,float,1\n");
  EXPECT_EQ(error_of([&] { read_vtrain_csv(bad_header); }),
            bad_header + ":1:20: column 4 is 'time(us)'; " + header_allowed);
  const std::string bad_size = write_file("AR_GPU2_b", kVtrainHeader + "1.5,1,float,100,1,100,1\n");
  EXPECT_EQ(error_of([&] { read_vtrain_csv(bad_size); }),
            bad_size + ":2:1: size(B) '1.5' is not a whole number; a whole number >= 1");
  const std::string no_rows = write_file("AR_GPU2_c", kVtrainHeader);
  EXPECT_EQ(error_of([&] { read_vtrain_csv(no_rows); }), no_rows + ":2:1: no rows after the header; at least one row");
}

TEST(PlainCsv, ReadsEveryColumn) {
  const std::vector<Measurement> m =
      read_plain_csv(write_file("plain.csv", "gpus,gpus_per_node,bytes,time_us\n16,8,4194304,250.5\n"));
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].group.ranks, 16);
  EXPECT_EQ(m[0].group.ranks_per_node, 8);
  EXPECT_EQ(m[0].group.nodes(), 2);
  EXPECT_EQ(m[0].bytes, 4194304);
  EXPECT_DOUBLE_EQ(m[0].time_s, 250.5e-6);
}

TEST(PlainCsv, ErrorsAreLocated) {
  const std::string header = "gpus,gpus_per_node,bytes,time_us\n";
  const std::string allowed = "the header gpus,gpus_per_node,bytes,time_us";
  const auto error = [](const std::string& name, const std::string& text) {
    const std::string path = write_file(name, text);
    return std::pair{path, error_of([&] { read_plain_csv(path); })};
  };
  auto [p1, e1] = error("a.csv", "gpus,gpus_per_node,size,time_us\n");
  EXPECT_EQ(e1, p1 + ":1:20: column 3 is 'size'; " + allowed);
  auto [p2, e2] = error("b.csv", "gpus,gpus_per_node,bytes\n");
  EXPECT_EQ(e2, p2 + ":1:25: the header ends after 3 columns; " + allowed);
  auto [p3, e3] = error("c.csv", "gpus,gpus_per_node,bytes,time_us,note\n");
  EXPECT_EQ(e3, p3 + ":1:34: unexpected column 'note'; " + allowed);
  auto [p4, e4] = error("d.csv", header + "1,1,1024,10\n");
  EXPECT_EQ(e4, p4 + ":2:1: gpus 1 is below 2; a whole number >= 2");
  auto [p5, e5] = error("e.csv", header + "2,1,1024,0\n");
  EXPECT_EQ(e5, p5 + ":2:10: time_us 0 is out of range; a finite number > 0");
  auto [p6, e6] = error("f.csv", header + "2,1,1024\n");
  EXPECT_EQ(e6, p6 + ":2:9: 3 fields, the header has 4; one field per column");
}

TEST(ReadMeasurements, RecognisesEachFormat) {
  EXPECT_EQ(read_measurements(write_file("n.txt", kNcclTests)).front().group.ranks, 4);
  EXPECT_EQ(
      read_measurements(write_file("AR_GPU3_x", kVtrainHeader + "1024,256,float,5000,1,5000,1\n")).front().group.ranks,
      3);
  EXPECT_EQ(
      read_measurements(write_file("p.csv", "\ngpus,gpus_per_node,bytes,time_us\n5,5,64,3\n")).front().group.ranks, 5);
  // An ssh banner with a comma before the nccl-tests output.
  EXPECT_EQ(read_measurements(kLogs + "all_reduce_2x8_mpirun.log").size(), 6u);
}

TEST(ReadMeasurements, EmptyAndMissingFiles) {
  const std::string formats =
      "nccl-tests output, a vTrain CSV (AR_GPU<n>_*, header size(B),count,type,time(ns),busbw(GB/s),time(ns),"
      "busbw(GB/s)) or a CSV with header gpus,gpus_per_node,bytes,time_us";
  const std::string empty = write_file("empty.csv", "\n  \n");
  EXPECT_EQ(error_of([&] { read_measurements(empty); }), empty + ":1:1: the measurement file is empty; " + formats);
  EXPECT_EQ(error_of([] { read_measurements("no/such/file.csv"); }),
            "no/such/file.csv:1:1: cannot open the measurement file; a readable file: " + formats);
}

}  // namespace
}  // namespace dtsim::calibration
