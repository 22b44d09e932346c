// Numerics mode with the compressors added for the surveys' coverage: where convergence is the point, real
// training on scenarios/time_to_accuracy.toml (softmax regression, 8 workers) shows it.
#include <gtest/gtest.h>

#include "sim/run/numerics_run.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/scenario/load.hpp"

namespace dtsim::run {
namespace {

RunResult train(const std::string& compressor, const compressors::Options& options, const std::string& feedback,
                const compressors::Options& feedback_options = {}) {
  auto s = scenario::load_scenario(std::string(DTSIM_SOURCE_DIR) + "/scenarios/time_to_accuracy.toml");
  s.compression.compressor = compressor;
  s.compression.options = options;
  s.compression.error_feedback = feedback;
  s.compression.feedback_options = feedback_options;
  return run_simulation(s);
}

TEST(NumericsCompressors, GSparIsUnbiasedSoItTrainsWithoutErrorFeedbackAndDivergesWithIt) {
  // Unbiased with variance sum x_i^2 (1 / p_i - 1): at 10 % density plain SGD reaches the target, at 1 % more
  // slowly. Error feedback needs a contraction (Karimireddy et al., ICML 2019: ||C(x) - x|| <= (1 - delta) ||x||);
  // x_i / p_i overshoots x_i, so the residual grows without bound.
  const RunResult ten = train("gspar", {{"ratio", 0.1}}, "none");
  const RunResult one = train("gspar", {{"ratio", 0.01}}, "none");
  const RunResult fed = train("gspar", {{"ratio", 0.1}}, "residual");
  ASSERT_TRUE(ten.time_to_accuracy_s.has_value());
  EXPECT_GT(ten.curve.back().accuracy, 0.85);
  EXPECT_LT(one.curve.back().accuracy, ten.curve.back().accuracy);
  EXPECT_GT(one.curve.back().accuracy, 0.5);
  EXPECT_FALSE(fed.time_to_accuracy_s.has_value());
  EXPECT_GT(fed.curve.back().loss, 1e6);
}

TEST(NumericsCompressors, GaussianKWithErrorFeedbackReachesTheTargetAndWithoutItDoesNot) {
  const RunResult with = train("gaussiank", {{"ratio", 0.01}}, "residual");
  const RunResult without = train("gaussiank", {{"ratio", 0.01}}, "none");
  ASSERT_TRUE(with.time_to_accuracy_s.has_value());
  EXPECT_GT(with.curve.back().accuracy, 0.85);
  EXPECT_LT(without.curve.back().accuracy, with.curve.back().accuracy - 0.1);
}

TEST(NumericsCompressors, EightBitAndSrqTrainLikeDenseAndOneBitSrqLoses) {
  // 8-bit SGD's dynamic type and SRQ at 16 levels (4 bits) end within a point of dense training; SRQ at two
  // levels (1 bit a coordinate, error bound (2 ln d + 2) ||x||^2) ends lower.
  const double dense = train("none", {}, "none").curve.back().accuracy;
  EXPECT_NEAR(train("eightbit", {}, "none").curve.back().accuracy, dense, 0.01);
  const double srq16 = train("srq", {}, "none").curve.back().accuracy;
  EXPECT_NEAR(srq16, dense, 0.01);
  EXPECT_LT(train("srq", {{"levels", std::int64_t{2}}}, "none").curve.back().accuracy, srq16 - 0.03);
}

TEST(NumericsCompressors, EcqSgdHelpsWhereItsErrorRecursionIsStableAndDivergesWhereNot) {
  // The model's 5120-weight tensor, s = 16 levels of the l2 norm: the quantiser's variance factor is
  // gamma = min(n / s^2, sqrt(n) / s) = 4.47. Wu et al.'s accumulated error stays bounded when
  // lambda = alpha^2 gamma + (beta - alpha)^2 < 1: alpha = 0.3, beta = 1 (lambda 0.89) ends nearer dense training
  // than the same quantiser without compensation; alpha = beta = 1 (lambda 4.47, plain error feedback) diverges.
  const compressors::Options q{{"levels", std::int64_t{16}}};
  auto with = [&](double alpha, double beta) {
    compressors::Options o = q;
    o["alpha"] = alpha;
    o["beta"] = beta;
    return train("ecqsgd", o, "none").curve.back().loss;
  };
  const double dense = train("none", {}, "none").curve.back().loss;
  const double plain = with(0.0, 1.0), compensated = with(0.3, 1.0), unstable = with(1.0, 1.0);
  EXPECT_LT(compensated - dense, 0.5 * (plain - dense));
  EXPECT_GT(unstable, 10 * plain);
}

TEST(NumericsCompressors, Ef21AndClagOverTopKReachTheTargetAndClagsZetaComesFromTheScenario) {
  // Top-k at 10 %: EF21's estimates reach the target as residual error feedback does; CLAG with zeta = 0.5 too,
  // while zeta = 8 skips most uploads at this learning rate and does not (zeta reaches the layer through
  // [compression.error_feedback_options]).
  const compressors::Options topk{{"ratio", 0.1}};
  const RunResult ef21 = train("topk", topk, "ef21");
  const RunResult lazy = train("topk", topk, "clag", {{"zeta", 0.5}});
  const RunResult lazier = train("topk", topk, "clag", {{"zeta", 8.0}});
  ASSERT_TRUE(ef21.time_to_accuracy_s.has_value());
  ASSERT_TRUE(lazy.time_to_accuracy_s.has_value());
  EXPECT_GT(ef21.curve.back().accuracy, 0.85);
  EXPECT_FALSE(lazier.time_to_accuracy_s.has_value());
  EXPECT_LT(lazier.curve.back().accuracy, lazy.curve.back().accuracy - 0.2);
}

TEST(NumericsCompressors, StcAndSbcReachTheTargetWithErrorFeedbackOnFewerBytesThanTopK) {
  // 1 %: both carry about as much as top-k's pairs through error feedback (Sattler et al.'s setting) and reach the
  // target; without it neither does. Their Golomb-coded positions make each step's exchange shorter than top-k's.
  const compressors::Options one_percent{{"ratio", 0.01}};
  const RunResult topk = train("topk", one_percent, "residual");
  for (const std::string name : {"stc", "sbc"}) {
    const RunResult fed = train(name, one_percent, "residual");
    EXPECT_TRUE(fed.time_to_accuracy_s.has_value()) << name;
    EXPECT_FALSE(train(name, one_percent, "none").time_to_accuracy_s.has_value()) << name;
    EXPECT_LT(fed.mean_iteration_s, topk.mean_iteration_s) << name;
  }
}

TEST(NumericsCompressors, RedSyncAqsgdAndGradZipTrainWithinAPointOfDense) {
  // RedSync's two selections under residual error feedback (Fang et al. compress the residual), ALQ at 3 bits
  // (unbiased, no feedback) and GradZip at rank 1 under residual error feedback, as PowerSGD runs: each reaches the
  // target and ends within a point of dense training; GradZip without the feedback ends far below.
  const double dense = train("none", {}, "none").curve.back().accuracy;
  for (const RunResult& r : {train("redsync", {{"ratio", 0.01}}, "residual"),
                             train("redsync", {{"ratio", 0.01}, {"selection", std::string("binary_search")}}, "residual"),
                             train("aqsgd", {}, "none"), train("gradzip", {}, "residual")}) {
    EXPECT_TRUE(r.time_to_accuracy_s.has_value());
    EXPECT_NEAR(r.curve.back().accuracy, dense, 0.01);
  }
  EXPECT_LT(train("gradzip", {}, "none").curve.back().accuracy, dense - 0.1);
}

TEST(NumericsCompressors, VarianceBasedTrainsWithinAPointOfDenseOnAFewPercentOfTheElements) {
  // Each worker's per-example second moments (softmax regression's closed form) drive Tsuzuku et al.'s rule with its
  // defaults (alpha = 2, zeta = 0.999; no error feedback: r is its memory): it reaches the target and ends within a
  // point of dense training, sending about 5 % of the elements (c of a message of b bytes: b = 4 + 4.5 c).
  const double dense = train("none", {}, "none").curve.back().accuracy;
  const RunResult variance = train("variance_based", {}, "none");
  ASSERT_TRUE(variance.time_to_accuracy_s.has_value());
  EXPECT_NEAR(variance.curve.back().accuracy, dense, 0.01);
  auto s = scenario::load_scenario(std::string(DTSIM_SOURCE_DIR) + "/scenarios/time_to_accuracy.toml");
  s.compression.compressor = "variance_based";
  s.compression.options = {};
  s.compression.error_feedback = "none";
  double sent = 0, elements = 0;
  for (const numerics::StepReport& step : train_numerics(s).steps)
    for (const numerics::TensorExchange& t : step.tensors)
      for (const core::Bytes b : t.wire_bytes) sent += static_cast<double>(2 * (b - 4) / 9);
  const std::int64_t numel = 512 * 10 + 10;  // the scenario's softmax regression: 512 features, 10 classes
  elements = static_cast<double>(numel) * s.workers * s.numerics.steps;
  EXPECT_LT(sent / elements, 0.1);  // 5.2 % when written
  EXPECT_GT(sent / elements, 0.02);
}

TEST(NumericsCompressors, FixedProportionWithErrorFeedbackTrainsWithinAPointOfDense) {
  // 1 % of each sign's elements, each side as its mean, the rest in the residual (Dryden et al.'s setting): it reaches
  // the target and ends within a point of dense training; without the residual it ends far below.
  const double dense = train("none", {}, "none").curve.back().accuracy;
  const RunResult fed = train("fixed_proportion", {}, "residual");
  ASSERT_TRUE(fed.time_to_accuracy_s.has_value());
  EXPECT_NEAR(fed.curve.back().accuracy, dense, 0.01);
  EXPECT_LT(train("fixed_proportion", {}, "none").curve.back().accuracy, dense - 0.1);
}

}  // namespace
}  // namespace dtsim::run
