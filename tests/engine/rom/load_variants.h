#pragma once
// Test mechanisms driven by one load of several waveforms: one load case per waveform.

#include "engine/model/model.h"
#include "engine/model/model_spec.h"
#include "engine/model/time_function.h"

#include <string>
#include <utility>
#include <vector>

namespace mbdrom::test {

/// The mechanism of `spec` with a load case per (name, function): its first load case with the
/// function of its first load replaced; that load case itself is dropped.
inline Model withLoadVariants(ModelSpec spec,
                              const std::vector<std::pair<std::string, TimeFunction>>& variants) {
  const LoadCase base = spec.loadCases.front();
  spec.loadCases.clear();
  for (const auto& [name, function] : variants) {
    LoadCase c = base;
    c.name = name;
    c.loads.front().function = function;
    spec.loadCases.push_back(c);
  }
  return Model(spec);
}

}  // namespace mbdrom::test
