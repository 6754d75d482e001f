// Work-precision benchmark (faster than Simbody at every accuracy?):
// the same mechanisms in mbdrom (both integrators) and in Simbody 3.7
// (Runge-Kutta-Merson, its natural steps, outputs interpolated), wall time
// against the largest position error of the tracked points over 10 ms samples,
// measured against an mbdrom Dormand-Prince run at tolerance 1e-13. Release,
// one core (taskset -c 0). Prints a Markdown table for docs/benchmarks.md.
//
//   taskset -c 0 build/bench/bench/work_precision/mbdrom_work_precision [--quick]
//
// Each mechanism is read from its model file and the Simbody system is built
// from the same numbers (points, masses, centres of mass, inertias, springs):
// bodies get frames parallel to ground at the model's reference position,
// where every joint coordinate is zero.

#include "simbody_runs.h"

#include "engine/dynamics/simulation.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using Track = std::vector<Eigen::VectorXd>;  // per sample: the tracked points' coordinates, 3 per point

mbdrom::Model readFrom(const std::string& relative) {
  return mbdrom::readModel(std::string(MBDROM_SOURCE_DIR) + "/" + relative);
}

Eigen::Vector3d point(const mbdrom::ModelSpec& spec, const std::string& name) {
  for (const mbdrom::PointSpec& p : spec.points)
    if (p.name == name) return p.position;
  std::fprintf(stderr, "no point %s\n", name.c_str());
  std::exit(2);
}

const mbdrom::BodySpec& body(const mbdrom::ModelSpec& spec, const std::string& name) {
  for (const mbdrom::BodySpec& b : spec.bodies)
    if (b.name == name) return b;
  std::fprintf(stderr, "no body %s\n", name.c_str());
  std::exit(2);
}

wp::Vec vec(const Eigen::Vector3d& v) {
  return {v.x(), v.y(), v.z()};
}

// A body of the model as a Simbody mobilized body jointed at `origin`; central
// inertia from the model (rigid), or of a bar (J across, ~0 along; J default m L^2 / 12).
wp::Body sbBody(const mbdrom::BodySpec& b, wp::Body::Joint joint, int parent, const Eigen::Vector3d& origin,
                const Eigen::Vector3d* barEnd = nullptr,
                const Eigen::Vector3d& axis = Eigen::Vector3d::UnitZ()) {
  Eigen::Matrix3d I = b.inertia;
  if (barEnd) {
    const Eigen::Vector3d d = (*barEnd - origin).normalized();
    const double J = b.transverseInertia.value_or(b.mass * (*barEnd - origin).squaredNorm() / 12.0);
    I = J * (Eigen::Matrix3d::Identity() - d * d.transpose()) + 1e-9 * J * d * d.transpose();
  }
  if (b.type == mbdrom::BodyType::Particle) I.setZero();
  wp::Body s;
  s.joint = joint;
  s.parent = parent;
  s.origin = vec(origin);
  s.axis = vec(axis.normalized());
  s.mass = b.mass;
  s.com = vec(b.com);
  s.inertia = {I(0, 0), I(1, 1), I(2, 2), I(0, 1), I(0, 2), I(1, 2)};
  return s;
}

struct Mechanism {
  std::string name;
  mbdrom::Model model;
  int loadCase = -1;
  double tEnd = 1.0;
  std::vector<std::string> points;  // tracked: their coordinates in mbdrom
  wp::Mechanism simbody;            // the same mechanism for Simbody
};

// The runs of mbdrom: tracked point coordinates at every output sample.
class TrackSink : public mbdrom::TrajectorySink {
 public:
  explicit TrackSink(std::vector<int> columns) : columns_(std::move(columns)) {}
  void begin(const mbdrom::Model&, const mbdrom::RunInfo&) override { track.clear(); }
  void write(const mbdrom::Sample& s) override {
    Eigen::VectorXd x(static_cast<Eigen::Index>(columns_.size()));
    for (std::size_t i = 0; i < columns_.size(); ++i) x(static_cast<Eigen::Index>(i)) = s.q(columns_[i]);
    track.push_back(std::move(x));
  }
  void end(mbdrom::RunStatus, const std::string&) override {}
  Track track;

