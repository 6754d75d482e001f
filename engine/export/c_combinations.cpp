#include "engine/export/c_combinations.h"

namespace mbdrom {

namespace {

const char* const kCombinationCode = R"c(
KERNEL void @P@_value(int c, const double* q, double* x) {
  int i;
  x[0] = @P@_offset[3 * c];
  x[1] = @P@_offset[3 * c + 1];
  x[2] = @P@_offset[3 * c + 2];
  for (i = @P@_first[c]; i < @P@_first[c + 1]; ++i) {
    const double w = @P@_weight[i];
    const int at = @P@_index[i];
    x[0] += w * q[at];
    x[1] += w * q[at + 1];
    x[2] += w * q[at + 2];
  }
}

KERNEL void @P@_rate(int c, const double* qd, double* x) {
  int i;
  x[0] = x[1] = x[2] = 0.0;
  for (i = @P@_first[c]; i < @P@_first[c + 1]; ++i) {
    const double w = @P@_weight[i];
    const int at = @P@_index[i];
    x[0] += w * qd[at];
    x[1] += w * qd[at + 1];
    x[2] += w * qd[at + 2];
  }
}

/* f += s J_c^T v. */
KERNEL void @P@_add_transposed(int c, const double* v, double s, double* f) {
  int i;
  for (i = @P@_first[c]; i < @P@_first[c + 1]; ++i) {
    const double w = s * @P@_weight[i];
    const int at = @P@_index[i];
    f[at] += w * v[0];
    f[at + 1] += w * v[1];
    f[at + 2] += w * v[2];
  }
}
)c";

}  // namespace

int CCombinationTable::add(const Combination& c) {
  for (int k = 0; k < 3; ++k) offset_.push_back(c.offset(k));
  for (const Combination::Term& t : c.terms) {
    index_.push_back(t.index);
    weight_.push_back(t.weight);
  }
  first_.push_back(static_cast<int>(index_.size()));
  return static_cast<int>(first_.size()) - 2;
}

void CCombinationTable::write(CModelWriter& writer, const std::string& prefix) const {
  writer.constant(prefix + "_offset", offset_);
  writer.constant(prefix + "_weight", weight_);
  writer.declarations("TABLE int " + prefix + "_first[] = " + cIntArrayLiteral(first_) + ";\nTABLE int " +
                      prefix + "_index[] = " + cIntArrayLiteral(index_) + ";\n");
  writer.code(fillTemplate(kCombinationCode, {{"P", prefix}}));
}

}  // namespace mbdrom
