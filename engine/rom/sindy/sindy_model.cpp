#include "engine/rom/sindy/sindy_model.h"
#include "engine/rom/sindy/sindy_element_terms.h"
#include "engine/rom/sindy/sindy_stiff_elements.h"

#include "engine/rom/sindy/sindy_coordinates.h"

#include "engine/core/dense_solvers.h"
#include "engine/core/error.h"
#include "engine/core/json_reader.h"
#include "engine/core/message_text.h"
#include "engine/core/ordered_json.h"
#include "engine/core/small_products.h"
#include "engine/data/trajectory_csv.h"
#include "engine/dynamics/assembly.h"
#include "engine/dynamics/mobility.h"
#include "engine/dynamics/scales.h"
#include "engine/model/constraints.h"
#include "engine/model/forces.h"
#include "engine/rom/chart_kinematics.h"
#include "engine/rom/kinematic_grid.h"
#include "engine/rom/kinematic_table.h"
#include "engine/rom/method_registry.h"
#include "engine/rom/reduced_run.h"
#include "engine/rom/rollout_check.h"
#include "engine/rom/rom_support.h"
#include "engine/rom/sindy/rosenbrock_w.h"
#include "engine/rom/sindy/savitzky_golay.h"
#include "engine/rom/sindy/sindy_hints.h"
#include "engine/rom/sindy/sindy_separable.h"

#include <Eigen/LU>
#include <Eigen/QR>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

namespace mbdrom {

namespace {

// The thresholds the κ search judges below κ, as shares of it; the last is the smallest it tries.
constexpr std::array<double, 3> kSmallerKappas{0.1, 0.01, 0.001};

// `to` with the rows of `from` below it (`to` may be empty).
void appendRows(Eigen::MatrixXd& to, const Eigen::MatrixXd& from) {
  const Eigen::Index at = to.rows();
  to.conservativeResize(at + from.rows(), from.cols());
  to.bottomRows(from.rows()) = from;
}

// The terms `wider` keeps that `narrower` removed, comma-separated, per equation: a term
// removed from some coordinates' equations only names them ("C2.x_dot (in C2.x)"), since a
// threshold often drops a small term from one equation and keeps it in another.
std::string termsOnlyIn(const StlsResult& wider, const StlsResult& narrower) {
  std::string out;
  for (Eigen::Index j = 0; j < wider.Xi.rows(); ++j) {
    std::string where;
    bool everywhere = true;
    for (Eigen::Index c = 0; c < wider.Xi.cols(); ++c) {
      const bool removed = wider.Xi(j, c) != 0.0 && narrower.Xi(j, c) == 0.0;
      if (removed)
        where += (where.empty() ? "" : ", ") + wider.coordinates[static_cast<std::size_t>(c)];
      else if (narrower.Xi(j, c) != 0.0)
        everywhere = false;
    }
    if (where.empty()) continue;
    out += (out.empty() ? "" : ", ") + wider.terms[static_cast<std::size_t>(j)] +
           (everywhere ? std::string() : " (in " + where + ")");
  }
  return out;
}

// "columns": [{"name": ..., "source": ...}, ...], each read as an object of its own.
std::vector<SindyColumnSource> columnSources(JsonObjectReader<OJson>& r) {
  const OJson& v = r.array("columns");
  std::vector<SindyColumnSource> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    JsonObjectReader<OJson> c(v[i], {.where = r.where() + ": columns[" + std::to_string(i) + "]"});
    SindyColumnSource column{c.text("name"), c.text("source")};
    c.finish();
    if (column.name.empty() || column.source.empty())
      throw InputError("sindy settings: a column has an empty name or source");
    out.push_back(std::move(column));
  }
  return out;
}

// "auto" becomes external when the runs carry loads (a load case's loads or recorded
// forces beyond gravity): identifying a known load as unknown terms fits the forcing of
// the training runs only (seen on the MacPherson sweep: 133 % on the training load).
std::vector<std::string> resolvedKnownForces(const std::vector<std::string>& names, bool runsCarryLoads) {
  std::vector<std::string> out;
  for (const std::string& n : names) {
    const std::string name = n == "auto" ? (runsCarryLoads ? "external" : "") : n;
    if (name.empty() || name == "none" || std::find(out.begin(), out.end(), name) != out.end()) continue;
    out.push_back(name);
  }
  return out;
}

// Scalar friction force μ N φ(v) of every element (left-hand side, along its axis).
Eigen::VectorXd frictionValues(const Model& model, const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
  const auto& specs = model.spec().frictions;
  Eigen::VectorXd f(static_cast<Eigen::Index>(specs.size()));
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const FrictionSpec& s = specs[i];
    const double v = frictionSlidingVelocity(model, static_cast<int>(i), q, qd);
    const double phi = s.law == FrictionLaw::Tanh ? std::tanh(v / s.regularisationVelocity)
                                                  : (v > 0.0 ? 1.0 : (v < 0.0 ? -1.0 : 0.0));
    f(static_cast<Eigen::Index>(i)) = s.mu * s.normalForce * phi;
  }
  return f;
}

std::vector<std::string> frictionNames(const Model& model) {
  std::vector<std::string> names;
  for (const FrictionSpec& s : model.spec().frictions) names.push_back("f_fric(" + s.name + ")");
  return names;
}

// q̇ and q̈ of a run re-estimated from its positions (uniform sampling required).
// Returns the estimated noise of every natural coordinate's positions [m, rad] and what it
// leaves in the estimated accelerations [m/s², rad/s²] (nq x 2); `window`: the largest window used.
Eigen::MatrixX2d estimateDerivatives(DatasetRun& run, const SindySettings& s, int& window) {
  const Eigen::Index N = run.samples();
  if (N < 3) throw InputError("sindy: run \"" + run.name + "\" has too few samples to estimate derivatives");
  const double h = (run.t(N - 1) - run.t(0)) / static_cast<double>(N - 1);
  for (Eigen::Index k = 1; k < N; ++k)
    if (std::abs(run.t(k) - run.t(k - 1) - h) > 1e-6 * h)
      throw InputError("sindy: run \"" + run.name + "\": row " + std::to_string(k + 1) +
                       ": derivatives can only be estimated from uniformly sampled data");
  SavitzkyGolayOptions o;
  o.order = s.sgOrder;
  o.window = s.sgWindow;
  Eigen::MatrixX2d noise(run.q.rows(), 2);
  for (Eigen::Index i = 0; i < run.q.rows(); ++i) {
    const SmoothedSignal sm = smoothDerivatives(run.q.row(i).transpose(), h, o);
    run.qd.row(i) = sm.xd.transpose();
    run.qdd.row(i) = sm.xdd.transpose();
    noise(i, 0) = sm.noise;
    noise(i, 1) = sm.xddNoise;
    window = std::max(window, sm.window);
  }
  return noise;
}

// Known generalized force f^k [N] at a state (right-hand side convention).
class KnownForceEvaluator {
 public:
  KnownForceEvaluator(const Model& model, const SindyKnownForces& k) : model_(model), known_(k) {
    if (!k.elements.empty()) {
      ModelSpec spec = model.spec();
      std::vector<SpringDamperSpec> chosen;
      for (const SpringDamperSpec& e : spec.springDampers)
        if (std::find(k.elements.begin(), k.elements.end(), e.name) != k.elements.end()) chosen.push_back(e);
      spec.springDampers = std::move(chosen);
      partial_ = std::make_unique<Model>(std::move(spec));
    }
  }
  void eval(int loadCase, const Eigen::VectorXd& q, const Eigen::VectorXd& qd, double t, Eigen::VectorXd& f) {
    f.setZero(model_.nq());
    if (known_.external) {
      evalExternalForces(model_, loadCase, q, t, external_);
      f += external_;
    }
    if (known_.spring) {
      evalSpringForces(model_, q, tmp_);
      f -= tmp_;
    }
    if (known_.damper) {
      evalDamperForces(model_, q, qd, tmp_);
      f -= tmp_;
    }
    if (partial_) {
      evalSpringForces(*partial_, q, tmp_);
      f -= tmp_;
      evalDamperForces(*partial_, q, qd, tmp_);
      f -= tmp_;
    }
  }

  /// The applied loads of the last eval [N] (size nq) when they are known forces; else empty.
  const Eigen::VectorXd& external() const { return external_; }
  bool knowsExternal() const { return known_.external; }

 private:
  const Model& model_;
  SindyKnownForces known_;
  std::unique_ptr<Model> partial_;
  Eigen::VectorXd tmp_, external_;
};

// Per natural coordinate the range of motion of its point (or vector) over every run of `data`:
// the largest range of the point's coordinates; then the same of its rates (2 nq; a point that
// does not move: 1). The scales of RK4's substeps' errors, so that an error is judged as
// mbdrom-cli compare judges a point's, against the point's own motion.
Eigen::VectorXd substepScales(const Model& model, const Dataset& data) {
  const Eigen::Index nq = model.nq();
  Eigen::VectorXd lo = Eigen::VectorXd::Constant(2 * nq, std::numeric_limits<double>::infinity());
  Eigen::VectorXd hi = -lo;
  for (const DatasetRun& run : data.runs) {
    lo.head(nq) = lo.head(nq).cwiseMin(run.q.rowwise().minCoeff());
    hi.head(nq) = hi.head(nq).cwiseMax(run.q.rowwise().maxCoeff());
    lo.tail(nq) = lo.tail(nq).cwiseMin(run.qd.rowwise().minCoeff());
    hi.tail(nq) = hi.tail(nq).cwiseMax(run.qd.rowwise().maxCoeff());
  }
  const Eigen::VectorXd range = (hi - lo).unaryExpr([](double r) { return std::isfinite(r) ? r : 0.0; });
  // Per point (or vector), the largest range of its coordinates and of their rates.
  std::vector<std::string> owner(static_cast<std::size_t>(nq));
  std::map<std::string, std::pair<double, double>> largest;
  for (Eigen::Index i = 0; i < nq; ++i) {
    const std::string& name = model.coordinateName(static_cast<int>(i));
    owner[static_cast<std::size_t>(i)] = name.substr(0, name.rfind('.'));
    auto& [q, qd] = largest[owner[static_cast<std::size_t>(i)]];
    q = std::max(q, range(i));
    qd = std::max(qd, range(nq + i));
  }
  Eigen::VectorXd scale(2 * nq);
  for (Eigen::Index i = 0; i < nq; ++i) {
    const auto& [q, qd] = largest.at(owner[static_cast<std::size_t>(i)]);
    scale(i) = q > 0.0 ? q : 1.0;
    scale(nq + i) = qd > 0.0 ? qd : 1.0;
  }
  return scale;
}

// The figure `name` of the runs of `check` (RolloutCheck::runFigures), 0 where they have none.
double runFigure(const RolloutCheck& check, const std::string& name) {
  const auto it = check.runFigures.find(name);
  return it == check.runFigures.end() ? 0.0 : it->second;
}

