#pragma once
/// @file
/// Scalar functions of time for loads and drivers: constant, sine, chirp,
/// step, smoothed step, piecewise-linear table, and sums of these.

#include <string>
#include <vector>

namespace mbdrom {

/// A function value with its first and second time derivatives.
struct TimeValue {
  double f = 0.0;    ///< f(t)
  double fd = 0.0;   ///< df/dt [1/s]
  double fdd = 0.0;  ///< d2f/dt2 [1/s^2]
};

/// A scalar function of time f(t). A plain value type: copy freely.
///
/// Definitions (t in s, frequencies in Hz, phases in rad):
/// - constant: f = value
/// - sine: f = offset + amplitude * sin(2*pi*frequency*t + phase)
/// - chirp: f = offset + amplitude * sin(2*pi*(frequency*t + rate*t^2/2) + phase);
///   the instantaneous frequency is frequency + rate*t [Hz]
/// - step: f = 0 for t < t0, value for t >= t0
/// - smooth_step: 0 before t0, value after t1, quintic in between (C2, so
///   drivers have continuous accelerations)
/// - table: piecewise linear through (times[i], values[i]), constant outside;
///   in a model file given inline or read from a CSV file (`file`, `column`)
/// - sum: sum of terms
class TimeFunction {
 public:
  enum class Type { Constant, Sine, Chirp, Step, SmoothStep, Table, Sum };

  TimeFunction() = default;
  static TimeFunction constant(double value);
  static TimeFunction sine(double amplitude, double frequency, double phase = 0.0, double offset = 0.0);
  static TimeFunction chirp(double amplitude, double frequency, double rate, double phase = 0.0,
                            double offset = 0.0);
  static TimeFunction step(double t0, double value);
  static TimeFunction smoothStep(double t0, double t1, double value);
  /// Throws ModelError unless times are strictly increasing and sizes match (>= 1).
  static TimeFunction table(std::vector<double> times, std::vector<double> values);
  static TimeFunction sum(std::vector<TimeFunction> terms);
  /// A table read from a CSV file: a header line naming the columns, then one
  /// row per sample; the first column is the time [s], `column` names the
  /// values. Fields are separated by commas; blank lines and lines starting
  /// with '#' are skipped; numbers are read locale-independently. `file` and
  /// `column` are kept (the model file refers to the CSV). Throws FileError
  /// naming the file and line.
  static TimeFunction tableFromCsv(const std::string& path, const std::string& column);

  /// f(t) and its first two time derivatives.
  TimeValue evaluate(double t) const;
  double operator()(double t) const { return evaluate(t).f; }

  /// Checks the parameters; throws ModelError with `where` as prefix.
  void validate(const std::string& where) const;

  Type type = Type::Constant;
  double value = 0.0;          ///< constant, step and smooth_step level
  double amplitude = 0.0;      ///< sine, chirp
  double frequency = 0.0;      ///< sine, chirp (start) [Hz]
  double rate = 0.0;           ///< chirp frequency rate [Hz/s]
  double phase = 0.0;          ///< sine, chirp [rad]
  double offset = 0.0;         ///< sine, chirp
  double t0 = 0.0;             ///< step, smooth_step start [s]
  double t1 = 0.0;             ///< smooth_step end [s]
  std::vector<double> times;   ///< table abscissae [s]
  std::vector<double> values;  ///< table ordinates
  std::string file;            ///< table read from CSV: the file as the model file names it ("" if inline)
  std::string column;          ///< table read from CSV: the value column
  std::vector<TimeFunction> terms;  ///< sum

  bool operator==(const TimeFunction&) const = default;
};

/// File names of the types ("constant", "sine", "chirp", "step", "smooth_step", "table", "sum").
const char* timeFunctionTypeName(TimeFunction::Type type);

}  // namespace mbdrom
