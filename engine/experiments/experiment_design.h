#pragma once
/// @file
/// Designs of experiments: the table of runs of a sweep, one row per run and
/// one column per varied parameter (engine/experiments/design_parameter.h says
/// what a parameter name addresses). A design is a full grid over given
/// levels, a list (a table the user wrote), or a space-filling design over
/// ranges: a Latin hypercube (McKay, Beckman & Conover 1979; fixed seed) or a
/// Sobol sequence (Sobol' 1967, direction numbers of Joe & Kuo 2008).
///
/// The design table file (`design.csv`, written beside the runs):
///
///     # mbdrom-design type=latin-hypercube seed=7 hash=3f0c...
///     run,load.tyre.amplitude,spring_dampers.strut.stiffness
///     run_01,812.5,31250
///
/// Numbers are written in the shortest form that reads back to the same
/// double, so a run is reproducible from its row.

#include <Eigen/Core>

#include <cstdint>
#include <string>
#include <vector>

namespace mbdrom {

/// How the rows of a design were chosen.
enum class DesignType { Grid, List, LatinHypercube, Sobol };

/// "grid", "list", "latin-hypercube", "sobol".
std::string designTypeName(DesignType type);
/// The type of a name as designTypeName writes it (also "lhs"); throws InputError naming the known ones.
DesignType designTypeFromName(const std::string& name);

/// One varied parameter: its levels (grid) or its range (space-filling designs).
struct DesignFactor {
  std::string parameter;       ///< name as design_parameter.h reads it
  std::vector<double> levels;  ///< grid: the values, in order
  double low = 0.0;            ///< range [low, high] of a Latin hypercube or Sobol design
  double high = 0.0;
};

/// The runs of a sweep.
struct ExperimentDesign {
  DesignType type = DesignType::List;
  std::uint64_t seed = 0;               ///< Latin hypercube: the seed of its permutations
  std::vector<std::string> parameters;  ///< one per column, unique
  Eigen::MatrixXd points;               ///< runs x parameters, the values of each run
  std::vector<std::string> runNames;    ///< one per row, unique (file names of the runs' outputs)

  int runs() const { return static_cast<int>(points.rows()); }
  /// 16 hex digits: FNV-1a 64 of the type, seed, parameters, run names and values (bit patterns).
  std::string hash() const;
};

/// Every combination of the factors' levels (the first factor varies slowest).
/// Throws InputError for a factor without levels or a non-finite level.
ExperimentDesign gridDesign(const std::vector<DesignFactor>& factors);
/// `runs` points of a Latin hypercube over the factors' ranges: each range cut
/// into `runs` equal strata, one point per stratum and parameter, strata paired
/// by random permutations and placed at random within them (std::mt19937_64
/// with `seed`, so the same seed gives the same design everywhere).
ExperimentDesign latinHypercubeDesign(const std::vector<DesignFactor>& factors, int runs, std::uint64_t seed);
/// The first `runs` points of the Sobol sequence (unscrambled, Gray-code order,
/// the first point at the ranges' low ends) over the factors' ranges; up to
/// kMaxSobolDimensions factors. Balanced when `runs` is a power of two.
ExperimentDesign sobolDesign(const std::vector<DesignFactor>& factors, int runs);
/// A design from a table the user gives (rows x parameters); run names "run_<k>".
ExperimentDesign listDesign(std::vector<std::string> parameters, Eigen::MatrixXd points);

/// Checks a design: at least one run and one parameter, unique parameter and run
/// names, finite values, no two runs at the same point. Throws InputError naming
/// the parameter or the two runs.
void checkDesign(const ExperimentDesign& design);

/// The design table file's text (see the file comment).
std::string designTableText(const ExperimentDesign& design);
/// Reads a design table: the written form (its header comment gives the type and
/// seed, and its hash must match), or a plain CSV the user wrote (a header of
/// parameter names, optionally a first column `run`; a list design). Checked as
/// checkDesign; throws InputError prefixed by `source` and naming the line.
ExperimentDesign parseDesignTable(const std::string& text, const std::string& source);

/// The Sobol sequence's points k = 0 .. n-1 in [0, 1)^dimensions (n x dimensions).
Eigen::MatrixXd sobolPoints(int n, int dimensions);
inline constexpr int kMaxSobolDimensions = 21;

}  // namespace mbdrom