// `judge`'s check into `out`; false when it could not be judged (an Error; a stop is a stop).
bool judgedInto(const std::function<RolloutCheck()>& judge, RolloutCheck& out) {
  try {
    out = judge();
    return true;
  } catch (const Cancelled&) {
    throw;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

SindySettings SindySettings::fromJson(const OJson& j) {
  JsonObjectReader<OJson> r(j, {.where = "sindy settings"});
  SindySettings s;
  s.coordinates = r.names("coordinates", s.coordinates);
  s.columns = columnSources(r);
  s.knownForces = r.names("known_forces", s.knownForces);
  SindyLibraryOptions& lib = s.library;
  lib.polynomialDegree = r.integer("polynomial_degree", lib.polynomialDegree);
  lib.constant = r.boolean("constant", lib.constant);
  lib.signVelocity = r.boolean("sign_velocity", lib.signVelocity);
  lib.trigPositions = r.boolean("trig_positions", lib.trigPositions);
  lib.omegas = r.numbers("omegas", lib.omegas, {.note = "[rad/s]"});
  lib.harmonics = r.integers("harmonics", lib.harmonics);
  lib.sineTime = r.boolean("sine_time", lib.sineTime);
  s.frictionColumns = r.boolean("friction_columns", s.frictionColumns);
  s.elementTerms = r.choice("element_terms", s.elementTerms, {"auto", "on", "off"});
  lib.select = r.names("terms", lib.select);
  s.stls.kappa = r.number("kappa", s.stls.kappa, {.min = 0.0});
  s.stls.normalise = r.boolean("normalise", s.stls.normalise);
  // Normalised columns are a form of the absolute threshold: alone, they ask for it.
  const bool absoluteDefault = s.stls.normalise && !j.contains("threshold");
  s.stls.relative = r.choice("threshold", s.stls.relative && !absoluteDefault ? "relative" : "absolute",
                             {"relative", "absolute"}) == "relative";
  if (s.stls.relative && s.stls.normalise)
    throw InputError(
        "sindy settings: normalise applies to an absolute threshold (threshold \"absolute\"); a "
        "relative threshold is a share of each coordinate's force already");
  s.kappaSearch = r.boolean("kappa_search", s.kappaSearch);
  s.stls.ridge = r.number("ridge", s.stls.ridge, {.min = 0.0});
  s.stls.maxIterations = r.integer("max_iterations", s.stls.maxIterations, {.min = 1});
  s.derivatives = r.choice("derivatives", s.derivatives, {"data", "estimate"});
  s.sgOrder = r.integer("sg_order", s.sgOrder, {.min = 2, .max = 6});
  s.sgWindow = r.integer("sg_window", s.sgWindow, {.min = 0, .note = "(0: automatic)"});
  s.formulation = r.choice("formulation", s.formulation, {"auto", "pointwise", "weak"});
  r.finish();
  if (s.sgWindow != 0 && (s.sgWindow % 2 == 0 || s.sgWindow <= s.sgOrder))
    throw InputError("sindy settings: sg_window must be 0 (automatic) or odd and above sg_order");
  // Library options are checked by building the terms for a placeholder coordinate.
  std::vector<std::string> placeholder{"u"};
  SindyLibraryOptions probe = s.library;
  probe.select.clear();
  (void)sindyTerms(placeholder, probe);
  return s;
}

OJson SindySettings::toJson() const {
  OJson j;
  j["coordinates"] = coordinates;
  j["columns"] = OJson::array();
  for (const SindyColumnSource& c : columns)
    j["columns"].push_back(OJson{{"name", c.name}, {"source", c.source}});
  j["known_forces"] = knownForces;
  j["polynomial_degree"] = library.polynomialDegree;
  j["constant"] = library.constant;
  j["sign_velocity"] = library.signVelocity;
  j["trig_positions"] = library.trigPositions;
  j["omegas"] = library.omegas;
  j["harmonics"] = library.harmonics;
  j["sine_time"] = library.sineTime;
  j["friction_columns"] = frictionColumns;
  j["element_terms"] = elementTerms;
  j["terms"] = library.select;
  j["kappa"] = stls.kappa;
  j["normalise"] = stls.normalise;
  j["threshold"] = stls.relative ? "relative" : "absolute";
  j["kappa_search"] = kappaSearch;
  j["ridge"] = stls.ridge;
  j["max_iterations"] = stls.maxIterations;
  j["derivatives"] = derivatives;
  j["sg_order"] = sgOrder;
  j["sg_window"] = sgWindow;
  j["formulation"] = formulation;
  return j;
}

SindyKnownForces sindyKnownForces(const std::vector<std::string>& names) {
  SindyKnownForces k;
  for (const std::string& n : names) {
    if (n == "auto" || n == "none") continue;  // "auto" is resolved at training
    if (n == "external")
      k.external = true;
    else if (n == "springs")
      k.spring = true;
    else if (n == "dampers")
      k.damper = true;
    else
      k.elements.push_back(n);
  }
  return k;
}

std::vector<int> sindyCoordinateIndices(const Model& model, const std::vector<std::string>& names) {
  std::vector<int> out;
  for (const std::string& name : names) {
    int found = -1;
    for (int i = 0; i < model.nq(); ++i)
      if (model.coordinateName(i) == name) found = i;
    if (found < 0)
      throw InputError("sindy: coordinate \"" + name + "\" is not a natural coordinate of the model");
    out.push_back(found);
  }
  return out;
}

DatasetRun sindyRunFromMeasured(const Model& model, const SindyMeasured& measured,
                                const std::vector<int>& independent, int loadCase, const std::string& name,
                                const Eigen::VectorXd& qRefIn, Eigen::MatrixXd* meanReducedMass) {
  const SindySamples& s = measured.samples;
  const Eigen::Index nq = model.nq(), N = s.t.size(), n = static_cast<Eigen::Index>(independent.size());
  const Eigen::VectorXd qRef = qRefIn.size() ? qRefIn : model.q0();
  if (qRef.size() != nq)
    throw InputError("sindy: the reference positions need " + std::to_string(nq) + " values");
  if (s.u.rows() != n || s.ud.rows() != n || measured.udd.rows() != n || s.u.cols() != N ||
      s.ud.cols() != N || measured.udd.cols() != N)
    throw InputError("sindy: the measured data have " + std::to_string(s.u.rows()) +
                     " coordinates, expected " + std::to_string(n) + " (one per independent coordinate)");
  for (int c : independent)
    if (c < 0 || c >= nq)
      throw InputError("sindy: coordinate index " + std::to_string(c) + " is out of range");
  DatasetRun run;
  run.name = name;
  if (loadCase >= 0) run.loadCase = model.spec().loadCases.at(static_cast<std::size_t>(loadCase)).name;
  run.t = s.t;
  for (Eigen::MatrixXd* m : {&run.q, &run.qd, &run.qdd, &run.f_spring, &run.f_damper, &run.f_ext})
    m->resize(nq, N);
  AssemblyOptions assembly;
  assembly.fixedCoordinates = independent;
  assembly.scales = std::make_shared<const MechanismScales>(mechanismScales(model));
  Eigen::VectorXd q = qRef, f;
  if (meanReducedMass) meanReducedMass->setZero(n, n);
  for (Eigen::Index k = 0; k < N; ++k) {
    const std::string row = "row " + std::to_string(k + 1) + " (t = " + std::to_string(s.t(k)) + " s): ";
    for (Eigen::Index i = 0; i < n; ++i) {
      const int c = independent[static_cast<std::size_t>(i)];
      q(c) = qRef(c) + s.u(i, k);
    }
    IndependentSplit split;
    try {
      q = assemblePositions(model, q, s.t(k), assembly).q;  // from the previous sample: same branch
      if (k == 0) (void)independentBasis(model, q, s.t(k), independent);  // their count is the DOF
      split = independentSplit(model, q, s.ud.col(k), s.t(k), independent);
    } catch (const Error& e) {
      throw InputError("sindy: measured " + row +
                       "the mechanism does not assemble at the measured coordinates: " + e.what());
    }
    const Eigen::MatrixXd& R = split.R;
    if (meanReducedMass) *meanReducedMass += R.transpose() * model.massMatrix() * R / static_cast<double>(N);
    run.q.col(k) = q;
    run.qd.col(k) = split.qd;
    run.qdd.col(k) = R * measured.udd.col(k) + split.c;
    evalExternalForces(model, loadCase, q, s.t(k), f);
    run.f_ext.col(k) = f;
    evalSpringForces(model, q, f);
    run.f_spring.col(k) = f;
    evalDamperForces(model, q, split.qd, f);
    run.f_damper.col(k) = f;
  }
  return run;
}

namespace internal {

// What training fits and judges, gathered from the runs: the library on every sample
// (pointwise rows) and, in the weak form, on every test function (weak rows).
struct SindyRows {
  Eigen::MatrixXd Theta, Y, inertia;                                        // pointwise rows of every run
  Eigen::MatrixXd ThetaW, YW, weakInertia;                                  // weak rows (weak form only)
  std::vector<std::pair<Eigen::Index, Eigen::Index>> runRows, runWeakRows;  // each run's [first, end)
  std::vector<Eigen::Index> validationRows, weakValidationRows;  // each run without its last quarter
  std::vector<std::string> termNames;
  SindySamples all;  // every run's samples one after another, for the residual's hints
  Dataset fitted;    // the runs as fitted (estimated derivatives), for the rollouts
  std::vector<double> positionNoise;
  bool weak = false;
  int weakWindow = 0;
  const Eigen::MatrixXd& thetaFit() const { return weak ? ThetaW : Theta; }
  const Eigen::MatrixXd& yFit() const { return weak ? YW : Y; }
};

}  // namespace internal

std::unique_ptr<SindyModel> SindyModel::train(const Dataset& dataset, const SindySettings& settingsIn,
                                              Monitor& monitor, const Model& model,
                                              const std::vector<std::vector<SindyColumn>>& runColumns) {
  SindySettings settings = SindySettings::fromJson(settingsIn.toJson());
  settings.stls.targetNoise = settingsIn.stls.targetNoise;  // a property of the data, not a setting
  if (dataset.runs.empty() || dataset.samples() < 2)
    throw InputError("sindy: the dataset needs at least 2 samples");
  checkDatasetMechanism(dataset, model, "sindy");
  std::string coordinateNote;
  std::unique_ptr<SindyModel> rom = prepare(model, dataset, settings, runColumns, coordinateNote);

  monitor.reportNow({"train sindy: library", 0, 4, {}});
  internal::SindyRows rows = rom->gatherRows(model, dataset, settings, settingsIn, runColumns, monitor);
  const std::vector<std::size_t> heldOut = heldOutRuns(model, dataset);
  const std::string libraryNote =
      settings.library.select.empty() ? rom->leaveOutInseparable(rows, heldOutFitRows(rows, heldOut)) : "";
  monitor.checkpoint();
  monitor.reportNow({"train sindy: STLS", 1, 4, {}});
  rom->checkNoise(rows);
  settings.stls.motionScale = sindyMotionScale(rows.inertia);
  StlsOptions fitOptions = settings.stls;
  // The defaults train on any mechanism: a coordinate whose every term falls below the threshold
  // gets a smaller one, down to the smallest the κ search tries, which the held-out check then
  // judges as it judges the rest.
  if (settings.kappaSearch) fitOptions.lowerWhereEmptyTo = kSmallerKappas.back() * fitOptions.kappa;
  if (rows.weak) {
    fitOptions.targetNoise.clear();
    fitOptions.motionScale = sindyMotionScale(rows.weakInertia);
  }
  rom->result_ = stls(rows.thetaFit(), rows.yFit(), rows.termNames, rom->names_, fitOptions);
  monitor.checkpoint();
  monitor.reportNow({"train sindy: kappa sweep", 2, 4, {}});
  const auto front = sindyPareto(sindyKappaSweep(rows.thetaFit(), rows.yFit(), fitOptions));
  monitor.checkpoint();
  monitor.reportNow({"train sindy: held-out rollout", 3, 4, {}});
  rom->stampTraining(dataset, settings.toJson());
  std::string kind;
  const RolloutCheck rollout =
      rom->validate(model, rows, heldOut, settings.kappaSearch, fitOptions, kind, monitor);
  if (!libraryNote.empty()) {
    rom->result_.verdict += "; " + libraryNote;
    rom->metrics_["library_left_out"] = rom->leftOut_;
  }
  if (!coordinateNote.empty()) {
    rom->result_.verdict += "; " + coordinateNote;
    rom->metrics_["coordinate_choice"] = coordinateNote;
  }
  const std::vector<SindyHint> hints = rom->explain(model, rows, settings.library, kind);
  rom->recordMetrics(rows, kind, rollout, hints, front);
  rom->recordStiffElements(model, dataset);
  // What a second try may add: the geometry of the spring-dampers whose force is identified.
  if (settings.elementTerms == "auto" && settings.library.select.empty())
    if (const std::size_t geometry = rom->geometryTermsOf(model).size())
      rom->metrics_["geometry_terms_available"] = geometry;
  monitor.checkpoint();
  monitor.reportNow({"train sindy", 4, 4, {{"residual", rom->result_.residual.maxCoeff()}}});
  return rom;
}

std::unique_ptr<SindyModel> SindyModel::prepare(const Model& model, const Dataset& dataset,
                                                const SindySettings& settings,
                                                const std::vector<std::vector<SindyColumn>>& runColumns,
                                                std::string& coordinateNote) {
  auto rom = std::make_unique<SindyModel>();
  rom->sindySettings_ = settings;
  // Drivers make the reduced forces depend on time through the driven coordinates (gravity's on a
  // pendulum whose pivot a driver moves), which a library in (u, u̇) cannot express: the model's
  // external forces, gravity among them, are then known as where the runs carry loads.
  const bool externalKnown = runsCarryLoads(model, dataset) || !model.spec().drivers.empty();
  rom->knownForces_ = resolvedKnownForces(settings.knownForces, externalKnown);
  rom->qRef_ = model.q0();
  const DatasetRun& first = dataset.runs.front();
  if (settings.coordinates.empty()) {
    SindyCoordinateChoice choice = chooseSindyCoordinates(
        model, dataset, suggestIndependentCoordinates(model, first.q.col(0), first.t(0)), settings.library,
        rom->qRef_);
    rom->independent_ = std::move(choice.coordinates);
    coordinateNote = std::move(choice.note);
  } else {
    rom->independent_ = sindyCoordinateIndices(model, settings.coordinates);
  }
  for (int i : rom->independent_) rom->names_.push_back(model.coordinateName(i));
  rom->trainedRange_ = coordinateRange(dataset, rom->independent_, rom->qRef_);
  std::vector<std::string> columnNames =
      settings.frictionColumns ? frictionNames(model) : std::vector<std::string>{};
  for (const SindyColumnSource& c : settings.columns) columnNames.push_back(c.name);
  std::vector<std::string> elementNames;
  if (settings.geometryTerms()) elementNames = sindyElementTermNames(rom->geometryTermsOf(model));
  columnNames.insert(columnNames.end(), elementNames.begin(), elementNames.end());
  if (!settings.columns.empty() && runColumns.size() != dataset.runs.size())
    throw InputError("sindy: the user column \"" + settings.columns.front().name + "\" (data column \"" +
                     settings.columns.front().source +
                     "\") needs its values on every run; they come with the data (" +
                     std::to_string(runColumns.size()) + " of " + std::to_string(dataset.runs.size()) +
                     " runs have them)");
  rom->terms_ = sindyTerms(rom->names_, settings.library, columnNames, elementNames.size());
  return rom;
}

internal::SindyRows SindyModel::gatherRows(const Model& model, const Dataset& dataset,
                                           SindySettings& settings, const SindySettings& given,
                                           const std::vector<std::vector<SindyColumn>>& runColumns,
                                           Monitor& monitor) {
  internal::SindyRows rows;
  rows.fitted = makeDataset(model);
  rows.all.coordinates = names_;
  // The weak form where the derivatives are estimated from noisy positions.
  const bool measuredNoise =
      std::any_of(given.positionNoise.begin(), given.positionNoise.end(), [](double x) { return x > 0.0; });
  rows.weak = settings.formulation == "weak" ||
              (settings.formulation == "auto" && (settings.derivatives == "estimate" || measuredNoise));
  rows.positionNoise = given.positionNoise.size() == independent_.size()
                           ? given.positionNoise
                           : std::vector<double>(independent_.size(), 0.0);
  int window = given.estimatedWindow;
  const SindyKnownForces known = sindyKnownForces(knownForces_);
  for (std::size_t r = 0; r < dataset.runs.size(); ++r) {
    monitor.checkpoint();
    DatasetRun run = dataset.runs[r];
    if (settings.derivatives == "estimate")
      estimateRunDerivatives(model, run, settings, given.stls.targetNoise.empty(), window,
                             rows.positionNoise);
    const SindySamples s =
        sindySamplesFromRun(model, run, independent_, known, qRef_, rows.weak, settings.geometryTerms());
    const std::vector<SindyColumn> columns =
        libraryColumns(model, run, s, r < runColumns.size() ? runColumns[r] : std::vector<SindyColumn>{});
    SindyLibrary lib;
    try {
      lib = buildSindyLibrary(s, settings.library, columns);
    } catch (const InputError& e) {
      throw InputError("run \"" + run.name + "\": " + e.what());
    }
    appendRun(rows, run, s, lib, window);
    if (u0_.size() == 0) {
      u0_ = s.u.col(0);
      ud0_ = s.ud.col(0);
    }
  }
  return rows;
}

void SindyModel::estimateRunDerivatives(const Model& model, DatasetRun& run, SindySettings& settings,
                                        bool targetNoiseFromData, int& window,
                                        std::vector<double>& positionNoise) const {
  const Eigen::MatrixX2d noise = estimateDerivatives(run, settings, window);
  const auto n = static_cast<Eigen::Index>(independent_.size());
  Eigen::VectorXd udd(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const int c = independent_[static_cast<std::size_t>(i)];
    positionNoise[static_cast<std::size_t>(i)] =
        std::max(positionNoise[static_cast<std::size_t>(i)], noise(c, 0));
    udd(i) = noise(c, 1);
  }
  // The noise of the estimated accelerations in the targets Rᵀ M R ü (reduced mass at the first
  // sample), unless the caller gave it (measured data).
  if (!targetNoiseFromData) return;
  const Eigen::MatrixXd R = independentBasis(model, run.q.col(0), run.t(0), independent_);
  const Eigen::MatrixXd Mr = R.transpose() * model.massMatrix() * R;
  const Eigen::VectorXd target = (Mr.array().square().matrix() * udd.array().square().matrix()).cwiseSqrt();
  settings.stls.targetNoise.resize(static_cast<std::size_t>(n), 0.0);
  for (Eigen::Index i = 0; i < n; ++i)
    settings.stls.targetNoise[static_cast<std::size_t>(i)] =
        std::max(settings.stls.targetNoise[static_cast<std::size_t>(i)], target(i));
}

std::vector<SindyColumn> SindyModel::libraryColumns(const Model& model, const DatasetRun& run,
                                                    const SindySamples& s,
                                                    const std::vector<SindyColumn>& given) const {
  std::vector<SindyColumn> columns;
  if (sindySettings_.frictionColumns) {
    for (const std::string& name : frictionNames(model))
      columns.push_back({name, Eigen::VectorXd(run.samples())});
    for (Eigen::Index k = 0; k < run.samples(); ++k) {
      const Eigen::VectorXd f = frictionValues(model, run.q.col(k), run.qd.col(k));
      for (std::size_t c = 0; c < columns.size(); ++c) columns[c].values(k) = f(static_cast<Eigen::Index>(c));
    }
  }
  // User columns in the order of the settings, whatever order the caller gave them in.
  for (const SindyColumnSource& c : sindySettings_.columns) {
    const auto it =
        std::find_if(given.begin(), given.end(), [&](const SindyColumn& g) { return g.name == c.name; });
    if (it == given.end())
      throw InputError("sindy: run \"" + run.name + "\" has no values for the user column \"" + c.name +
                       "\"");
    columns.push_back(*it);
  }
  if (sindySettings_.geometryTerms()) {
    const std::vector<SindyColumn> element =
        sindyElementColumns(model, run, s.bases, qRef_, geometryTermsOf(model));
    columns.insert(columns.end(), element.begin(), element.end());
  }
  return columns;
}

void SindyModel::appendRun(internal::SindyRows& rows, const DatasetRun& run, const SindySamples& s,
                           const SindyLibrary& lib, int window) {
  rows.termNames = lib.names();
  const Eigen::Index at = rows.Theta.rows(), N = lib.Theta.rows(),
                     kept = static_cast<Eigen::Index>(std::ceil(0.75 * static_cast<double>(N - 1)));
  for (Eigen::Index k = 0; k < kept; ++k) rows.validationRows.push_back(at + k);
  rows.runRows.push_back({at, at + N});
  addRun(rows.fitted, run);
  if (rows.weak) {
    const int W = sindyWeakWindow(window, N);
    const SindyWeakRows wr = sindyWeakForm(s, lib.Theta, W);
    const Eigen::Index weakAt = rows.ThetaW.rows();
    rows.runWeakRows.push_back({weakAt, weakAt + wr.Theta.rows()});
    appendRows(rows.ThetaW, wr.Theta);
    appendRows(rows.YW, wr.Y);
    appendRows(rows.weakInertia, sindyInertiaRows(s, W));
    for (std::size_t j = 0; j < wr.lastSample.size(); ++j)
      if (wr.lastSample[j] < kept) rows.weakValidationRows.push_back(weakAt + static_cast<Eigen::Index>(j));
    rows.weakWindow = W;
  }
  const auto appendColumns = [](Eigen::MatrixXd& to, const Eigen::MatrixXd& from) {
    const Eigen::Index end = to.cols();
    to.conservativeResize(from.rows(), end + from.cols());
    to.rightCols(from.cols()) = from;
  };
  appendColumns(rows.all.u, s.u);
  appendColumns(rows.all.ud, s.ud);
  appendColumns(rows.all.target, s.target);
  rows.all.t.conservativeResize(rows.all.t.size() + s.t.size());
  rows.all.t.tail(s.t.size()) = s.t;
  appendRows(rows.Theta, lib.Theta);
  appendRows(rows.Y, s.target.transpose());
  appendRows(rows.inertia, sindyInertiaRows(s, 0));
}

void SindyModel::checkNoise(const internal::SindyRows& rows) const {
  // Noise this large leaves nothing to identify: say so rather than fit a model to it.
  for (Eigen::Index i = 0; i < rows.all.u.rows(); ++i) {
    const Eigen::VectorXd u = rows.all.u.row(i).transpose();
    const double amplitude = std::sqrt((u.array() - u.mean()).square().mean());
    const double sigma = rows.positionNoise[static_cast<std::size_t>(i)];
    if (amplitude > 0.0 && sigma > kSindyNoiseLimit * amplitude)
      throw InputError(
          formatText("sindy: nothing can be identified: the noise of %s (%.3g, estimated by the "
                     "smoothing) is %.0f %% of its amplitude (RMS about its mean, %.3g), above %.0f %%",
                     names_[static_cast<std::size_t>(i)].c_str(), sigma, 100.0 * sigma / amplitude, amplitude,
                     100.0 * kSindyNoiseLimit));
  }
  // The weak rows carry the noise of the velocities averaged over a window, not that of the
  // accelerations: their residual has no noise floor to allow for.
  if (rows.weak && rows.ThetaW.rows() < rows.ThetaW.cols())
    throw InputError("sindy: the weak form has " + std::to_string(rows.ThetaW.rows()) +
                     " test functions for " + std::to_string(rows.ThetaW.cols()) +
                     " library terms; give longer runs or formulation pointwise");
}

std::vector<Eigen::Index> SindyModel::heldOutFitRows(const internal::SindyRows& rows,
                                                     const std::vector<std::size_t>& heldOut) {
  // With two runs or more that can be run again, whole runs are held out (the fit on the
  // others judged on them, as for every method); with one, the fit without its last quarter
  // is judged over the whole run.
  if (heldOut.empty()) return rows.weak ? rows.weakValidationRows : rows.validationRows;
  std::vector<Eigen::Index> fitRows;
  const auto& runRows = rows.weak ? rows.runWeakRows : rows.runRows;
  for (std::size_t r = 0; r < runRows.size(); ++r) {
    if (std::find(heldOut.begin(), heldOut.end(), r) != heldOut.end()) continue;
    for (Eigen::Index k = runRows[r].first; k < runRows[r].second; ++k) fitRows.push_back(k);
  }
  return fitRows;
}

std::string SindyModel::leaveOutInseparable(internal::SindyRows& rows,
                                            const std::vector<Eigen::Index>& fitRows) {
  const std::vector<Eigen::Index> kept = separableSindyColumns(rows.thetaFit(), fitRows, terms_);
  if (kept.size() == terms_.size()) return {};
  const std::size_t library = terms_.size();
  std::vector<SindyTerm> terms;
  auto next = kept.begin();  // ascending
  for (std::size_t j = 0; j < library; ++j) {
    if (next != kept.end() && static_cast<std::size_t>(*next) == j) {
      terms.push_back(terms_[j]);
      ++next;
    } else {
      leftOut_.push_back(terms_[j].name);
    }
  }
  terms_ = std::move(terms);
  rows.termNames.clear();
  for (const SindyTerm& t : terms_) rows.termNames.push_back(t.name);
  rows.Theta = Eigen::MatrixXd(rows.Theta(Eigen::all, kept));
  if (rows.weak) rows.ThetaW = Eigen::MatrixXd(rows.ThetaW(Eigen::all, kept));
  std::string some;
  for (std::size_t k = 0; k < leftOut_.size() && k < 3; ++k) some += (k ? ", " : "") + inQuotes(leftOut_[k]);
  if (leftOut_.size() > 3) some += " and " + std::to_string(leftOut_.size() - 3) + " more";
  return "the library without " + std::to_string(leftOut_.size()) + " of its " + std::to_string(library) +
         " terms, which the runs it is fitted on cannot tell apart from the ones kept (" + some +
         "): runs that excite them apart would settle them";
}

RolloutCheck SindyModel::validate(const Model& model, const internal::SindyRows& rows,
                                  const std::vector<std::size_t>& heldOut, bool kappaSearch, StlsOptions& fit,
                                  std::string& kind, Monitor& monitor) {
  const std::vector<Eigen::Index> judgedRows = heldOutFitRows(rows, heldOut);
  // A miss the full model's own sensitivity explains judges no fit: measured once per run.
  std::map<std::string, double> sensitivity;
  const auto judgeFit = [&](const StlsOptions& options) {
    RolloutCheck check = heldOutRollout(model, rows.fitted, rows.thetaFit(), rows.yFit(), judgedRows, heldOut,
                                        rows.positionNoise, options, monitor);
    measureHeldOutSensitivity(model, rows.fitted, check, monitor, &sensitivity);
    return check;
  };
  // The step first, judged on the fullest fit (the smallest κ tried), so that the threshold
  // is then chosen on the motion, not on the integrator's error.
  StlsOptions fullest = fit;
  if (kappaSearch) fullest.kappa *= kSmallerKappas.back();
  const auto judgeFullest = [&] { return judgeFit(fullest); };
  const RolloutCheck stepCheck = chooseOwnStep(*this, *this, judgeFullest(), judgeFullest, monitor);
  std::string stepNote = stepCheck.step;
  if (std::string note =
          chooseIntegrator(stepCheck, substepScales(model, rows.fitted), judgeFullest, monitor);
      !note.empty())
    stepNote = std::move(note);
  RolloutCheck rollout = judgeFit(fit);
  kind = judge(rollout);
  // A fit on every run can miss runs it was fitted on where its held-out check, of the fit without
  // them, did not: the search weighs both, as a second try's model is weighed against the first.
  const auto ownRuns = [&](const StlsResult& r) {
    SindyModel probe(*this);
    probe.result_ = r;
    const RolloutCheck own = checkTrainingRuns(model, probe, rows.fitted, &monitor);
    return own.failed ? HUGE_VAL : own.done ? own.error : 0.0;
  };
  if (kappaSearch)
    chooseKappa(rows.thetaFit(), rows.yFit(), rows.termNames, fit, rollout, kind, judgeFit, ownRuns);
  else
    nameRemovedTerms(rows.thetaFit(), rows.yFit(), rows.termNames, fit, kind, judgeFit);
  metrics_["kappa_chosen"] = fit.kappa;  // the settings keep the κ asked for
  if (!stepNote.empty()) result_.verdict += "; " + stepNote;
  return rollout;
}

std::string SindyModel::chooseIntegrator(const RolloutCheck& rk4, const Eigen::VectorXd& scales,
                                         const std::function<RolloutCheck()>& judge, Monitor& monitor) {
  const double spacing = trainingSpacing();
  if (!rk4.done || !(spacing > 0.0)) return {};
  // Evaluations of the accelerations per data spacing: RK4's four a step (the first shared with
  // the sample) at its own step; ROS2's two a step and its Jacobian's 2 n every
  // kSindyJacobianSteps steps.
  const double rk4Step = stepFor(spacing), n = reducedDimension();
  const double rk4Cost = 4.0 * spacing / rk4Step, ros2StepCost = 2.0 + 2.0 * n / kSindyJacobianSteps;
  const double best = rk4.judgedError(), goal = rk4.tolerance;
  const bool rk4Misses = !(best <= goal);
  // Stiff: RK4 blew up at the spacing, where the check tried it first (its stability limit, not
  // its accuracy, took its step below). A step limited by accuracy stays RK4's: a second-order
  // method is no cheaper there.
  const bool stiff = !rk4.stepsTried.empty() && !std::isfinite(rk4.stepsTried.front().second);
  if (!stiff && !rk4Misses) return chooseSubsteps(rk4, scales, judge, monitor);
  // Near RK4's error (within 1.5 times, or a twentieth of the goal): the check sees a few
  // runs, and a second-order step that misses more on them misses more on larger swings (a
  // change of chart bends the slow motion's manifold into the stiff direction). Within the goal
  // where RK4 misses.
  const auto holds = [&](double e) {
    return e <= goal && (rk4Misses || e <= std::max(0.05 * goal, 1.5 * best));
  };
  std::string tried;
  metrics_["integrator"] = kSindyRos2;
  for (double h = spacing; ros2StepCost * spacing / h < rk4Cost || (rk4Misses && h >= 0.25 * spacing);
       h *= 0.5) {
    setOwnStep(h);
    monitor.reportNow({formatText("held-out check with ROS2 at a step of %g ms", 1e3 * h), 0, 1, {}});
    RolloutCheck ros2;
    if (!judgedInto(judge, ros2)) break;  // not judged: RK4's step stays
    const double e = ros2.judgedError();
    tried += (tried.empty() ? "" : ", ") + stepTryText(h, e);
    if (!holds(e)) continue;
    const std::string rk4Said = rk4.step.empty() ? stepTryText(rk4Step, best) : rk4.step;
    return formatText(
               "its own step %g ms with the Rosenbrock W-method ROS2 of Verwer et al. (linearly implicit: "
               "a stiff motion does not limit its step), chosen by the held-out check (ROS2 at ",
               1e3 * h) +
           tried + "); classic RK4: " + rk4Said;
  }
  metrics_.erase("integrator");
  setOwnStep(rk4Step);
  return {};
}

std::string SindyModel::chooseSubsteps(const RolloutCheck& rk4, const Eigen::VectorXd& scales,
                                       const std::function<RolloutCheck()>& judge, Monitor& monitor) {
  // The largest step the check tried, above the one it chose for accuracy (the spacing, where it
  // halved the step; the doubled step it refused, where it grew it): where the motion is quiet, a
  // substep may take it whole.
  const double rk4Step = ownStep();
  double step = 0.0, best = rk4.judgedError();
  for (const auto& tried : rk4.stepsTried) {
    step = std::max(step, tried.first);
    best = std::fmin(best, tried.second);
  }
  if (!(step > 1.5 * rk4Step)) return {};
  // Near RK4's error as the check judged its steps: within 1.5 times its best or a fifth of the
  // goal where it halved them; where it grew them, within 1.5 times the chosen step's or a
  // fiftieth of the goal, and a tenth of it (growOwnStep's limit).
  const double goal = rk4.tolerance;
  const bool grown = rk4Step >= 0.75 * trainingSpacing();
  const auto holds = [&](double e) {
    return e <= goal && (grown ? e <= std::min(0.1 * goal, std::max(0.02 * goal, 1.5 * rk4.judgedError()))
                               : e <= std::max(0.2 * goal, 1.5 * best));
  };
  metrics_["integrator"] = kSindyRk4Substeps;
  metrics_["substep_scales"] = std::vector<double>(scales.data(), scales.data() + scales.size());
  setOwnStep(step);
  std::string tried;
  for (const double tolerance : kSindySubstepTolerances) {
    metrics_["substep_tolerance"] = tolerance;
    monitor.reportNow({formatText("held-out check with RK4 in substeps, tolerance %g", tolerance), 0, 1, {}});
    RolloutCheck check;
    if (!judgedInto(judge, check)) break;  // not judged: RK4's step stays
    const double e = check.judgedError();
    // Evaluations of the accelerations against RK4's over the same runs, its steps as its check
    // counted them: four a substep (three stages and its end), tried again or not, as four a step.
    const double rk4Steps = runFigure(rk4, "steps");
    const double share =
        rk4Steps > 0.0 ? (runFigure(check, "substeps") + runFigure(check, "substeps_rejected")) / rk4Steps
                       : 1.0;
    tried += (tried.empty() ? "" : ", ") + formatText("%g: ", tolerance) + verdictPercent(e) +
             formatText(" with %.2g of RK4's evaluations", share);
    if (!holds(e)) continue;
    if (!(share <= 0.8)) break;  // a tighter tolerance costs more still
    return formatText(
               "its own step %g ms in substeps of classic RK4, each judged by the embedded third-order "
               "solution and halved where it exceeds its tolerance of each coordinate's range of motion, "
               "chosen by the held-out check (tolerance ",
               1e3 * step) +
           tried + "); RK4 in fixed steps: " + (rk4.step.empty() ? stepTryText(rk4Step, best) : rk4.step);
  }
  metrics_.erase("integrator");
  metrics_.erase("substep_scales");
  metrics_.erase("substep_tolerance");
  setOwnStep(rk4Step);
  return {};
}

std::vector<SindyColumn> SindyModel::geometryHintColumns(const Model& model,
                                                         const internal::SindyRows& rows) const {
  if (sindySettings_.geometryTerms() || !sindySettings_.library.select.empty()) return {};
  const std::vector<SindyElementTerm> terms = geometryTermsOf(model);
  if (terms.empty()) return {};
  const Eigen::Index N = rows.all.t.size();
  std::vector<SindyColumn> out;
  for (const SindyElementTerm& term : terms) out.push_back({term.name, Eigen::VectorXd(N)});
  const SindyKnownForces known = sindyKnownForces(knownForces_);
  Eigen::Index at = 0;
  for (const DatasetRun& run : rows.fitted.runs) {
    const Eigen::Index n = run.samples();
    if (at + n > N) return {};
    const SindySamples s = sindySamplesFromRun(model, run, independent_, known, qRef_, false, true);
    const std::vector<SindyColumn> columns = sindyElementColumns(model, run, s.bases, qRef_, terms);
    for (std::size_t k = 0; k < out.size(); ++k) out[k].values.segment(at, n) = columns[k].values;
    at += n;
  }
  if (at != N) return {};
  return out;
}

std::vector<SindyHint> SindyModel::explain(const Model& model, const internal::SindyRows& rows,
                                           const SindyLibraryOptions& library, const std::string& kind) {
  SindyLibrary fitted;
  fitted.terms = terms_;
  fitted.Theta = rows.Theta;
  const bool misses = kind == "rollout misses" || kind == "rollout blows up";
  // A threshold that removed terms the run needs explains a miss, unless the model still misses
  // with the lower one the held-out check chose.
  const bool kappaExplains =
      metrics_.contains("kappa_removed_needed") && !(misses && metrics_.contains("kappa_lowered_from"));
  const bool doubtful = misses || result_.libraryIncomplete;
  const bool said = doubtful && !kappaExplains;  // the verdict names the best hint
  // The geometry's columns take a pass over the data: only for a verdict that names a hint.
  const std::vector<SindyHint> hints =
      sindyResidualHints(rows.all, library, fitted, result_,
                         said ? geometryHintColumns(model, rows) : std::vector<SindyColumn>{});
  if (!said || hints.empty()) return hints;
  // The missing terms are not the library's own, removed by κ (said already): what the residual says.
  if (hints.front().correlation <= kSindyHintCorrelation) {
    result_.verdict +=
        "; the residual correlates with none of the candidate families tried (best: " + hints.front().term +
        ", " + formatText("%.2f", hints.front().correlation) + ")";
    return hints;
  }
  const SindyHint& h = hints.front();
  result_.verdict += "; the residual of " + h.coordinate + " correlates most with " + h.term + " (" +
                     h.family + ", " + formatText("%.2f", h.correlation) + "): " + h.advice;
  // Families that the data cannot tell apart (sin u − u is −u³/6 + … at small angles) are named together.
  for (std::size_t k = 1; k < hints.size() && hints[k].correlation > 0.98 * h.correlation; ++k)
    result_.verdict += "; as likely: " + hints[k].term + " (" + hints[k].family + ", " +
                       formatText("%.2f", hints[k].correlation) + "): " + hints[k].advice;
  return hints;
}

void SindyModel::recordStiffElements(const Model& model, const Dataset& dataset) {
  const DatasetRun& first = dataset.runs.front();
  const std::vector<SindyStiffElement> stiff =
      sindyStiffElements(model, first.q.col(0), first.t(0), independent_, knownForces_, trainingSpacing());
  if (stiff.empty()) return;
  OJson list = OJson::array();
  for (const SindyStiffElement& e : stiff)
    list.push_back(
        {{"name", e.name}, {"frequency", e.frequency}, {"samples_per_period", e.samplesPerPeriod}});
  metrics_["stiff_elements"] = std::move(list);
}

void SindyModel::recordMetrics(const internal::SindyRows& rows, const std::string& kind,
                               const RolloutCheck& rollout, const std::vector<SindyHint>& hints,
                               const std::vector<SindySweepPoint>& front) {
  OJson& m = metrics_;
  m["coordinates"] = names_;
  m["normalised_residual"] = vectorJson(result_.residual);
  m["library_incomplete"] = result_.libraryIncomplete;
  m["verdict"] = result_.verdict;
  for (const auto& [name, kappa] : result_.lowered) m["kappa_lowered"][name] = kappa;
  m["verdict_kind"] = kind;
  m["formulation"] = rows.weak ? "weak" : "pointwise";
  if (rows.weak) m["weak_window"] = rows.weakWindow;
  m["rollout"] = rollout.toJson();
  OJson hintsJson = OJson::array();
  for (const SindyHint& h : hints)
    hintsJson.push_back(OJson{{"family", h.family},
                              {"term", h.term},
                              {"coordinate", h.coordinate},
                              {"correlation", h.correlation},
                              {"advice", h.advice}});
  m["residual_hints"] = hintsJson;
  m["active_terms"] = result_.activeTerms();
  m["coefficient_table"] = coefficientTable();
  m["equations"] = equations();
  OJson pareto = OJson::array();
  for (const SindySweepPoint& p : front)
    pareto.push_back(OJson{{"kappa", p.kappa}, {"terms", p.terms}, {"residual", p.residual}});
  m["pareto"] = pareto;
}

namespace {

// One κ of SindyModel::chooseKappa's search: its fit and how it did.
struct KappaCandidate {
  double kappa;
  StlsResult result;
  RolloutCheck check;
  double own = 0.0;  // its fit on every run, on those runs [-]
  double error() const { return std::max(check.error, own); }
  bool usable() const { return check.done && !check.failed; }
};

// Of candidates in falling κ, the one with the smallest error, or a larger κ's within 1.5 times of it
// (its sparser model); candidates.size() when none is usable.
std::size_t pickKappa(const std::vector<KappaCandidate>& candidates) {
  std::size_t best = candidates.size();
  for (std::size_t k = 0; k < candidates.size(); ++k)
    if (candidates[k].usable() &&
        (best == candidates.size() || candidates[k].error() < candidates[best].error()))
      best = k;
  if (best == candidates.size()) return best;
  for (std::size_t k = 0; k < candidates.size(); ++k)
    if (candidates[k].usable() && candidates[k].error() <= 1.5 * candidates[best].error()) return k;
  return best;
}

// The metric "kappa_candidates": each κ tried, its terms and errors (null where it failed).
OJson kappaCandidatesJson(const std::vector<KappaCandidate>& candidates) {
  const auto figure = [](double e) { return std::isfinite(e) ? OJson(e) : OJson(nullptr); };
  OJson tried = OJson::array();
  for (const KappaCandidate& c : candidates)
    tried.push_back(OJson{{"kappa", c.kappa},
                          {"terms", c.result.activeTerms()},
                          {"error", c.usable() ? OJson(c.check.error) : OJson(nullptr)},
                          {"own_runs_error", c.usable() ? figure(c.own) : OJson(nullptr)}});
  return tried;
}

// "0.05: 16 %, 0.005: 9.6 % and its own runs 14 %, ...": each κ tried and what it did.
std::string kappaTriedText(const std::vector<KappaCandidate>& candidates) {
  std::string text;
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    const KappaCandidate& c = candidates[k];
    const std::string heldOut = formatText("%.2g %%", 100.0 * c.check.error);
    const std::string own = formatText("%.2g %%", 100.0 * c.own);
    text += (k ? ", " : "") + formatText("%g: ", c.kappa) + (c.usable() ? heldOut : "fails");
    // Its own runs where they weighed more than the held-out run, as far as the figures show.
    if (c.usable() && c.own > c.check.error && own != heldOut)
      text += std::isfinite(c.own) ? " and its own runs " + own : " and blowing up on its own runs";
  }
  return text;
}

}  // namespace

void SindyModel::chooseKappa(const Eigen::MatrixXd& Theta, const Eigen::MatrixXd& Y,
                             const std::vector<std::string>& termNames, StlsOptions& fit,
                             RolloutCheck& rollout, std::string& kind, const RolloutJudge& judgeFit,
                             const OwnRunsJudge& ownRuns) {
  // κ, κ/10, κ/100 and κ/1000 judged on the held-out runs and, fitted on every run, on those: the
  // smallest error (the worse of the two) wins, unless a larger κ comes within 1.5 times of it (then
  // its sparser model does): clean data gain from the smaller terms, noisy data do not, and keep the
  // sparse fit. A light damper can be a mode's only damping and still a ten-thousandth of its
  // equation's force (a cushion's beside a seated weight).
  // A κ's fit, judged; none when it fits nothing or `keep` turns its terms down (before the judging).
  const auto tryKappa = [&](double kappa, const auto& keep) -> std::optional<KappaCandidate> {
    StlsOptions options = fit;
    options.kappa = kappa;
    std::optional<KappaCandidate> c;
    try {
      StlsResult r = stls(Theta, Y, termNames, names_, options);
      if (!keep(r)) return std::nullopt;
      c = KappaCandidate{kappa, std::move(r), judgeFit(options)};
    } catch (const InputError&) {
      return std::nullopt;  // a threshold that fits nothing is no candidate
    }
    if (c->usable()) c->own = ownRuns(c->result);
    return c;
  };
  const auto differs = [](const StlsResult& a, const StlsResult& b) {
    return !termsOnlyIn(a, b).empty() || !termsOnlyIn(b, a).empty();
  };
  std::vector<KappaCandidate> candidates{{fit.kappa, result_, rollout}};
  if (candidates.front().usable()) candidates.front().own = ownRuns(candidates.front().result);
  for (const double factor : kSmallerKappas) {
    const StlsResult& last = candidates.back().result;  // read before the candidate is added
    const auto more = [&](const StlsResult& r) { return !termsOnlyIn(r, last).empty(); };
    if (auto c = tryKappa(fit.kappa * factor, more)) candidates.push_back(std::move(*c));
  }
  std::size_t chosen = pickKappa(candidates);
  // Where the best decade still misses the goal, the decades around it each fail one way (the arm of
  // a SCARA robot: κ's fit extrapolates badly to a held-out run, κ / 10's overfits its own runs): the
  // geometric middles between it and its neighbours, once.
  if (chosen < candidates.size() && candidates[chosen].error() > candidates[chosen].check.tolerance) {
    const double kappa = candidates[chosen].kappa;
    std::vector<std::size_t> neighbours;
    if (chosen + 1 < candidates.size()) neighbours.push_back(chosen + 1);
    if (chosen > 0) neighbours.push_back(chosen - 1);
    std::vector<KappaCandidate> middles;
    for (const std::size_t n : neighbours) {
      const auto fresh = [&](const StlsResult& r) {
        return differs(r, candidates[chosen].result) && differs(r, candidates[n].result);
      };
      if (auto c = tryKappa(std::sqrt(kappa * candidates[n].kappa), fresh)) middles.push_back(std::move(*c));
    }
    for (KappaCandidate& m : middles) {
      const auto at = std::find_if(candidates.begin(), candidates.end(),
                                   [&](const KappaCandidate& c) { return c.kappa < m.kappa; });
      candidates.insert(at, std::move(m));
    }
    chosen = pickKappa(candidates);
  }
  const KappaCandidate* best = chosen < candidates.size() ? &candidates[chosen] : nullptr;
  metrics_["kappa_candidates"] = kappaCandidatesJson(candidates);
  if (!best || best == &candidates.front()) return;
  const std::string removed = termsOnlyIn(best->result, candidates.front().result);
  result_ = best->result;
  rollout = best->check;
  kind = judge(rollout);
  result_.verdict +=
      formatText("; kappa lowered from %g to %g by the held-out check (", fit.kappa, best->kappa) +
      kappaTriedText(candidates) + "): it keeps " + removed;
  metrics_["kappa_lowered_from"] = fit.kappa;
  metrics_["kappa_removed_needed"] = removed;
  fit.kappa = best->kappa;
}

void SindyModel::nameRemovedTerms(const Eigen::MatrixXd& Theta, const Eigen::MatrixXd& Y,
                                  const std::vector<std::string>& termNames, const StlsOptions& fit,
                                  const std::string& kind, const RolloutJudge& judgeFit) {
  // A threshold that removed terms the run needs: the same check at a tenth of κ.
  if ((kind != "rollout misses" && kind != "rollout blows up") || !(fit.kappa > 0.0)) return;
  StlsOptions smaller = fit;
  smaller.kappa = fit.kappa / 10.0;
  try {
    const StlsResult kept = stls(Theta, Y, termNames, names_, smaller);
    const std::string removed = termsOnlyIn(kept, result_);
    if (removed.empty()) return;
    const RolloutCheck retry = judgeFit(smaller);
    const std::string retryText = retry.text();
    if (!retry.passed() || retryText.find("follows") == std::string::npos) return;
    result_.verdict += formatText("; kappa = %g removed %s, which the run needs: with kappa = %g ", fit.kappa,
                                  removed.c_str(), smaller.kappa) +
                       (retry.wholeRuns ? "it " : "its run ") + retryText.substr(retryText.find("follows"));
    metrics_["kappa_removed_needed"] = removed;
  } catch (const InputError&) {
    // the smaller threshold fits nothing better; the verdict stands as it is
  }
}

RolloutCheck SindyModel::heldOutRollout(const Model& model, const Dataset& fitted,
                                        const Eigen::MatrixXd& Theta, const Eigen::MatrixXd& Y,
                                        const std::vector<Eigen::Index>& rows,
                                        const std::vector<std::size_t>& heldOut,
                                        const std::vector<double>& positionNoise, const StlsOptions& fit,
                                        Monitor& monitor) const {
  RolloutCheck none;
  SindyModel probe(*this);
  try {
    const auto R = static_cast<Eigen::Index>(rows.size());
    Eigen::MatrixXd ThetaV(R, Theta.cols()), YV(R, Y.cols());
    for (Eigen::Index k = 0; k < R; ++k) {
      ThetaV.row(k) = Theta.row(rows[static_cast<std::size_t>(k)]);
      YV.row(k) = Y.row(rows[static_cast<std::size_t>(k)]);
    }
    probe.result_ = stls(ThetaV, YV, result_.terms, names_, fit);
  } catch (const InputError& e) {
    none.note = std::string(heldOut.empty() ? "the fit without the last quarter of each run failed: "
                                            : "the fit without the held-out runs failed: ") +
                e.what();
    return none;
  }
  RolloutCheckOptions o;
  o.coordinates = independent_;
  o.positionNoise = positionNoise;
  o.tolerance = sindySettings_.stls.incompleteResidual;
  o.judgeWholeRun = true;
  try {
    if (!heldOut.empty()) {
      Dataset rest = fitted;  // the runs the probe was fitted on, for the joint envelope's calibration
      rest.runs.clear();
      for (std::size_t k = 0; k < fitted.runs.size(); ++k)
        if (std::find(heldOut.begin(), heldOut.end(), k) == heldOut.end())
          rest.runs.push_back(fitted.runs[k]);
      RolloutCheck check = checkHeldOutRuns(model, probe, fitted, heldOut,
                                            static_cast<int>(fitted.runs.size() - heldOut.size()),
                                            kHeldOutTolerance, &monitor, &rest);
      check.caveat = heldOutCaveat(fitted, heldOut);
      return check;
    }
    return checkRollout(model, probe, fitted, o, &monitor);
  } catch (const InputError& e) {
    none.note = e.what();  // e.g. a user column a run cannot evaluate
    return none;
  }
}

std::string SindyModel::judge(const RolloutCheck& rollout) {
  // The held-out verdict, then what the residual says (or said, of a model found wrong).
  const HeldOutVerdict v = heldOutVerdict(rollout, "fitted");
  std::string& verdict = result_.verdict;
  if (v.kind == "not judged")
    verdict += "; " + v.text;
  else if (v.kind == "rollout misses" || v.kind == "rollout blows up")
    verdict = v.text + "; the residual alone said: " + verdict;
  else
    verdict = v.text + "; the residual: " + verdict;
  return v.kind;
}

void SindyModel::writeMethodJson(OJson& j) const {
  j["normalisation"] = {{"reference_positions", vectorJson(qRef_)}};
  OJson m;
  m["coordinates"] = names_;
  m["coordinate_indices"] = independent_;
  m["known_forces"] = knownForces_;
  m["terms"] = result_.terms;
  std::vector<std::string> geometry;  // the spring-dampers' geometry terms among them
  for (const SindyTerm& t : terms_)
    if (t.kind == SindyTerm::Kind::Element) geometry.push_back(t.name);
  if (!geometry.empty()) m["element_terms"] = geometry;
  m["coefficients"] = matrixJson(result_.Xi);
  m["normalised_residual"] = vectorJson(result_.residual);
  m["initial_u"] = vectorJson(u0_);
  m["initial_ud"] = vectorJson(ud0_);
  j["matrices"] = m;
}

std::pair<double, Eigen::VectorXd> SindyModel::substepControl(Eigen::Index nq) const {
  const auto positive = [](const OJson& v) {
    return v.is_number() && v.get<double>() > 0.0 && std::isfinite(v.get<double>());
  };
  const OJson& tolerance = metrics_.contains("substep_tolerance") ? metrics_["substep_tolerance"] : OJson();
  if (!positive(tolerance))
    throw InputError(
        "sindy: metrics.substep_tolerance of a model stepped in substeps must be a positive number, got " +
        tolerance.dump());
  const OJson& scales = metrics_.contains("substep_scales") ? metrics_["substep_scales"] : OJson();
  if (!scales.is_array() || static_cast<Eigen::Index>(scales.size()) != 2 * nq ||
      !std::all_of(scales.begin(), scales.end(), positive))
    throw InputError(
        formatText("sindy: metrics.substep_scales must be %d positive numbers (each coordinate's "
                   "range of motion, then its rate's)",
                   static_cast<int>(2 * nq)));
  Eigen::VectorXd out(2 * nq);
  for (Eigen::Index i = 0; i < out.size(); ++i) out(i) = scales[static_cast<std::size_t>(i)].get<double>();
  return {tolerance.get<double>(), out};
}

std::unique_ptr<SindyModel> SindyModel::fromJson(const OJson& j, const std::string& source) {
  auto rom = std::make_unique<SindyModel>();
  try {
    // Files written before the relative threshold were trained with an absolute one and no search.
    OJson settings = j.at("settings");
    if (settings.is_object() && !settings.contains("threshold")) {
      settings["threshold"] = "absolute";
      settings["kappa_search"] = false;
    }
    rom->sindySettings_ = SindySettings::fromJson(settings);
  } catch (const InputError& e) {
    throw FileError(source + ": " + e.what());
  }
  rom->qRef_ = vectorFromJson(j.at("normalisation").at("reference_positions"), -1,
                              source + ": normalisation.reference_positions");
  const OJson& m = j.at("matrices");
  // Files written before "auto" have the list in the settings only.
  rom->knownForces_ = resolvedKnownForces(rom->sindySettings_.knownForces, false);
  if (m.contains("known_forces")) {
    const OJson& k = m["known_forces"];
    if (!k.is_array() || !std::all_of(k.begin(), k.end(), [](const OJson& e) { return e.is_string(); }))
      throw FileError(source + ": matrices.known_forces must be an array of names, got " + k.dump());
    rom->knownForces_ = k.get<std::vector<std::string>>();
  }
  rom->names_ = m.at("coordinates").get<std::vector<std::string>>();
  rom->independent_ = m.at("coordinate_indices").get<std::vector<int>>();
  const auto n = static_cast<Eigen::Index>(rom->names_.size());
  if (n < 1 || rom->independent_.size() != rom->names_.size())
    throw FileError(source +
                    ": matrices.coordinates and coordinate_indices must have the same, non-zero size");
  for (int i : rom->independent_)
    if (i < 0 || i >= rom->qRef_.size())
      throw FileError(source + ": matrices.coordinate_indices out of range");
  const std::vector<std::string> terms = m.at("terms").get<std::vector<std::string>>();
  // Friction and spring-damper geometry columns are named after the elements; their names come
  // from the file (the geometry ones listed apart, and last, as training lists them).
  std::vector<std::string> columns, elementColumns;
  const std::vector<std::string> geometry = m.contains("element_terms")
                                                ? m["element_terms"].get<std::vector<std::string>>()
                                                : std::vector<std::string>{};
  for (const std::string& t : terms) {
    const bool user = std::any_of(rom->sindySettings_.columns.begin(), rom->sindySettings_.columns.end(),
                                  [&](const SindyColumnSource& c) { return c.name == t; });
    if (std::find(geometry.begin(), geometry.end(), t) != geometry.end())
      elementColumns.push_back(t);
    else if (user || t.rfind("f_fric(", 0) == 0)
      columns.push_back(t);
  }
  columns.insert(columns.end(), elementColumns.begin(), elementColumns.end());
  try {
    SindyLibraryOptions lib = rom->sindySettings_.library;
    lib.select = terms;
    rom->terms_ = sindyTerms(rom->names_, lib, columns, elementColumns.size());
  } catch (const InputError& e) {
    throw FileError(source + ": matrices.terms do not match the settings: " + e.what());
  }
  rom->result_.terms = terms;
  rom->result_.coordinates = rom->names_;
  rom->result_.Xi = matrixFromJson(m.at("coefficients"), static_cast<Eigen::Index>(terms.size()), n,
                                   source + ": matrices.coefficients");
  rom->result_.residual =
      vectorFromJson(m.at("normalised_residual"), n, source + ": matrices.normalised_residual");
  rom->result_.libraryIncomplete =
      rom->result_.residual.maxCoeff() > rom->sindySettings_.stls.incompleteResidual;
  rom->u0_ = vectorFromJson(m.at("initial_u"), n, source + ": matrices.initial_u");
  rom->ud0_ = vectorFromJson(m.at("initial_ud"), n, source + ": matrices.initial_ud");
  return rom;
}

namespace internal {

// Classic RK4 on the independent coordinates (u, u̇); every stage finds the dependent
// coordinates (from the kinematics table for one coordinate without drivers, the model's
// kinematic grid for two, else by assembly) and solves the reduced equations of motion with
// the identified terms.
class SindyStepper final : public ReducedStepper {
 public:
  SindyStepper(const SindyModel& rom, const Model& model, const RunOptions& o, std::vector<int> frictionOf,
               std::vector<int> frictionChannelOf, std::vector<int> elementOf,
               std::vector<SindyElementTerm> elementTerms)
      : rom_(rom),
        model_(model),
        loadCase_(o.loadCase),
        chart_(rom.independent_),
        frictionOf_(std::move(frictionOf)),
        frictionChannelOf_(std::move(frictionChannelOf)),
        frictionChannel_(
            std::any_of(frictionChannelOf_.begin(), frictionChannelOf_.end(), [](int i) { return i >= 0; })),
        knownForce_(model, sindyKnownForces(rom.knownForces_)),
        terms_(rom.terms_),
        rosenbrock_(rom.linearlyImplicit()),
        frictionElement_(std::any_of(frictionOf_.begin(), frictionOf_.end(), [](int i) { return i >= 0; })) {
    elementOf_ = std::move(elementOf);
    if (rom.substepped()) std::tie(substepTolerance_, substepScale_) = rom.substepControl(model.nq());
    for (SindyTerm& term : terms_)
      if (term.kind == SindyTerm::Kind::Column || term.kind == SindyTerm::Kind::Element) term.column = 0;
    const Eigen::Index nq = model.nq(), n = rom.reducedDimension();
    assembly_.fixedCoordinates = rom.independent_;
    assembly_.scales = std::make_shared<const MechanismScales>(mechanismScales(model));
    u_ = o.q0.size() ? Eigen::VectorXd(n) : rom.u0_;
    ud_ = o.qd0.size() ? Eigen::VectorXd(n) : rom.ud0_;
    for (Eigen::Index i = 0; i < n; ++i) {
      const int c = rom.independent_[static_cast<std::size_t>(i)];
      if (o.q0.size()) u_(i) = o.q0(c) - rom.qRef_(c);
      if (o.qd0.size()) ud_(i) = o.qd0(c);
    }
    kinematics_.emplace(model, chart_, assembly_);
    q_ = rom.qRef_;
    qd_.resize(nq);
    qdd_.resize(nq);
    fk_.resize(nq);
    // Thresholding leaves a few of the library's terms (4 of 37 on a 2-DOF absorber): only they are
    // evaluated, a monomial from its nonzero powers.
    const Eigen::MatrixXd& Xi = rom.result_.Xi;
    for (std::size_t j = 0; j < rom.terms_.size(); ++j) {
      const auto row = static_cast<Eigen::Index>(j);
      if (!(Xi.row(row).array() != 0.0).any()) continue;
      ActiveTerm a;
      a.j = j;
      a.monomial = rom.terms_[j].kind == SindyTerm::Kind::Monomial;
      if (a.monomial) a.node = monomialNode(rom.terms_[j].powers);
      for (Eigen::Index i = 0; i < Xi.cols(); ++i) xi_.push_back(Xi(row, i));
      active_.push_back(a);
    }
    products_.resize(static_cast<Eigen::Index>(monomials_.size()) + 1);
    // The spring-dampers' geometry, evaluated at every stage only when a term of it has a coefficient.
    if (std::any_of(active_.begin(), active_.end(),
                    [&](const ActiveTerm& a) { return elementOf_[a.j] >= 0; }))
      elements_.emplace(model, rom.qRef_, std::move(elementTerms));
    if (KinematicTable::applies(model, rom.independent_)) {
      const int c = rom.independent_.front();
      Eigen::VectorXd start = o.q0.size() ? o.q0 : rom.qRef_;
      start(c) = rom.qRef_(c) + u_(0);
      start = assemblePositions(model, start, 0.0, assembly_).q;
      table_.emplace(model, c, start,
                     kinematicTableSpacing(rom.envelope(), assembly_.scales->coordinateScale(c)),
                     assembly_.scales);
    } else if (const auto grid = rom.kinematicGrid(model)) {
      // Used by this run when the grid holds its start: the grid's branch.
      Eigen::VectorXd start = o.q0.size() ? o.q0 : rom.qRef_;
      for (Eigen::Index k = 0; k < 2; ++k)
        start(chart_[static_cast<std::size_t>(k)]) = rom.qRef_(chart_[static_cast<std::size_t>(k)]) + u_(k);
      gridAt_.resize(2);
      if (grid->holdsAssembled(model, start)) grid_ = grid;
    }
  }

  void advance(long long step, double t, double h) override {
    const double t0 = static_cast<double>(step - 1) * h;
    // A sample made at this state computed the first stage already (and kept the end's stretch),
    // unless an importer's inputs were held anew since (from t0 on).
    if (!(sampledAt_ == t0 && sampledHolds_ == model_.loadHolds())) evaluateEnd(t0);
    sampledAt_ = std::numeric_limits<double>::quiet_NaN();
    if (chartStart_ < 0.0) chartStart_ = endStretch_;
    leaveDegenerateChart(t0, h);
    // The step's start, for samples between its ends (fillBetween).
    stepStart_ = t0;
    stepEnd_ = t;
    qStart_ = q_;
    qdStart_ = velocities();
    qddStart_ = qdd_;
    if (rosenbrock_) {
      rosenbrockStep(t0, t, h);
      return;
    }
    if (substepTolerance_ > 0.0) {
      substeps(t0, t, h);
      return;
    }
    // Classic RK4 into storage of the right size: a stage allocates nothing.
    v_[0] = ud_;
    stage(u_, ud_, 0.5 * h, 0, t0 + 0.5 * h, 1);
    stage(u_, ud_, 0.5 * h, 1, t0 + 0.5 * h, 2);
    stage(u_, ud_, h, 2, t, 3);
    // Plain loops: for one or two coordinates Eigen's expressions cost more than the arithmetic.
    const double w = h / 6.0;
    for (Eigen::Index i = 0; i < u_.size(); ++i) {
      u_(i) += w * (v_[0](i) + 2.0 * v_[1](i) + 2.0 * v_[2](i) + v_[3](i));
      ud_(i) += w * (a_[0](i) + 2.0 * a_[1](i) + 2.0 * a_[2](i) + a_[3](i));
    }
  }

  bool finite() const override { return u_.allFinite() && ud_.allFinite(); }

  void finish(RomSimulationSummary& summary) override {
    summary.figures = {{"chart_switches", static_cast<double>(switches_)}};
    if (substepTolerance_ > 0.0) {
      summary.figures.emplace_back("substeps", static_cast<double>(substepsTaken_));
      summary.figures.emplace_back("substeps_rejected", static_cast<double>(substepsRejected_));
    }
    // The share of the stages interpolated on the model's kinematic grid (the others solved exactly).
    if ((grid_ || gridStages_ > 0) && stages_ > 0)
      summary.figures.emplace_back("kinematic_grid_share",
                                   static_cast<double>(gridStages_) / static_cast<double>(stages_));
  }

  // A sample between made before it evaluated the step's end already.
  void fill(Sample& s) override {
    if (!(sampledAt_ == s.t && sampledHolds_ == model_.loadHolds())) evaluateEnd(s.t);
    writeState(s);
    s.f_ext = knownForce_.external();
  }

  bool fillsExternalForce() const override { return knownForce_.knowsExternal(); }

  // The state between the step's ends from the quintic Hermite interpolant of every coordinate
  // through q, q̇ and q̈ at both (q̈ at the end is the next step's first stage: computed once):
  // as accurate as the chart's own interpolant, with no kinematics solved and no force
  // evaluated but the known loads. The step's end stays the state.
  void fillBetween(Sample& s) override {
    if (!(sampledAt_ == stepEnd_ && sampledHolds_ == model_.loadHolds())) evaluateEnd(stepEnd_);
    // Between the substeps' ends around s.t where the step took substeps.
    std::size_t k = 0;
    while (k < knotCount_ && knots_[k].t <= s.t) ++k;
    const Knot* from = k > 0 ? &knots_[k - 1] : nullptr;
    const Knot* to = k < knotCount_ ? &knots_[k] : nullptr;
    interpolateBetween(model_, s, from ? from->t : stepStart_, to ? to->t : stepEnd_,
                       from ? from->q : qStart_, from ? from->qd : qdStart_, from ? from->qdd : qddStart_,
                       to ? to->q : q_, to ? to->qd : velocities(), to ? to->qdd : qdd_);
    if (knownForce_.knowsExternal()) evalExternalForces(model_, loadCase_, s.q, s.t, s.f_ext);
  }

 private:
  // The state at the step's end t: ü (the next step's first stage) into a_[0], and the chart's
  // stretch for the next step.
  void evaluateEnd(double t) {
    accelerations(t, u_, ud_, a_[0]);
    sampledAt_ = t;
    sampledHolds_ = model_.loadHolds();
    endStretch_ = stretch();
  }

  // q, q̇, q̈ and the potential of the last state evaluated into `s`.
  void writeState(Sample& s) const {
    s.q = q_;
    s.qd = velocities();
    s.qdd = qdd_;
    s.potentialEnergy = mechanismPotential(model_, s.q);
  }

  // R, q̇ and c of the last state: the table's where it holds, else the chart kinematics' (read in
  // place: a stage copies nothing).
  const Eigen::MatrixXd& velocityMap() const { return tabulated_ ? R_ : kinematics_->R(); }
  const Eigen::VectorXd& velocities() const { return tabulated_ ? qd_ : kinematics_->qd(); }
  const Eigen::VectorXd& velocityPart() const { return tabulated_ ? c_ : kinematics_->c(); }

  // RK4's stage `k`: the state `from` + h × stage `k - 1`'s rates, and its accelerations at t.
  void stage(const Eigen::VectorXd& u, const Eigen::VectorXd& ud, double h, int previous, double t, int k) {
    const Eigen::Index n = u.size();
    uStage_.resize(n);
    v_[k].resize(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      uStage_(i) = u(i) + h * v_[previous](i);
      v_[k](i) = ud(i) + h * a_[previous](i);
    }
    accelerations(t, uStage_, v_[k], a_[k]);
  }

  // A chart degenerates where its coordinates stop determining the motion (a pendulum's
  // horizontal coordinate near the horizontal): its stretch grows without bound. Where the state
  // at t (its stretch endStretch_, its ü a_[0]) is there, the chart changes (a step of h [s] next).
  void leaveDegenerateChart(double t, double h) {
    if (!(endStretch_ > kSindyChartStretch * chartStart_)) return;
    switchChart(t, h);
    accelerations(t, u_, ud_, a_[0]);
    chartStart_ = stretch();
  }

  // RK4 from (u_, ud_) at t0 (whose ü is a_[0]) to t = t0 + h in substeps h / 2^level_, each
  // judged by the embedded third-order solution that the next substep's first stage gives for
  // free (weights 1/6, 1/3, 1/3, 0, 1/6 with f at the end: the error h/6 (k4 - k5)). A substep
  // whose error exceeds the tolerance (of each coordinate's scale) is taken again at half its
  // length; one within a 32nd of it lets the next, on the coarser grid, double. The level carries
  // over to the next step; the step ends with its end's ü (the next first stage) evaluated, and
  // the chart is checked at every substep's end inside the step as at a step's start.
  void substeps(double t0, double t, double h) {
    constexpr long long ticks = 1LL << kSindySubstepLevels;
    const Eigen::Index n = u_.size();
    uNew_.resize(n);
    udNew_.resize(n);
    knotCount_ = 0;
    long long p = 0;
    while (p < ticks) {
      const long long span = 1LL << (kSindySubstepLevels - level_);
      const double s0 = t0 + h * static_cast<double>(p) / static_cast<double>(ticks);
      const double s1 =
          p + span == ticks ? t : t0 + h * static_cast<double>(p + span) / static_cast<double>(ticks);
      const double error = substep(s0, s1);
      if (!(error <= substepTolerance_) && level_ < kSindySubstepLevels) {
        ++level_;
        ++substepsRejected_;
        continue;
      }
      u_.swap(uNew_);
      ud_.swap(udNew_);
      a_[0].swap(aEnd_);
      endStretch_ = stretch();
      p += span;
      ++substepsTaken_;
      if (p < ticks) {
        keepKnot(s1);
        leaveDegenerateChart(s1, s1 - s0);
      }
      if (error <= substepTolerance_ / 32.0 && level_ > 0 && p % (2 * span) == 0) --level_;
    }
    sampledAt_ = t;
    sampledHolds_ = model_.loadHolds();
  }

  // One RK4 substep from (u_, ud_, a_[0]) at s0 to s1 into (uNew_, udNew_), its end's ü into aEnd_
  // (leaving the end's q, qd, qdd); returns its error estimate, the largest over the coordinates
  // and rates of |h/6 (k4 - k5)| over the coordinate's scale.
  double substep(double s0, double s1) {
    const Eigen::Index n = u_.size();
    const double hs = s1 - s0;
    v_[0] = ud_;
    stage(u_, ud_, 0.5 * hs, 0, s0 + 0.5 * hs, 1);
    stage(u_, ud_, 0.5 * hs, 1, s0 + 0.5 * hs, 2);
    stage(u_, ud_, hs, 2, s1, 3);
    const double w = hs / 6.0;
    for (Eigen::Index i = 0; i < n; ++i) {
      uNew_(i) = u_(i) + w * (v_[0](i) + 2.0 * v_[1](i) + 2.0 * v_[2](i) + v_[3](i));
      udNew_(i) = ud_(i) + w * (a_[0](i) + 2.0 * a_[1](i) + 2.0 * a_[2](i) + a_[3](i));
    }
    accelerations(s1, uNew_, udNew_, aEnd_);
    // The error of the natural coordinates, R times the chart's: where the chart degenerates its
    // coordinates' error moves the others many times over.
    const Eigen::MatrixXd& R = velocityMap();
    const Eigen::Index nq = R.rows();
    double error = 0.0;
    for (Eigen::Index j = 0; j < nq; ++j) {
      double eq = 0.0, eqd = 0.0;
      for (Eigen::Index i = 0; i < n; ++i) {
        eq += R(j, i) * (v_[3](i) - udNew_(i));
        eqd += R(j, i) * (a_[3](i) - aEnd_(i));
      }
      // A NaN (a trial gone wrong) is kept: the substep is taken again at half its length.
      for (const double x : {std::abs(w * eq) / substepScale_(j), std::abs(w * eqd) / substepScale_(nq + j)})
        if (!std::isnan(error) && !(x <= error)) error = x;
    }
    return error;
  }

  // The state at a substep's end s inside the step, for samples between (fillBetween).
  void keepKnot(double s) {
    if (knots_.size() <= knotCount_) knots_.emplace_back();
    Knot& k = knots_[knotCount_++];
    k.t = s;
    k.q = q_;
    k.qd = velocities();
    k.qdd = qdd_;
  }

  // ROS2 (RosenbrockW) from (u_, ud_) at t0, whose ü is a_[0], to t = t0 + h; the Jacobian by
  // forward differences at the start of every kSindyJacobianSteps-th step and after a change of
  // chart, W kept in between (a W-method is of second order with any Jacobian). W singular: the
  // state becomes NaN (diverged).
  void rosenbrockStep(double t0, double t, double h) {
    if (jacobianAge_ == 0 || jacobianAge_ >= kSindyJacobianSteps) {
      jacobian(t0, h);
      jacobianAge_ = 0;
      if (!w_.factorise(Au_, Av_, h)) {
        u_.setConstant(std::numeric_limits<double>::quiet_NaN());
        return;
      }
    }
    ++jacobianAge_;
    const Eigen::Index n = u_.size();
    w_.solve(ud_, a_[0], k1u_, k1v_);
    uStage_.resize(n);
    v_[1].resize(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      uStage_(i) = u_(i) + h * k1u_(i);
      v_[1](i) = ud_(i) + h * k1v_(i);
    }
    accelerations(t, uStage_, v_[1], a_[1]);
    v_[2].resize(n);
    a_[2].resize(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      v_[2](i) = v_[1](i) - 2.0 * k1u_(i);
      a_[2](i) = a_[1](i) - 2.0 * k1v_(i);
    }
    w_.solve(v_[2], a_[2], k2u_, k2v_);
    for (Eigen::Index i = 0; i < n; ++i) {
      u_(i) += h * (1.5 * k1u_(i) + 0.5 * k2u_(i));
      ud_(i) += h * (1.5 * k1v_(i) + 0.5 * k2v_(i));
    }
  }

  // da/du and da/du' (Au_, Av_, n x n) at (t0, u_, ud_) by forward differences from a_[0]: each
  // coordinate moved by kSindyJacobianStep of the larger of its value and its scale (per step
  // h [s] for a rate), as the exported C does.
  void jacobian(double t0, double h) {
    const Eigen::Index n = u_.size();
    Au_.resize(n, n);
    Av_.resize(n, n);
    for (Eigen::Index j = 0; j < n; ++j) {
      const double scale = assembly_.scales->coordinateScale(chart_[static_cast<std::size_t>(j)]);
      uStage_ = u_;
      const double du = kSindyJacobianStep * std::max(std::abs(u_(j)), scale);
      uStage_(j) += du;
      accelerations(t0, uStage_, ud_, a_[3]);
      for (Eigen::Index i = 0; i < n; ++i) Au_(i, j) = (a_[3](i) - a_[0](i)) / du;
      v_[3] = ud_;
      const double dv = kSindyJacobianStep * std::max(std::abs(ud_(j)), scale / h);
      v_[3](j) += dv;
      accelerations(t0, u_, v_[3], a_[3]);
      for (Eigen::Index i = 0; i < n; ++i) Av_(i, j) = (a_[3](i) - a_[0](i)) / dv;
    }
  }

  // ü (into `a`) at (t, uu, vv), the state in the current chart's coordinates; leaves q, qd, qdd
  // of that state.
  void accelerations(double t, const Eigen::VectorXd& uu, const Eigen::VectorXd& vv, Eigen::VectorXd& a) {
    const Eigen::Index n = uu.size();
    for (Eigen::Index i = 0; i < n; ++i)
      q_(chart_[static_cast<std::size_t>(i)]) = rom_.qRef_(chart_[static_cast<std::size_t>(i)]) + uu(i);
    tabulated_ = tablesOn_ && table_ && table_->eval(q_(chart_[0]), vv(0), q_, R_, qd_, c_, MR_);
    ++stages_;
    if (tablesOn_ && grid_ && !tabulated_) {
      for (Eigen::Index i = 0; i < n; ++i) gridAt_(i) = q_(chart_[static_cast<std::size_t>(i)]);
      tabulated_ = grid_->eval(gridAt_, vv, cursor_, q_, R_, qd_, c_, MR_);
      gridStages_ += tabulated_ ? 1 : 0;
    }
    if (!tabulated_) kinematics_->solve(q_, vv, t);
    const Eigen::MatrixXd& R = velocityMap();
    const Eigen::VectorXd& c = velocityPart();
    knownForce_.eval(loadCase_, q_, velocities(), t, fk_);
    const bool massKept = tabulated_ ? tabulatedMass() : reduceMass(R);
    // Plain loops: these matrices are a few coordinates wide.
    rhs_.setZero(R.cols());
    addTransposedProduct(R, fk_, 1.0, rhs_);
    addTransposedProduct(MR_, c, -1.0, rhs_);
    addIdentifiedForce(t, uu, vv);
    if (Mr_.size() == 1) {
      a = rhs_;
      a(0) /= Mr_(0, 0);
    } else if (massKept) {
      // The same reduced mass a second time: its inverse, once, for a product per stage.
      if (MrInverse_.rows() != Mr_.rows())
        MrInverse_ = reducedMass_.solve(Eigen::MatrixXd(Eigen::MatrixXd::Identity(Mr_.rows(), Mr_.cols())));
      multiplyInto(MrInverse_, rhs_, a);
    } else {
      a = rhs_;
      reducedMass_.solveInPlace(a);
    }
    multiplyInto(R, a, qdd_);
    qdd_ += c;
  }

  // Rᵀ M R from the table's or the grid's M R: 1 x 1; 2 x 2 with its inverse (true: use it);
  // else factorised. The next stage off the table computes M R again.
  bool tabulatedMass() {
    const Eigen::Index n = R_.cols(), nq = R_.rows();
    Mr_.resize(n, n);
    for (Eigen::Index j = 0; j < n; ++j)
      for (Eigen::Index i = 0; i < n; ++i) {
        const double* r = R_.data() + i * nq;
        const double* m = MR_.data() + j * nq;
        double mr = 0.0;
        for (Eigen::Index k = 0; k < nq; ++k) mr += r[k] * m[k];
        Mr_(i, j) = mr;
      }
    massOf_.resize(0, 0);
    if (closedFormInverse()) return true;
    if (n != 1) reducedMass_.compute(Mr_);
    MrInverse_.resize(0, 0);
    return false;
  }

  // Two or three coordinates: Mr_'s inverse in closed form (the adjugate over the determinant)
  // into MrInverse_ while the reduced mass is clearly positive definite (leading minors); false
  // otherwise, and the caller factorises.
  bool closedFormInverse() {
    const Eigen::MatrixXd& m = Mr_;
    const Eigen::Index n = m.rows();
    if (n == 2) {
      const double det = m(0, 0) * m(1, 1) - m(0, 1) * m(1, 0);
      if (!(m(0, 0) > 0.0 && det > 1e-12 * m(0, 0) * m(1, 1))) return false;
      MrInverse_.resize(2, 2);
      MrInverse_ << m(1, 1) / det, -m(0, 1) / det, -m(1, 0) / det, m(0, 0) / det;
      return true;
    }
    if (n != 3) return false;
    const double c00 = m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1), c01 = m(1, 2) * m(2, 0) - m(1, 0) * m(2, 2),
                 c02 = m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0);
    const double minor2 = m(0, 0) * m(1, 1) - m(0, 1) * m(1, 0);
    const double det = m(0, 0) * c00 + m(0, 1) * c01 + m(0, 2) * c02;
    if (!(m(0, 0) > 0.0 && minor2 > 1e-12 * m(0, 0) * m(1, 1) && det > 1e-12 * minor2 * m(2, 2)))
      return false;
    MrInverse_.resize(3, 3);
    MrInverse_(0, 0) = c00 / det;
    MrInverse_(1, 0) = c01 / det;
    MrInverse_(2, 0) = c02 / det;
    MrInverse_(0, 1) = (m(0, 2) * m(2, 1) - m(0, 1) * m(2, 2)) / det;
    MrInverse_(1, 1) = (m(0, 0) * m(2, 2) - m(0, 2) * m(2, 0)) / det;
    MrInverse_(2, 1) = (m(0, 1) * m(2, 0) - m(0, 0) * m(2, 1)) / det;
    MrInverse_(0, 2) = (m(0, 1) * m(1, 2) - m(0, 2) * m(1, 1)) / det;
    MrInverse_(1, 2) = (m(0, 2) * m(1, 0) - m(0, 0) * m(1, 2)) / det;
    MrInverse_(2, 2) = minor2 / det;
    return true;
  }

  // M R, Rᵀ M R and its factorisation for this R; kept while R is the same to the bit (M is
  // constant: constraints linear in the dependent coordinates keep R from stage to stage).
  // True when its inverse serves (MrInverse_, made when empty): R was the last one's, or two
  // or three coordinates had it in closed form.
  bool reduceMass(const Eigen::MatrixXd& R) {
    if (R.rows() == massOf_.rows() && R.cols() == massOf_.cols() && (R.array() == massOf_.array()).all())
      return true;
    massOf_ = R;
    // Plain loops over M's nonzeros: a few columns, where Eigen's dense product dispatch costs
    // more than the arithmetic. M symmetric: Rᵀ M c = (M R)ᵀ c.
    sparseTimesDense(model_.massMatrixSparse(), R, MR_);
    transposedProduct(R, MR_, Mr_);
    // A new R: the closed-form inverse serves as a kept mass does (MrInverse_).
    if (closedFormInverse()) return true;
    if (Mr_.size() != 1) reducedMass_.compute(Mr_);
    MrInverse_.resize(0, 0);
    return false;
  }

  // The identified force Ξᵀθ(u, u̇) acts on the coordinates the model was identified in; in
  // another chart it enters through their virtual displacements, rows `independent` of R.
  void addIdentifiedForce(double t, const Eigen::VectorXd& uu, const Eigen::VectorXd& vv) {
    const std::vector<int>& independent = rom_.independent_;
    const bool own = tablesOn_;  // as the exported C: in another chart through R
    if (!own) {
      const auto n = static_cast<Eigen::Index>(independent.size());
      uOwn_.resize(n);
      udOwn_.resize(n);
      for (Eigen::Index i = 0; i < n; ++i) {
        const int k = independent[static_cast<std::size_t>(i)];
        uOwn_(i) = q_(k) - rom_.qRef_(k);
        udOwn_(i) = velocities()(k);
      }
    }
    const Eigen::VectorXd& u = own ? uu : uOwn_;
    const Eigen::VectorXd& ud = own ? vv : udOwn_;
    if (frictionElement_) fr_ = frictionValues(model_, q_, velocities());
    if (frictionChannel_) evalFrictionForces(model_, q_, velocities(), Eigen::VectorXd(), fFriction_);
    if (elements_) elements_->eval(q_, velocities(), ownBasis(), elementValues_);
    // Ξᵀθ over the terms with a coefficient (the other rows of Ξ are zero): a few products,
    // where a matrix-vector product of Eigen's costs more in its dispatch. A monomial is the
    // product evalSindyTerm forms, in its order.
    const auto n = static_cast<Eigen::Index>(independent.size());
    if (!own) force_.setZero(n);
    Eigen::VectorXd& f = own ? rhs_ : force_;
    double* product = products_.data();
    product[0] = 1.0;
    for (std::size_t k = 0; k < monomials_.size(); ++k) {
      const auto [parent, variable] = monomials_[k];
      product[k + 1] = product[parent] * (variable < n ? u(variable) : ud(variable - n));
    }
    const auto term = [&](const ActiveTerm& a) {
      if (a.monomial) return product[a.node];
      cols_(0) = 0.0;
      if (frictionOf_[a.j] >= 0) cols_(0) = fr_(frictionOf_[a.j]);
      if (frictionChannelOf_[a.j] >= 0) cols_(0) = fFriction_(frictionChannelOf_[a.j]);
      if (elementOf_[a.j] >= 0) cols_(0) = elementValues_(elementOf_[a.j]);
      return evalSindyTerm(terms_[a.j], u, ud, t, cols_);
    };
    const double* xi = xi_.data();
    if (n == 2) {  // the common case, in registers
      double f0 = f(0), f1 = f(1);
      for (const ActiveTerm& a : active_) {
        const double l = term(a);
        f0 += xi[0] * l;
        f1 += xi[1] * l;
        xi += 2;
      }
      f(0) = f0;
      f(1) = f1;
    } else {
      for (const ActiveTerm& a : active_) {
        const double l = term(a);
        for (Eigen::Index i = 0; i < n; ++i) f(i) += xi[i] * l;
        xi += n;
      }
    }
    if (own) return;
    for (std::size_t i = 0; i < independent.size(); ++i)
      rhs_.noalias() += velocityMap().row(independent[i]).transpose() * force_(static_cast<Eigen::Index>(i));
  }

  // The velocity basis whose rows of the identified coordinates are the identity: the chart's own
  // R in their chart, else R (R_I)⁻¹ with R_I its rows of those coordinates.
  const Eigen::MatrixXd& ownBasis() {
    const Eigen::MatrixXd& R = velocityMap();
    if (chart_ == rom_.independent_) return R;
    const auto n = static_cast<Eigen::Index>(chart_.size());
    rowsOwn_.resize(n, n);
    for (Eigen::Index i = 0; i < n; ++i)
      rowsOwn_.row(i) = R.row(rom_.independent_[static_cast<std::size_t>(i)]);
    // Into storage of the right size: a stage allocates nothing.
    rowsOwnLu_.compute(rowsOwn_);
    inverseOwn_.resize(n, n);
    inverseOwn_ = rowsOwnLu_.inverse();
    basisOwn_.resize(R.rows(), n);
    basisOwn_.noalias() = R * inverseOwn_;
    return basisOwn_;
  }

  // How much faster (scaled) the fastest coordinate moves than the chart's own: the largest
  // |R_ij| s_j / s_i (1 for the chart's rows), at (i, j) into `at` when given.
  double stretch(std::pair<Eigen::Index, Eigen::Index>* at = nullptr) const {
    const MechanismScales& scales = *assembly_.scales;
    double most = 0.0;
    const Eigen::MatrixXd& R = velocityMap();
    for (Eigen::Index j = 0; j < R.cols(); ++j)
      for (Eigen::Index i = 0; i < R.rows(); ++i) {
        const double x = std::abs(R(i, j)) * scales.coordinateScale(chart_[static_cast<std::size_t>(j)]) /
                         scales.coordinateScale(static_cast<int>(i));
        if (x > most) {
          most = x;
          if (at) *at = {i, j};
        }
      }
    return most;
  }

  // Generalised coordinate partitioning (Wehage & Haug 1982): the chart's coordinate j that
  // stopped determining the motion gives way to the coordinate i that moves fastest with it,
  // and the state (q_, qd_ of (u_, ud_), the kinematics of the step's end) continues in the new
  // chart.
  void switchChart(double t0, double h) {
    std::pair<Eigen::Index, Eigen::Index> at{0, 0};
    const double most = stretch(&at);
    if (rosenbrock_ || substepTolerance_ > 0.0) at.second = leastStiffTied(at.first, at.second, most, t0, h);
    chart_[static_cast<std::size_t>(at.second)] = static_cast<int>(at.first);
    for (std::size_t k = 0; k < chart_.size(); ++k) {
      u_(static_cast<Eigen::Index>(k)) = q_(chart_[k]) - rom_.qRef_(chart_[k]);
      ud_(static_cast<Eigen::Index>(k)) = velocities()(chart_[k]);
    }
    assembly_.fixedCoordinates = chart_;
    kinematics_->setChart(chart_);
    tablesOn_ = tablesHold();
    ++switches_;
    jacobianAge_ = 0;  // the Jacobian of the chart before
  }

  // For ROS2: of the chart's columns whose stretch in row i is within 1 % of the largest, `most`
  // (coordinates tied through their difference, as a bob's to its pivot's), the one whose diagonal
  // of da/du at (t0, u_, ud_) is the smallest gives way (`j`: the first largest). A stiff spring's
  // coordinate stays in the chart: in another, the slow motion's curved manifold meets the stiff
  // direction, and a linearly implicit step leaves it by h^2 times its curvature.
  Eigen::Index leastStiffTied(Eigen::Index i, Eigen::Index j, double most, double t0, double h) {
    jacobian(t0, h);
    accelerations(t0, u_, ud_, a_[0]);  // the state's kinematics again, after the differences
    const MechanismScales& scales = *assembly_.scales;
    const Eigen::MatrixXd& R = velocityMap();
    Eigen::Index chosen = j;
    for (Eigen::Index k = 0; k < R.cols(); ++k) {
      const double x = std::abs(R(i, k)) * scales.coordinateScale(chart_[static_cast<std::size_t>(k)]) /
                       scales.coordinateScale(static_cast<int>(i));
      if (x >= kSindyChartTie * most && std::abs(Au_(k, k)) < std::abs(Au_(chosen, chosen))) chosen = k;
    }
    return chosen;
  }

  // After a change of chart: whether the run is back in the model's own chart on the branch its
  // table or grid follows (they give the positions it has, within 1e-6 of each coordinate's
  // scale). Another branch (a pendulum that went over the top) or a position they do not hold
  // solves exactly until the next change.
  bool tablesHold() {
    if (chart_ != rom_.independent_) return false;
    if (!table_ && !grid_) return true;
    const Eigen::Index n = u_.size();
    Eigen::VectorXd q = q_, qd, c;
    Eigen::MatrixXd R, MR;
    bool held = false;
    if (table_) {
      held = table_->eval(q_(chart_[0]), ud_(0), q, R, qd, c, MR);
    } else {
      for (Eigen::Index i = 0; i < n; ++i) gridAt_(i) = q_(chart_[static_cast<std::size_t>(i)]);
      held = grid_->eval(gridAt_, ud_, cursor_, q, R, qd, c, MR);
    }
    return held && ((q - q_).cwiseAbs().array() <= 1e-6 * assembly_.scales->coordinateScale.array()).all();
  }

  const SindyModel& rom_;
  const Model& model_;
  int loadCase_;
  std::vector<int> chart_;  // the coordinates integrated now: the model's own until they degenerate
  long long switches_ = 0;
  double chartStart_ = -1.0;  // the chart's stretch where it was taken; negative: not yet measured
  // a_[0] and the kinematics are those of the state sampled at this time [s]; NaN: not since a step.
  double sampledAt_ = std::numeric_limits<double>::quiet_NaN();
  long long sampledHolds_ = 0;  // the model's loadHolds() then
  double endStretch_ = 0.0;     // the chart's stretch at the state evaluated at sampledAt_
  Eigen::VectorXd uOwn_, udOwn_, force_;
  std::vector<int> frictionOf_, frictionChannelOf_;
  std::vector<int> elementOf_;                  // per term: its index among the geometry terms, or -1
  std::optional<SindyElementValues> elements_;  // the spring-dampers' geometry terms
  Eigen::VectorXd elementValues_;
  Eigen::MatrixXd rowsOwn_, inverseOwn_, basisOwn_;  // ownBasis() in another chart
  Eigen::PartialPivLU<Eigen::MatrixXd> rowsOwnLu_;
  bool frictionChannel_;
  KnownForceEvaluator knownForce_;
  std::vector<SindyTerm> terms_;   // a column term reads the one value of cols_
  bool rosenbrock_;                // ROS2 rather than RK4
  double substepTolerance_ = 0.0;  // RK4 in controlled substeps (substeps()); 0: one RK4 step a step
  Eigen::VectorXd substepScale_;   // per natural coordinate, then per rate (2 nq): the scales of its error
  int level_ = 0;                  // the substeps' halvings of the step
  long long substepsTaken_ = 0, substepsRejected_ = 0;
  Eigen::VectorXd uNew_, udNew_, aEnd_;
  struct Knot {
    double t = 0.0;
    Eigen::VectorXd q, qd, qdd;
  };
  std::vector<Knot> knots_;    // the substeps' ends inside the last step, the first knotCount_ of them
  std::size_t knotCount_ = 0;  // 0: the step took no substeps inside
  // The node of a monomial of these powers (variable k: u_k for k < n, else u̇_(k−n)), made with
  // the nodes of its prefixes: a monomial is its prefix's product times its last factor, the
  // products in the order evalSindyTerm forms them (the same values to the bit).
  int monomialNode(const std::vector<int>& powers) {
    int node = 0;
    for (std::size_t k = 0; k < powers.size(); ++k)
      for (int e = 0; e < powers[k]; ++e) {
        const std::pair<int, int> factor{node, static_cast<int>(k)};
        const auto found = std::find(monomials_.begin(), monomials_.end(), factor);
        node = static_cast<int>(found - monomials_.begin()) + 1;
        if (found == monomials_.end()) monomials_.push_back(factor);
      }
    return node;
  }

  // A term with a coefficient (its row of Ξ in xi_, in this order): a monomial's node, or the
  // library's term j evaluated.
  struct ActiveTerm {
    std::size_t j = 0;
    bool monomial = false;
    int node = 0;
  };
  std::vector<ActiveTerm> active_;
  std::vector<double> xi_;
  // Node k + 1 is monomials_[k] = (parent node, variable): the product of the parent's and the
  // variable's values (node 0 is 1); products_ holds a stage's values.
  std::vector<std::pair<int, int>> monomials_;
  Eigen::VectorXd products_;
  bool frictionElement_;
  AssemblyOptions assembly_;
  std::optional<ChartKinematics> kinematics_;  // of chart_
  std::optional<KinematicTable> table_;
  std::shared_ptr<const KinematicGrid> grid_;  // the model's, for two coordinates
  // The table or grid answers in this chart: the model's own, entered on their branch (from
  // the start, or back from another chart where they give the positions the run has).
  bool tablesOn_ = true;
  KinematicGrid::Cursor cursor_;           // this run's cell on it
  Eigen::VectorXd gridAt_;                 // the chart's coordinates, as the grid reads them
  long long stages_ = 0, gridStages_ = 0;  // stages, and those on the grid
  Eigen::MatrixXd R_, MR_, Mr_;            // R_ (with qd_, c_) and MR_: the table's or the grid's
  Eigen::MatrixXd massOf_;                 // the R of MR_, Mr_ and reducedMass_
  Eigen::MatrixXd MrInverse_;    // of Mr_: in closed form for 2 or 3 coordinates, else once it was used twice
                                 // (0 x 0: not yet)
  bool tabulated_ = false;       // the last state's R, q̇, c are the table's
  SymmetricSolver reducedMass_;  // of Mr_
  Eigen::VectorXd a_[4], v_[4], uStage_;  // RK4's stages: accelerations, velocities; a stage's positions
  RosenbrockW w_;                         // ROS2's W, and its stages and Jacobian blocks
  Eigen::VectorXd k1u_, k1v_, k2u_, k2v_;
  Eigen::MatrixXd Au_, Av_;
  int jacobianAge_ = 0;  // steps taken with W since its Jacobian (0: none yet, or a new chart)
  Eigen::VectorXd rhs_;
  Eigen::VectorXd u_, ud_, q_, qd_, qdd_, fk_, fFriction_, c_, fr_, cols_ = Eigen::VectorXd::Zero(1);
  // The last step's start: q, q̇, q̈ at stepStart_ [s] (size nq).
  double stepStart_ = 0.0, stepEnd_ = 0.0;
  Eigen::VectorXd qStart_, qdStart_, qddStart_;
};

}  // namespace internal

