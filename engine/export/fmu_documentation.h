#pragma once
/// @file
/// The documentation/index.html of an exported FMU: what the model is, what it was trained on
/// and how well it held on runs it did not see, how it was made, and how it behaves when it
/// fails or extrapolates.

#include "engine/export/c_model.h"

#include <string>

namespace mbdrom {

/// The FMU's documentation/index.html for `model` (a self-contained HTML page, no scripts).
std::string fmuDocumentation(const CModel& model, const std::string& guid);

}  // namespace mbdrom
