#include "app/cli/model_commands.h"

#include "app/cli/arguments.h"
#include "engine/dynamics/measures.h"
#include "engine/dynamics/mobility.h"
#include "engine/dynamics/modes.h"
#include "engine/dynamics/reactions.h"
#include "engine/dynamics/statics.h"
#include "engine/model/load_case_label.h"
#include "engine/model/model_file.h"

#include <iomanip>
#include <numbers>
#include <ostream>

namespace mbdrom::cli {

const char* const kInfoUsage =
    "usage: mbdrom-cli info MODEL.json\n\n"
    "Coordinates, constraints, rank of the constraint Jacobian, degrees of freedom,\n"
    "redundant constraints (named) and the mechanism hash.\n";
const char* const kStaticsUsage =
    "usage: mbdrom-cli statics MODEL.json [--load-case NAME] [--time T]\n\n"
    "Static equilibrium under a load case (default: gravity only) at time T [s] (default 0).\n"
    "Prints the equilibrium position of every point and marker, the reaction force\n"
    "and moment of every joint and connection (on body2, at the joint point, global\n"
    "axes) and the model's measures.\n";
const char* const kModesUsage =
    "usage: mbdrom-cli modes MODEL.json [--load-case NAME] [--time T]\n\n"
    "Linearised modes about the static equilibrium: natural frequencies [Hz],\n"
    "damping ratios and the exact damped poles.\n";

namespace {

void printPositions(const Model& model, const Eigen::VectorXd& q, std::ostream& out) {
  out << "  " << std::left << std::setw(16) << "point" << std::right << std::setw(14) << "x [m]"
      << std::setw(14) << "y [m]" << std::setw(14) << "z [m]"
      << "\n";
  auto row = [&](const std::string& name, const Eigen::Vector3d& p) {
    out << "  " << std::left << std::setw(16) << name << std::right << std::fixed << std::setprecision(6)
        << std::setw(14) << p.x() << std::setw(14) << p.y() << std::setw(14) << p.z() << "\n";
    out.unsetf(std::ios::floatfield);
  };
  for (std::size_t i = 0; i < model.spec().points.size(); ++i)
    row(model.spec().points[i].name, pointPosition(model, q, static_cast<int>(i)));
  for (std::size_t i = 0; i < model.markers().size(); ++i)
    row(model.markers()[i].name, markerPosition(model, q, static_cast<int>(i)));
}

void printReactions(const Model& model, const ReactionsResult& r, std::ostream& out) {
  out << "reactions on body2 by body1 at the joint point, global axes (* not unique: minimum norm):\n";
  out << "  " << std::left << std::setw(16) << "joint" << std::setw(14) << "kind" << std::setw(28)
      << "body1 -> body2" << std::right << std::setw(12) << "Fx [N]" << std::setw(12) << "Fy [N]"
      << std::setw(12) << "Fz [N]" << std::setw(12) << "Mx [N m]" << std::setw(12) << "My [N m]"
      << std::setw(12) << "Mz [N m]"
      << "\n";
  auto bodyName = [&](int b) {
    return b < 0 ? std::string("ground") : model.spec().bodies[static_cast<std::size_t>(b)].name;
  };
  for (const JointReaction& j : r.reactions) {
    out << (j.unique ? "  " : "* ") << std::left << std::setw(16) << j.name << std::setw(14)
        << reactionKindName(j.kind) << std::setw(28) << (bodyName(j.body1) + " -> " + bodyName(j.body2))
        << std::right << std::fixed << std::setprecision(3);
    for (int k = 0; k < 3; ++k) out << std::setw(12) << j.force(k);
    for (int k = 0; k < 3; ++k) out << std::setw(12) << j.moment(k);
    out << "\n";
    out.unsetf(std::ios::floatfield);
  }
  out << "  largest unbalanced body force or moment " << std::setprecision(3) << r.residual << "\n";
  out << std::setprecision(6);
}

void printMeasures(const Model& model, const Eigen::VectorXd& q, std::ostream& out) {
  const MeasureSet measures(model);
  if (measures.size() == 0) return;
  const Eigen::VectorXd values = measures.eval(q);
  out << "measures:\n";
  for (int i = 0; i < measures.size(); ++i) {
    out << "  " << std::left << std::setw(20) << measures.name(i) << std::right << std::fixed
        << std::setprecision(6) << std::setw(14) << values(i) << " " << measures.unit(i);
    if (std::string(measures.unit(i)) == "rad")
      out << "  (" << std::setprecision(4) << values(i) * 180.0 / std::numbers::pi << " deg)";
    out << "\n";
    out.unsetf(std::ios::floatfield);
  }
  out << std::setprecision(6);
}

}  // namespace

int runInfo(const std::vector<std::string>& args, std::ostream& out, std::ostream&) {
  const Arguments a(args, {});
  const Model model = readModel(a.single("MODEL.json"));
  const MobilityReport r = analyzeMobility(model, model.q0());
  const auto& s = model.spec();
  out << "model            " << s.name << "\n";
  out << "mechanism hash   " << hashToString(model.mechanismHash()) << "\n";
  out << "points           " << s.points.size() << "   vectors " << s.vectors.size() << "   bodies "
      << s.bodies.size() << "   joints " << s.joints.size() << "   drivers " << s.drivers.size() << "\n";
  out << "forces           " << s.springDampers.size() << " spring-dampers, " << s.frictions.size()
      << " friction elements\n";
  out << "load cases       ";
  for (std::size_t i = 0; i < s.loadCases.size(); ++i) out << (i ? ", " : "") << s.loadCases[i].name;
  out << (s.loadCases.empty() ? "none\n" : "\n");
  out << "coordinates      " << r.nq << "\n";
  out << "constraints      " << r.nc << "\n";
  if (r.sparse)
    out << "rank of Phi_q    " << r.rank << " (sparse LDL^T of Phi_q Phi_q^T: a row keeping less than "
        << r.tolerance << " of its squared norm is redundant)\n";
  else
    out << "rank of Phi_q    " << r.rank << " (singular values below " << r.tolerance << " count as zero)\n";
  out << "degrees of freedom " << r.dof << "\n";
  out << "redundant constraints " << r.redundantRows.size() << "\n";
  for (std::size_t k = 0; k < r.redundantRows.size(); ++k)
    out << "  row " << r.redundantRows[k] << ": " << r.redundantLabels[k] << "\n";
  try {
    requireMobile(model, r);
  } catch (const ModelError& e) {
    out << "warning: " << e.what() << "\n";
  }
  return 0;
}

namespace {

// The model, load case and static equilibrium that statics and modes start from.
struct Equilibrium {
  Model model;
  int loadCase = -1;
  StaticsOptions options;
  StaticsResult result;
};

Equilibrium solveEquilibrium(const std::vector<std::string>& args) {
  const Arguments a(args, {"--load-case", "--time"});
  Equilibrium e{readModel(a.single("MODEL.json")), -1, {}, {}};
  e.loadCase = loadCaseOption(e.model, a);
  e.options.time = a.number("--time", 0.0);
  e.result = solveStatics(e.model, e.loadCase, e.model.q0(), e.options);
  return e;
}

}  // namespace

int runStatics(const std::vector<std::string>& args, std::ostream& out, std::ostream&) {
  const Equilibrium e = solveEquilibrium(args);
  const Model& model = e.model;
  const int lc = e.loadCase;
  const StaticsOptions& options = e.options;
  const StaticsResult& s = e.result;
  out << "static equilibrium of \"" << model.spec().name << "\" under " << loadCaseLabel(model, lc)
      << " at t = " << options.time << " s\n";
  out << "Newton iterations " << s.iterations << " in " << s.loadSteps << " load step(s); residual force "
      << s.forceResidual << " N; max |Phi| " << s.constraintResidual << "\n";
  printPositions(model, s.q, out);
  printReactions(model, computeReactions(model, lc, s.q, options.time), out);
  printMeasures(model, s.q, out);
  return 0;
}

int runModes(const std::vector<std::string>& args, std::ostream& out, std::ostream&) {
  const Equilibrium e = solveEquilibrium(args);
  const Model& model = e.model;
  const int lc = e.loadCase;
  const StaticsOptions& options = e.options;
  const StaticsResult& s = e.result;
  const ModesResult m = computeModes(model, lc, s, options.time);
  out << "linearised modes of \"" << model.spec().name << "\" about the equilibrium under "
      << loadCaseLabel(model, lc) << " (" << m.modes.size() << " degrees of freedom)\n";
  out << "  mode   frequency [Hz]   omega [rad/s]   damping ratio\n";
  for (std::size_t k = 0; k < m.modes.size(); ++k) {
    const Mode& mode = m.modes[k];
    out << "  " << std::setw(4) << k + 1 << std::setw(17) << std::setprecision(8) << mode.frequency
        << std::setw(16) << mode.omega << std::setw(16) << std::setprecision(5) << mode.dampingRatio << "\n";
    if (mode.omega < 0) out << "        (negative stiffness: the equilibrium is unstable in this mode)\n";
  }
  out << "damped poles [1/s]:\n";
  out << std::setprecision(8);
  for (const auto& p : m.poles)
    out << "  " << p.real() << (p.imag() < 0 ? " - " : " + ") << std::abs(p.imag()) << "i\n";
  return 0;
}

}  // namespace mbdrom::cli