void SindyModel::columnSources(const Model& model, std::vector<int>& frictionOf,
                               std::vector<int>& frictionChannelOf) const {
  // Friction columns follow the model's friction elements by name; a user column is
  // evaluable only when it is the engine's friction channel of a coordinate.
  frictionOf.assign(terms_.size(), -1);
  frictionChannelOf.assign(terms_.size(), -1);
  const std::vector<std::string> fnames = frictionNames(model);
  for (std::size_t j = 0; j < terms_.size(); ++j) {
    if (terms_[j].kind != SindyTerm::Kind::Column) continue;
    const auto user = std::find_if(sindySettings_.columns.begin(), sindySettings_.columns.end(),
                                   [&](const SindyColumnSource& c) { return c.name == terms_[j].name; });
    if (user != sindySettings_.columns.end()) {
      const std::string prefix = "f_friction.";
      for (int i = 0; i < model.nq() && user->source.starts_with(prefix); ++i)
        if (model.coordinateName(i) == user->source.substr(prefix.size())) frictionChannelOf[j] = i;
      if (frictionChannelOf[j] < 0)
        throw InputError(
            "sindy: the identified model uses the data column \"" + user->source + "\" (library term \"" +
            user->name +
            "\"), which a run cannot evaluate from the state; only the engine's friction "
            "channel f_friction.<coordinate> is evaluated (by the model's friction law). Identify "
            "without it, or with --friction-columns");
      continue;
    }
    const auto it = std::find(fnames.begin(), fnames.end(), terms_[j].name);
    if (it == fnames.end())
      throw InputError("sindy: the model has no friction element for the column \"" + terms_[j].name + "\"");
    frictionOf[j] = static_cast<int>(it - fnames.begin());
  }
}