 private:
  std::vector<int> columns_;
};

std::vector<int> columnsOf(const mbdrom::Model& model, const std::vector<std::string>& points) {
  std::vector<int> cols;
  for (const std::string& p : points)
    for (const char* axis : {".x", ".y", ".z"})
      for (int i = 0; i < model.nq(); ++i)
        if (model.coordinateName(i) == p + axis) cols.push_back(i);
  return cols;
}

constexpr double kOutputDt = 0.01;

Track runMbdrom(const Mechanism& m, mbdrom::IntegratorMethod method, double tolerance, double& seconds,
                long long& steps) {
  mbdrom::RunOptions o;
  o.loadCase = m.loadCase;
  o.tEnd = m.tEnd;
  o.outputDt = kOutputDt;
  o.integrator.method = method;
  o.integrator.tolerance = tolerance;
  TrackSink sink(columnsOf(m.model, m.points));
  const auto t0 = Clock::now();
  const mbdrom::SimulationSummary s = mbdrom::simulate(m.model, o, sink);
  seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  steps = s.steps;
  return sink.track;
}

Track runSimbody(const Mechanism& m, double accuracy, double& seconds, long long& steps) {
  wp::Mechanism sm = m.simbody;
  sm.tEnd = m.tEnd;
  sm.outputDt = kOutputDt;
  Track track;
  for (const std::vector<double>& x : wp::runSimbody(sm, accuracy, seconds, steps))
    track.push_back(Eigen::Map<const Eigen::VectorXd>(x.data(), static_cast<Eigen::Index>(x.size())));
  return track;
}

double maxError(const Track& a, const Track& ref) {
  if (a.size() != ref.size()) return INFINITY;
  double e = 0.0;
  for (std::size_t k = 0; k < a.size(); ++k) e = std::max(e, (a[k] - ref[k]).lpNorm<Eigen::Infinity>());
  return e;
}

struct Point {
  double tolerance, seconds, error;
  long long steps;
};

// Best of a few repeats (at least 0.2 s of runs, at most 5).
template <class Run>
Point measure(double tolerance, const Track& ref, Run run) {
  Point p{tolerance, INFINITY, 0.0, 0};
  double total = 0.0;
  for (int r = 0; r < 5 && total < 0.2; ++r) {
    double s = 0.0;
    long long steps = 0;
    Track t;
    try {
      t = run(tolerance, s, steps);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "  tolerance %.0e failed: %s\n", tolerance, e.what());
      return {tolerance, INFINITY, INFINITY, 0};
    }
    total += s;
    p.seconds = std::min(p.seconds, s);
    p.error = maxError(t, ref);
    p.steps = steps;
  }
  return p;
}

// Cheapest run whose error is at most `level` [m]; infinity when none reaches it.
double timeFor(const std::vector<Point>& points, double level) {
  double best = INFINITY;
  for (const Point& p : points)
    if (p.error <= level) best = std::min(best, p.seconds);
  return best;
}

