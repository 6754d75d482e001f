#include "simbody_runs.h"

#include <Simbody.h>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace wp {

namespace {

SimTK::Vec3 v3(const Vec& v) {
  return {v[0], v[1], v[2]};
}

SimTK::MassProperties massAbout(const Body& b) {
  const SimTK::Inertia central(b.inertia[0], b.inertia[1], b.inertia[2], b.inertia[3], b.inertia[4],
                               b.inertia[5]);
  const SimTK::Vec3 r = v3(b.com) - v3(b.origin);
  return {b.mass, r, central.shiftFromMassCenter(-r, b.mass)};
}

// The frame of a joint: at `at`, its z (Pin) or x (Slider) axis along `axis`.
SimTK::Rotation jointRotation(const Body& b) {
  if (b.joint == Body::Joint::Ball) return {};
  if (b.joint == Body::Joint::Pin) return SimTK::Rotation(SimTK::UnitVec3(v3(b.axis)), SimTK::ZAxis);
  return SimTK::Rotation(SimTK::UnitVec3(v3(b.axis)), SimTK::XAxis);
}

// f(t) * direction on a station of a body.
class PointLoad : public SimTK::Force::Custom::Implementation {
 public:
  PointLoad(const SimTK::MobilizedBody& body, SimTK::Vec3 station, SimTK::Vec3 direction,
            std::function<double(double)> f)
      : body_(body), station_(station), direction_(direction), f_(std::move(f)) {}
  void calcForce(const SimTK::State& s, SimTK::Vector_<SimTK::SpatialVec>& bodyForces,
                 SimTK::Vector_<SimTK::Vec3>&, SimTK::Vector&) const override {
    body_.applyForceToBodyPoint(s, station_, f_(s.getTime()) * direction_, bodyForces);
  }
  SimTK::Real calcPotentialEnergy(const SimTK::State&) const override { return 0; }

 private:
  const SimTK::MobilizedBody& body_;
  SimTK::Vec3 station_, direction_;
  std::function<double(double)> f_;
};

}  // namespace

std::vector<std::vector<double>> runSimbody(const Mechanism& m, double accuracy, double& seconds,
                                            long long& steps) {
  SimTK::MultibodySystem system;
  SimTK::SimbodyMatterSubsystem matter(system);
  SimTK::GeneralForceSubsystem forces(system);
  SimTK::Force::UniformGravity(forces, matter, v3(m.gravity));
  std::vector<SimTK::MobilizedBodyIndex> index;
  auto origin = [&](int b) {
    return b < 0 ? SimTK::Vec3(0) : v3(m.bodies[static_cast<std::size_t>(b)].origin);
  };
  auto mobod = [&](int b) -> SimTK::MobilizedBody& {
    return b < 0 ? matter.updGround() : matter.updMobilizedBody(index[static_cast<std::size_t>(b)]);
  };
  for (const Body& b : m.bodies) {
    const SimTK::Body::Rigid body(massAbout(b));
    const SimTK::Rotation R = jointRotation(b);
    const SimTK::Transform inParent(R, v3(b.origin) - origin(b.parent)), inBody(R, SimTK::Vec3(0));
    SimTK::MobilizedBody& parent = mobod(b.parent);
    switch (b.joint) {
      case Body::Joint::Ball:
        index.push_back(SimTK::MobilizedBody::Ball(parent, inParent, body, inBody).getMobilizedBodyIndex());
        break;
      case Body::Joint::Pin:
        index.push_back(SimTK::MobilizedBody::Pin(parent, inParent, body, inBody).getMobilizedBodyIndex());
        break;
      case Body::Joint::Slider:
        index.push_back(SimTK::MobilizedBody::Slider(parent, inParent, body, inBody).getMobilizedBodyIndex());
        break;
    }
  }
  for (const Ball& c : m.balls)
    SimTK::Constraint::Ball(mobod(c.a), v3(c.point) - origin(c.a), mobod(c.b), v3(c.point) - origin(c.b));
  for (const Rod& r : m.rods)
    SimTK::Constraint::Rod(mobod(r.a), v3(r.pointA) - origin(r.a), mobod(r.b), v3(r.pointB) - origin(r.b),
                           r.length);
  for (const Load& l : m.loads)
    SimTK::Force::Custom(forces,
                         new PointLoad(mobod(l.body), v3(l.point) - origin(l.body), v3(l.direction), l.f));
  for (const Spring& s : m.springs) {
    const SimTK::Vec3 a = v3(s.pointA) - origin(s.a), b = v3(s.pointB) - origin(s.b);
    SimTK::Force::TwoPointLinearSpring(forces, mobod(s.a), a, mobod(s.b), b, s.stiffness, s.freeLength);
    if (s.damping > 0.0) SimTK::Force::TwoPointLinearDamper(forces, mobod(s.a), a, mobod(s.b), b, s.damping);
  }
  system.realizeTopology();
  // Timed from here, as mbdrom's simulate() is: the state, the integrator, the run.
  const auto t0 = std::chrono::steady_clock::now();
  SimTK::State state = system.getDefaultState();
  SimTK::RungeKuttaMersonIntegrator integ(system);
  integ.setAccuracy(accuracy);
  SimTK::TimeStepper ts(system, integ);
  ts.initialize(state);
  std::vector<std::vector<double>> track;
  auto sample = [&] {
    const SimTK::State& s = integ.getState();
    system.realize(s, SimTK::Stage::Position);
    std::vector<double> x;
    for (const auto& [b, p] : m.tracked) {
      const SimTK::Vec3 g = mobod(b).findStationLocationInGround(s, v3(p) - origin(b));
      x.insert(x.end(), {g[0], g[1], g[2]});
    }
    track.push_back(std::move(x));
  };
  sample();
  const int n = static_cast<int>(std::llround(m.tEnd / m.outputDt));
  for (int k = 1; k <= n; ++k) {
    ts.stepTo(std::min(m.tEnd, k * m.outputDt));
    sample();
  }
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  steps = integ.getNumStepsTaken();
  return track;
}

}  // namespace wp