std::vector<SindyElementTerm> SindyModel::elementSources(const Model& model,
                                                         std::vector<int>& elementOf) const {
  elementOf.assign(terms_.size(), -1);
  std::vector<std::string> names;
  for (std::size_t j = 0; j < terms_.size(); ++j)
    if (terms_[j].kind == SindyTerm::Kind::Element) {
      elementOf[j] = static_cast<int>(names.size());
      names.push_back(terms_[j].name);
    }
  if (names.empty()) return {};
  return sindyElementTermsNamed(geometryTermsOf(model), names);
}

std::vector<SindyElementTerm> SindyModel::geometryTermsOf(const Model& model) const {
  return sindyElementTerms(model, names_, sindyKnownForces(knownForces_));
}

std::unique_ptr<internal::SindyStepper> SindyModel::startStepper(const Model& model,
                                                                 const RunOptions& o) const {
  checkMechanism(model);
  planReducedRun(model, o, qRef_.size(), method());
  std::vector<int> frictionOf, frictionChannelOf, elementOf;
  columnSources(model, frictionOf, frictionChannelOf);
  std::vector<SindyElementTerm> elementTerms = elementSources(model, elementOf);
  return std::make_unique<internal::SindyStepper>(*this, model, o, std::move(frictionOf),
                                                  std::move(frictionChannelOf), std::move(elementOf),
                                                  std::move(elementTerms));
}

