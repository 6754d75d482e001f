#pragma once
/// @file
/// Networks (nn::Mlp) in an exported model's C source (c_model.h): their weights as
/// constant tables and the C functions that evaluate them as the engine does
/// (engine/export/c/network.c.in: the value, a scalar network's input gradient, the
/// Jacobian and the second derivative along a direction).

#include "engine/export/c_model.h"
#include "engine/nn/mlp.h"

#include <string>

namespace mbdrom {

/// Adds the C functions of networks to `writer` (once per source, before any network).
void writeCNetworkCode(CModelWriter& writer);

/// Adds `net` as the constant `static const mlp_net name` (and its tables name_*).
void writeCNetwork(CModelWriter& writer, const std::string& name, const nn::Mlp& net);

/// Doubles of scratch space one evaluation of `net` needs (any of the C functions).
int cNetworkScratch(const nn::Mlp& net);

}  // namespace mbdrom
