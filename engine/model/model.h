#pragma once
/// @file
/// A validated, compiled, constant natural-coordinate mechanism.
///
/// Coordinates `q` are the x, y, z of every free basic point, then of every free
/// basic unit vector, each in declaration order (points first). Fixed points
/// and vectors are constants. Each rigid body expresses its points as constant
/// combinations of 4 basic entities (its basis: an origin point and three
/// independent directions, each a point difference or a unit vector), which
/// makes the mass matrix constant.

#include "engine/model/combination.h"
#include "engine/model/model_spec.h"

#include <Eigen/Core>
#include <Eigen/SparseCore>

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace mbdrom {

/// One row of Phi(q, t) = sum_j alpha_j(t) * a_j(q).b_j(q) - c(t); every
/// constraint of the model has this form (quadratic in q).
struct ConstraintRow {
  enum class Law {
    Constant,    ///< one product, alpha = 1, c constant
    Distance,    ///< distance driver: alpha = 1, c = f(t)^2
    Coordinate,  ///< coordinate driver: alpha = 1, c = f(t)
    Angle,       ///< angle driver: alpha = (sin f, -cos f), c = 0
  };
  struct Product {
    Combination a, b;
  };
  std::string label;  ///< names the body, joint or driver, e.g. `joint "ball" (spherical): x`
  std::vector<Product> products;
  Law law = Law::Constant;
  double c = 0.0;   ///< Law::Constant
  int driver = -1;  ///< index into spec().drivers for driver laws
};

/// A body after compilation.
struct CompiledBody {
  BodyType type = BodyType::Rigid;
  std::vector<int> entities;   ///< entity ids (points: i, vectors: npoints + i), basis first
  std::array<int, 4> basis{};  ///< entity ids of the basis: origin point, then 3 (rigid) or 1 (bar)
  Combination origin;          ///< origin point
  std::array<Combination, 3> directions;                      ///< basis directions (rigid: 3; bar: 1)
  Eigen::Matrix3d directions0 = Eigen::Matrix3d::Identity();  ///< reference directions as columns
  Eigen::Vector3d origin0 = Eigen::Vector3d::Zero();          ///< reference origin [m]
};

struct CompiledMarker {
  std::string name;
  int body = -1;
  Combination position;
};

struct CompiledSpringDamper {
  Combination p1, p2;
  Combination d;  ///< p2 - p1
};

struct CompiledFriction {
  Combination p1, p2, axis;
  Combination r;  ///< p2 - p1
};

struct CompiledLoad {
  LoadSpec::Type type = LoadSpec::Type::Force;
  Combination point;  ///< force: point of application
  /// torque: the body's basis directions d_j (3 for a rigid body, 1 for a bar) and
  /// s * inverse of their reference Gram matrix (s = 1/2 rigid, 1 bar); the
  /// generalized force on d_i is sum_j gramInverse(i, j) * (tau x d_j).
  std::vector<Combination> directions;
  Eigen::MatrixXd gramInverse;
  Eigen::Vector3d direction = Eigen::Vector3d::Zero();  ///< global, per unit of f(t) [N or N m]
  TimeFunction function;
};

/// Largest model with dense nq x nq matrices (mass matrix, Jacobians of the
/// integrators, statics and modes): 16,000 coordinates, 2 GB per matrix. Larger
/// models load, and their mobility is analysed sparse; dense paths refuse them.
inline constexpr int kMaxDenseCoordinates = 16000;
/// From this many coordinates on, the analyses that serve every size (scales,
/// mobility, assembly, the Dormand-Prince integrator, sample outputs) work on
/// sparse matrices; below it they keep their dense arithmetic.
inline constexpr int kLargeModelCoordinates = 1500;

class Model {
 public:
  /// Validates and compiles. Throws ModelError naming the offending entry.
  explicit Model(ModelSpec spec);

  const ModelSpec& spec() const { return spec_; }

  /// Number of natural coordinates.
  int nq() const { return static_cast<int>(q0_.size()); }
  /// Number of constraint equations (rows of Phi).
  int nc() const { return static_cast<int>(constraints_.size()); }
  /// Reference coordinates (the positions written in the model) [m, -], size nq.
  const Eigen::VectorXd& q0() const { return q0_; }
  /// Constant mass matrix [kg], nq x nq, symmetric positive semi-definite, dense:
  /// built on first use (thread-safe), for models of at most kMaxDenseCoordinates
  /// coordinates; throws ModelError for larger ones, before allocating.
  const Eigen::MatrixXd& massMatrix() const;
  /// The same mass matrix in compressed column storage [kg]; any size.
  const Eigen::SparseMatrix<double>& massMatrixSparse() const { return Ms_; }
  /// Gravity generalized force [N], size nq (part of f_ext).
  const Eigen::VectorXd& gravityForce() const { return fGravity_; }

  /// Name of coordinate i, e.g. "BJ.x" or "u_s.z".
  const std::string& coordinateName(int i) const { return coordinateNames_[static_cast<std::size_t>(i)]; }
  /// First coordinate of point i (spec().points order), or -1 when fixed.
  int pointCoordinate(int point) const { return pointIndex_[static_cast<std::size_t>(point)]; }
  /// Reference direction of vector i, normalised [-] (the file's value to 1e-4).
  const Eigen::Vector3d& vectorDirection(int vector) const {
    return directions_[static_cast<std::size_t>(vector)];
  }
  /// First coordinate of vector i (spec().vectors order), or -1 when fixed.
  int vectorCoordinate(int vector) const { return vectorIndex_[static_cast<std::size_t>(vector)]; }

  /// Indices into spec() lists by name, or -1.
  int findPoint(const std::string& name) const;
  int findVector(const std::string& name) const;
  int findBody(const std::string& name) const;
  int findMarker(const std::string& name) const;
  int findLoadCase(const std::string& name) const;
  /// Index of the load case `name`; throws InputError naming the ones that exist.
  int requireLoadCase(const std::string& name) const;

  const std::vector<ConstraintRow>& constraints() const { return constraints_; }
  const std::string& constraintLabel(int row) const {
    return constraints_[static_cast<std::size_t>(row)].label;
  }

  const std::vector<CompiledBody>& bodies() const { return bodies_; }
  const std::vector<CompiledMarker>& markers() const { return markers_; }
  const std::vector<CompiledSpringDamper>& springDampers() const { return springs_; }
  const std::vector<CompiledFriction>& frictions() const { return frictions_; }
  /// Loads of load case i.
  const std::vector<CompiledLoad>& loads(int loadCase) const {
    return loads_[static_cast<std::size_t>(loadCase)];
  }

  /// Holds load `load` of load case `loadCase` at `value` (its function becomes that
  /// constant; direction and point unchanged): for a copy its owner drives as an FMU's
  /// inputs are driven (held_input_run.h). The mechanism and its hash are unchanged.
  void holdLoad(int loadCase, int load, double value) {
    loads_[static_cast<std::size_t>(loadCase)][static_cast<std::size_t>(load)].function =
        TimeFunction::constant(value);
    ++loadHolds_;
  }
  /// Calls of holdLoad so far: a reduced run's stepper that reuses forces computed at a sample
  /// recomputes them once this changed.
  long long loadHolds() const { return loadHolds_; }

  /// A point (basic point or marker) by name as a combination of q; throws ModelError if unknown.
  Combination pointCombination(const std::string& name) const;
  /// A body-fixed vector with reference value v0 on body b (-1: ground) as a combination of q.
  /// Throws ModelError when the body cannot carry it (particle; bar and v0 off its axis).
  Combination bodyVector(int body, const Eigen::Vector3d& v0) const;
  /// A body-fixed point with reference position r0 on body b (-1: ground).
  Combination bodyPoint(int body, const Eigen::Vector3d& r0) const;

  /// Mechanism hash: FNV-1a 64 of the canonical serialization without load cases.
  std::uint64_t mechanismHash() const { return hash_; }
  /// Whether a hash recorded in a file (trained model, dataset) is this
  /// mechanism's: its hash, or the legacy one (model_file.h).
  bool matchesHash(std::uint64_t hash) const { return hash == hash_ || hash == legacyHash_; }

 private:
  Combination entityCombination(int entity) const;
  Eigen::Vector3d entityReference(int entity) const;
  std::string entityName(int entity) const;
  void compileCoordinates();
  void compileBodies();
  void compileMarkers();
  void compileJoints();
  void compileDrivers();
  void compileForces();
  void compileLoads();
  void addRow(ConstraintRow row, Eigen::MatrixXd* implied = nullptr);
  void addClusterGradients(Eigen::MatrixXd& implied, const std::vector<int>& cluster) const;

  ModelSpec spec_;
  Eigen::VectorXd q0_;
  Eigen::SparseMatrix<double> Ms_;
  std::vector<Eigen::Triplet<double>> massEntries_;  // while compiling
  struct DenseMass {
    std::once_flag once;
    Eigen::MatrixXd M;
  };
  std::shared_ptr<DenseMass> denseMass_ = std::make_shared<DenseMass>();  // shared by copies: M is constant
  Eigen::VectorXd fGravity_;
  std::vector<std::string> coordinateNames_;
  std::vector<int> pointIndex_, vectorIndex_;
  std::vector<ConstraintRow> constraints_;
  std::vector<Eigen::Vector3d> directions_;  // normalised reference directions of the vectors
  std::vector<CompiledBody> bodies_;
  std::vector<CompiledMarker> markers_;
  std::vector<CompiledSpringDamper> springs_;
  std::vector<CompiledFriction> frictions_;
  std::vector<std::vector<CompiledLoad>> loads_;
  long long loadHolds_ = 0;
  std::uint64_t hash_ = 0;
  std::uint64_t legacyHash_ = 0;
  std::unordered_map<std::string, int> pointByName_, vectorByName_,
      bodyByName_;  // names are unique (checked)
};

/// Position of basic point i at q [m].
Eigen::Vector3d pointPosition(const Model& model, const Eigen::VectorXd& q, int point);
/// Value of basic unit vector i at q [-].
Eigen::Vector3d vectorValue(const Model& model, const Eigen::VectorXd& q, int vector);
/// Position of marker i at q [m].
Eigen::Vector3d markerPosition(const Model& model, const Eigen::VectorXd& q, int marker);

}  // namespace mbdrom
