#include "engine/model/time_function.h"

#include "engine/core/error.h"
#include "engine/core/file_io.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numbers>
#include <sstream>
#include <string_view>

namespace mbdrom {

TimeFunction TimeFunction::constant(double v) {
  TimeFunction f;
  f.type = Type::Constant;
  f.value = v;
  return f;
}

TimeFunction TimeFunction::sine(double amp, double freq, double ph, double off) {
  TimeFunction f;
  f.type = Type::Sine;
  f.amplitude = amp;
  f.frequency = freq;
  f.phase = ph;
  f.offset = off;
  return f;
}

TimeFunction TimeFunction::chirp(double amp, double freq, double r, double ph, double off) {
  TimeFunction f = sine(amp, freq, ph, off);
  f.type = Type::Chirp;
  f.rate = r;
  return f;
}

TimeFunction TimeFunction::step(double start, double v) {
  TimeFunction f;
  f.type = Type::Step;
  f.t0 = start;
  f.value = v;
  return f;
}

TimeFunction TimeFunction::smoothStep(double start, double end, double v) {
  TimeFunction f;
  f.type = Type::SmoothStep;
  f.t0 = start;
  f.t1 = end;
  f.value = v;
  return f;
}

TimeFunction TimeFunction::table(std::vector<double> ts, std::vector<double> vs) {
  TimeFunction f;
  f.type = Type::Table;
  f.times = std::move(ts);
  f.values = std::move(vs);
  f.validate("table");
  return f;
}

TimeFunction TimeFunction::sum(std::vector<TimeFunction> ts) {
  TimeFunction f;
  f.type = Type::Sum;
  f.terms = std::move(ts);
  return f;
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return s;
}

std::vector<std::string_view> splitFields(std::string_view line) {
  std::vector<std::string_view> fields;
  for (;;) {
    const std::size_t comma = line.find(',');
    fields.push_back(trim(line.substr(0, comma)));
    if (comma == std::string_view::npos) return fields;
    line.remove_prefix(comma + 1);
  }
}

}  // namespace

TimeFunction TimeFunction::tableFromCsv(const std::string& path, const std::string& columnName) {
  std::istringstream in(readRegularFile(path, kMaxCsvFileBytes, "table CSV"));
  auto fail = [&](int line, const std::string& what) -> FileError {
    return FileError(path + ": line " + std::to_string(line) + ": " + what);
  };
  TimeFunction f;
  f.type = Type::Table;
  f.column = columnName;
  std::string text;
  int lineNo = 0;
  std::size_t index = 0, nColumns = 0;
  bool header = true;
  while (std::getline(in, text)) {
    ++lineNo;
    if (lineNo == 1 && text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);  // UTF-8 byte-order mark
    const std::string_view line = trim(text);
    if (line.empty() || line.front() == '#') continue;
    const std::vector<std::string_view> fields = splitFields(line);
    if (header) {
      header = false;
      nColumns = fields.size();
      const auto it = std::find(fields.begin(), fields.end(), std::string_view(columnName));
      if (it == fields.begin()) throw fail(lineNo, "column \"" + columnName + "\" is the time column");
      if (it == fields.end()) {
        std::string known;
        for (std::size_t k = 1; k < fields.size(); ++k) known += (k > 1 ? ", " : "") + std::string(fields[k]);
        throw fail(lineNo, "no column \"" + columnName +
                               "\" in the header (value columns: " + (known.empty() ? "none" : known) + ")");
      }
      index = static_cast<std::size_t>(it - fields.begin());
      continue;
    }
    if (fields.size() != nColumns)
      throw fail(lineNo,
                 std::to_string(fields.size()) + " fields, the header has " + std::to_string(nColumns));
    auto number = [&](std::string_view field) {
      std::string_view s = field;
      if (!s.empty() && s.front() == '+') s.remove_prefix(1);  // from_chars takes no '+'
      double x = 0.0;
      const auto res = std::from_chars(s.data(), s.data() + s.size(), x);
      if (s.empty() || res.ec != std::errc() || res.ptr != s.data() + s.size() || !std::isfinite(x))
        throw fail(lineNo, "\"" + std::string(field) + "\" is not a number");
      return x;
    };
    const double t = number(fields[0]);
    if (!f.times.empty() && !(t > f.times.back()))
      throw fail(lineNo, "time " + std::string(fields[0]) + " does not increase");
    f.times.push_back(t);
    f.values.push_back(number(fields[index]));
  }
  if (in.bad()) throw FileError(path + ": read error");
  if (header) throw FileError(path + ": empty file (expected a header line naming the columns)");
  if (f.times.empty()) throw FileError(path + ": no data rows after the header");
  return f;
}

