#pragma once
/// @file
/// Sparse identification of unknown equation-of-motion terms (Slimak et al. 2023, SINDy):
///
///     M q̈ = f^k(q, q̇, t) + f^u(q, q̇, t),   f^u ≈ Ξᵀ λ(q, q̇, t).
///
/// Identification works on n independent coordinates u (displacements from a
/// reference, e.g. the model's reference configuration). Data in natural
/// coordinates are projected with a null-space basis R of Φ_q whose rows of the
/// independent coordinates are the identity (q̇ = R u̇): the target of coordinate
/// i is [Rᵀ (M q̈ − f^k)]_i, so the constraint forces (Φ_qᵀ λ, with Φ_q R = 0) drop
/// out. The regression target is M q̈ − f^k (Slimak et al.'s pseudo-code writes F^k − M Q̈,
/// which flips every sign of Ξ relative to its own equation and tables).
///
/// Library λ: a constant, monomials of (u, u̇) up to a degree with cross terms,
/// sgn(u̇), sin/cos(u), cos/sin(k ω t) for given ω and harmonics k, and
/// user-named columns (e.g. a friction model evaluated on the data). Term names
/// are readable text: `1`, `u`, `u_dot`, `u^2*u_dot`, `sgn(u_dot)`, `sin(u)`,
/// `cos(1.2t)`, `cos(3.6t)`, and the user's names.
///
/// STLS (Slimak et al. 2023, Algorithm 1), per coordinate: least squares, coefficients below κ
/// set to zero, refit on the surviving terms, repeated until the support no longer
/// changes. Options: column normalisation (κ then applies to ξ_j · rms(column j),
/// the term's typical contribution [N]) and a ridge term. Every fit reports its
/// normalised residual ‖y − Θ ξ‖ / ‖y‖ per coordinate; above 10 % the library is
/// missing something and the result says so.
///
/// Naming: N samples, n coordinates, L library terms; Θ is N x L (one column per
/// term), Ξ is L x n (one column per coordinate, as in Slimak et al. 2023), the coefficient
/// table prints its transpose (terms as columns, coordinates as rows).

#include "engine/data/dataset.h"
#include "engine/data/trajectory_csv.h"
#include "engine/model/model.h"
#include "engine/rom/sindy/savitzky_golay.h"

#include <Eigen/Core>

#include <string>
#include <utility>
#include <vector>

