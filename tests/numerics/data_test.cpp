// Synthetic data sets, train/test split, iid and Dirichlet shards, MNIST/CIFAR-10 readers.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>

#include "numerics/dataset_readers.hpp"
#include "numerics/sharding.hpp"
#include "sim/core/error.hpp"

namespace dtsim::numerics {
namespace {

TEST(Data, SyntheticSetsAreSeededAndSplit) {
  const Dataset a = teacher_network({.examples = 500, .dims = 8, .classes = 5, .hidden = 16, .seed = 4});
  const Dataset b = teacher_network({.examples = 500, .dims = 8, .classes = 5, .hidden = 16, .seed = 4});
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_TRUE(a.features == b.features);
  const Dataset g = gaussian_mixture({.examples = 500, .dims = 8, .classes = 5, .separation = 1.0, .seed = 4});
  const auto counts = label_counts(g, shard_iid(g, 1, 0)[0]);
  EXPECT_GT(*std::min_element(counts.begin(), counts.end()), 60);  // labels drawn uniformly: ~100 each
  const auto [train, test] = train_test_split(a, 0.2, 1);
  EXPECT_EQ(train.size(), 400);
  EXPECT_EQ(test.size(), 100);
  EXPECT_EQ(test.shape.classes, 5);
  EXPECT_THROW(gaussian_mixture({.examples = 10, .dims = 0}), core::InputError);
}

/// Largest share of one class in a shard, averaged over the shards.
double mean_top_share(const Dataset& data, const Shards& shards) {
  double total = 0.0;
  for (const auto& shard : shards) {
    const auto counts = label_counts(data, shard);
    total += static_cast<double>(*std::max_element(counts.begin(), counts.end())) / static_cast<double>(shard.size());
  }
  return total / static_cast<double>(shards.size());
}

TEST(Data, DirichletShardsAreSkewedIidShardsAreNot) {
  const Dataset data = gaussian_mixture({.examples = 4000, .dims = 2, .classes = 10, .seed = 3});
  const Shards iid = shard_iid(data, 8, 1), skewed = shard_dirichlet(data, 8, 0.1, 1);
  for (const Shards& shards : {iid, skewed}) {
    std::vector<std::int64_t> all;
    for (const auto& s : shards) all.insert(all.end(), s.begin(), s.end());
    std::sort(all.begin(), all.end());
    ASSERT_EQ(all.size(), 4000u);
    EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());  // a partition: no example twice
  }
  for (const auto& s : iid) EXPECT_EQ(s.size(), 500u);
  EXPECT_LT(mean_top_share(data, iid), 0.15);     // ~0.1 + noise
  EXPECT_GT(mean_top_share(data, skewed), 0.5);   // alpha 0.1: a few classes dominate each worker
  EXPECT_EQ(shard_dirichlet(data, 8, 0.1, 1), skewed);
  EXPECT_LT(mean_top_share(data, shard_dirichlet(data, 8, 1000.0, 1)), 0.15);
  try {
    shard_dirichlet(data, 8, 0.0, 1);
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_STREQ(e.what(), "Dirichlet alpha 0.000000; alpha > 0 (small = skewed, large = iid)");
  }
}

class Readers : public testing::Test {
 protected:
  std::string write(const std::string& name, const std::vector<unsigned char>& bytes) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                static_cast<std::streamsize>(bytes.size()));
    return path;
  }
  std::string message(const std::function<void()>& read) {
    try {
      read();
    } catch (const core::InputError& e) {
      return e.what();
    }
    return "no error";
  }
  void SetUp() override { std::filesystem::create_directories(dir_); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_ = std::filesystem::temp_directory_path() /
                               ("dtsim_readers_" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
};

/// IDX header: magic then sizes, big-endian.
std::vector<unsigned char> idx(std::uint32_t magic, std::vector<std::uint32_t> sizes, std::size_t payload) {
  std::vector<unsigned char> out;
  sizes.insert(sizes.begin(), magic);
  for (const std::uint32_t v : sizes) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<unsigned char>(v >> shift));
  }
  for (std::size_t i = 0; i < payload; ++i) out.push_back(static_cast<unsigned char>(i % 10));
  return out;
}

