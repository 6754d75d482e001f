#pragma once
/// @file
/// Mirroring part of a mechanism about a plane, the way a suspension engineer
/// builds one side and mirrors it: renamed copies of the selected points,
/// vectors, bodies, joints, drivers, spring-dampers, frictions and loads.

#include "engine/model/model_spec.h"
#include "engine/model/spec_edit.h"

#include <string>
#include <vector>

namespace mbdrom {

/// The plane coordinate(axis) = offset (y = 0 by default).
struct MirrorPlane {
  int axis = 1;         ///< 0: x, 1: y, 2: z
  double offset = 0.0;  ///< [m]
};

/// The copy's name: a suffix `_l` becomes `_r` and `_r` becomes `_l`
/// (likewise `_L`, `_R`); any other name gets `_r`.
std::string mirroredName(const std::string& name);

/// Adds mirrored copies of `selection` and of what it needs: a body brings its
/// points, vectors and markers; a joint, driver, spring-damper, friction or load
/// brings the bodies, points and vectors it names. Fixed points and vectors the
/// plane maps onto themselves are shared, not copied; "ground" stays ground.
/// Positions, centres of mass, markers and shapes are reflected, inertia tensors
/// become R I R^T, force directions are reflected and torque directions reflected
/// and reversed (an axial vector), angle drivers turn the other way and a
/// coordinate driver normal to the plane follows 2 offset - f(t). Measures are
/// not copied. Returns the copies' refs. Throws InputError naming every name a
/// copy would take that is taken (or two copies would share) and leaves `spec`
/// unchanged then.
std::vector<ElementRef> mirrorElements(ModelSpec& spec, const std::vector<ElementRef>& selection,
                                       const MirrorPlane& plane = {});

}  // namespace mbdrom