std::unique_ptr<ReducedStepper> SindyModel::stepperAtStep(const Model& model, const RunOptions& o) const {
  return startStepper(model, o);
}

std::shared_ptr<const KinematicGrid> SindyModel::kinematicGrid(const Model& model) const {
  if (!KinematicGrid::applies(model, independent_)) return nullptr;
  // The range of u in the envelope (a trained model's, as a file has it); before there is one (the
  // checks of training), of the training runs.
  const Eigen::MatrixXd range = kinematicGridRegion(envelope(), trainedRange_);
  if (range.rows() != 2 || u0_.size() != 2) return nullptr;
  return grid_.get(kinematicGridKey(model, range, u0_, qRef_), [&] {
    return trainedKinematicGrid(model, independent_, qRef_, u0_, range.col(0), range.col(1));
  });
}

RomSimulationSummary SindyModel::simulateAtStep(const Model& model, const RunOptions& o, TrajectorySink& sink,
                                                Monitor* monitor) const {
  const std::unique_ptr<internal::SindyStepper> stepper = startStepper(model, o);
  const ReducedRunPlan plan = planReducedRun(model, o, qRef_.size(), method());
  return runReducedSteps(model, *this, o, plan, *stepper, sink, monitor);
}

// ---- The command line of train sindy: data columns as library columns, and measured data.

