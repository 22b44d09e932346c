// A sweep's results table as people read it: values by name, units and three significant digits.
#include <gtest/gtest.h>

#include "viz/sweep_page.hpp"

namespace dtsim::viz {
namespace {

TEST(SweepPage, InlineTableAxisValuesReadByTheirKeys) {
  EXPECT_EQ(axis_value_name(R"({ architecture = "ps", ps = { servers = 2 } })"), "architecture=ps, ps.servers=2");
  EXPECT_EQ(axis_value_name(R"({ a = { b = 1 }, c = "x, y", d = [1, 2] })"), "a.b=1, c=x, y, d=[1, 2]");
  EXPECT_EQ(axis_value_name("10Gbps"), "10Gbps");
  EXPECT_EQ(axis_value_name(R"("wfbp")"), "wfbp");
}

TEST(SweepPage, TableHasUnitsNoFullPrecisionAndSaysEqualColumnsOnce) {
  const std::string csv =
      "point,workers,strategy,status,mean_iteration_s,samples_per_s,scaling_efficiency,forward_s,"
      "bytes_sent_per_worker,error,key\n"
      "0,4,\"{ architecture = \"\"allreduce\"\" }\",ok,1.5403705005847153,166.19378253661958,0.07995426647914075,"
      "0.04081642530826741,536697672,,5c5850c6d67147af\n"
      "1,8,\"{ architecture = \"\"ps\"\", ps = { servers = 2 } }\",ok,0.12315919348035775,2077.4,0.99,"
      "0.04081642530826741,1226737536,,0123abc\n";
  const std::string html = sweep_table(csv);
  EXPECT_NE(html.find("<td>1.54 s</td><td>166</td><td>8.0 %</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("<td>123 ms</td><td>2077</td><td>99 %</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("<td>architecture=ps, ps.servers=2</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>511.83 MiB</td>"), std::string::npos);
  EXPECT_EQ(html.find("0.0799"), std::string::npos);
  // forward is the same at both points, status too: said once; the empty error column is not shown.
  EXPECT_NE(html.find("At every point: status ok, forward 40.8 ms."), std::string::npos) << html;
  EXPECT_EQ(html.find("<th>forward</th>"), std::string::npos);
  EXPECT_EQ(html.find("<th>error</th>"), std::string::npos);
  EXPECT_NE(html.find("<th>mean iteration</th>"), std::string::npos);
  EXPECT_NE(html.find("<td>5c5850c6d67147af</td>"), std::string::npos);  // text that starts with digits stays text
}

}  // namespace
}  // namespace dtsim::viz
