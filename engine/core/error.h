#pragma once
/// @file
/// The engine's exception hierarchy: one root, `mbdrom::Error`, with specific
/// subtypes so front ends can tell bad input from solver trouble.

#include <stdexcept>
#include <string>

namespace mbdrom {

/// Root of every exception the engine throws on purpose.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bad user input outside a file: arguments, settings, parameter ranges.
class InputError : public Error {
 public:
  using Error::Error;
};

/// A mechanism that is inconsistent: names the element, e.g.
/// `joints[3] "ball_lca": point "BJ" is not defined`.
class ModelError : public Error {
 public:
  using Error::Error;
};

/// A file that cannot be read, parsed or written; names the file and location.
class FileError : public Error {
 public:
  using Error::Error;
};

/// A solver that failed: names the time, step and the constraint at fault.
class SolverError : public Error {
 public:
  using Error::Error;
};

/// A reduced run that left the region of its training data, where its method does not
/// extrapolate: a stop at a named place, not a blow-up.
class LeftDataError : public SolverError {
 public:
  using SolverError::SolverError;
};

/// Thrown when a monitor asked a long computation to stop.
class Cancelled : public Error {
 public:
  Cancelled() : Error("cancelled by user") {}
  using Error::Error;
};

}  // namespace mbdrom
