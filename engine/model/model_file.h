#pragma once
/// @file
/// The model file: JSON, `"format": "mbdrom-model", "version": 1`, documented in
/// docs/model-format.md. Numbers are written with std::to_chars (shortest form
/// that reads back to the same double, locale independent), so a
/// write/read round trip is exact.
///
/// Errors: unreadable or malformed files and wrong format/version throw
/// FileError; bad entries throw ModelError naming the entry, e.g.
/// `joints[2] "strut": vector "u_strut" is not defined`. Both are prefixed by
/// the file name when reading from a file.

#include "engine/model/model.h"
#include "engine/model/model_spec.h"

#include <cstdint>
#include <string>

namespace mbdrom {

/// Largest magnitude of any number in a model file (SI units); larger values
/// are refused by name when the file is read.
inline constexpr double kMaxModelNumber = 1e15;

/// The one name rule of the mechanism and of every element (names reach CSV headers,
/// JSON, the FMU's XML and C comments): no comma, double quote or control character, no
/// space at either end. `where` names the field in the message. Throws ModelError.
void checkElementName(const std::string& where, const std::string& name);

/// The model format's rules, as reading its file applies them, on a spec built in memory
/// (Python, the workbench, a design's edits): every number finite with |x| <=
/// kMaxModelNumber, every name (the mechanism's too) by checkElementName. Throws ModelError
/// naming the field, e.g. `bodies[0] "arm": key "mass" = 1e+300 is beyond the model
/// format's range (|value| <= 1e+15)`.
void checkModelFileRules(const ModelSpec& spec);

/// Parses model JSON text. `source` names it in messages (file name or "<string>");
/// CSV files the model refers to (tables) are read relative to `baseDirectory`
/// (empty: the current directory). With `confineTo` (a project directory), a
/// table file outside it is refused (FileError) before it is read.
ModelSpec parseModelSpec(const std::string& text, const std::string& source = "<string>",
                         const std::string& baseDirectory = "", const std::string& confineTo = "");
/// Reads a model file into its spec (not yet validated as a mechanism); CSV
/// tables it refers to are read relative to the file's folder (and must lie
/// inside `confineTo` when given).
ModelSpec readModelSpec(const std::string& path, const std::string& confineTo = "");
/// Reads, validates and compiles a model file.
Model readModel(const std::string& path);

/// The model file text of a spec (pretty-printed, ends with a newline).
std::string serializeModelSpec(const ModelSpec& spec);
/// The model file text with every CSV table written as its numbers: a file
/// that reads back anywhere (a sweep keeps its model so).
std::string serializeModelSpecSelfContained(const ModelSpec& spec);
/// Writes a model file; throws FileError when it cannot be written.
void writeModelSpec(const ModelSpec& spec, const std::string& path);

/// Stable 64-bit FNV-1a hash of the mechanism: the canonical (compact)
/// serialization of everything except name, description, load cases,
/// measures and display shapes; tables read from CSV files enter with their numbers.
std::uint64_t mechanismHash(const ModelSpec& spec);
/// The hash files written before bodies had shape lists recorded: it held each
/// body's first shape (type, size, centre, axis, file, scale). Trained models and
/// datasets carrying it still match the mechanism.
std::uint64_t legacyMechanismHash(const ModelSpec& spec);
/// 16 lower-case hex digits.
std::string hashToString(std::uint64_t hash);

}  // namespace mbdrom