namespace {

using Given = std::map<std::string, std::vector<std::string>>;

// The first value of an option given, or "".
std::string givenValue(const Given& given, const std::string& option) {
  const auto it = given.find(option);
  return it == given.end() || it->second.empty() ? std::string() : it->second.front();
}

double positiveNumber(const std::string& option, const std::string& text, const char* unit) {
  double x = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(x) || !(x > 0.0))
    throw InputError(option + ": masses must be > 0 " + unit + ", got " + text);
  return x;
}

// "--columns f_fric=f_friction.P.x,F" -> (f_fric, f_friction.P.x), (F, F): library name, data column.
std::vector<std::pair<std::string, std::string>> namedColumns(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& item : splitCommaList(text)) {
    const auto eq = item.find('=');
    std::pair<std::string, std::string> c = eq == std::string::npos
                                                ? std::make_pair(item, item)
                                                : std::make_pair(item.substr(0, eq), item.substr(eq + 1));
    if (c.first.empty() || c.second.empty())
      throw InputError("--columns: '" + item + "' must be NAME=COLUMN or COLUMN");
    for (const auto& other : out)
      if (other.first == c.first) throw InputError("--columns: the name '" + c.first + "' is given twice");
    out.push_back(std::move(c));
  }
  if (out.empty()) throw InputError("--columns needs NAME=COLUMN[,NAME=COLUMN...]");
  return out;
}

