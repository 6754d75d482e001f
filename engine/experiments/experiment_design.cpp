#include "engine/experiments/experiment_design.h"

#include "engine/core/error.h"
#include "engine/core/number_text.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <sstream>

namespace mbdrom {

namespace {

// Joe & Kuo (2008), new-joe-kuo-6.21201, dimensions 2..21: degree s of the
// primitive polynomial, its coefficients a, initial direction numbers m_1..m_s.
struct SobolPolynomial {
  int s;
  unsigned a;
  std::array<unsigned, 7> m;
};
constexpr std::array<SobolPolynomial, kMaxSobolDimensions - 1> kSobol{{
    {1, 0, {1}},
    {2, 1, {1, 3}},
    {3, 1, {1, 3, 1}},
    {3, 2, {1, 1, 1}},
    {4, 1, {1, 1, 3, 3}},
    {4, 4, {1, 3, 5, 13}},
    {5, 2, {1, 1, 5, 5, 17}},
    {5, 4, {1, 1, 5, 5, 5}},
    {5, 7, {1, 1, 7, 11, 19}},
    {5, 11, {1, 1, 5, 1, 1}},
    {5, 13, {1, 1, 1, 3, 11}},
    {5, 14, {1, 3, 5, 5, 31}},
    {6, 1, {1, 3, 3, 9, 7, 49}},
    {6, 13, {1, 1, 1, 15, 21, 21}},
    {6, 16, {1, 3, 1, 13, 27, 49}},
    {6, 19, {1, 1, 1, 15, 7, 5}},
    {6, 22, {1, 3, 1, 15, 13, 25}},
    {6, 25, {1, 1, 5, 5, 19, 61}},
    {7, 1, {1, 3, 7, 11, 23, 15, 103}},
    {7, 4, {1, 3, 7, 13, 13, 15, 69}},
}};
constexpr int kSobolBits = 32;

std::uint64_t fnv(std::uint64_t h, const void* data, std::size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

std::string runName(int k, int runs) {
  std::string digits = std::to_string(k + 1);
  const std::size_t width = std::max<std::size_t>(2, std::to_string(runs).size());
  return "run_" + std::string(width - std::min(width, digits.size()), '0') + digits;
}

void nameRuns(ExperimentDesign& d) {
  d.runNames.clear();
  for (int k = 0; k < d.runs(); ++k) d.runNames.push_back(runName(k, d.runs()));
}

void checkRanges(const std::vector<DesignFactor>& factors, int runs, const char* what) {
  if (factors.empty()) throw InputError(std::string(what) + ": no parameter to vary");
  if (runs < 1 || runs > 1000000)
    throw InputError(std::string(what) + ": the number of runs must be between 1 and 1000000, got " +
                     std::to_string(runs));
  for (const DesignFactor& f : factors)
    if (!std::isfinite(f.low) || !std::isfinite(f.high) || !(f.low < f.high))
      throw InputError(std::string(what) + ": the range of \"" + f.parameter +
                       "\" must be finite with low < high, got [" + shortestNumberText(f.low) + ", " +
                       shortestNumberText(f.high) + "]");
}

ExperimentDesign scaled(const std::vector<DesignFactor>& factors, const Eigen::MatrixXd& unit,
                        DesignType type) {
  ExperimentDesign d;
  d.type = type;
  d.points.resize(unit.rows(), static_cast<Eigen::Index>(factors.size()));
  for (std::size_t j = 0; j < factors.size(); ++j) {
    d.parameters.push_back(factors[j].parameter);
    const double lo = factors[j].low, hi = factors[j].high;
    for (Eigen::Index i = 0; i < unit.rows(); ++i)
      d.points(i, static_cast<Eigen::Index>(j)) = lo + (hi - lo) * unit(i, static_cast<Eigen::Index>(j));
  }
  nameRuns(d);
  return d;
}

// The fields of a CSV line: trimmed, a field in double quotes taken as its text
// (commas inside, "" for a quote), as spreadsheets write them.
std::vector<std::string> splitCsvLine(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false, wasQuoted = false;
  auto push = [&] {
    if (!wasQuoted) {
      while (!field.empty() && (field.back() == '\r' || field.back() == ' ' || field.back() == '\t'))
        field.pop_back();
      std::size_t lead = 0;
      while (lead < field.size() && (field[lead] == ' ' || field[lead] == '\t')) ++lead;
      field.erase(0, lead);
    }
    fields.push_back(field);
    field.clear();
    wasQuoted = false;
  };
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"' && field.find_first_not_of(" \t") == std::string::npos) {
      field.clear();
      quoted = wasQuoted = true;
    } else if (c == ',') {
      push();
    } else if (!(wasQuoted && (c == ' ' || c == '\t' || c == '\r'))) {
      field += c;
    }
  }
  push();
  return fields;
}

bool usableRunName(const std::string& r) {
  if (r.empty() || r.size() > 200 || r[0] == '.') return false;
  for (const char c : r)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  std::string lower = r;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto endsWith = [&](const std::string& tail) {
    return lower.size() >= tail.size() && lower.compare(lower.size() - tail.size(), tail.size(), tail) == 0;
  };
  return lower != "design" && lower != "sweep" && !endsWith(".partial") && !endsWith(".run");
}

}  // namespace

