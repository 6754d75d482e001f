#pragma once
// The C templates of exported models (engine/export/c/), compiled into the engine by
// engine/export/sources.cmake. "@KEY@" marks what fillTemplate replaces.

namespace mbdrom {

extern const char* const kCModelHeaderTemplate;       ///< IDENTIFIER.h
extern const char* const kCKernelsTemplate;           ///< dense kernels
extern const char* const kCConstraintsTemplate;       ///< constraints, Jacobian, projection
extern const char* const kCIndependentTemplate;       ///< positions and velocities in independent coordinates
extern const char* const kCKinematicTableTemplate;    ///< a one-coordinate kinematic table
extern const char* const kCKinematicGridTemplate;     ///< a two-coordinate kinematic grid
extern const char* const kCForcesTemplate;            ///< spring-dampers, friction elements
extern const char* const kCNetworkTemplate;           ///< multilayer perceptrons
extern const char* const kCRuntimeFunctionsTemplate;  ///< combinations, external forces, envelope
extern const char* const kCRuntimeTemplate;           ///< init, step, outputs
extern const char* const kFmi2WrapperTemplate;        ///< fmi2_IDENTIFIER.c
extern const char* const kFmi2Header;                 ///< mbdrom_fmi2.h

}  // namespace mbdrom