namespace mbdrom {

/// Which candidate terms the library holds.
struct SindyLibraryOptions {
  int polynomialDegree = 3;  ///< monomials of (u, u̇) of total degree 1..this, cross terms included; 0: none
  bool constant = true;      ///< the term `1`
  bool signVelocity = true;  ///< sgn(u̇_i) per coordinate (0 at u̇ = 0)
  bool trigPositions = false;     ///< sin(u_i), cos(u_i) per coordinate (u in rad)
  std::vector<double> omegas;     ///< excitation angular frequencies ω [rad/s]
  std::vector<int> harmonics{1};  ///< k of cos(k ω t) for every ω, each >= 1
  bool sineTime = false;          ///< also sin(k ω t)
  /// When not empty: keep only these terms, in this order (names as built); unknown names are an error.
  std::vector<std::string> select;
};

/// One candidate term; evaluable at any state so an identified model can be simulated.
struct SindyTerm {
  /// Column: a user's or friction column (never left out); Element: a spring-damper's geometry
  /// column (sindy_element_terms.h), left out where the data cannot tell it from the others.
  enum class Kind { Constant, Monomial, Sign, Sin, Cos, CosTime, SinTime, Column, Element };
  Kind kind = Kind::Constant;
  std::string name;
  std::vector<int> powers;  ///< Monomial: powers of u_0..u_{n-1}, then of u̇_0..u̇_{n-1} (size 2n)
  int coordinate = 0;       ///< Sign (of u̇), Sin, Cos (of u): the coordinate
  double omega = 0.0;       ///< CosTime, SinTime: k ω [rad/s]
  int column = 0;           ///< Column, Element: index of the column among the columns given
};

/// A user-named library column, evaluated on the data (size N).
struct SindyColumn {
  std::string name;
  Eigen::VectorXd values;  ///< one value per sample [any unit], size N
};

/// Regression data in independent coordinates.
struct SindySamples {
  std::vector<std::string> coordinates;  ///< names of the n coordinates (e.g. "u" or "P.x")
  Eigen::VectorXd t;                     ///< time [s], size N, strictly increasing
  Eigen::MatrixXd u;                     ///< positions from the reference [m, rad], n x N
  Eigen::MatrixXd ud;                    ///< velocities [m/s, rad/s], n x N
  Eigen::MatrixXd target;                ///< y = Rᵀ(M q̈ − f^k) [N, N m], n x N
  /// Rᵀ M q̈ [N, N m], n x N: each coordinate's own inertial force, the scale its residual is
  /// judged against (StlsOptions::motionScale); empty for measured data without a mechanism.
  Eigen::MatrixXd inertia;
  /// For the weak form (sindyWeakForm), when asked for: y = ṗ + g with the momentum
  /// p = Rᵀ M q̇ [N s, N m s] and g = −Ṙᵀ M q̇ − Rᵀ f^k [N, N m] (Ṙ along the motion), n x N
  /// each: neither needs the accelerations.
  Eigen::MatrixXd momentum, force;
  /// With keepBases: per sample, the basis R (nq x n) whose rows of the coordinates are the identity.
  std::vector<Eigen::MatrixXd> bases;
};

/// The library of a data set.
struct SindyLibrary {
  std::vector<SindyTerm> terms;  ///< size L
  Eigen::MatrixXd Theta;         ///< term values, N x L
  std::vector<std::string> names() const;
};

/// The terms for n coordinates named `coordinates` (user columns appended with
/// their names, the last `elementColumns` of them of kind Element). Throws InputError for bad
/// options or an unknown selected name.
std::vector<SindyTerm> sindyTerms(const std::vector<std::string>& coordinates,
                                  const SindyLibraryOptions& options,
                                  const std::vector<std::string>& columnNames = {},
                                  std::size_t elementColumns = 0);

/// Value of a term at one state: u, ud (size n), t [s], user column values `columns` (per column).
double evalSindyTerm(const SindyTerm& term, const Eigen::VectorXd& u, const Eigen::VectorXd& ud, double t,
                     const Eigen::VectorXd& columns);

/// Checks the samples (sizes, finite values naming the row (1-based sample), strictly
/// increasing time naming the row) and builds Θ. Throws InputError.
SindyLibrary buildSindyLibrary(const SindySamples& samples, const SindyLibraryOptions& options,
                               const std::vector<SindyColumn>& columns = {});

/// Why columns of Θ cannot be fitted together, the first reason found: a column that is zero, a
/// pair of duplicates (proportional: cosine beyond 1 - 1e-10), or the columns (indices, ascending)
/// that the weakest direction of their Gram matrix (unit columns) holds, where its eigenvalue is at
/// most 1e-11 of the largest.
struct SindyColumnDependence {
  enum class Kind { None, Zero, Duplicates, Dependent };
  Kind kind = Kind::None;
  std::vector<Eigen::Index> columns;  ///< the zero column, the pair, or the dependence's columns
};
/// The dependence of Θ's columns (N x L); Kind::None when they are independent.
SindyColumnDependence sindyColumnDependence(const Eigen::MatrixXd& Theta);

/// Throws InputError when columns of Θ (N x L) are zero, duplicates (named in pairs) or
/// linearly dependent (the columns of the dependence named): sindyColumnDependence.
void checkSindyColumns(const Eigen::MatrixXd& Theta, const std::vector<std::string>& names);

struct StlsOptions {
  double kappa = 0.05;  ///< threshold on |ξ| (normalised: on |ξ_j| rms(column j); relative: a share), >= 0
  bool normalise = false;  ///< scale columns to unit RMS before thresholding (file comment)
  /// κ as a share, free of the data's units: a term stays when its typical contribution
  /// |ξ_j| rms(column j) is at least κ times the coordinate's force scale, the larger of its
  /// target's RMS and its motionScale. With κ < 1, a coordinate whose whole target is below κ
  /// times its motionScale carries no unknown force: its row is zero, not an error.
  bool relative = false;
  double ridge = 0.0;      ///< ridge weight α >= 0 [-]: adds α ‖ξ̂‖² per sample on unit-RMS columns
  int maxIterations = 50;  ///< STLS iterations per coordinate
  double incompleteResidual = 0.10;  ///< normalised residual above which the library is called incomplete
  /// RMS noise of the targets per coordinate [N, N m] (e.g. from estimated accelerations; empty:
  /// none). It alone leaves the normalised residual floor = noise √N / ‖y‖; the library is called
  /// incomplete when the residual beyond it, √(r² − floor²), exceeds incompleteResidual.
  std::vector<double> targetNoise;
  /// RMS of each coordinate's own inertial force over the data [N, N m] (sindyMotionScale;
  /// empty: none). The normalised residual is ‖y − Θ ξ‖ over the larger of ‖y‖ and this
  /// scale times √N: a coordinate whose target is near zero (it carries no unknown force)
  /// is judged against its motion, not against zero.
  std::vector<double> motionScale;
  /// When > 0, a coordinate whose every term falls below κ (that carries an unknown force) is
  /// fitted with the largest κ, halving from its largest term, whose fit is complete (else the
  /// best found), if that κ is at least this one, and named in StlsResult::lowered, instead of
  /// an error.
  double lowerWhereEmptyTo = 0.0;
};

/// Result of one STLS fit.
struct StlsResult {
  std::vector<std::string> terms;        ///< term names, size L
  std::vector<std::string> coordinates;  ///< coordinate names, size n
  Eigen::MatrixXd Xi;                    ///< coefficients, L x n [N per term unit]
  Eigen::VectorXd residual;        ///< ‖y − Θ ξ‖ / max(‖y‖, motion) per coordinate [-], size n
  std::vector<int> iterations;     ///< STLS iterations per coordinate
  bool libraryIncomplete = false;  ///< some residual > incompleteResidual
  std::string verdict;             ///< one line: fine, or which coordinate the library misses
  /// The coordinates fitted with a smaller κ (StlsOptions::lowerWhereEmptyTo) and that κ.
  std::vector<std::pair<std::string, double>> lowered;
  int activeTerms() const;  ///< non-zero coefficients
};

/// STLS of Y ≈ Θ Ξ per coordinate. Θ: N x L, Y: N x n. Throws InputError for bad
/// options or sizes, for dependent columns (checkSindyColumns), and, unless
/// StlsOptions::lowerWhereEmptyTo finds a smaller κ that keeps terms, when κ removes every
/// term of a coordinate that carries an unknown force (naming it, the largest coefficient,
/// and a κ that keeps terms with what it keeps), never a silent zero model.
StlsResult stls(const Eigen::MatrixXd& Theta, const Eigen::MatrixXd& Y, const std::vector<std::string>& terms,
                const std::vector<std::string>& coordinates, const StlsOptions& options);

/// One point of a κ sweep.
struct SindySweepPoint {
  double kappa = 0.0;
  int terms = 0;          ///< non-zero coefficients over all coordinates
  double residual = 0.0;  ///< max normalised residual over the coordinates [-]
};

/// STLS for every κ in `kappas` (empty: 25 values log-spaced from 1e-3 to 10 times the
/// largest least-squares |ξ|, same scale as the options say). A κ that removes every
/// term gives residual 1 and 0 terms. Sorted by κ.
std::vector<SindySweepPoint> sindyKappaSweep(const Eigen::MatrixXd& Theta, const Eigen::MatrixXd& Y,
                                             const StlsOptions& options, std::vector<double> kappas = {});
/// The Pareto front of a sweep (fewest terms for each residual level): points no other beats in both.
std::vector<SindySweepPoint> sindyPareto(const std::vector<SindySweepPoint>& sweep);

/// Coefficient table in Slimak et al.'s layout: a header line of term names, then one line
/// per coordinate (name, then the coefficients; zeros print as 0).
std::string sindyCoefficientTable(const StlsResult& result);
/// The identified equations as text, one line per coordinate:
/// `u: [M q̈ − f^k]_u = 1*u - 0.3*u_dot - 1*u^3 + 0.65*cos(1.2t)`.
std::string sindyEquations(const StlsResult& result);

/// Which of the model's forces are known (f^k); all off: f^k = 0.
struct SindyKnownForces {
  bool external = false;  ///< gravity + loads of the run's load case (f_ext of the data)
  bool spring = false;    ///< every spring: −f_spring of the data
  bool damper = false;    ///< every damper: −f_damper of the data
  /// Named spring-dampers (spring and damper force of each), evaluated by the model on the
  /// data; an unknown name is an InputError naming the ones that exist.
  std::vector<std::string> elements;
};

/// Null-space basis R (nq x n) of Φ_q at q (size nq), t [s], normalised so its rows of
/// `independent` are the identity. Throws InputError when the coordinates are not
/// independent there (their rows are singular) or their count is not the DOF.
Eigen::MatrixXd independentBasis(const Model& model, const Eigen::VectorXd& q, double t,
                                 const std::vector<int>& independent);

/// Regression samples of a run of `model` in the coordinates `independent` (indices
/// into q; their count must be the DOF), displacements from `qRef` (size nq; empty:
/// model.q0()). target = Rᵀ(M q̈ − f^k). Throws InputError.
/// weakForm: also fills momentum and force; keepBases: bases.
SindySamples sindySamplesFromRun(const Model& model, const DatasetRun& run,
                                 const std::vector<int>& independent, const SindyKnownForces& known,
                                 const Eigen::VectorXd& qRef = {}, bool weakForm = false,
                                 bool keepBases = false);

/// The weak (integral) form of the regression (Messenger and Bortz's weak SINDy): for test
/// functions φ_j(t) = ((t − a)(b − t))² on windows [a, b] of `window` samples (odd, >= 5),
/// every window/2 samples, ∫ φ_j y dt = −∫ φ_j' p dt + ∫ φ_j g dt = Σ_l ξ_l ∫ φ_j Θ_l dt
/// (trapezoidal rule). No acceleration enters; the noise of the velocities is averaged over
/// the window. Needs s.momentum and s.force.
struct SindyWeakRows {
  Eigen::MatrixXd Theta;                 ///< ∫ φ_j Θ_l dt, windows x L
  Eigen::MatrixXd Y;                     ///< ∫ φ_j y dt, windows x n
  std::vector<Eigen::Index> lastSample;  ///< each window's last sample (index into s)
};
SindyWeakRows sindyWeakForm(const SindySamples& s, const Eigen::MatrixXd& Theta, int window);
/// The inertial forces of `s` (SindySamples::inertia) as rows like the targets: pointwise
/// (`window` 0, N x n) or in the weak form of that window (the momentum's rows alone).
Eigen::MatrixXd sindyInertiaRows(const SindySamples& s, int window);
/// The RMS of each column of `rows` [N, N m]: StlsOptions::motionScale.
std::vector<double> sindyMotionScale(const Eigen::MatrixXd& rows);
/// The weak form's window for a run of N samples whose derivatives were estimated with a
/// Savitzky-Golay window of `smoothing` samples: that window, at least 9 samples and 2 % of
/// the run, odd.
int sindyWeakWindow(int smoothing, Eigen::Index N);

/// Measured data for identification, with its user columns.
struct SindyMeasured {
  SindySamples samples;              ///< target = M ü − f^k (f^k: the layout's known columns)
  Eigen::MatrixXd udd;               ///< accelerations ü [m/s², rad/s²], n x N (measured or estimated)
  std::vector<SindyColumn> columns;  ///< the user columns, named as the layout says
  /// RMS noise of the estimated accelerations (SmoothedSignal::xddNoise) per coordinate
  /// [m/s², rad/s²], size n; 0 where measured.
  Eigen::VectorXd uddNoise;
  /// The RMS noise it leaves in the target, √(Σ_j M_ij² uddNoise_j²) [N, N m], for StlsOptions::targetNoise.
  std::vector<double> targetNoise;
  /// RMS noise of the measured positions (SmoothedSignal::noise) per coordinate [m, rad],
  /// size n; 0 where not estimated. The held-out rollout's noise estimate starts from it.
  std::vector<double> positionNoise;
  int window = 0;        ///< Savitzky–Golay window used for missing derivatives (0: none estimated)
  int signalWindow = 0;  ///< its cross-validated signal window (0: none estimated)
};

/// Which columns of a measured CSV hold what. Coordinates are named after their position columns.
struct SindyTableLayout {
  std::string time = "t";  ///< time column [s]
  std::vector<std::string>
      positions;  ///< one position column per coordinate (displacements [m, rad]), size n
  std::vector<std::string>
      velocities;  ///< empty (estimate all) or size n; "" estimates that coordinate's [m/s, rad/s]
  std::vector<std::string>
      accelerations;  ///< empty (estimate all) or size n; "" estimates that coordinate's [m/s², rad/s²]
  /// User library columns: (library name, CSV column) [any unit], e.g. ("f_fric", "friction").
  std::vector<std::pair<std::string, std::string>> columns;
  /// Known force columns f^k [N, N m] (one coordinate only), subtracted from the target.
  std::vector<std::string> known;
  SavitzkyGolayOptions smoothing;  ///< for missing derivatives (window 0: automatic)
};

/// Measured data from a CSV table (readTrajectoryCsv / parseTrajectoryCsv) as the layout says.
/// Missing derivatives are estimated by Savitzky–Golay (savitzky_golay.h; needs uniform
/// sampling; window automatic unless given); the positions of a coordinate with an estimated
/// derivative are replaced by their smoothed values, so Θ and the target see the same smoothing.
/// target = M ü − f^k, M: n x n [kg, kg m²], f^k the sum of the `known` columns (0 without). Throws
/// InputError naming a missing column (and the columns that exist), a NaN or infinite value with its row
/// (1-based data row and file line), a time that does not increase (row), a non-uniform step when derivatives
/// are estimated (row), and too few samples for the Savitzky–Golay window.
SindyMeasured sindyMeasuredFromTable(const TrajectoryTable& table, const SindyTableLayout& layout,
                                     const Eigen::MatrixXd& M);

/// The same with the layout of trajectory-style names: column `t`; per coordinate `c` of
/// `coordinates` its position column `c` and optionally `c_dot` and `c_ddot`; `extra` columns
/// become user library columns of their own names.
SindyMeasured sindySamplesFromTable(const TrajectoryTable& table, const std::vector<std::string>& coordinates,
                                    const Eigen::MatrixXd& M, const std::vector<std::string>& extra = {});

}  // namespace mbdrom