std::string designTypeName(DesignType type) {
  switch (type) {
    case DesignType::Grid: return "grid";
    case DesignType::List: return "list";
    case DesignType::LatinHypercube: return "latin-hypercube";
    case DesignType::Sobol: return "sobol";
  }
  return "list";
}

DesignType designTypeFromName(const std::string& name) {
  if (name == "grid") return DesignType::Grid;
  if (name == "list") return DesignType::List;
  if (name == "latin-hypercube" || name == "lhs") return DesignType::LatinHypercube;
  if (name == "sobol") return DesignType::Sobol;
  throw InputError("unknown design type \"" + name + "\" (known: grid, list, latin-hypercube, sobol)");
}

std::string ExperimentDesign::hash() const {
  std::uint64_t h = 14695981039346656037ull;
  const std::string head = designTypeName(type) + "|" + std::to_string(seed);
  h = fnv(h, head.data(), head.size() + 1);
  for (const std::string& p : parameters) h = fnv(h, p.c_str(), p.size() + 1);
  for (const std::string& r : runNames) h = fnv(h, r.c_str(), r.size() + 1);
  for (Eigen::Index i = 0; i < points.rows(); ++i)
    for (Eigen::Index j = 0; j < points.cols(); ++j) {
      const double x = points(i, j) == 0.0 ? 0.0 : points(i, j);  // -0 and 0 are one point
      h = fnv(h, &x, sizeof x);
    }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

ExperimentDesign gridDesign(const std::vector<DesignFactor>& factors) {
  if (factors.empty()) throw InputError("grid design: no parameter to vary");
  long long runs = 1;
  for (const DesignFactor& f : factors) {
    if (f.levels.empty()) throw InputError("grid design: \"" + f.parameter + "\" has no levels");
    runs *= static_cast<long long>(f.levels.size());
    if (runs > 1000000) throw InputError("grid design: more than 1000000 runs");
  }
  ExperimentDesign d;
  d.type = DesignType::Grid;
  for (const DesignFactor& f : factors) d.parameters.push_back(f.parameter);
  d.points.resize(runs, static_cast<Eigen::Index>(factors.size()));
  for (long long k = 0; k < runs; ++k) {
    long long rest = k;
    for (std::size_t j = factors.size(); j-- > 0;) {
      const auto n = static_cast<long long>(factors[j].levels.size());
      d.points(k, static_cast<Eigen::Index>(j)) = factors[j].levels[static_cast<std::size_t>(rest % n)];
      rest /= n;
    }
  }
  nameRuns(d);
  return d;
}

ExperimentDesign latinHypercubeDesign(const std::vector<DesignFactor>& factors, int runs,
                                      std::uint64_t seed) {
  checkRanges(factors, runs, "Latin hypercube design");
  std::mt19937_64 random(seed);
  // Uniform in [0, 1) from the top 53 bits: the same on every standard library
  // (std::uniform_real_distribution is not specified bit for bit).
  auto uniform = [&] { return static_cast<double>(random() >> 11) * 0x1.0p-53; };
  Eigen::MatrixXd unit(runs, static_cast<Eigen::Index>(factors.size()));
  std::vector<int> strata(static_cast<std::size_t>(runs));
  for (Eigen::Index j = 0; j < unit.cols(); ++j) {
    for (int i = 0; i < runs; ++i) strata[static_cast<std::size_t>(i)] = i;
    for (int i = runs - 1; i > 0; --i)  // Fisher-Yates with the generator's raw output
      std::swap(strata[static_cast<std::size_t>(i)],
                strata[static_cast<std::size_t>(random() % static_cast<std::uint64_t>(i + 1))]);
    for (int i = 0; i < runs; ++i) unit(i, j) = (strata[static_cast<std::size_t>(i)] + uniform()) / runs;
  }
  ExperimentDesign d = scaled(factors, unit, DesignType::LatinHypercube);
  d.seed = seed;
  return d;
}

Eigen::MatrixXd sobolPoints(int n, int dimensions) {
  if (dimensions < 1 || dimensions > kMaxSobolDimensions)
    throw InputError("Sobol design: 1 to " + std::to_string(kMaxSobolDimensions) + " parameters, got " +
                     std::to_string(dimensions));
  if (n < 0 || static_cast<long long>(n) > (1ll << kSobolBits) - 1)
    throw InputError("Sobol design: too many points");
  Eigen::MatrixXd points(n, dimensions);
  for (int j = 0; j < dimensions; ++j) {
    std::array<std::uint32_t, kSobolBits> v{};
    if (j == 0) {
      for (int k = 0; k < kSobolBits; ++k) v[static_cast<std::size_t>(k)] = 1u << (31 - k);
    } else {
      const SobolPolynomial& p = kSobol[static_cast<std::size_t>(j - 1)];
      for (int k = 0; k < kSobolBits; ++k) {
        if (k < p.s) {
          v[static_cast<std::size_t>(k)] = p.m[static_cast<std::size_t>(k)] << (31 - k);
        } else {
          std::uint32_t x =
              v[static_cast<std::size_t>(k - p.s)] ^ (v[static_cast<std::size_t>(k - p.s)] >> p.s);
          for (int i = 1; i < p.s; ++i)
            if ((p.a >> (p.s - 1 - i)) & 1u) x ^= v[static_cast<std::size_t>(k - i)];
          v[static_cast<std::size_t>(k)] = x;
        }
      }
    }
    std::uint32_t x = 0;
    for (int i = 0; i < n; ++i) {
      points(i, j) = static_cast<double>(x) * 0x1.0p-32;
      // Gray-code order: the next point flips the direction number of the lowest zero bit of i.
      unsigned c = 0;
      for (unsigned value = static_cast<unsigned>(i); value & 1u; value >>= 1) ++c;
      if (c < kSobolBits) x ^= v[c];
    }
  }
  return points;
}

ExperimentDesign sobolDesign(const std::vector<DesignFactor>& factors, int runs) {
  checkRanges(factors, runs, "Sobol design");
  return scaled(factors, sobolPoints(runs, static_cast<int>(factors.size())), DesignType::Sobol);
}

ExperimentDesign listDesign(std::vector<std::string> parameters, Eigen::MatrixXd points) {
  ExperimentDesign d;
  d.type = DesignType::List;
  d.parameters = std::move(parameters);
  d.points = std::move(points);
  nameRuns(d);
  return d;
}

void checkDesign(const ExperimentDesign& d) {
  if (d.parameters.empty()) throw InputError("design: no parameter to vary");
  if (d.runs() == 0) throw InputError("design: no runs");
  if (d.points.cols() != static_cast<Eigen::Index>(d.parameters.size()) ||
      d.runNames.size() != static_cast<std::size_t>(d.runs()))
    throw InputError("design: the table's size does not match its parameters and runs");
  std::set<std::string> seen;
  for (const std::string& p : d.parameters) {
    if (p.empty()) throw InputError("design: a parameter without a name");
    if (!seen.insert(p).second) throw InputError("design: parameter \"" + p + "\" appears twice");
  }
  seen.clear();
  for (const std::string& r : d.runNames) {
    if (!usableRunName(r))
      throw InputError("design: run name \"" + r +
                       "\" cannot name its files (letters, digits, '_', '-', '.'; not starting with '.', not "
                       "\"design\" or \"sweep\", not ending in \".partial\" or \".run\")");
    if (!seen.insert(r).second) throw InputError("design: run \"" + r + "\" appears twice");
  }
  std::map<std::vector<double>, int> points;
  for (int i = 0; i < d.runs(); ++i) {
    std::vector<double> row(static_cast<std::size_t>(d.points.cols()));
    for (Eigen::Index j = 0; j < d.points.cols(); ++j) {
      const double x = d.points(i, j);
      if (!std::isfinite(x))
        throw InputError("design: run " + d.runNames[static_cast<std::size_t>(i)] + " has a non-finite \"" +
                         d.parameters[static_cast<std::size_t>(j)] + "\"");
      row[static_cast<std::size_t>(j)] = x == 0.0 ? 0.0 : x;
    }
    const auto [it, added] = points.emplace(row, i);
    if (!added)
      throw InputError("design: runs " + d.runNames[static_cast<std::size_t>(it->second)] + " and " +
                       d.runNames[static_cast<std::size_t>(i)] +
                       " are the same design point (a repeated level, e.g. 1 and 1.0)");
  }
}

std::string designTableText(const ExperimentDesign& d) {
  std::string text = "# mbdrom-design type=" + designTypeName(d.type) + " seed=" + std::to_string(d.seed) +
                     " hash=" + d.hash() + "\nrun";
  for (const std::string& p : d.parameters) {
    text += ',';
    text += p;
  }
  text += "\n";
  for (int i = 0; i < d.runs(); ++i) {
    text += d.runNames[static_cast<std::size_t>(i)];
    for (Eigen::Index j = 0; j < d.points.cols(); ++j) {
      text += ',';  // appended in two steps: GCC 12 warns falsely on "," + std::string (-Wstringop-overflow)
      text += shortestNumberText(d.points(i, j));
    }
    text += "\n";
  }
  return text;
}

ExperimentDesign parseDesignTable(const std::string& text, const std::string& source) {
  std::istringstream in(text);
  std::string line, expectedHash;
  ExperimentDesign d;
  bool header = false, written = false;
  std::vector<std::vector<double>> rows;
  bool runColumn = false;
  int lineNumber = 0;
  auto fail = [&](const std::string& what) {
    throw InputError(source + ":" + std::to_string(lineNumber) + ": " + what);
  };
  while (std::getline(in, line)) {
    ++lineNumber;
    if (lineNumber == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0)
      line.erase(0, 3);  // a spreadsheet's UTF-8 mark
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    if (line[0] == '#') {
      if (line.rfind("# mbdrom-design ", 0) == 0 && !header) {
        written = true;
        std::istringstream fields(line.substr(16));
        std::string field;
        while (fields >> field) {
          const auto eq = field.find('=');
          const std::string key = field.substr(0, eq),
                            value = eq == std::string::npos ? "" : field.substr(eq + 1);
          if (key == "type") {
            try {
              d.type = designTypeFromName(value);
            } catch (const InputError& e) {
              fail(e.what());
            }
          } else if (key == "seed") {
            try {
              std::size_t used = 0;
              d.seed = std::stoull(value, &used);
              if (used != value.size()) fail("bad seed \"" + value + "\"");
            } catch (const std::logic_error&) {
              fail("bad seed \"" + value + "\"");
            }
          } else if (key == "hash") {
            expectedHash = value;
          }
        }
      }
      continue;
    }
    const std::vector<std::string> fields = splitCsvLine(line);
    if (!header) {
      header = true;
      runColumn = !fields.empty() && fields[0] == "run";
      for (std::size_t j = runColumn ? 1 : 0; j < fields.size(); ++j) d.parameters.push_back(fields[j]);
      if (d.parameters.empty()) fail("the header names no parameter");
      continue;
    }
    if (fields.size() != d.parameters.size() + (runColumn ? 1 : 0))
      fail("expected " + std::to_string(d.parameters.size() + (runColumn ? 1 : 0)) + " fields, got " +
           std::to_string(fields.size()));
    if (rows.size() >= 1000000) fail("more than 1000000 runs");
    if (runColumn) d.runNames.push_back(fields[0]);
    std::vector<double> row;
    for (std::size_t j = runColumn ? 1 : 0; j < fields.size(); ++j) {
      const std::optional<double> x = parseWholeNumber(fields[j]);
      if (!x || !std::isfinite(*x)) fail("\"" + fields[j] + "\" is not a finite number");
      row.push_back(*x);
    }
    rows.push_back(std::move(row));
  }
  if (!header) throw InputError(source + ": no header line (parameter names)");
  if (rows.empty()) throw InputError(source + ": no runs");
  d.points.resize(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(d.parameters.size()));
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < rows[i].size(); ++j)
      d.points(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = rows[i][j];
  if (!runColumn) nameRuns(d);
  // The type and seed of a header without its hash (written by hand) are not this program's word.
  if (!written || expectedHash.empty()) {
    d.type = DesignType::List;
    d.seed = 0;
    written = false;
  }
  try {
    checkDesign(d);
  } catch (const InputError& e) {
    throw InputError(source + ": " + e.what());
  }
  if (written && !expectedHash.empty() && expectedHash != d.hash())
    throw InputError(source + ": the table was changed after it was written (hash " + d.hash() +
                     ", its header says " + expectedHash + ")");
  return d;
}

}  // namespace mbdrom
