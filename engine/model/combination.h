#pragma once
/// @file
/// A 3-vector that is a constant linear combination of natural coordinates:
/// x = offset + sum_k weight_k * q[index_k .. index_k+2]. Every body point,
/// body-fixed vector and basic entity of a model is one.

#include <Eigen/Core>

#include <vector>

namespace mbdrom {

struct Combination {
  struct Term {
    int index = 0;        ///< first of the 3 coordinates of a free entity
    double weight = 0.0;  ///< [-]
  };

  Eigen::Vector3d offset = Eigen::Vector3d::Zero();  ///< constant part (fixed entities) [m or -]
  std::vector<Term> terms;

  static Combination constant(const Eigen::Vector3d& v) {
    Combination c;
    c.offset = v;
    return c;
  }
  static Combination coordinate(int index) {
    Combination c;
    c.terms.push_back({index, 1.0});
    return c;
  }

  /// Value at q (size nq).
  Eigen::Vector3d value(const Eigen::VectorXd& q) const {
    Eigen::Vector3d x = offset;
    for (const Term& t : terms) x += t.weight * q.segment<3>(t.index);
    return x;
  }
  /// Time derivative for velocities qd (size nq): the offset is constant.
  Eigen::Vector3d rate(const Eigen::VectorXd& qd) const {
    Eigen::Vector3d x = Eigen::Vector3d::Zero();
    for (const Term& t : terms) x += t.weight * qd.segment<3>(t.index);
    return x;
  }
  /// this += s * other, merging terms on the same coordinates.
  void add(const Combination& other, double s) {
    offset += s * other.offset;
    for (const Term& t : other.terms) {
      bool merged = false;
      for (Term& mine : terms)
        if (mine.index == t.index) {
          mine.weight += s * t.weight;
          merged = true;
        }
      if (!merged) terms.push_back({t.index, s * t.weight});
    }
  }
  /// row += s * v^T * (d this / d q), for a 1 x nq (or longer) row expression.
  template <typename Row>
  void addGradient(Row&& row, const Eigen::Vector3d& v, double s) const {
    for (const Term& t : terms) row.template segment<3>(t.index) += (s * t.weight) * v.transpose();
  }
  /// J^T * v added to the generalized vector f (size nq), times s.
  void addTransposed(Eigen::VectorXd& f, const Eigen::Vector3d& v, double s) const {
    for (const Term& t : terms) f.segment<3>(t.index) += (s * t.weight) * v;
  }
  bool isConstant() const { return terms.empty(); }
};

inline Combination operator-(Combination a, const Combination& b) {
  a.add(b, -1.0);
  return a;
}

}  // namespace mbdrom
