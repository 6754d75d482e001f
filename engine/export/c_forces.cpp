#include "engine/export/c_forces.h"

#include "engine/export/c_combinations.h"
#include "engine/export/c_templates.h"

namespace mbdrom {

namespace {

const char* const kMassTimes = R"c(
/* Y = M X (X, Y: NQ x cols, row-major), M in compressed rows: the sums of the dense product
   in the same order, the zeros left out. */
KERNEL void mass_times(const double* X, int cols, double* Y) {
  int i, p, j;
  for (i = 0; i < NQ * cols; ++i) Y[i] = 0.0;
  for (i = 0; i < NQ; ++i)
    for (p = mass_row_first[i]; p < mass_row_first[i + 1]; ++p) {
      const double m = mass_value[p];
      const double* x = X + (size_t)mass_column[p] * cols;
      for (j = 0; j < cols; ++j) Y[i * cols + j] += m * x[j];
    }
}
)c";

}  // namespace

void writeCMassMatrix(CModelWriter& writer, const Model& model) {
  const Eigen::MatrixXd& M = model.massMatrix();
  std::vector<double> value;
  std::vector<int> column, rowFirst{0};
  for (Eigen::Index i = 0; i < M.rows(); ++i) {
    for (Eigen::Index j = 0; j < M.cols(); ++j)
      if (M(i, j) != 0.0) {
        value.push_back(M(i, j));
        column.push_back(static_cast<int>(j));
      }
    rowFirst.push_back(static_cast<int>(value.size()));
  }
  writer.constant("mass_value", value);
  writer.declarations("TABLE int mass_column[] = " + cIntArrayLiteral(column) +
                      ";\nTABLE int mass_row_first[] = " + cIntArrayLiteral(rowFirst) + ";\n");
  writer.code(kMassTimes);
}

void writeCForceElements(CModelWriter& writer, const Model& model) {
  CCombinationTable springs, frictions;
  std::vector<double> freeLength, stiffness, damping, tableLength, tableForce;
  std::vector<int> stiffnessFirst{0}, tableFirst{0};
  for (std::size_t i = 0; i < model.springDampers().size(); ++i) {
    const SpringDamperSpec& s = model.spec().springDampers[i];
    springs.add(model.springDampers()[i].d);
    freeLength.push_back(s.freeLength);
    damping.push_back(s.damping);
    stiffness.insert(stiffness.end(), s.stiffness.begin(), s.stiffness.end());
    stiffnessFirst.push_back(static_cast<int>(stiffness.size()));
    tableLength.insert(tableLength.end(), s.tableLength.begin(), s.tableLength.end());
    tableForce.insert(tableForce.end(), s.tableForce.begin(), s.tableForce.end());
    tableFirst.push_back(static_cast<int>(tableLength.size()));
  }
  std::vector<double> mu, normal, regularisation;
  std::vector<int> tanhLaw;
  for (std::size_t i = 0; i < model.frictions().size(); ++i) {
    const FrictionSpec& f = model.spec().frictions[i];
    frictions.add(model.frictions()[i].axis);  // 2 i: the axis, 2 i + 1: the sliding point's offset
    frictions.add(model.frictions()[i].r);
    mu.push_back(f.mu);
    normal.push_back(f.normalForce);
    regularisation.push_back(f.regularisationVelocity);
    tanhLaw.push_back(f.law == FrictionLaw::Tanh ? 1 : 0);
  }
  writer.declarations("#define NSD " + std::to_string(model.springDampers().size()) + "\n#define NFR " +
                      std::to_string(model.frictions().size()) + "\n");
  springs.write(writer, "sd");
  frictions.write(writer, "fr");
  writer.constant("sd_free_length", freeLength);
  writer.constant("sd_damping", damping);
  writer.constant("sd_stiffness", stiffness);
  writer.constant("sd_table_length", tableLength);
  writer.constant("sd_table_force", tableForce);
  writer.constant("fr_mu", mu);
  writer.constant("fr_normal", normal);
  writer.constant("fr_regularisation", regularisation);
  writer.declarations("TABLE int sd_stiffness_first[] = " + cIntArrayLiteral(stiffnessFirst) +
                      ";\nTABLE int sd_table_first[] = " + cIntArrayLiteral(tableFirst) +
                      ";\nTABLE int fr_tanh[] = " + cIntArrayLiteral(tanhLaw) + ";\n");
  writer.code(kCForcesTemplate);
}

}  // namespace mbdrom
