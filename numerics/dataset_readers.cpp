#include "numerics/dataset_readers.hpp"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

#include "sim/core/error.hpp"

namespace dtsim::numerics {
namespace {

constexpr std::uint32_t kIdxImages = 0x00000803;
constexpr std::uint32_t kIdxLabels = 0x00000801;
constexpr std::int64_t kCifarPixels = 3 * 32 * 32;
constexpr int kClasses = 10;

std::string at(const std::string& path, std::int64_t offset) { return path + ":1:" + std::to_string(offset + 1); }

std::vector<unsigned char> read_bytes(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw core::InputError(at(path, 0), "cannot open the file", "a readable " + what);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::uint32_t big_endian(const std::vector<unsigned char>& bytes, std::size_t offset) {
  return (std::uint32_t{bytes[offset]} << 24) | (std::uint32_t{bytes[offset + 1]} << 16) |
         (std::uint32_t{bytes[offset + 2]} << 8) | std::uint32_t{bytes[offset + 3]};
}

std::string hex(std::uint32_t value) {
  char text[11];
  std::snprintf(text, sizeof text, "0x%08x", value);
  return text;
}

/// Checks an IDX header (magic, then `dims` sizes) and the payload length; returns the sizes.
std::vector<std::int64_t> idx_header(const std::vector<unsigned char>& bytes, const std::string& path,
                                     std::uint32_t magic, std::size_t dims, const std::string& what) {
  const std::size_t header = 4 * (dims + 1);
  if (bytes.size() < header) {
    throw core::InputError(at(path, 0),
                           "file of " + std::to_string(bytes.size()) + " bytes is shorter than the " +
                               std::to_string(header) + "-byte IDX header",
                           "a complete " + what);
  }
  if (big_endian(bytes, 0) != magic) {
    throw core::InputError(at(path, 0), "magic number " + hex(big_endian(bytes, 0)) + " is not " + hex(magic),
                           "an " + what);
  }
  std::vector<std::int64_t> sizes(dims);
  std::int64_t expected = 1;
  for (std::size_t d = 0; d < dims; ++d) expected *= sizes[d] = big_endian(bytes, 4 * (d + 1));
  const auto actual = static_cast<std::int64_t>(bytes.size() - header);
  if (actual != expected) {
    throw core::InputError(at(path, static_cast<std::int64_t>(header)),
                           std::to_string(actual) + " data bytes after the header, which announces " +
                               std::to_string(expected),
                           "a complete " + what);
  }
  return sizes;
}

int label_at(const std::vector<unsigned char>& bytes, std::size_t offset, const std::string& path) {
  const int label = bytes[offset];
  if (label >= kClasses) {
    throw core::InputError(at(path, static_cast<std::int64_t>(offset)),
                           "label " + std::to_string(label) + " is out of range", "labels 0 to 9");
  }
  return label;
}

}  // namespace

Dataset read_mnist(const std::string& images_path, const std::string& labels_path) {
  const std::string image_file = "IDX image file (train-images-idx3-ubyte)";
  const std::string label_file = "IDX label file (train-labels-idx1-ubyte)";
  const std::vector<unsigned char> images = read_bytes(images_path, image_file);
  const std::vector<std::int64_t> shape = idx_header(images, images_path, kIdxImages, 3, image_file);
  const std::vector<unsigned char> labels = read_bytes(labels_path, label_file);
  const std::int64_t count = idx_header(labels, labels_path, kIdxLabels, 1, label_file)[0];
  if (count != shape[0]) {
    throw core::InputError(at(labels_path, 4),
                           std::to_string(count) + " labels for " + std::to_string(shape[0]) + " images",
                           "as many labels as " + images_path + " has images");
  }
  Dataset data;
  data.shape = InputShape{1, shape[1], shape[2], kClasses};
  const std::int64_t pixels = shape[1] * shape[2];
  data.features.resize(count, pixels);
  data.labels.resize(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    data.labels[static_cast<std::size_t>(i)] = label_at(labels, static_cast<std::size_t>(8 + i), labels_path);
    for (std::int64_t j = 0; j < pixels; ++j) {
      data.features(i, j) = static_cast<float>(images[static_cast<std::size_t>(16 + i * pixels + j)]) / 255.0f;
    }
  }
  return data;
}

Dataset read_cifar10(std::span<const std::string> paths) {
  const std::string what = "CIFAR-10 binary batch (data_batch_1.bin)";
  const std::int64_t record = 1 + kCifarPixels;
  if (paths.empty()) throw core::InputError("no CIFAR-10 batch file given", "one or more " + what + " files");
  std::vector<std::vector<unsigned char>> files;
  std::int64_t count = 0;
  for (const std::string& path : paths) {
    files.push_back(read_bytes(path, what));
    const auto size = static_cast<std::int64_t>(files.back().size());
    if (size == 0 || size % record != 0) {
      throw core::InputError(at(path, size - size % record),
                             "file of " + std::to_string(size) + " bytes is not a whole number of " +
                                 std::to_string(record) + "-byte records",
                             "a complete " + what);
    }
    count += size / record;
  }
  Dataset data;
  data.shape = InputShape{3, 32, 32, kClasses};
  data.features.resize(count, kCifarPixels);
  data.labels.resize(static_cast<std::size_t>(count));
  std::int64_t row = 0;
  for (std::size_t f = 0; f < files.size(); ++f) {
    const std::vector<unsigned char>& bytes = files[f];
    for (std::size_t offset = 0; offset < bytes.size(); offset += record, ++row) {
      data.labels[static_cast<std::size_t>(row)] = label_at(bytes, offset, paths[f]);
      for (std::int64_t j = 0; j < kCifarPixels; ++j) {
        data.features(row, j) = static_cast<float>(bytes[offset + 1 + static_cast<std::size_t>(j)]) / 255.0f;
      }
    }
  }
  return data;
}

}  // namespace dtsim::numerics
