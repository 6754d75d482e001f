#pragma once
// A mechanism's natural coordinate by name, for tests that check single coordinates.

#include "engine/model/model.h"

#include <catch2/catch.hpp>

#include <string>

namespace mbdrom::test {

/// The index of coordinate `name` (e.g. "A.x") of `model`; fails the test when it has none.
inline int coordinateIndex(const Model& model, const std::string& name) {
  for (int i = 0; i < model.nq(); ++i)
    if (model.coordinateName(i) == name) return i;
  FAIL("no coordinate " << name);
  return -1;
}

}  // namespace mbdrom::test