// The --columns of one trajectory CSV as user library columns (NaN rows are named by the library).
std::vector<SindyColumn> dataColumns(const TrajectoryTable& table, const std::string& path,
                                     const std::string& option) {
  std::vector<SindyColumn> columns;
  for (const auto& [name, source] : namedColumns(option)) {
    const int c = table.column(source);
    if (c < 0)
      throw InputError(path + ": --columns " + name + "=" + source + ": the file has no column \"" + source +
                       "\" (e.g. f_friction.<coordinate>, <friction>.velocity)");
    columns.push_back({name, table.data.col(c)});
  }
  return columns;
}

// Which data source train sindy reads, and that the options fit it (before any file is read).
InputPlan sindyPlan(const Given& given) {
  auto has = [&](const char* option) { return given.count(option) > 0; };
  const bool measured = has("--measured");
  if (measured && has("--data"))
    throw InputError(
        "give either --data RUN.csv (trajectories of the model) or --measured FILE.csv, not both");
  for (const char* option :
       {"--time", "--positions", "--velocities", "--accelerations", "--mass", "--absolute-positions"})
    if (!measured && has(option))
      throw InputError(std::string("option ") + option + " applies to --measured data");
  if (has("--columns")) namedColumns(givenValue(given, "--columns"));
  if (!measured) return {};
  if (!has("--positions")) throw InputError("--measured needs --positions COLUMN[,COLUMN...]");
  if (has("--estimate-derivatives"))
    throw InputError(
        "--estimate-derivatives applies to --data runs; with --measured, derivatives without "
        "--velocities/--accelerations columns are always estimated");
  if (has("--mass") == has("--model"))
    throw InputError(
        "--measured needs either --model MODEL.json with --coordinates (the mechanism gives M and the "
        "known forces; the result runs with rom-simulate) or --mass M (a mechanism-free fit), not both");
  if (has("--model") && !has("--coordinates"))
    throw InputError(
        "--measured with --model needs --coordinates: the natural coordinates the position columns measure");
  const std::size_t n = splitCommaList(givenValue(given, "--positions")).size();
  for (const char* option : {"--velocities", "--accelerations"})
    if (has(option) && splitCommaList(givenValue(given, option)).size() != n)
      throw InputError(std::string(option) + ": one column per position column (" + std::to_string(n) +
                       ") expected, got " + std::to_string(splitCommaList(givenValue(given, option)).size()));
  if (!has("--mass")) return {true, false, true};
  for (const char* option :
       {"--coordinates", "--friction-columns", "--absolute-positions", "--load-case", "--output"})
    if (has(option))
      throw InputError(std::string("option ") + (option == std::string("--output") ? "-o/--output" : option) +
                       " does not apply to a mechanism-free fit (--mass): it prints "
                       "the coefficients and writes no model");
  const std::vector<std::string> masses = splitCommaList(givenValue(given, "--mass"));
  for (const std::string& item : masses) positiveNumber("--mass", item, "[kg]");
  if (masses.size() != n)
    throw InputError("--mass: one mass per position column (" + std::to_string(n) + ") expected, got " +
                     std::to_string(masses.size()));
  return {false, false, false};
}

// The columns of a measured table (train sindy --measured) and their smoothing.
SindyTableLayout measuredLayout(const Given& in, const SindySettings& settings) {
  SindyTableLayout layout;
  layout.time = in.count("--time") ? givenValue(in, "--time") : std::string("t");
  layout.positions = splitCommaList(givenValue(in, "--positions"));
  if (in.count("--velocities")) layout.velocities = splitCommaList(givenValue(in, "--velocities"));
  if (in.count("--accelerations")) layout.accelerations = splitCommaList(givenValue(in, "--accelerations"));
  if (in.count("--columns")) layout.columns = namedColumns(givenValue(in, "--columns"));
  layout.smoothing.order = settings.sgOrder;
  layout.smoothing.window = settings.sgWindow;
  return layout;
}

// M = diag(--mass) of a mechanism-free fit, one mass per position column (n).
Eigen::MatrixXd measuredMasses(const Given& in, Eigen::Index n) {
  const std::vector<std::string> masses = splitCommaList(givenValue(in, "--mass"));
  if (static_cast<Eigen::Index>(masses.size()) != n)
    throw InputError("--mass: one mass per position column (" + std::to_string(n) + ") expected, got " +
                     std::to_string(masses.size()));
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    M(i, i) = positiveNumber("--mass", masses[static_cast<std::size_t>(i)], "[kg]");
  return M;
}

// A mechanism-free fit of measured data `m` from `path` (--mass): the coefficients, equations,
// verdict and hint as the report; no model.
void reportMechanismFreeFit(const SindyMeasured& m, const SindySettings& settings,
                            const SindyTableLayout& layout, const std::string& masses,
                            const std::string& path, std::ostringstream& report) {
  const SindyLibrary library = buildSindyLibrary(m.samples, settings.library, m.columns);
  // As with a mechanism: the weak form where the derivatives were estimated.
  const bool weak = settings.formulation == "weak" || (settings.formulation == "auto" && m.window > 0);
  StlsResult r;
  if (weak) {
    const int W = sindyWeakWindow(m.window, m.samples.t.size());
    const SindyWeakRows w = sindyWeakForm(m.samples, library.Theta, W);
    StlsOptions o = settings.stls;
    o.targetNoise.clear();
    o.motionScale = sindyMotionScale(sindyInertiaRows(m.samples, W));
    r = stls(w.Theta, w.Y, library.names(), m.samples.coordinates, o);
    report << "weak form: " << w.Theta.rows() << " test functions of " << W << " samples\n";
  } else {
    StlsOptions o = settings.stls;
    o.motionScale = sindyMotionScale(sindyInertiaRows(m.samples, 0));
    r = stls(library.Theta, m.samples.target.transpose(), library.names(), m.samples.coordinates, o);
  }
  std::string known;
  for (const std::string& name : layout.known) known += (known.empty() ? "" : ",") + name;
  report << "identified " << m.samples.t.size() << " samples of " << path << " (mechanism-free, M = diag("
         << masses << "), f^k = " << (known.empty() ? std::string("0") : known) << ")\n";
  report << "coefficients (terms as columns, coordinates as rows):\n" << sindyCoefficientTable(r);
  report << "equations:\n" << sindyEquations(r);
  report << r.verdict << "\n";
  report << "no held-out rollout: mechanism-free data (give --model to run the identified model)\n";
  const std::vector<SindyHint> hints = sindyResidualHints(m.samples, settings.library, library, r);
  if (r.libraryIncomplete && !hints.empty() && hints.front().correlation > kSindyHintCorrelation)
    report << "the residual of " << hints.front().coordinate << " correlates most with " << hints.front().term
           << " (" << hints.front().family << ", " << formatText("%.2f", hints.front().correlation)
           << "): " << hints.front().advice << "\n";
}

// A reduced model of `model` identified from measured data `m` of the coordinates `independent`
// (the request's data set becomes the run made of it).
std::unique_ptr<ReducedModel> modelFromMeasured(TrainingRequest& request, SindyMeasured& m,
                                                SindySettings settings, const std::vector<int>& independent,
                                                const std::string& path, Monitor& monitor) {
  const Model& model = *request.model;
  const Given& in = request.inputs;
  const Eigen::VectorXd qRef = model.q0();
  if (in.count("--absolute-positions"))
    for (Eigen::Index i = 0; i < m.samples.u.rows(); ++i)
      m.samples.u.row(i).array() -= qRef(independent[static_cast<std::size_t>(i)]);
  const int loadCase = in.count("--load-case") ? model.requireLoadCase(givenValue(in, "--load-case")) : -1;
  request.dataset = makeDataset(model);
  Eigen::MatrixXd Mr;
  addRun(request.dataset, sindyRunFromMeasured(model, m, independent, loadCase,
                                               std::filesystem::path(path).filename().string(), qRef, &Mr));
  // The noise of the estimated accelerations in the targets Rᵀ M R ü (mean reduced mass).
  const Eigen::VectorXd noise =
      (Mr.array().square().matrix() * m.uddNoise.array().square().matrix()).cwiseSqrt();
  settings.stls.targetNoise.assign(noise.data(), noise.data() + noise.size());
  settings.positionNoise = m.positionNoise;
  settings.estimatedWindow = m.window;
  return SindyModel::train(request.dataset, settings, monitor, model, {m.columns});
}

// train sindy --measured: with the model a simulable reduced model, with --mass a fit for the report.
TrainingOutcome trainSindyMeasured(TrainingRequest& request, Monitor& monitor) {
  const Given& in = request.inputs;
  const std::string path = givenValue(in, "--measured");
  SindySettings settings = SindySettings::fromJson(request.settings);
  SindyTableLayout layout = measuredLayout(in, settings);
  const auto n = static_cast<Eigen::Index>(layout.positions.size());
  Eigen::MatrixXd M = Eigen::MatrixXd::Identity(n, n);
  std::vector<int> independent;
  if (!request.model) {
    M = measuredMasses(in, n);
    // Mechanism-free: the known forces are force columns; "auto" has no loads to find.
    layout.known = resolvedKnownForces(settings.knownForces, false);
  } else {
    independent = sindyCoordinateIndices(*request.model, settings.coordinates);
    if (static_cast<Eigen::Index>(independent.size()) != n)
      throw InputError("--coordinates: one natural coordinate per position column (" + std::to_string(n) +
                       ") expected, got " + std::to_string(independent.size()));
  }
  SindyMeasured m;
  try {
    m = sindyMeasuredFromTable(readTrajectoryCsv(path), layout, M);
  } catch (const InputError& e) {
    throw InputError(path + ": " + e.what());
  }
  std::ostringstream report;
  if (m.window > 0)
    report << "derivatives estimated by Savitzky-Golay: order " << settings.sgOrder << ", window " << m.window
           << " samples ("
           << (settings.sgWindow > 0 ? "given"
                                     : "cross-validated signal window " + std::to_string(m.signalWindow))
           << ")\n";
  settings.stls.targetNoise = m.targetNoise;
  TrainingOutcome outcome;
  if (!request.model)
    reportMechanismFreeFit(m, settings, layout, givenValue(in, "--mass"), path, report);
  else
    outcome.model = modelFromMeasured(request, m, settings, independent, path, monitor);
  outcome.report = report.str();
  return outcome;
}

TrainingOutcome trainSindyRequest(TrainingRequest& request, Monitor& monitor) {
  if (request.inputs.count("--columns")) {
    request.settings["columns"] = OJson::array();
    for (const auto& [name, source] : namedColumns(givenValue(request.inputs, "--columns")))
      request.settings["columns"].push_back(OJson{{"name", name}, {"source", source}});
  }
  if (request.inputs.count("--measured")) return trainSindyMeasured(request, monitor);
  if (!request.model)
    throw InputError("sindy: training needs the mechanism (mass matrix, known forces, constraints)");
  std::vector<std::vector<SindyColumn>> runColumns;  // --columns: their values on every run
  if (request.inputs.count("--columns"))
    for (const std::string& path : request.runPaths)
      runColumns.push_back(
          dataColumns(readTrajectoryCsv(path), path, givenValue(request.inputs, "--columns")));
  TrainingOutcome outcome;
  outcome.model = SindyModel::train(request.dataset, SindySettings::fromJson(request.settings), monitor,
                                    *request.model, runColumns);
  return outcome;
}

}  // namespace

