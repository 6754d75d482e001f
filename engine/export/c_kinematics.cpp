#include "engine/export/c_kinematics.h"

#include "engine/core/error.h"
#include "engine/dynamics/assembly.h"
#include "engine/dynamics/scales.h"
#include "engine/export/c_combinations.h"
#include "engine/export/c_templates.h"
#include "engine/rom/kinematic_grid.h"
#include "engine/rom/kinematic_table.h"
#include "engine/rom/training_envelope.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

namespace mbdrom {

void writeCConstraints(CModelWriter& writer, const Model& model, const std::string& method,
                       const std::vector<int>& independent, bool charts, ConstraintUse use) {
  for (const ConstraintRow& row : model.constraints()) {
    if (row.driver < 0 || (use == ConstraintUse::JacobianOnly && row.law != ConstraintRow::Law::Angle))
      continue;
    const std::string& name = model.spec().drivers[static_cast<std::size_t>(row.driver)].name;
    throw InputError(method + " models of a mechanism with " +
                     (use == ConstraintUse::JacobianOnly ? "an angle driver" : "drivers") + " (\"" + name +
                     "\") cannot be exported as C or as an FMU yet: the drivers' time laws are not in C");
  }
  CCombinationTable combinations;
  std::vector<double> c;
  std::vector<int> rowFirst{0}, a, b;
  for (const ConstraintRow& row : model.constraints()) {
    for (const ConstraintRow::Product& p : row.products) {
      a.push_back(combinations.add(p.a));
      b.push_back(combinations.add(p.b));
    }
    rowFirst.push_back(static_cast<int>(a.size()));
    c.push_back(row.c);
  }
  const int nc = model.nc(), nq = model.nq();
  writer.declarations("#define NC " + std::to_string(nc) + "\n");
  combinations.write(writer, "cst");
  writer.constant("cst_c", c);
  writer.declarations("TABLE int cst_row_first[] = " + cIntArrayLiteral(rowFirst) + ";\n" +
                      "TABLE int cst_a[] = " + cIntArrayLiteral(a) + ";\n" +
                      "TABLE int cst_b[] = " + cIntArrayLiteral(b) + ";\n");
  writer.scratch("CST_PHI", std::max(nc, nq));
  writer.scratch("CST_J", nc * nq);
  writer.scratch("CST_G", nc * nc);
  writer.scratch("CST_V", nc * nc);
  writer.scratch("CST_LAMBDA", nc);
  writer.scratch("CST_Y", nc);
  writer.scratch("CST_Z", nc);
  writer.scratch("CST_DX", nq);
  writer.code(kCConstraintsTemplate);
  if (independent.empty()) return;
  std::vector<int> dependent;
  for (int i = 0; i < nq; ++i)
    if (std::find(independent.begin(), independent.end(), i) == independent.end()) dependent.push_back(i);
  const auto ni = static_cast<int>(independent.size()), nd = static_cast<int>(dependent.size());
  writer.declarations("#define NI " + std::to_string(ni) + "\n#define ND " + std::to_string(nd) + "\n" +
                      "TABLE int asm_independent[] = " + cIntArrayLiteral(independent) + ";\n" +
                      "TABLE int asm_dependent[] = " + cIntArrayLiteral(dependent) + ";\n");
  const MechanismScales scales = mechanismScales(model);
  writer.constant("cst_row_scale", scales.rowScale);
  if (charts) {
    writer.declarations(
        "#define ASM_CHARTS 1\n#define ASM_IND(k) ((int)ASM_CHART[k])\n#define ASM_DEP(k) "
        "((int)ASM_OTHERS[k])\n");
    writer.state("ASM_CHART", ni);
    writer.state("ASM_OTHERS", std::max(nd, 1));
    std::vector<double> coordinateScale;
    for (int i = 0; i < nq; ++i) coordinateScale.push_back(scales.coordinateScale(i));
    writer.constant("asm_coordinate_scale", coordinateScale);
  } else {
    writer.declarations(
        "#define ASM_CHARTS 0\n#define ASM_IND(k) asm_independent[k]\n#define ASM_DEP(k) asm_dependent[k]\n");
  }
  writer.scratch("ASM_N", std::max(nd * nd, 1));
  writer.scratch("ASM_L", std::max(nd * nd, 1));
  writer.scratch("ASM_Y", std::max(nd, 1));
  writer.scratch("ASM_X", std::max(nd, 1));
  writer.code(kCIndependentTemplate);
}

void writeCKinematicTable(CModelWriter& writer, const KinematicTable& table, int independent) {
  const Eigen::MatrixXd nodes = table.nodeColumns();
  if (nodes.cols() < 2)
    throw InputError("the kinematic table has fewer than two nodes: it cannot be exported");
  // Column-major storage of nodes is node after node: [q; R; S] of each.
  writer.constant("kt_nodes", Eigen::Map<const Eigen::MatrixXd>(nodes.data(), nodes.size(), 1));
  writer.declarations("#define KT_U0 (" + cNumber(table.origin()) + ")\n#define KT_H " +
                      cNumber(table.spacing()) + "\n#define KT_FIRST (" + std::to_string(table.firstNode()) +
                      "L)\n#define KT_NODES " + std::to_string(nodes.cols()) + "L\n#define KT_INDEPENDENT " +
                      std::to_string(independent) + "\n");
  writer.scratch("KT_R", static_cast<int>(nodes.rows() / 3));
  writer.scratch("KT_QD", static_cast<int>(nodes.rows() / 3));
  writer.scratch("KT_C", static_cast<int>(nodes.rows() / 3));
  writer.code(kCKinematicTableTemplate);
}

void writeCKinematicGrid(CModelWriter& writer, const KinematicGrid& grid) {
  const long n1 = grid.size()(0), n2 = grid.size()(1);
  // A node that did not assemble holds NaN, which C cannot write: 0 there (no cell uses it).
  std::vector<double> nodes = grid.packed();
  for (double& x : nodes)
    if (!std::isfinite(x)) x = 0.0;
  std::vector<int> cells(static_cast<std::size_t>(n1 * n2), 0);
  for (long k2 = 0; k2 + 1 < n2; ++k2)
    for (long k1 = 0; k1 + 1 < n1; ++k1)
      cells[static_cast<std::size_t>(k2 * n1 + k1)] = grid.interpolates(k1, k2);
  writer.constant("kg_nodes", nodes);
  writer.declarations(
      "TABLE int kg_cell[] = " + cIntArrayLiteral(cells) + ";\n#define KG_N1 " + std::to_string(n1) +
      "L\n#define KG_N2 " + std::to_string(n2) + "L\n#define KG_U1 (" + cNumber(grid.origin()(0)) +
      ")\n#define KG_U2 (" + cNumber(grid.origin()(1)) + ")\n#define KG_H1 " + cNumber(grid.spacing()(0)) +
      "\n#define KG_H2 " + cNumber(grid.spacing()(1)) + "\n#define KG_PACKED " +
      std::to_string(KinematicGrid::kPacked) + "\n#define KG_IND1 " + std::to_string(grid.independent()[0]) +
      "\n#define KG_IND2 " + std::to_string(grid.independent()[1]) + "\n");
  writer.code(kCKinematicGridTemplate);
}

void writeCRunKinematicTable(CModelWriter& writer, const Model& model, int independent,
                             const Eigen::VectorXd& reference, double start, const TrainingEnvelope& envelope,
                             double offset, const std::string& method) {
  const EnvelopeGroup* trained = nullptr;
  for (const EnvelopeGroup& g : envelope.groups())
    if (g.name == "state" && g.high.size() > 0 && g.high(0) >= g.low(0)) trained = &g;
  if (!trained)
    throw InputError(method +
                     ": the model has no training envelope, so the range of its kinematic table is unknown");
  AssemblyOptions assembly;
  assembly.fixedCoordinates = {independent};
  assembly.scales = std::make_shared<const MechanismScales>(mechanismScales(model));
  Eigen::VectorXd q = reference;
  q(independent) = start;
  q = assemblePositions(model, q, 0.0, assembly).q;
  KinematicTable table(model, independent, q,
                       kinematicTableSpacing(envelope, assembly.scales->coordinateScale(independent)));
  const double width = std::max(trained->high(0) - trained->low(0), 1e-12);
  table.cover(offset + trained->low(0) - width, offset + trained->high(0) + width);
  writeCKinematicTable(writer, table, independent);
}

}  // namespace mbdrom