void TimeFunction::validate(const std::string& where) const {
  auto finite = [&](double x, const char* what) {
    if (!std::isfinite(x)) throw ModelError(where + ": " + what + " is not a finite number");
  };
  finite(value, "value");
  finite(amplitude, "amplitude");
  finite(frequency, "frequency");
  finite(rate, "rate");
  finite(phase, "phase");
  finite(offset, "offset");
  finite(t0, "t0");
  finite(t1, "t1");
  switch (type) {
    case Type::SmoothStep:
      if (!(t1 > t0)) throw ModelError(where + ": smooth_step needs t1 > t0");
      break;
    case Type::Table:
      if (times.empty() || times.size() != values.size())
        throw ModelError(where + ": table needs as many times as values (at least one)");
      for (std::size_t i = 0; i < times.size(); ++i) {
        finite(times[i], "table time");
        finite(values[i], "table value");
        if (i > 0 && !(times[i] > times[i - 1]))
          throw ModelError(where + ": table times must be strictly increasing");
      }
      break;
    case Type::Sum:
      for (std::size_t i = 0; i < terms.size(); ++i)
        terms[i].validate(where + ".terms[" + std::to_string(i) + "]");
      break;
    default: break;
  }
}

TimeValue TimeFunction::evaluate(double t) const {
  constexpr double twoPi = 2.0 * std::numbers::pi;
  TimeValue r;
  switch (type) {
    case Type::Constant: r.f = value; break;
    case Type::Sine: {
      const double w = twoPi * frequency;
      const double arg = w * t + phase;
      r.f = offset + amplitude * std::sin(arg);
      r.fd = amplitude * w * std::cos(arg);
      r.fdd = -amplitude * w * w * std::sin(arg);
      break;
    }
    case Type::Chirp: {
      const double arg = twoPi * (frequency * t + 0.5 * rate * t * t) + phase;
      const double argd = twoPi * (frequency + rate * t);
      const double argdd = twoPi * rate;
      r.f = offset + amplitude * std::sin(arg);
      r.fd = amplitude * std::cos(arg) * argd;
      r.fdd = amplitude * (std::cos(arg) * argdd - std::sin(arg) * argd * argd);
      break;
    }
    case Type::Step: r.f = t >= t0 ? value : 0.0; break;
    case Type::SmoothStep: {
      if (t <= t0) break;
      if (t >= t1) {
        r.f = value;
        break;
      }
      const double h = t1 - t0;
      const double s = (t - t0) / h;
      // 10s^3 - 15s^4 + 6s^5: zero slope and curvature at both ends.
      r.f = value * s * s * s * (10.0 + s * (-15.0 + 6.0 * s));
      r.fd = value * 30.0 * s * s * (1.0 - s) * (1.0 - s) / h;
      r.fdd = value * 60.0 * s * (1.0 - s) * (1.0 - 2.0 * s) / (h * h);
      break;
    }
    case Type::Table: {
      // Right-continuous slope: a ramp that starts at t0 moves at t0 (a run
      // starting there starts with the ramp's speed, not at rest).
      if (t < times.front()) {
        r.f = values.front();
        break;
      }
      if (t >= times.back()) {
        r.f = values.back();
        break;
      }
      const auto it = std::upper_bound(times.begin(), times.end(), t);
      const auto i = static_cast<std::size_t>(it - times.begin()) - 1;
      const double slope = (values[i + 1] - values[i]) / (times[i + 1] - times[i]);
      r.f = values[i] + slope * (t - times[i]);
      r.fd = slope;
      break;
    }
    case Type::Sum:
      for (const TimeFunction& term : terms) {
        const TimeValue v = term.evaluate(t);
        r.f += v.f;
        r.fd += v.fd;
        r.fdd += v.fdd;
      }
      break;
  }
  return r;
}

const char* timeFunctionTypeName(TimeFunction::Type type) {
  switch (type) {
    case TimeFunction::Type::Constant: return "constant";
    case TimeFunction::Type::Sine: return "sine";
    case TimeFunction::Type::Chirp: return "chirp";
    case TimeFunction::Type::Step: return "step";
    case TimeFunction::Type::SmoothStep: return "smooth_step";
    case TimeFunction::Type::Table: return "table";
    case TimeFunction::Type::Sum: return "sum";
  }
  return "constant";
}

}  // namespace mbdrom