namespace {

// The coefficient table as Slimak et al. print it, the equations, the fit and the κ Pareto front.
std::vector<DetailsSection> sindyDetails(const SindyModel& sindy) {
  const StlsResult& r = sindy.result();
  DetailsTable table;
  table.columns = r.terms;
  table.rows = r.coordinates;
  table.sparse = true;
  for (Eigen::Index i = 0; i < r.Xi.cols(); ++i) {
    std::vector<DetailsCell> row;
    for (Eigen::Index j = 0; j < r.Xi.rows(); ++j) row.push_back({r.Xi(j, i), {}});  // Ξ is L x n
    table.cells.push_back(std::move(row));
  }
  std::string residuals;
  for (Eigen::Index i = 0; i < r.residual.size(); ++i)
    residuals +=
        (i ? ", " : "") +
        (static_cast<std::size_t>(i) < r.coordinates.size() ? r.coordinates[static_cast<std::size_t>(i)]
                                                            : std::string()) +
        formatText(" %.3g %%", 100.0 * r.residual(i));

  DetailsPlot pareto{"\u03ba Pareto plot: residual against model size",
                     "non-zero coefficients",
                     "max normalised residual [-]",
                     true,
                     true,
                     {}};
  std::vector<double> x, y;
  for (const auto& p : sindy.metrics().value("pareto", nlohmann::ordered_json::array())) {
    x.push_back(p.at("terms").get<double>());
    y.push_back(p.at("residual").get<double>());
  }
  pareto.series.push_back({"Pareto front of the \u03ba sweep", x, y});
  DetailsSeries points{"\u03ba sweep points", x, y};
  points.markers = true;
  points.markerSize = 8.0;
  pareto.series.push_back(std::move(points));
  const double kappa = sindy.metrics().value("kappa_chosen", sindy.settings().value("kappa", 0.0));
  DetailsSeries chosen{formatText("this model (\u03ba = %g)", kappa),
                       {static_cast<double>(r.activeTerms())},
                       {r.residual.size() ? r.residual.maxCoeff() : 0.0}};
  chosen.markers = true;
  chosen.markerSize = 12.0;
  chosen.rgb = 0xd22828;
  pareto.series.push_back(std::move(chosen));

  return {{"SINDy",
           {detailsTable("sindyTable",
                         "Coefficients \u039e (terms as columns, coordinates as rows, as in Slimak, "
                         "Zw\u00f6lfer, Trainotti and Rixen; zeros greyed) [N per term unit]",
                         std::move(table)),
            detailsText("sindyEquations", sindy.equations()),
            detailsNote("sindyVerdict",
                        "Normalised residual \u2016y \u2212 \u0398\u03be\u2016 / max(\u2016y\u2016, "
                        "\u2016R\u1d40 M q\u0308\u2016): " +
                            residuals + ". " + std::to_string(r.activeTerms()) + " active terms.",
                        r.verdict),
            detailsPlot("sindyPareto", std::move(pareto))}}};
}

}  // namespace

namespace {

using OJsonR = nlohmann::ordered_json;

// The first second try: on a mechanism with spring-dampers too stiff for the data
// (sindy_stiff_elements.h), those as known forces; known forces the user named are kept as they are.
std::optional<SecondTry> stiffElementsKnown(const OJsonR& settings, const ReducedModel& best,
                                            const std::vector<std::string>& tried) {
  const auto stiff = best.metrics().find("stiff_elements");
  std::vector<std::string> known = settings.value("known_forces", std::vector<std::string>{});
  if (known != std::vector<std::string>{"auto"} || stiff == best.metrics().end() || !stiff->is_array() ||
      stiff->empty())
    return std::nullopt;
  std::vector<SindyStiffElement> elements;
  for (const OJsonR& e : *stiff) {
    elements.push_back({e.value("name", ""), e.value("frequency", 0.0), e.value("samples_per_period", 0.0)});
    known.push_back(elements.back().name);
  }
  std::string names;
  for (const SindyStiffElement& e : elements) names += (names.empty() ? "\"" : ", \"") + e.name + "\"";
  const bool one = elements.size() == 1;
  const std::string label = names + (one ? " as a known force" : " as known forces");
  if (std::find(tried.begin(), tried.end(), label) != tried.end()) return std::nullopt;
  OJsonR s = settings;
  s["known_forces"] = known;
  // The reason once, in the first label ("the model with ... identified missed this check").
  return SecondTry{
      SindySettings::fromJson(s).toJson(),
      (one ? "the spring-damper " : "the spring-dampers ") + sindyStiffElementsText(elements) + " identified",
      label};
}

// Then, where spring-dampers' forces are identified, their geometry in the library
// (sindy_element_terms.h): a spring that turns with the motion is no polynomial of the coordinates.
std::optional<SecondTry> geometryTerms(const OJsonR& settings, const ReducedModel& best,
                                       const std::vector<std::string>& tried) {
  const std::string label = "the spring-dampers' geometry in its library";
  if (settings.value("element_terms", std::string()) != "auto" ||
      metricNumber(best.metrics(), "geometry_terms_available") < 1.0 ||
      std::find(tried.begin(), tried.end(), label) != tried.end())
    return std::nullopt;
  OJsonR s = settings;
  s["element_terms"] = "on";
  return SecondTry{SindySettings::fromJson(s).toJson(), "no spring-damper geometry in its library", label};
}

}  // namespace

MethodInfo sindyMethod() {
  using OJsonR = nlohmann::ordered_json;
  MethodInfo m;
  m.name = "sindy";
  m.displayName = "SINDy";
  m.authors = "Slimak, Zwölfer, Trainotti, Rixen";
  m.shortName = "SINDy";
  m.summary =
      "Sparse identification (STLS) of unknown force terms in the equations of motion from a library of "
      "candidate terms.";
  m.defaultsAssume =
      "independent coordinates suggested by the mobility analysis at the first sample (another set of "
      "moving coordinates when the library in those is linearly dependent on the runs), which must "
      "determine the motion all along (a crank turning through its dead points has no such coordinate: "
      "runs stop there), the runs' loads as known forces when they carry "
      "any or the mechanism has drivers (known forces auto; --known none identifies the forcing as "
      "library terms), and a polynomial "
      "library of degree 3 with sign terms, thresholded at 0.05 of each coordinate's force (a term "
      "contributing less than 5 % of the larger of its unknown and its inertial force goes; --threshold "
      "absolute: coefficients below kappa in the data's units), and at a tenth, a hundredth and a "
      "thousandth of that, the held-out check choosing (the sparser fit unless a smaller threshold's "
      "error is 1.5 times lower); "
      "a model that misses its checks is trained again with the spring-dampers too stiff for the data "
      "(fewer than 8 samples a period of their own vibration) as known forces, unless --known is given, "
      "then with the geometry of the spring-dampers whose force it identifies in its library (their "
      "direction in the coordinates times a law of their stretch and stretch rate).";
  m.group = 1;
  m.needsMechanism = true;
  m.canStopEarly = false;
  m.smokeSettings = OJsonR{{"polynomial_degree", 1}};
  m.searchSpace = {{"polynomial_degree", {3, 2}}, {"kappa", {0.05, 0.01}}};
  m.keyFigure = [](const OJsonR& metrics) {
    if (!metrics.contains("active_terms") || !metrics.contains("verdict") || !metrics["verdict"].is_string())
      return std::string();
    return metrics["active_terms"].dump() + " terms, " + metrics["verdict"].get<std::string>();
  };
  m.settingsSchema = {
      SettingSpec{"coordinates", "Independent coordinates", SettingKind::NameList,
                  "Natural coordinates identified, e.g. P.x; empty: suggested from the mobility analysis"}
          .placeholder("P.x,..."),
      SettingSpec{"known_forces", "Known forces f^k", SettingKind::NameList,
                  "Forces of the model taken as known: external, springs, dampers or element names; auto "
                  "(default): external when the training runs carry loads; none: no force is known"}
          .option("--known", "F,..."),
      SettingSpec{"polynomial_degree", "Polynomial degree", SettingKind::Integer,
                  "Monomials of q and q_dot up to this degree, with cross terms"}
          .option("--degree", "D")
          .range(0, 9),
      {"constant", "Constant term", SettingKind::Flag, "A constant column in the library"},
      SettingSpec{"sign_velocity", "sgn(q_dot)", SettingKind::Flag,
                  "Sign of each velocity (Coulomb-like friction)"}
          .option("--no-sign"),
      SettingSpec{"trig_positions", "sin/cos(q)", SettingKind::Flag, "Sine and cosine of each coordinate"}
          .option("--trig"),
      SettingSpec{"omegas", "Excitation ω [rad/s]", SettingKind::NumberList,
                  "Angular frequencies of cos(k ω t) columns, comma-separated"}
          .placeholder("W,..."),
      SettingSpec{"harmonics", "Harmonics k", SettingKind::IntegerList,
                  "Multiples k of every ω in cos(k ω t), e.g. 1, 2, 3"}
          .placeholder("K,...")
          .range(1, 1000),
      {"sine_time", "sin(k ω t) too", SettingKind::Flag, "Also sine columns of the excitation frequencies"},
      {"friction_columns", "Friction columns", SettingKind::Flag,
       "The model's friction laws evaluated on the data, one column each"},
      SettingSpec{
          "element_terms",
          "Spring-damper geometry",
          SettingKind::Choice,
          "Columns from each spring-damper whose force is identified: its direction in the coordinates "
          "times 1, its stretch, stretch^2, stretch^3 and stretch rate (a spring that turns with the "
          "motion); auto: added in a second try when the model misses its checks; on: always; off: never",
          {"auto", "on", "off"}},
      SettingSpec{"terms", "Only these terms", SettingKind::NameList,
                  "Restrict the library to these term names; empty: all (training leaves out those its runs "
                  "cannot tell apart)"}
          .placeholder("T,..."),
      {"kappa", "Threshold κ", SettingKind::Number,
       "STLS threshold: terms below it are removed, then the rest refitted"},
      SettingSpec{
          "threshold",
          "Threshold on",
          SettingKind::Choice,
          "relative: κ is a share of each coordinate's force (its unknown force or, if larger, its "
          "inertial force), free of the data's units; absolute: κ on |coefficient|, in the data's units",
          {"relative", "absolute"}},
      SettingSpec{
          "kappa_search", "Choose κ by held-out runs", SettingKind::Flag,
          "Also fit with κ / 10, κ / 100 and κ / 1000 and keep the one the held-out check and, fitted on "
          "every run, those runs find best (the sparser one unless a smaller κ's error is 1.5 times lower)"}
          .option("--no-kappa-search"),
      {"normalise", "Normalise columns", SettingKind::Flag,
       "With an absolute threshold: κ on unit-RMS columns (a term's contribution in the data's units)"},
      {"ridge", "Ridge", SettingKind::Number, "Ridge (Tikhonov) term of the least squares; 0: none"},
      SettingSpec{"max_iterations", "STLS iterations", SettingKind::Integer,
                  "Most threshold-refit rounds before the support must be stable"}
          .range(1, 1e6),
      SettingSpec{"derivatives",
                  "Derivatives",
                  SettingKind::Choice,
                  "data: the runs' velocities and accelerations; estimate: Savitzky-Golay from positions",
                  {"data", "estimate"}}
          .option("--estimate-derivatives")
          .flagFor("estimate"),
      SettingSpec{"sg_order", "Savitzky-Golay order", SettingKind::Integer,
                  "Polynomial order of the smoothing differentiator"}
          .placeholder("P")
          .range(2, 6),
      SettingSpec{"sg_window", "Savitzky-Golay window", SettingKind::Integer,
                  "Samples per window (odd); 0: chosen automatically"}
          .placeholder("W")
          .range(0, 1e6),
      SettingSpec{
          "formulation",
          "Formulation",
          SettingKind::Choice,
          "auto: weak where derivatives are estimated from positions; pointwise: the equations at every "
          "sample (needs accelerations); weak: integrated against test functions (Messenger and Bortz), "
          "no accelerations",
          {"auto", "pointwise", "weak"}},
  };
  m.checkSettings = [](const OJsonR& settings) { return SindySettings::fromJson(settings).toJson(); };
  m.train = [](const Dataset& dataset, const OJsonR& settings, Monitor& monitor,
               const Model* model) -> std::unique_ptr<ReducedModel> {
    const SindySettings s = SindySettings::fromJson(settings);
    if (!model)
      throw InputError("sindy: training needs the mechanism (mass matrix, known forces, constraints)");
    return SindyModel::train(dataset, s, monitor, *model);
  };
  // A model that missed its checks is trained again with the spring-dampers too stiff for the data
  // as known forces, then with the spring-dampers' geometry in its library, each once.
  m.secondTry = [](const OJsonR& settings, const ReducedModel& best,
                   const std::vector<std::string>& tried) -> std::optional<SecondTry> {
    if (std::optional<SecondTry> stiff = stiffElementsKnown(settings, best, tried)) return stiff;
    return geometryTerms(settings, best, tried);
  };
  // κ and the own step are chosen on the held-out runs: κ fixed to the one chosen.
  m.chosenSettings = [](const ReducedModel& rom) {
    OJsonR s = rom.settings();
    if (const auto k = rom.metrics().find("kappa_chosen"); k != rom.metrics().end() && k->is_number()) {
      s["kappa"] = *k;
      s["kappa_search"] = false;
    }
    return s;
  };
  m.load = [](const OJsonR& file, const std::string& source) -> std::unique_ptr<ReducedModel> {
    return SindyModel::fromJson(file, source);
  };
  using Role = InputSpec::Role;
  m.inputs = {
      {"--columns", "NAME=COLUMN,...",
       "Data column COLUMN as library column NAME (COLUMN alone: named COLUMN), e.g. f_fric=f_friction.P.x; "
       "rom-simulate evaluates f_friction.<coordinate> by the model's friction law and refuses any other "
       "column"},
      {"--measured", "FILE.csv",
       "Measured data instead of --data runs: a CSV with a header line; derivatives not given are estimated. "
       "With --model, M, R and the --known forces come from the model, external ones from --load-case; with "
       "--mass, a mechanism-free fit is printed and no model written",
       Role::File, true},
      {"--positions", "COLUMN,...",
       "--measured: one column per identified coordinate, displacements [m, rad] (of the --coordinates from "
       "the model's reference configuration, or their values with --absolute-positions)",
       Role::Value, true},
      {"--time", "COLUMN",
       "--measured: time column [s], increasing; uniform steps to estimate derivatives [t]", Role::Value,
       true},
      {"--velocities", "COLUMN,...", "--measured: measured velocities, one per position [estimated]",
       Role::Value, true},
      {"--accelerations", "COLUMN,...", "--measured: measured accelerations, one per position [estimated]",
       Role::Value, true},
      {"--absolute-positions", "", "--measured: the positions are coordinate values, not displacements",
       Role::Flag, true},
      {"--load-case", "NAME[,NAME...]",
       "Load case of the external forces: of the runs, one for all or one per run in the order of --data, "
       "or of the --measured data with --model [gravity only]",
       Role::LoadCases},
      {"--mass", "M,...",
       "--measured: mechanism-free fit, M = diag(M,...) [kg, kg m^2]; --known names force columns of the CSV "
       "[N]; prints the fit and writes no model",
       Role::Value, true},
  };
  m.otherUsages = {
      "--measured FILE.csv --positions COLUMN,... [--time COLUMN] [--velocities COLUMN,...] [--accelerations "
      "COLUMN,...] (--model MODEL.json --coordinates P.x,... -o ROM.json [--load-case NAME] "
      "[--absolute-positions] | --mass M,...) [the options above]"};
  m.planInputs = sindyPlan;
  m.trainRequest = trainSindyRequest;
  m.trainedReport = [](const ReducedModel& rom) {
    const auto& sindy = dynamic_cast<const SindyModel&>(rom);
    return "coefficients (terms as columns, coordinates as rows):\n" + sindy.coefficientTable() +
           "equations:\n" + sindy.equations() + sindy.result().verdict + "\n";
  };
  m.infoText = [](const ReducedModel& rom) {
    const auto& sindy = dynamic_cast<const SindyModel&>(rom);
    std::ostringstream out;
    out << "coefficients (terms as columns, coordinates as rows):\n" << sindy.coefficientTable();
    out << "equations:\n" << sindy.equations();
    const Eigen::IOFormat fmt(4, 0, " ", " ", "", "");
    out << "normalised residual " << sindy.result().residual.transpose().format(fmt)
        << (sindy.result().libraryIncomplete ? " (above 10 %: the library is missing something)" : "")
        << "\n";
    return out.str();
  };
  m.details = [](const ReducedModel& rom) { return sindyDetails(static_cast<const SindyModel&>(rom)); };
  return m;
}

void SindyModel::envelopeStateInto(const Eigen::MatrixXd&, const Eigen::VectorXd& q,
                                   const Eigen::VectorXd& qd, Eigen::VectorXd& x) const {
  const Eigen::Index n = reducedDimension();
  x.resize(2 * n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const int c = independent_[static_cast<std::size_t>(i)];
    x(i) = q(c) - qRef_(c);
    x(n + i) = qd(c);
  }
}

bool SindyModel::takesLoads() const {
  return sindyKnownForces(knownForces_).external;
}

StoredStart SindyModel::storedStart() const {
  Eigen::VectorXd x(2 * u0_.size());
  x << u0_, ud0_;
  return {x, "matrices.initial_u, matrices.initial_ud"};
}

std::vector<std::string> SindyModel::envelopeLabels() const {
  return reducedStateLabels(reducedDimension());
}

}  // namespace mbdrom
