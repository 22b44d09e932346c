#include "models/layer_table.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "input_error.hpp"

namespace dtsim::models {
namespace {

const std::string data_dir = std::string(DTSIM_SOURCE_DIR) + "/tests/models/data/";

TEST(LayerTable, ReadsAFlopsTable) {
  const std::string path = data_dir + "tiny_flops.csv";
  const Model m = read_layer_table_csv(path);
  EXPECT_EQ(m.name, "tiny_flops");
  EXPECT_EQ(m.source, "user table " + path);
  ASSERT_EQ(m.layers.size(), 3u);
  EXPECT_EQ(m.layers[0].name, "conv1");
  ASSERT_EQ(m.layers[0].tensors.size(), 1u);
  EXPECT_EQ(m.layers[0].tensors[0].name, "conv1.weight");
  EXPECT_EQ(m.layers[0].tensors[0].shape, std::vector<std::int64_t>{9408});
  EXPECT_EQ(m.layers[0].forward_flops, 236027904);
  EXPECT_FALSE(m.layers[0].measured);
  EXPECT_TRUE(m.layers[1].tensors.empty());
  EXPECT_EQ(m.layers[2].name, "fc");
  EXPECT_EQ(m.parameter_count(), 9408 + 2049000);
  EXPECT_EQ(m.tensor_count(), 2);
}

TEST(LayerTable, ReadsAMeasuredTableWithColumnsInAnyOrder) {
  const Model m = read_layer_table_csv(data_dir + "tiny_measured.csv");
  EXPECT_EQ(m.name, "tiny_measured");
  ASSERT_EQ(m.layers.size(), 2u);
  EXPECT_EQ(m.layers[0].name, "embedding");
  EXPECT_EQ(m.layers[0].parameter_count(), 1000);
  ASSERT_TRUE(m.layers[0].measured);
  EXPECT_DOUBLE_EQ(m.layers[0].measured->forward_s, 0.00125);
  EXPECT_DOUBLE_EQ(m.layers[0].measured->backward_s, 0.0025);
  EXPECT_EQ(m.layers[0].forward_flops, 0);
  EXPECT_DOUBLE_EQ(m.layers[1].measured->forward_s, 0.0005);
  EXPECT_EQ(m.layers[1].measured->backward_s, 0);
}

// Writes tables to a file of its own.
class LayerTableFile : public testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() /
        ("dtsim_layer_table_" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name()) +
         "_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "table.csv").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  Model read(const std::string& text) {
    std::ofstream(path_, std::ios::binary) << text;
    return read_layer_table_csv(path_);
  }
  std::string error_for(const std::string& text) {
    return input_error([&] { read(text); });
  }

  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(LayerTableFile, SkipsAByteOrderMarkAndBlanks) {
  const Model m = read("\xEF\xBB\xBFname , parameters,forward_flops\n\n  fc 1 ,\t12,  3.5e9\n");
  ASSERT_EQ(m.layers.size(), 1u);
  EXPECT_EQ(m.layers[0].name, "fc 1");
  EXPECT_EQ(m.layers[0].parameter_count(), 12);
  EXPECT_EQ(m.layers[0].forward_flops, 3.5e9);
  EXPECT_EQ(m.name, "table");
  EXPECT_EQ(
      error_for("\xEF\xBB\xBFname,parameters,flops\n"),
      path_ +
          ":1:17: unknown column 'flops'; columns name, parameters and either forward_flops or forward_ms, "
          "backward_ms");
}

TEST_F(LayerTableFile, MissingFile) {
  EXPECT_EQ(input_error([&] { read_layer_table_csv(path_); }),
            path_ + ":1:1: cannot open the layer table; a readable CSV file");
  EXPECT_EQ(input_error([&] { read_layer_table_csv(dir_.string()); }),
            dir_.string() + ":1:1: cannot open the layer table; a readable CSV file");
}

TEST_F(LayerTableFile, EmptyFile) {
  const std::string allowed =
      "a header row of columns name, parameters and either forward_flops or forward_ms, backward_ms";
  EXPECT_EQ(error_for(""), path_ + ":1:1: the layer table is empty; " + allowed);
  EXPECT_EQ(error_for("\n  \n"), path_ + ":1:1: the layer table is empty; " + allowed);
}

TEST_F(LayerTableFile, NoRows) {
  EXPECT_EQ(error_for("name,parameters,forward_flops\n"),
            path_ + ":2:1: the layer table has no layers; at least one row after the header");
}

TEST_F(LayerTableFile, UnknownColumn) {
  EXPECT_EQ(
      error_for("name,parameters,forward_flops,notes\nfc,1,1,x\n"),
      path_ +
          ":1:31: unknown column 'notes'; columns name, parameters and either forward_flops or forward_ms, "
          "backward_ms");
}

TEST_F(LayerTableFile, DuplicateColumn) {
  EXPECT_EQ(error_for("name,parameters, name,forward_flops\n"),
            path_ + ":1:18: column 'name' appears twice; each column once");
}

TEST_F(LayerTableFile, MissingColumn) {
  EXPECT_EQ(error_for("name,forward_flops\nfc,1\n"),
            path_ +
                ":1:1: missing column 'parameters'; columns name, parameters and either forward_flops or "
                "forward_ms, backward_ms");
  EXPECT_EQ(error_for("name,parameters\nfc,1\n"),
            path_ + ":1:1: no timing column; either forward_flops, or forward_ms and backward_ms");
  EXPECT_EQ(
      error_for("name,parameters,forward_ms\nfc,1,2\n"),
      path_ + ":1:1: missing column 'backward_ms'; either forward_flops, or forward_ms and backward_ms");
}

TEST_F(LayerTableFile, BothTimingKinds) {
  EXPECT_EQ(error_for("name,parameters,forward_flops,backward_ms\nfc,1,1,1\n"),
            path_ +
                ":1:31: column 'backward_ms' cannot be combined with forward_flops; either forward_flops, or "
                "forward_ms and backward_ms");
}

TEST_F(LayerTableFile, WrongFieldCount) {
  EXPECT_EQ(error_for("name,parameters,forward_flops\nfc,1,2,3\n"),
            path_ + ":2:8: 4 fields, the header has 3; one field per column");
  EXPECT_EQ(error_for("name,parameters,forward_flops\nconv,1,2\nfc,1\n"),
            path_ + ":3:5: 2 fields, the header has 3; one field per column");
}

TEST_F(LayerTableFile, EmptyName) {
  EXPECT_EQ(error_for("name,parameters,forward_flops\n  ,1,2\n"),
            path_ + ":2:1: empty layer name; a non-empty name");
}

TEST_F(LayerTableFile, Quotes) {
  EXPECT_EQ(error_for("name,parameters,forward_flops\n\"fc\",1,2\n"),
            path_ + ":2:1: quotes are not supported; plain fields without quotes or commas");
}

TEST_F(LayerTableFile, BadParameters) {
  const std::string header = "name,parameters,forward_flops\n";
  EXPECT_EQ(error_for(header + "fc,many,2\n"),
            path_ + ":2:4: parameters 'many' is not a whole number; a whole number >= 0");
  EXPECT_EQ(error_for(header + "fc,1.5,2\n"),
            path_ + ":2:4: parameters '1.5' is not a whole number; a whole number >= 0");
  EXPECT_EQ(error_for(header + "fc,,2\n"),
            path_ + ":2:4: parameters '' is not a whole number; a whole number >= 0");
  EXPECT_EQ(error_for(header + "fc, -3,2\n"),
            path_ + ":2:5: parameters '-3' is negative; a whole number >= 0");
  EXPECT_EQ(error_for(header + "fc,99999999999999999999,2\n"),
            path_ + ":2:4: parameters '99999999999999999999' is too large; a whole number >= 0");
}

TEST_F(LayerTableFile, BadFlops) {
  const std::string header = "name,parameters,forward_flops\n";
  const std::string allowed = "; a number of FLOPs per sample >= 0";
  EXPECT_EQ(error_for(header + "fc,1,2G\n"), path_ + ":2:6: forward_flops '2G' is not a number" + allowed);
  EXPECT_EQ(error_for(header + "fc,1,-1e9\n"), path_ + ":2:6: forward_flops '-1e9' is negative" + allowed);
  EXPECT_EQ(error_for(header + "fc,1,inf\n"), path_ + ":2:6: forward_flops 'inf' is not finite" + allowed);
  EXPECT_EQ(error_for(header + "fc,1,1e999\n"),
            path_ + ":2:6: forward_flops '1e999' is out of range" + allowed);
}

TEST_F(LayerTableFile, BadTimes) {
  const std::string header = "name,parameters,forward_ms,backward_ms\n";
  EXPECT_EQ(error_for(header + "fc,1,1.5,-2\n"),
            path_ + ":2:10: backward_ms '-2' is negative; a number of milliseconds >= 0");
  EXPECT_EQ(error_for(header + "fc,1,1ms,2\n"),
            path_ + ":2:6: forward_ms '1ms' is not a number; a number of milliseconds >= 0");
}

TEST_F(LayerTableFile, DuplicateLayerName) {
  EXPECT_EQ(error_for("name,parameters,forward_flops\nfc,1,2\nrelu,0,1\n\nfc,1,2\n"),
            path_ + ":5:1: duplicate layer name 'fc' (first on line 2); unique layer names");
}

}  // namespace
}  // namespace dtsim::models
