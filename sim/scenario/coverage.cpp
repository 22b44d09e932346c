#include "sim/scenario/coverage.hpp"

#include <sstream>

namespace dtsim::scenario {
namespace {

constexpr Coverage kYes = Coverage::kImplemented;
constexpr Coverage kMissing = Coverage::kMissing;
constexpr Coverage kOut = Coverage::kOutOfScope;

// Areas and rows follow the seeds' tables: seed 001 sections 1.2-1.8 and 3, seed 003 tables 1-3 and sections
// 3.2 and 4, seeds 002/004 part B (reading list).
constexpr CoverageRow kRows[] = {
    // Synchronisation (seed 001 section 1.2, Table 5; seed 004 B.8-B.10).
    {"synchronisation", "BSP-SGD", "Goyal et al., arXiv 2017", kYes, "strategy.sync", "bsp",
     "tests/sim/sync/sync_test.cpp PushLedger.BspPullsOnceEveryWorkerPushed", ""},
    {"synchronisation", "SSP-SGD", "Ho et al., NeurIPS 2013", kYes, "strategy.sync", "ssp",
     "tests/sim/sync/sync_test.cpp PushLedger.SspBoundsStalenessAndZeroIsBsp", ""},
    {"synchronisation", "Backup workers", "Chen et al., arXiv 2016 (Revisiting distributed synchronous SGD)", kYes,
     "strategy.backup_workers", "", "tests/sim/sync/sync_test.cpp PushLedger.BackupWorkersCloseTheRoundEarlyAndDropTheLast",
     "bsp on ps or byteps"},
    {"synchronisation", "R2SP (round-robin synchronous parallel)", "Chen et al., INFOCOM 2019", kYes, "strategy.sync",
     "r2sp",
     "tests/sim/run/sync_run_test.cpp R2sp.EachWorkersCycleIsItsComputePushAndPullOrTheServersPushesWhicheverIsLonger",
     "on ps or byteps; the paper's batch-size tuning for heterogeneous workers is not modelled"},
    {"synchronisation", "ASP-SGD / Downpour SGD", "Recht et al., NeurIPS 2011; Dean et al., NeurIPS 2012", kYes,
     "strategy.sync", "asp", "tests/sim/sync/sync_test.cpp PushLedger.AspNeverWaitsAndRetiredWorkersReleaseSsp",
     "on ps (refused on allreduce, as the survey says)"},
    {"synchronisation", "D-ADMM, asynchronous distributed ADMM", "Wei & Ozdaglar, GlobalSIP 2013; Zhang & Kwok, ICML 2014",
     kOut, "", "", "", "ADMM solves a consensus problem with dual variables, not SGD on a DNN (the survey: it does not target NNs)"},
    {"synchronisation", "Delayed block proximal gradient", "Li et al., NeurIPS 2014", kOut, "", "", "",
     "a proximal method that updates one parameter block per iteration; dtsim's workers exchange whole gradients"},
    {"synchronisation", "Asynchronous SGD with sparsified uploads", "Grishchenko et al., arXiv 2018", kOut, "", "", "",
     "a proximal method with a regulariser applied at the master; asp with randomk times the uploads of its SGD part"},
    {"synchronisation", "Local SGD", "Stich, ICLR 2019; Lin et al., ICLR 2020", kYes, "strategy.sync", "local_sgd",
     "tests/sim/run/numerics_sync_test.cpp NumericsSync.LocalSgdWithPeriodOneIsBspAndLongerPeriodsDrift", ""},
    {"synchronisation", "Post-local SGD", "Lin et al., ICLR 2020", kYes, "strategy.sync", "post_local_sgd",
     "tests/sim/run/numerics_sync_test.cpp NumericsSync.PostLocalSgdIsBspUntilTheSwitch", ""},
    {"synchronisation", "Momentum local SGD", "Yu, Jin & Yang, ICML 2019", kYes, "strategy.local_sgd.average_momentum",
     "", "tests/numerics/fedavg_test.cpp MomentumLocalSgd.AveragingTheBuffersKeepsTheReplicasEqualAfterAnAverage",
     "local SGD averages the momentum buffers with the models; an exchange moves both (twice the bytes); without "
     "it each worker keeps its own buffer"},
    {"synchronisation", "Quantized local SGD (Qsparse-local-SGD)", "Jiang & Agrawal, NeurIPS 2018; Basu et al., NeurIPS 2019",
     kYes, "strategy.sync", "local_sgd", "tests/numerics/compressed_local_sgd_test.cpp CompressedLocalSgd.ErrorFeedbackCarriesTheUnsentProgress",
     "with [compression]: each worker's progress since the last average is compressed"},
    {"synchronisation", "CR-PSGD-Catalyst", "Yu & Jin, ICML 2019", kMissing, "", "", "",
     "a batch size that grows from iteration to iteration (batch_size is fixed per run)"},
    {"synchronisation", "Overlap Local-SGD", "Wang, Liang & Joshi, ICASSP 2020", kYes, "strategy.sync",
     "overlap_local_sgd",
     "tests/sim/run/sync_run_test.cpp OverlapLocalSgd.TheAverageRunsDuringTheNextPeriodAndOnlyTheNextSyncPointWaitsForIt",
     "the average's exchange runs during the next period; the anchor pulls by alpha (no global momentum)"},
    {"synchronisation", "AdaComm (adaptive communication period)", "Wang & Joshi, SysML 2019", kYes, "strategy.sync",
     "adacomm", "tests/sim/run/numerics_sync_test.cpp NumericsSync.AdaCommPeriodsFollowTheLossAndTheTimeLineTakesThem",
     "tau = ceil(sqrt(F / F0) tau0) from numerics mode's loss, intervals in iterations (the paper's are wall-clock)"},
    {"synchronisation", "LAG (lazily aggregated gradient)", "Chen et al., NeurIPS 2018", kYes, "strategy.lag.threshold", "",
     "tests/numerics/lag_test.cpp Lag.TwoWorkersDecideAsTheFormulaSaysAndTheServerKeepsTheLastUpload", "LAG-WK, bsp on ps or byteps"},
    {"synchronisation", "LENA", "seed 001 ref. [184]", kMissing, "", "", "", "a lazy-aggregation variant of LAG"},
    {"synchronisation", "3PC (three point compressors): CLAG", "Richtarik et al., ICML 2022", kYes,
     "compression.error_feedback", "clag", "tests/compressors/shifted_test.cpp ThreePc.ClagSkipsWhenTheEstimateIsCloserThanZetaTimesTheGradientChange",
     "EF21 with LAG's skip rule; zeta in compression.error_feedback_options"},
    {"synchronisation", "FedAvg with client sampling", "McMahan et al., AISTATS 2017", kYes, "strategy.sync", "fedavg",
     "tests/sim/run/fedavg_run_test.cpp FedAvgRun.ARoundIsItsLocalStepsThenTheSampledRingOnAStar",
     "a seeded sample of max(floor(C K), 1) workers a round runs E epochs over its shard, then averages in a "
     "collective over its hosts (numerics: weighted by shard size); all-reduce only: the server's push and pull "
     "by a sample are not modelled"},
    {"synchronisation", "CMFL (relevance-filtered uploads)", "Wang, Wang & Li, ICDCS 2019", kMissing, "", "", "",
     "uploads only when the local update agrees in sign with the last global update"},

    // Architectures and collectives (seed 001 section 1.3; seed 002 A.5).
    {"architectures", "Parameter server", "Li et al., OSDI 2014", kYes, "strategy.architecture", "ps",
     "tests/sim/run/sync_run_test.cpp ParameterServer.IncastTimeGrowsWithWorkersAndShrinksWithServersAsTheFormulaSays", ""},
    {"architectures", "BytePS", "Jiang et al., OSDI 2020", kYes, "strategy.architecture", "byteps",
     "tests/sim/run/byteps_test.cpp BytePSPipeline.NetworkBoundPartitionsPayOneReduceOneBroadcastAndOnePartitionsPull", ""},
    {"architectures", "GeePS", "Cui et al., EuroSys 2016", kOut, "", "", "",
     "a GPU parameter-server runtime that stages data between GPU and CPU memory to train models larger than the "
     "GPU; dtsim checks a worker's memory against its GPU's (sim/memory, memory check) and refuses what does not "
     "fit, but does not model swapping to host memory"},
    {"architectures", "In-network aggregation (SwitchML, ATP, SHARP)", "Sapio et al., NSDI 2021", kYes,
     "strategy.collective", "in_network",
     "tests/sim/actors/in_network_simgrid_test.cpp InNetworkOnSimGrid.EqualsTheAnalyticReplayAndTheClosedForm",
     "on platforms whose switch sums (platform sharp = true, [platform.node] nvls = true); the plan's switch endpoint "
     "is a host at the switch's place; also NCCL's CollNet and NVLS in nccl/auto; SwitchML's packet loss recovery "
     "and ATP's multi-tenant switch memory are not modelled"},
    {"architectures", "Ring all-reduce", "Patarasuk & Yuan, JPDC 2009", kYes, "strategy.collective", "ring",
     "tests/sim/collectives/ring_allreduce_test.cpp RingAllreduce.AnalyticOnStarEqualsClosedForm", ""},
    {"architectures", "Binary-tree all-reduce", "Thakur et al., IJHPCA 2005", kYes, "strategy.collective", "binary_tree",
     "tests/sim/collectives/allreduce_algorithms_test.cpp PipelinedTree.StepCountsFollowTheHoles", "pipelined"},
    {"architectures", "Recursive doubling", "Thakur et al., IJHPCA 2005", kYes, "strategy.collective", "recursive_doubling",
     "tests/sim/collectives/allreduce_algorithms_test.cpp RecursiveDoubling.NonPowerOfTwoAddsTheFoldAndTheReturn", ""},
    {"architectures", "Rabenseifner (reduce-scatter + all-gather)", "Rabenseifner, ICCS 2004", kYes, "strategy.collective",
     "rabenseifner", "tests/sim/collectives/allreduce_algorithms_test.cpp Rabenseifner.NonPowerOfTwoFoldSwapsHalvesThenSendsOneBack", ""},
    {"architectures", "Double binary tree", "Sanders, Speck & Traeff, Parallel Computing 2009", kYes, "strategy.collective",
     "double_binary_tree", "tests/sim/collectives/allreduce_algorithms_test.cpp DoubleBinaryTree.IsTwiceAsFastAsOneTreeForLargeMessages", ""},
    {"architectures", "Hierarchical all-reduce", "Jia et al., arXiv 2018", kYes, "strategy.collective", "hierarchical",
     "tests/sim/collectives/allreduce_contract_test.cpp AllreduceContract.ReplayOnDataGivesEveryRankTheSum", ""},
    {"architectures", "2D-torus all-reduce", "Mikami et al., arXiv 2018", kYes, "strategy.collective", "torus2d",
     "tests/sim/collectives/allreduce_algorithms_test.cpp GridAllreduce.AnalyticOnTwoLevelEqualsClosedForm", ""},
    {"architectures", "NCCL (ring and tree, LL/LL128/Simple)", "NVIDIA NCCL, src/graph/tuning.cc", kYes, "strategy.collective",
     "nccl", "tests/sim/collectives/nccl_allreduce_test.cpp NcclPlan.RingClosedFormIsLatencyPlusTwoPMinusOneStepsOfWireChunks", ""},
    {"architectures", "BML on BCube", "Wang et al., NeurIPS 2018", kMissing, "", "", "", "a BCube platform topology and its gradient synchronisation"},
    {"architectures", "Blink, PLink (topology-aware collectives)", "Wang et al., MLSys 2020; Luo et al., MLSys 2020", kMissing,
     "", "", "", "collectives packed onto spanning trees of the measured topology"},
    {"architectures", "Gossip (D-PSGD)", "Lian et al., NeurIPS 2017", kYes, "strategy.architecture", "gossip",
     "tests/sim/run/sync_run_test.cpp Gossip.DpsgdSendsTheModelToEveryNeighbour", ""},
    {"architectures", "SGP (push-sum gossip)", "Assran et al., ICML 2019", kYes, "strategy.architecture", "gossip",
     "tests/sim/run/sync_run_test.cpp Gossip.PushSumDoesNotWaitForASlowNode", "with strategy.sync = asp"},
    {"architectures", "Compressed gossip (CHOCO-SGD)", "Koloskova, Stich & Jaggi, ICML 2019", kYes,
     "strategy.gossip.consensus_step", "", "tests/numerics/choco_test.cpp Choco.ConsensusStepKeepsTheAverageModel",
     "gossip with [compression] in numerics mode"},

    // Quantisation (seed 001 section 1.4; seed 003 Table 2 and section 3.2).
    {"quantisation", "Low-precision communication (fp16, bf16)", "Gupta et al., ICML 2015; Micikevicius et al., ICLR 2018",
     kYes, "compression.compressor", "fp16", "tests/compressors/properties_test.cpp Fp16.RoundsToNearestEvenAndRoundTripsEveryHalf",
     "also bf16"},
    {"quantisation", "SRQ (stochastic rotated quantization)", "Suresh et al., ICML 2017", kYes, "compression.compressor", "srq",
     "tests/compressors/srq_test.cpp Srq.MeanSquaredErrorWithinTheoremThree", "random Hadamard rotation, k levels"},
    {"quantisation", "Variable-length coding of quantised values", "Suresh et al., ICML 2017", kMissing, "", "", "",
     "entropy-coded wire size of the quantised levels"},
    {"quantisation", "1-bit SGD", "Seide et al., Interspeech 2014", kYes, "compression.compressor", "onebit",
     "tests/compressors/properties_test.cpp OneBit.PerColumnMeans", "with compression.error_feedback = residual"},
    {"quantisation", "Threshold quantisation (TBQ)", "Strom, Interspeech 2015", kYes, "compression.compressor", "threshold",
     "tests/compressors/properties_test.cpp WireBytes.VariableSizeSparsifiersSendEightBytesPerKeptElement",
     "values travel as fp32, not as Strom's one bit per +-tau"},
    {"quantisation", "QSGD", "Alistarh et al., NeurIPS 2017", kYes, "compression.compressor", "qsgd",
     "tests/compressors/properties_test.cpp Qsgd.MagnitudesLieOnTheGrid", ""},
    {"quantisation", "TernGrad", "Wen et al., NeurIPS 2017", kYes, "compression.compressor", "terngrad",
     "tests/compressors/properties_test.cpp TernGrad.TernaryAndUnbiasedWithoutClipping", ""},
    {"quantisation", "Natural compression", "Horvath et al., MSML 2022", kYes, "compression.compressor", "natural",
     "tests/compressors/properties_test.cpp Natural.ValuesArePowersOfTwoNeighbours", ""},
    {"quantisation", "ECQ-SGD", "Wu et al., ICML 2018", kYes, "compression.compressor", "ecqsgd",
     "tests/compressors/ecqsgd_test.cpp EcqSgd.CompensatesWithAlphaTimesTheDecayedSumOfPastErrors", ""},
    {"quantisation", "AQSGD (adaptive levels)", "Faghri et al., NeurIPS 2020", kYes, "compression.compressor", "aqsgd",
     "tests/compressors/aqsgd_test.cpp Aqsgd.LevelsAdaptFromOneExchangeToTheNextAndLowerTheVariance",
     "ALQ: levels moved by coordinate descent on each exchange's empirical distribution (AMQ not implemented)"},
    {"quantisation", "DQ-SGD (dynamic bit width)", "Yan et al., arXiv 2021", kMissing, "", "", "",
     "a bit width chosen per step from a communication/convergence bound; its rule could not be read: the stored "
     "copies of arXiv 2107.14575 and of its ICLR 2021 submission (DQSGD) give the abstract only, and the code and "
     "issue corpora hold no implementation (searched: DQ-SGD, DQSGD, dynamic quantization bits per iteration)"},
    {"quantisation", "Adaptive quantisation with inexact proximal gradients", "seed 001 refs. 7544448, 7526802", kOut, "", "",
     "", "a proximal method without DNN validation (the survey's words)"},
    {"quantisation", "signSGD", "Bernstein et al., ICML 2018", kYes, "compression.compressor", "signsgd",
     "tests/compressors/properties_test.cpp MajorityVote.SignOfTheSumWithTiesPositive", "majority vote (Bernstein et al., ICLR 2019)"},
    {"quantisation", "SIGNUM", "Bernstein et al., ICML 2018", kYes, "compression.compressor", "signum",
     "tests/compressors/properties_test.cpp Aggregation.ModesNamedAndDeclaredByEachCompressor", ""},
    {"quantisation", "EF-signSGD", "Karimireddy et al., ICML 2019", kYes, "compression.compressor", "efsignsgd",
     "tests/compressors/properties_test.cpp Contraction.BiasedCompressorsShrinkTheError", "with compression.error_feedback = residual"},
    {"quantisation", "8-bit SGD", "Dettmers, ICLR 2016", kYes, "compression.compressor", "eightbit",
     "tests/compressors/eightbit_test.cpp EightBit.TwoHundredFiftySixValuesWithTwoToTheSixMinusEPerDecade",
     "the dynamic tree data type"},
    {"quantisation", "1-bit Adam", "Tang et al., ICML 2021", kYes, "compression.compressor", "onebit_adam",
     "tests/compressors/properties_test.cpp WireBytes.ExactForEveryFixedSizeCompressor", ""},
    {"quantisation", "DIANA", "Mishchenko et al., arXiv 2019", kYes, "compression.error_feedback", "diana",
     "tests/compressors/shifted_test.cpp Diana.ShiftsLearnTheGradientSoTheCompressedDifferenceVanishes",
     "compressed differences to shifts every worker and the receiver keep; any compressor"},
    {"quantisation", "Polar-code lossy coding", "seed 002 (Tongji thesis, 2022)", kYes, "compression.compressor", "polar",
     "tests/compressors/polar_test.cpp Polar.ReproducesTheThesisDistortionTable", ""},

    // Sparsification (seed 001 section 1.5; seed 003 Table 1 and section 3.2).
    {"sparsification", "Truncated gradient", "Langford, Li & Zhang, JMLR 2009", kOut, "", "", "",
     "truncates weights in online learning; not a gradient exchange"},
    {"sparsification", "Random-k", "Stich, Cordonnier & Jaggi, NeurIPS 2018", kYes, "compression.compressor", "randomk",
     "tests/compressors/properties_test.cpp RandomK.ExactlyKDistinctFromTheSharedSeed", ""},
    {"sparsification", "Random mask, subsampling", "Konecny et al., arXiv 2016", kYes, "compression.compressor", "randomk",
     "tests/compressors/properties_test.cpp RandomK.RescaledIsUnbiased", "shared-seed mask; subsampling is rescale = true"},
    {"sparsification", "Unbiased probabilistic sparsification", "Wangni et al., NeurIPS 2018", kYes, "compression.compressor",
     "gspar", "tests/compressors/gspar_test.cpp GSpar.CappedElementsGoAsTheyAreAndTheOthersAsOneOverLambda",
     "the compression survey's variance-based sparsifier"},
    {"sparsification", "Variance-based compression", "Tsuzuku, Imachi & Akiba, ICLR workshop 2018", kYes,
     "compression.compressor", "variance_based",
     "tests/compressors/variance_based_test.cpp VarianceBased.SendsWhatIsLargeAgainstItsVarianceAndKeepsTheRest",
     "r_i^2 > alpha v_i from numerics mode's per-example second moments (Model::loss_gradient_and_second_moment); "
     "the time line sends the expected `density`; values as 4-bit powers of two of the largest sent"},
    {"sparsification", "Fixed threshold", "Strom, Interspeech 2015", kYes, "compression.compressor", "threshold",
     "tests/compressors/properties_test.cpp WireBytes.VariableSizeSparsifiersSendEightBytesPerKeptElement", ""},
    {"sparsification", "Top-k (Aji & Heafield's gradient dropping)", "Aji & Heafield, EMNLP 2017", kYes, "compression.compressor",
     "topk", "tests/compressors/properties_test.cpp TopK.KeepsExactlyKAndContracts", "per tensor; no global threshold"},
    {"sparsification", "Fixed proportion (two thresholds)", "Dryden et al., MLHPC 2016", kYes, "compression.compressor",
     "fixed_proportion",
     "tests/compressors/fixed_proportion_test.cpp FixedProportion.TakesAProportionOfEachSignAndSendsEachSideAsItsMean",
     "a proportion of each sign's elements, each side as its mean, with compression.error_feedback = residual; "
     "indices as int32 (Dryden et al.'s packing of index and sign into one word was not read)"},
    {"sparsification", "AdaComp", "Chen et al., AAAI 2018", kYes, "compression.compressor", "adacomp",
     "tests/compressors/properties_test.cpp AdaComp.SendsQuantisedSignsAndKeepsTheResidue", ""},
    {"sparsification", "SBC (sparse binary compression)", "Sattler et al., IJCNN 2019", kYes, "compression.compressor", "sbc",
     "tests/compressors/sbc_test.cpp Sbc.KeepsTheSideWithTheLargerMeanAsThatMean", "Golomb-coded positions"},
    {"sparsification", "STC (sparse ternary compression)", "Sattler et al., TNNLS 2019", kYes, "compression.compressor", "stc",
     "tests/compressors/stc_test.cpp Stc.TopKSignsTimesTheirMeanMagnitudeInExactBytes", "Golomb-coded positions"},
    {"sparsification", "DGC", "Lin et al., ICLR 2018", kYes, "compression.compressor", "dgc",
     "tests/compressors/properties_test.cpp Dgc.WarmUpDensitiesAndAtMostK", "with compression.error_feedback = dgc"},
    {"sparsification", "gTop-k", "Shi et al., ICDCS 2019", kYes, "compression.sparse_collective", "gtopk",
     "tests/sim/run/compression_test.cpp Compression.GTopKMovesOnePayloadPerTreeHopInsteadOfGatheringAll", ""},
    {"sparsification", "Gaussian-k", "Shi et al., arXiv 2019 (Understanding top-k sparsification)", kYes,
     "compression.compressor", "gaussiank", "tests/compressors/gaussiank_test.cpp GaussianK.HeavyTailsMoveTheThresholdAsTheReferenceLoopDoes",
     "with compression.error_feedback = residual"},
    {"sparsification", "RedSync (trimmed top-k)", "Fang et al., JPDC 2019", kYes, "compression.compressor", "redsync",
     "tests/compressors/redsync_test.cpp RedSync.BinarySearchBisectsTheRatioUntilKToTwoKPassAndSendsThemAll",
     "trimmed top-k or threshold binary search (compression.options selection); with compression.error_feedback = residual"},
    {"sparsification", "SIDCo", "Abdelmoniem et al., MLSys 2021", kYes, "compression.compressor", "sidco",
     "tests/compressors/properties_test.cpp Sidco.AchievedDensityNearTarget", ""},
    {"sparsification", "MIPD", "Zhang & Wang, 2022", kOut, "", "", "",
     "layer-wise selection by model interpretability, for asynchronous parameter servers only (the survey's words)"},
    {"sparsification", "Adaptive number of elements", "Han, Wang & Leung, ICDCS 2020", kMissing, "", "", "",
     "the density chosen online to minimise the total training time"},
    {"sparsification", "Block coordinate descent (BCD, IBCD)", "Mishchenko et al., arXiv 2019", kOut, "", "", "",
     "gradient-free block updates, not SGD"},
    {"sparsification", "Proximal sparsity-inducing methods", "seed 001 refs. [152], [58]", kOut, "", "", "",
     "change the optimisation problem (L0/L1 regularisers), not the exchange"},

    // Low-rank and sketching (seed 001 section 1.6; seed 003 Table 3).
    {"low-rank", "ATOMO (spectral)", "Wang et al., NeurIPS 2018", kMissing, "", "", "",
     "unbiased sampling of the SVD's atoms"},
    {"low-rank", "PowerSGD", "Vogels, Karimireddy & Jaggi, NeurIPS 2019", kYes, "compression.compressor", "powersgd",
     "tests/compressors/properties_test.cpp PowerSgd.ExactOnALowRankMatrixAndOverWorkers", ""},
    {"low-rank", "GradZip", "Cho et al., NeurIPS workshop 2019", kYes, "compression.compressor", "gradzip",
     "tests/compressors/gradzip_test.cpp GradZip.AllReducedFactorsAreTheSummedGradientsAsBothStepsAreLinear",
     "alternating least squares, one step per exchange; the two all-reduces timed as powersgd's"},
    {"low-rank", "GradiVeQ", "Yu et al., NeurIPS 2018", kMissing, "", "", "", "PCA projection learnt from past gradients"},
    {"low-rank", "PowerGossip", "Vogels, Karimireddy & Jaggi, NeurIPS 2020", kYes, "strategy.gossip.exchange",
     "powergossip", "tests/numerics/power_gossip_test.cpp PowerGossip.KeepsTheAverageAndReachesConsensus",
     "rank 1, one power step per edge and matrix, warm-started; timing: tests/sim/run/sync_run_test.cpp "
     "Gossip.PowerGossipSendsBothFactorsInTwoRounds"},
    {"low-rank", "Count sketch (Sketched SGD)", "Ivkin et al., NeurIPS 2019", kMissing, "", "", "",
     "sketches that sum, and the heavy hitters recovered from the summed sketch"},

    // Error feedback (seed 001 section 1.8; seed 003 section 4).
    {"error feedback", "Error accumulation (EF)", "Seide et al., 2014; Karimireddy et al., ICML 2019", kYes,
     "compression.error_feedback", "residual", "tests/compressors/error_feedback_test.cpp ErrorFeedback.ResidualTelescopes", ""},
    {"error feedback", "Momentum correction and factor masking", "Lin et al., ICLR 2018", kYes, "compression.error_feedback", "dgc",
     "tests/compressors/error_feedback_test.cpp ErrorFeedback.DgcAtFullDensityIsMomentumSgdWithoutMaskingAndSgdWithIt", ""},
    {"error feedback", "Local gradient clipping", "Lin et al., ICLR 2018", kYes, "compression.error_feedback_options", "",
     "tests/compressors/error_feedback_test.cpp ErrorFeedback.LocalClippingScalesByOneOverSqrtN", "clip_norm"},
    {"error feedback", "Warm-up training", "Lin et al., ICLR 2018", kYes, "compression.options", "",
     "tests/compressors/properties_test.cpp Dgc.WarmUpDensitiesAndAtMostK", "dgc's warmup_epochs"},
    {"error feedback", "Global momentum compression", "Zhao et al., arXiv 2019", kMissing, "", "", "",
     "error feedback on the momentum of the global model change"},
    {"error feedback", "Error averaging (SAEF)", "Xu et al., 2021 (seed 003 ref. [23])", kMissing, "", "", "",
     "an all-reduce of the compression errors and a step-ahead model"},
    {"error feedback", "EF21", "Richtarik, Sokolov & Fatkhullin, NeurIPS 2021", kYes, "compression.error_feedback", "ef21",
     "tests/compressors/shifted_test.cpp ThreePc.Ef21OverTopKClosesTheGapKElementsAStep", ""},

    // Scheduling and pipelining (seed 001 section 3; seed 003 section 2.2).
    {"scheduling", "WFBP (wait-free backpropagation)", "Zhang et al., ATC 2017 (Poseidon)", kYes, "strategy.scheduler", "wfbp",
     "tests/sim/run/iteration_test.cpp Wfbp.AnalyticFollowsTheRecurrence", ""},
    {"scheduling", "MG-WFBP (merged gradients)", "Shi, Chu & Li, INFOCOM 2019", kYes, "strategy.scheduler", "mg_wfbp",
     "tests/sim/scheduling/schedulers_test.cpp MgWfbp.NeverWorseThanWfbpOrNoneOnRandomProfiles", ""},
    {"scheduling", "Tensor fusion (Horovod)", "Sergeev & Del Balso, arXiv 2018", kYes, "strategy.scheduler", "fusion",
     "tests/sim/scheduling/schedulers_test.cpp Fusion.FusesWhatIsReadyAtEachCycleUpToTheThreshold", ""},
    {"scheduling", "Gradient bucketing (PyTorch DDP)", "Li et al., VLDB 2020", kYes, "strategy.scheduler", "ddp",
     "tests/sim/scheduling/schedulers_test.cpp Ddp.BucketBoundariesForResNet50AsPyTorch", ""},
    {"scheduling", "ByteScheduler (partition and priority)", "Peng et al., SOSP 2019", kYes, "strategy.scheduler", "priority",
     "tests/sim/run/schedulers_iteration_test.cpp Priority.NextForwardStartsBeforeTheLastBucketOfThisIteration", ""},
    {"scheduling", "P3 (priority-based parameter propagation)", "Jayarajan et al., SysML 2019", kYes, "strategy.scheduler",
     "priority", "tests/sim/scheduling/schedulers_test.cpp Priority.PartitionsTensorsAndKeepsLayerOrder",
     "P3's slicing and layer priority, as ByteScheduler generalises it"},
    {"scheduling", "TicTac", "Hashemi et al., SysML 2019", kMissing, "", "", "", "transfer order derived from the computation graph"},
    {"scheduling", "Layer-wise sparsification pipelining (LAGS)", "Shi et al., ECAI 2020", kMissing, "", "", "",
     "compression of a layer overlapped with the backward of the next"},
    {"scheduling", "Decoupled all-reduce", "Zhang et al., ICDCS 2023", kMissing, "", "", "",
     "reduce-scatter overlapped with backward and all-gather with the next forward"},
    {"scheduling", "Contention-aware scheduling of several jobs", "Wang et al., 2020", kOut, "", "", "",
     "dtsim simulates one training job"},
    {"scheduling", "Global ordering of collectives", "Romero et al., NSDI 2022", kOut, "", "", "",
     "dtsim's workers issue collectives in one order by construction"},
    {"scheduling", "Pipeline model parallelism (GPipe, PipeDream)", "Huang et al., NeurIPS 2019; Harlap et al., SOSP 2019", kYes,
     "parallel.schedule", "gpipe", "tests/sim/parallel/workload_test.cpp PipelineBubble.OneFOneBAndGPipeTakeMPlusPMinusOneSlots",
     "GPipe's synchronous micro-batch schedule, and 1F1B and interleaved ones ([parallel] pipeline); PipeDream's "
     "asynchronous weight stashing (several weight versions in flight) is not modelled"},
};

std::string_view status_text(Coverage status) {
  switch (status) {
    case Coverage::kImplemented: return "yes";
    case Coverage::kMissing: return "missing";
    case Coverage::kOutOfScope: return "out of scope";
  }
  return "";
}

}  // namespace

std::span<const CoverageRow> coverage_table() { return kRows; }

std::string coverage_markdown() {
  std::ostringstream out;
  int counts[3] = {0, 0, 0};
  for (const CoverageRow& row : kRows) ++counts[static_cast<int>(row.status)];
  out << "# Coverage of the source surveys\n\n"
      << "Every method named in the tables of dtsim's sources (Tang et al.'s survey of communication-efficient\n"
      << "distributed training, the survey of gradient compression, the Polar-code thesis and the reading list), with\n"
      << "its paper and the scenario setting and test that implement it, or why it is missing or out of scope.\n"
      << "Generated by `dtsim list coverage` from sim/scenario/coverage.cpp; a test checks that every key, value and\n"
      << "test cited here exists. " << counts[0] << " implemented, " << counts[1] << " missing, " << counts[2]
      << " out of scope.\n";
  std::string_view area;
  for (const CoverageRow& row : kRows) {
    if (row.area != area) {
      area = row.area;
      out << "\n## " << char(area[0] - 'a' + 'A') << area.substr(1) << "\n\n"
          << "| method | paper | dtsim | setting | test or reason |\n|---|---|---|---|---|\n";
    }
    out << "| " << row.method << " | " << row.paper << " | " << status_text(row.status) << " | ";
    if (row.status == Coverage::kImplemented) {
      out << '`' << row.key;
      if (!row.value.empty()) out << " = \"" << row.value << '"';
      out << '`' << (row.note.empty() ? "" : "; ") << row.note << " | `" << row.test << "` |\n";
    } else {
      out << " | " << row.note << " |\n";
    }
  }
  return out.str();
}

}  // namespace dtsim::scenario