std::vector<Mechanism> mechanisms() {
  using J = wp::Body::Joint;
  std::vector<Mechanism> list;
  {  // 3D double pendulum of two rigid rods on spherical joints, gravity only.
    Mechanism m{"3D double pendulum (rods, spherical joints)",
                readFrom("tests/data/mechanisms/double_pendulum_rods_3d.json"),
                -1,
                1.0,
                {"P1", "P2"},
                {}};
    const mbdrom::ModelSpec& spec = m.model.spec();
    const Eigen::Vector3d O = point(spec, "O"), P1 = point(spec, "P1"), P2 = point(spec, "P2");
    m.simbody.gravity = vec(spec.gravity);
    m.simbody.bodies = {sbBody(body(spec, "rod1"), J::Ball, -1, O),
                        sbBody(body(spec, "rod2"), J::Ball, 0, P1)};
    m.simbody.tracked = {{0, vec(P1)}, {1, vec(P2)}};
    list.push_back(std::move(m));
  }
  {  // Four-bar of rigid rods on revolute joints in the vertical plane, released under gravity.
    Mechanism m{"four-bar (rigid rods, revolute joints)",
                readFrom("tests/data/mechanisms/four_bar_rigid_3d_revolute.json"),
                -1,
                2.0,
                {"A_k", "B_k"},
                {}};
    const mbdrom::ModelSpec& spec = m.model.spec();
    const Eigen::Vector3d O = point(spec, "O"), Q = point(spec, "Q"), A = point(spec, "A_c"),
                          B = point(spec, "B_k");
    m.simbody.gravity = vec(spec.gravity);
    m.simbody.bodies = {sbBody(body(spec, "crank"), J::Pin, -1, O),
                        sbBody(body(spec, "coupler"), J::Pin, 0, A),
                        sbBody(body(spec, "rocker"), J::Pin, -1, Q)};
    m.simbody.balls = {{1, 2, vec(B)}};
    m.simbody.tracked = {{0, vec(A)}, {1, vec(B)}};
    list.push_back(std::move(m));
  }
  {  // Slider-crank with a spring-damper on the slider (the example), from rest under gravity.
    Mechanism m{"slider-crank (example, spring-damper)",
                readFrom("resources/examples/slider_crank.json"),
                -1,
                2.0,
                {"A", "B"},
                {}};
    const mbdrom::ModelSpec& spec = m.model.spec();
    const Eigen::Vector3d O = point(spec, "O"), A = point(spec, "A"), B = point(spec, "B"),
                          S = point(spec, "S");
    m.simbody.gravity = vec(spec.gravity);
    m.simbody.bodies = {sbBody(body(spec, "crank"), J::Pin, -1, O, &A),
                        sbBody(body(spec, "rod"), J::Pin, 0, A, &B),
                        sbBody(body(spec, "slider"), J::Slider, -1, B, nullptr, Eigen::Vector3d::UnitX())};
    m.simbody.balls = {{1, 2, vec(B)}};
    const mbdrom::SpringDamperSpec& k = spec.springDampers.front();
    m.simbody.springs = {{-1, 2, vec(S), vec(B), k.stiffness.front(), k.freeLength, k.damping}};
    m.simbody.tracked = {{0, vec(A)}, {2, vec(B)}};
    list.push_back(std::move(m));
  }
  {  // MacPherson strut (chassis fixed) under its chirp load: 1794 N + 1500 N, 0.5 -> 1.9 Hz over 2 s.
    Mechanism m{"MacPherson strut (chirp load)",
                readFrom("tests/data/mechanisms/macpherson_strut_chirp.json"),
                0,
                2.0,
                {"BJ_k", "TO"},
                {}};
    const mbdrom::ModelSpec& spec = m.model.spec();
    m.loadCase = m.model.requireLoadCase("chirp");
    const Eigen::Vector3d F = point(spec, "F_ch"), T = point(spec, "T"), S = point(spec, "S"),
                          BJ = point(spec, "BJ_k"), TI = point(spec, "TI"), TO = point(spec, "TO");
    Eigen::Vector3d axisLca = Eigen::Vector3d::Zero(), axisStrut = Eigen::Vector3d::Zero();
    for (const mbdrom::VectorSpec& v : spec.vectors) {
      if (v.name == "a_ch") axisLca = v.direction;
      if (v.name == "u_st") axisStrut = v.direction;
    }
    const mbdrom::BodySpec& knuckle = body(spec, "knuckle");
    m.simbody.gravity = vec(spec.gravity);
    m.simbody.bodies = {sbBody(body(spec, "strut"), J::Ball, -1, T),
                        sbBody(knuckle, J::Slider, 0, S, nullptr, axisStrut),
                        sbBody(body(spec, "lca"), J::Pin, -1, F, nullptr, axisLca)};
    m.simbody.balls = {{1, 2, vec(BJ)}};
    double tieRod = (TO - TI).norm();
    for (const mbdrom::JointSpec& j : spec.joints)
      if (j.name == "tie_rod" && j.length) tieRod = *j.length;
    m.simbody.rods = {{-1, 1, vec(TI), vec(TO), tieRod}};
    const mbdrom::SpringDamperSpec& k = spec.springDampers.front();
    m.simbody.springs = {{-1, 1, vec(T), vec(S), k.stiffness.front(), k.freeLength, k.damping}};
    const mbdrom::LoadSpec& load = spec.loadCases[static_cast<std::size_t>(m.loadCase)].loads.front();
    const mbdrom::TimeFunction f = load.function;
    m.simbody.loads = {
        {1, vec(knuckle.markers.front().position), vec(load.direction), [f](double t) { return f(t); }}};
    m.simbody.tracked = {{1, vec(BJ)}, {1, vec(TO)}};
    list.push_back(std::move(m));
  }
  return list;
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const std::vector<double> levels = {1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8};
  std::vector<double> tolerances;
  for (double e = -2.0; e >= (quick ? -9.0 : -12.0); e -= quick ? 1.0 : 0.5)
    tolerances.push_back(std::pow(10.0, e));
  std::printf("| mechanism | integrator | time to max error 1e-3 m | 1e-4 | 1e-5 | 1e-6 | 1e-7 | 1e-8 m |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  std::vector<std::string> details;
  for (const Mechanism& m : mechanisms()) {
    double s = 0.0;
    long long steps = 0;
    const Track ref = runMbdrom(m, mbdrom::IntegratorMethod::DormandPrince, 1e-13, s, steps);
    std::map<std::string, std::vector<Point>> curves;
    for (double tol : tolerances) {
      curves["mbdrom dopri5"].push_back(measure(tol, ref, [&](double t, double& sec, long long& n) {
        return runMbdrom(m, mbdrom::IntegratorMethod::DormandPrince, t, sec, n);
      }));
      if (tol >= 1e-10)
        curves["mbdrom trapezoidal"].push_back(measure(tol, ref, [&](double t, double& sec, long long& n) {
          return runMbdrom(m, mbdrom::IntegratorMethod::Trapezoidal, t, sec, n);
        }));
      curves["Simbody RK-Merson"].push_back(
          measure(tol, ref, [&](double t, double& sec, long long& n) { return runSimbody(m, t, sec, n); }));
    }
    for (const auto& [name, points] : curves) {
      std::printf("| %s | %s |", m.name.c_str(), name.c_str());
      for (double level : levels) {
        const double t = timeFor(points, level);
        if (std::isfinite(t))
          std::printf(" %.3g ms |", 1e3 * t);
        else
          std::printf(" not reached |");
      }
      std::printf("\n");
      for (const Point& p : points) {
        char line[256];
        std::snprintf(line, sizeof line, "%s | %s | tol %.1e | %lld steps | %.3g ms | max error %.2e m",
                      m.name.c_str(), name.c_str(), p.tolerance, p.steps, 1e3 * p.seconds, p.error);
        details.emplace_back(line);
      }
    }
    const std::vector<Point>& sb = curves["Simbody RK-Merson"];
    const std::vector<Point>& dp = curves["mbdrom dopri5"];
    std::printf("| %s | **ratio mbdrom dopri5 / Simbody** |", m.name.c_str());
    for (double level : levels) {
      const double a = timeFor(dp, level), b = timeFor(sb, level);
      if (std::isfinite(a) && std::isfinite(b))
        std::printf(" %.2f |", a / b);
      else
        std::printf(" %s |", std::isfinite(a) ? "Simbody does not reach it" : "-");
    }
    std::printf("\n");
  }
  std::printf("\nAll runs (wall time: best of up to 5 repeats):\n\n");
  for (const std::string& d : details) std::printf("    %s\n", d.c_str());
  return 0;
}
