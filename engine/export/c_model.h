#pragma once
/// @file
/// A trained reduced model as plain C: one header and one source with no
/// runtime, fixed memory and no allocation, for a controller (export-c) or inside an
/// FMU (fmu_export.h). The generated source holds the mechanism's part the method's
/// online step calls into (gravity, the load case's loads with their magnitudes as
/// inputs, the output points) as constant tables, the method's own matrices, and the
/// method's step, written by the method (ReducedModel::writeC).
///
/// Inputs: one per load of the load case [N or N m], its start value the load's value
/// at t = 0, held over each step. Outputs: per chosen point its position [m] and
/// velocity [m/s] (x, y, z each), the reduced coordinates, and the distance outside the
/// training envelope (0 inside; as a run's envelope_distance channel).

#include "engine/model/model.h"

#include <Eigen/Core>

#include <string>
#include <vector>

namespace mbdrom {

class ReducedModel;

/// One variable of the exported model's interface.
struct CVariable {
  std::string name;              ///< e.g. "W.x", "qd.W.x", "x_r1", "envelope_distance", a load's name
  std::string unit;              ///< "m", "m/s", "N", "N.m", "" (dimensionless)
  std::string description;       ///< one line for the FMU's modelDescription
  double start = 0.0;            ///< inputs and parameters: the start value
  bool dependsOnInputs = false;  ///< outputs: on the current inputs too, not on the state alone
  bool integer = false;          ///< outputs: a whole number (local PCA's cluster)
  /// Inputs and parameters: the range trained on (min > max: not known).
  double min = 1.0, max = -1.0;
  bool hasRange() const { return min <= max; }
};

/// What the method writes into the generated source (ReducedModel::writeC).
///
/// The method's C code defines (static) `method_init(S*)` (the state at t = 0 after the
/// runtime zeroed it), `method_step(S*, double t, double dt)` (from t - dt to t, the
/// inputs s->u held), `method_failure(const S*)` (0, or why the run stops: STOP_DIVERGED,
/// STOP_NOT_ASSEMBLED or STOP_LEFT_RANGE, which the method may keep in its state),
/// `method_coordinates(S*, double* q,
/// double* qd)` (the natural coordinates and velocities, NQ each),
/// `method_reduced(const S*, double* xr)` (NR values) and
/// `method_envelope_state(S*, const double* q, const double* qd, double* e)` (NE values,
/// its ReducedModel::envelopeState). S is the state struct; the runtime offers
/// `external_forces(s, q, f)` (gravity + the held loads at q, NQ values [N]).
class CModelWriter {
 public:
  /// A constant array `name` of `values`, row by row (a vector: its entries).
  void constant(const std::string& name, const Eigen::MatrixXd& values);
  /// A constant array `name` of `values`.
  void constant(const std::string& name, const std::vector<double>& values);
  /// C declarations (types, tables) placed with the constants, before the macros and code.
  void declarations(const std::string& text) { constants_ += text; }
  /// `n` doubles of the method's state: `name` is a macro giving a pointer to them in the
  /// state `s` in scope (`name[i]`).
  void state(const std::string& name, int n);
  /// `n` doubles of scratch space, the same way.
  void scratch(const std::string& name, int n);
  /// C code of the method (its functions, after the constants and macros).
  void code(const std::string& text) { code_ += text; }
  /// The names of the reduced coordinates it outputs (NR).
  void reducedCoordinates(std::vector<std::string> names) { reduced_ = std::move(names); }
  /// The size of its envelope state (0: none).
  void envelopeStateSize(int n) { envelopeState_ = n; }

  const std::string& constants() const { return constants_; }
  const std::string& macros() const { return macros_; }
  const std::string& methodCode() const { return code_; }
  int stateSize() const { return stateSize_; }
  int scratchSize() const { return scratchSize_; }
  const std::vector<std::string>& reduced() const { return reduced_; }
  int envelopeState() const { return envelopeState_; }

 private:
  std::string constants_, macros_, code_;
  int stateSize_ = 0, scratchSize_ = 0, envelopeState_ = 0;
  std::vector<std::string> reduced_;
};

/// A C double literal that reads back exactly (17 significant digits at most; HUGE_VAL, NAN).
std::string cNumber(double x);

/// A C array literal of `values` ("{1, 2.5, ...}"), each number written so that it
/// reads back exactly (17 significant digits); an empty array gives "{0}".
std::string cArrayLiteral(const Eigen::MatrixXd& values);

/// A C int array literal of `values` ("{0}" when empty).
std::string cIntArrayLiteral(const std::vector<int>& values);

/// The generated model.
struct CModel {
  std::string identifier;    ///< C prefix and FMU modelIdentifier
  std::string header;        ///< IDENTIFIER.h
  std::string source;        ///< IDENTIFIER.c
  double dt = 0.0;           ///< its step [s]
  double trainedSpan = 0.0;  ///< the longest training run [s] (0: not known)
  std::string verdict;       ///< the model's verdict on held-out runs ("" when none)
  std::string created;       ///< when the model was trained (UTC, "" when not known)
  std::string settings;      ///< its training settings, as JSON
  std::vector<CVariable> inputs, outputs, parameters;
  std::string method, methodName, mechanism, loadCase;
};

/// Options of an export.
struct CExportOptions {
  std::string identifier;  ///< C prefix: letters, digits, '_'; starts with a letter
  std::string loadCase;    ///< the load case whose loads become the inputs
  /// The points, vectors or markers whose positions and velocities are outputs (empty:
  /// every marker, or every free basic point when the mechanism has no markers).
  std::vector<std::string> outputs;
  double dt = 0.0;  ///< the step [s]; 0: the model's own (ReducedModel::ownStep)
};

/// `rom` of `model` as C. Throws InputError when `rom` was trained for another
/// mechanism, for an unknown load case or output name, a bad identifier, a step of its
/// method's refusing, or a method that cannot be exported (saying so).
CModel exportCModel(const ReducedModel& rom, const Model& model, const CExportOptions& options);

/// `text` with "@KEY@" replaced by each value (the generated sources' templates).
std::string fillTemplate(std::string text, const std::vector<std::pair<std::string, std::string>>& values);

/// A C identifier from a file name ("macpherson pca.fmu" -> "macpherson_pca").
std::string cIdentifierFrom(const std::string& name);

}  // namespace mbdrom
