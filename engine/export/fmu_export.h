#pragma once
/// @file
/// A trained reduced model as an FMI 2.0 Co-Simulation FMU: a ZIP with
/// modelDescription.xml, the model's C source (c_model.h) with an FMI wrapper under
/// sources/ (a source FMU, buildable elsewhere), and binaries/linux64/<id>.so built at
/// export time with the system's C compiler. No runtime: the shared object needs only
/// libc and libm, and allocates once, at fmi2Instantiate.
///
/// Stepping: fmi2DoStep takes whole steps of h = ReducedModel::heldInputStep() (the model's own
/// step, at most its training samples' spacing) on its grid t_k = k h
/// (from the experiment's start time), the inputs held over the communication step at the
/// values set before it; a communication point between two grid times leaves the state
/// at the grid time before it, and the next step catches up (the outputs lag by less
/// than h). `mbdrom-cli rom-simulate --hold-inputs H` samples the load case the same way.

#include "engine/export/c_model.h"

#include <string>

namespace mbdrom {

class Monitor;

/// How long the C compiler may take for an FMU before it is stopped [s] (a model of a few
/// hundred coordinates compiles in about a second; a hung or waiting compiler must not
/// hold the export, and the workbench's job, forever).
inline constexpr double kCompilerTimeout = 300.0;

/// What an FMU export wrote.
struct FmuExport {
  CModel model;
  std::string guid;
  bool binary = false;         ///< false: no C compiler was found, the FMU holds the sources only
  bool windows = false;        ///< a binaries/win64 DLL too (MinGW-w64 was found and built it)
  std::string windowsFailure;  ///< why MinGW-w64, found, built no DLL ("" when it did or was not found)
  std::string note;            ///< for the user: what was built, or why there is no binary
};

/// The modelDescription.xml of `model` (FMI 2.0, Co-Simulation).
std::string fmuModelDescription(const CModel& model, const std::string& guid);

/// Writes `rom` of `model` as the FMU `path` (atomic: nothing is left behind when it fails).
/// `compiler`: the C compiler to run ("" : $CC, else cc). Throws InputError (exportCModel's
/// cases), FileError when `path` cannot be written, Error with the compiler's message
/// when the generated source does not build or the compiler runs past `compilerTimeout` [s].
/// A stop asked through `monitor` stops the compiler with every process it started and
/// throws Cancelled; its build folder is removed.
FmuExport exportFmu(const ReducedModel& rom, const Model& model, const CExportOptions& options,
                    const std::string& path, const std::string& compiler = "",
                    double compilerTimeout = kCompilerTimeout, Monitor* monitor = nullptr);

/// Writes `rom` of `model` as IDENTIFIER.h and IDENTIFIER.c into the directory `dir`
/// (created when missing; each file atomically). Returns the model.
CModel exportCSources(const ReducedModel& rom, const Model& model, const CExportOptions& options,
                      const std::string& dir);

/// Compiles `sources` (files in `dir`) into the shared object `output` in `dir` with the C
/// compiler `compiler` ("": $CC, else cc), -O2; with `hideSymbols` only what is declared
/// visible is exported (an FMU: the fmi2 functions). Returns false when no compiler can be
/// started; throws Error with its message when it fails, and when it has not finished
/// after `timeoutSeconds` [s] (it is stopped, with every process it started); a stop asked
/// through `monitor` stops it the same way and throws Cancelled.
bool compileSharedObject(const std::string& dir, const std::vector<std::string>& sources,
                         const std::string& output, const std::string& compiler, bool hideSymbols = true,
                         double timeoutSeconds = kCompilerTimeout, Monitor* monitor = nullptr);

/// The MinGW-w64 C compiler for 64-bit Windows on the PATH (x86_64-w64-mingw32-gcc), or ""
/// (also when the environment variable MBDROM_NO_WIN64 is set and not 0).
std::string windowsCompiler();

/// Compiles `sources` (files in `dir`) into the 64-bit Windows DLL `output` in `dir` with
/// `compiler` (windowsCompiler()), libgcc linked in: the DLL needs only the system's C runtime.
/// Throws Error with the compiler's message when it fails or writes no Windows DLL, as
/// compileSharedObject does (time limit, cancel through `monitor`).
void compileWindowsDll(const std::string& dir, const std::vector<std::string>& sources,
                       const std::string& output, const std::string& compiler,
                       double timeoutSeconds = kCompilerTimeout, Monitor* monitor = nullptr);

}  // namespace mbdrom
