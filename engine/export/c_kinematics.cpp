#include "engine/export/c_kinematics.h"

#include "engine/core/error.h"
#include "engine/export/c_templates.h"
#include "engine/rom/kinematic_table.h"

#include <algorithm>

namespace mbdrom {

void writeCConstraints(CModelWriter& writer, const Model& model, const std::string& method) {
  if (!model.spec().drivers.empty())
    throw InputError(method + " models of a mechanism with drivers (\"" + model.spec().drivers.front().name +
                     "\") cannot be exported as C or as an FMU yet: the drivers' time laws are not in C");
  std::vector<double> offset, weight, c;
  std::vector<int> first{0}, index, rowFirst{0}, a, b;
  auto add = [&](const Combination& comb) {
    for (int k = 0; k < 3; ++k) offset.push_back(comb.offset(k));
    for (const Combination::Term& t : comb.terms) {
      index.push_back(t.index);
      weight.push_back(t.weight);
    }
    first.push_back(static_cast<int>(index.size()));
    return static_cast<int>(first.size()) - 2;
  };
  for (const ConstraintRow& row : model.constraints()) {
    for (const ConstraintRow::Product& p : row.products) {
      a.push_back(add(p.a));
      b.push_back(add(p.b));
    }
    rowFirst.push_back(static_cast<int>(a.size()));
    c.push_back(row.c);
  }
  auto column = [](const std::vector<double>& v) {
    return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size())).eval();
  };
  const int nc = model.nc(), nq = model.nq();
  writer.declarations("#define NC " + std::to_string(nc) + "\n");
  writer.constant("cst_offset", column(offset));
  writer.constant("cst_weight", column(weight));
  writer.constant("cst_c", column(c));
  writer.declarations("TABLE int cst_first[] = " + cIntArrayLiteral(first) + ";\n" +
                      "TABLE int cst_index[] = " + cIntArrayLiteral(index) + ";\n" +
                      "TABLE int cst_row_first[] = " + cIntArrayLiteral(rowFirst) + ";\n" +
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
}

void writeCKinematicTable(CModelWriter& writer, const KinematicTable& table, int independent) {
  const Eigen::MatrixXd nodes = table.nodeColumns();
  if (nodes.cols() < 2)
    throw InputError("the kinematic table has fewer than two nodes: it cannot be exported");
  // Column-major storage of nodes is node after node: [q; R; S] of each.
  writer.constant("kt_nodes", Eigen::Map<const Eigen::MatrixXd>(nodes.data(), nodes.size(), 1));
  writer.declarations("#define KT_U0 " + cNumber(table.origin()) + "\n#define KT_H " +
                      cNumber(table.spacing()) + "\n#define KT_FIRST " + std::to_string(table.firstNode()) +
                      "L\n#define KT_NODES " + std::to_string(nodes.cols()) + "L\n#define KT_INDEPENDENT " +
                      std::to_string(independent) + "\n");
  writer.scratch("KT_R", static_cast<int>(nodes.rows() / 3));
  writer.scratch("KT_QD", static_cast<int>(nodes.rows() / 3));
  writer.scratch("KT_C", static_cast<int>(nodes.rows() / 3));
  writer.code(kCKinematicTableTemplate);
}

}  // namespace mbdrom
