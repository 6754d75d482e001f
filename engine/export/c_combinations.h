#pragma once
/// @file
/// Constant combinations of natural coordinates (x = offset + sum_k w_k q[i_k .. i_k+2],
/// engine/model/combination.h) in an exported model's C source: the tables of a set of
/// them and the C functions that evaluate one, its rate and J^T v.

#include "engine/export/c_model.h"
#include "engine/model/combination.h"

#include <string>
#include <vector>

namespace mbdrom {

class CCombinationTable {
 public:
  /// Adds `c`; returns its index in the table.
  int add(const Combination& c);
  /// The tables PREFIX_offset, PREFIX_first, PREFIX_index, PREFIX_weight and the C functions
  /// PREFIX_value(c, q, x), PREFIX_rate(c, qd, x) and PREFIX_add_transposed(c, v, s, f)
  /// (f += s J_c^T v), with the tables' declarations and the functions' code in `writer`.
  void write(CModelWriter& writer, const std::string& prefix) const;

 private:
  std::vector<double> offset_, weight_;
  std::vector<int> first_{0}, index_;
};

}  // namespace mbdrom