TEST_F(Readers, MnistValuesAndErrors) {
  const std::string images = write("images", idx(0x803, {2, 4, 4}, 32)), labels = write("labels", idx(0x801, {2}, 2));
  const Dataset d = read_mnist(images, labels);
  EXPECT_EQ(d.size(), 2);
  EXPECT_EQ(d.labels, (std::vector<int>{0, 1}));
  EXPECT_EQ(d.shape.height, 4);
  EXPECT_FLOAT_EQ(d.features(1, 0), 6.0f / 255.0f);  // byte 16 of the pixels is 16 % 10

  const std::string wrong_magic = write("magic", idx(0x801, {2, 4, 4}, 32));
  EXPECT_EQ(message([&] { read_mnist(wrong_magic, labels); }),
            wrong_magic + ":1:1: magic number 0x00000801 is not 0x00000803; an IDX image file (train-images-idx3-ubyte)");
  const std::string short_file = write("short", idx(0x803, {2, 4, 4}, 31));
  EXPECT_EQ(message([&] { read_mnist(short_file, labels); }),
            short_file + ":1:17: 31 data bytes after the header, which announces 32; a complete IDX image file "
                         "(train-images-idx3-ubyte)");
  const std::string header = write("header", {0, 0, 8});
  EXPECT_EQ(message([&] { read_mnist(header, labels); }),
            header + ":1:1: file of 3 bytes is shorter than the 16-byte IDX header; a complete IDX image file "
                     "(train-images-idx3-ubyte)");
  const std::string three = write("three", idx(0x801, {3}, 3));
  EXPECT_EQ(message([&] { read_mnist(images, three); }),
            three + ":1:5: 3 labels for 2 images; as many labels as " + images + " has images");
  auto bad = idx(0x801, {2}, 2);
  bad[9] = 12;
  const std::string bad_label = write("bad_label", bad);
  EXPECT_EQ(message([&] { read_mnist(images, bad_label); }), bad_label + ":1:10: label 12 is out of range; labels 0 to 9");
  const std::string missing = (dir_ / "missing").string();
  EXPECT_EQ(message([&] { read_mnist(missing, labels); }),
            missing + ":1:1: cannot open the file; a readable IDX image file (train-images-idx3-ubyte)");
}

TEST_F(Readers, CifarValuesAndErrors) {
  std::vector<unsigned char> batch(2 * 3073, 51);
  batch[0] = 3;
  batch[3073] = 9;
  const std::vector<std::string> paths = {write("b1", batch), write("b2", std::vector<unsigned char>(batch.begin(), batch.begin() + 3073))};
  const Dataset d = read_cifar10(paths);
  EXPECT_EQ(d.labels, (std::vector<int>{3, 9, 3}));
  EXPECT_EQ(d.shape.channels, 3);
  EXPECT_EQ(d.features.cols(), 3072);
  EXPECT_FLOAT_EQ(d.features(2, 3071), 0.2f);

  const std::vector<std::string> truncated = {write("t", std::vector<unsigned char>(batch.begin(), batch.begin() + 3100))};
  EXPECT_EQ(message([&] { read_cifar10(truncated); }),
            truncated[0] + ":1:3074: file of 3100 bytes is not a whole number of 3073-byte records; a complete "
                           "CIFAR-10 binary batch (data_batch_1.bin)");
  batch[3073] = 10;
  const std::vector<std::string> bad = {write("bad", batch)};
  EXPECT_EQ(message([&] { read_cifar10(bad); }), bad[0] + ":1:3074: label 10 is out of range; labels 0 to 9");
}

}  // namespace
}  // namespace dtsim::numerics
