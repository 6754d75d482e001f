#include "engine/data/dataset.h"

#include "engine/core/message_text.h"
#include "engine/model/model_file.h"

#include "engine/core/error.h"
#include "engine/core/json_input.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace mbdrom {

namespace {

using Json = nlohmann::json;

struct Channel {
  const char* name;
  Eigen::MatrixXd DatasetRun::*matrix;
};
constexpr Channel kChannels[] = {
    {"q", &DatasetRun::q},
    {"qd", &DatasetRun::qd},
    {"qdd", &DatasetRun::qdd},
    {"f_spring", &DatasetRun::f_spring},
    {"f_damper", &DatasetRun::f_damper},
    {"f_ext", &DatasetRun::f_ext},
};

Json matrixToJson(const Eigen::MatrixXd& m) {
  // One row per sample (column of m).
  Json rows = Json::array();
  for (Eigen::Index j = 0; j < m.cols(); ++j) {
    Json row = Json::array();
    for (Eigen::Index i = 0; i < m.rows(); ++i) row.push_back(m(i, j));
    rows.push_back(std::move(row));
  }
  return rows;
}

Eigen::MatrixXd matrixFromJson(const Json& rows, Eigen::Index n, const std::string& where) {
  if (!rows.is_array()) throw FileError(where + ": expected an array of rows");
  Eigen::MatrixXd m(n, static_cast<Eigen::Index>(rows.size()));
  for (std::size_t j = 0; j < rows.size(); ++j) {
    const Json& row = rows[j];
    if (!row.is_array() || static_cast<Eigen::Index>(row.size()) != n)
      throw FileError(where + "[" + std::to_string(j) + "]: expected " + std::to_string(n) + " numbers");
    for (Eigen::Index i = 0; i < n; ++i) {
      const Json& x = row[static_cast<std::size_t>(i)];
      // Non-finite numbers are written as null: read back as NaN so addRun names them.
      m(i, static_cast<Eigen::Index>(j)) = x.is_number() ? x.get<double>() : std::nan("");
    }
  }
  return m;
}

Dataset headerOf(const Dataset& d) {
  Dataset h;
  h.mechanismName = d.mechanismName;
  h.mechanismHash = d.mechanismHash;
  h.coordinateNames = d.coordinateNames;
  h.vectorCoordinates = d.vectorCoordinates;
  h.M = d.M;
  h.loadCaseDefinitions = d.loadCaseDefinitions;
  return h;
}

DatasetRun sliceRun(const DatasetRun& r, Eigen::Index begin, Eigen::Index count) {
  DatasetRun s;
  s.name = r.name;
  s.loadCase = r.loadCase;
  s.parameters = r.parameters;
  s.t = r.t.segment(begin, count);
  for (const Channel& c : kChannels) s.*c.matrix = (r.*c.matrix).middleCols(begin, count);
  return s;
}

std::string hexHash(std::uint64_t h) {
  static const char* digits = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) s[static_cast<std::size_t>(i)] = digits[h & 0xF];
  return s;
}

}  // namespace

long long Dataset::samples() const {
  long long n = 0;
  for (const DatasetRun& r : runs) n += r.samples();
  return n;
}

std::vector<std::string> Dataset::loadCases() const {
  std::vector<std::string> names;
  for (const DatasetRun& r : runs)
    if (std::find(names.begin(), names.end(), r.loadCase) == names.end()) names.push_back(r.loadCase);
  return names;
}

Dataset makeDataset(const Model& model) {
  Dataset d;
  d.mechanismName = model.spec().name;
  d.mechanismHash = model.mechanismHash();
  for (int i = 0; i < model.nq(); ++i) d.coordinateNames.push_back(model.coordinateName(i));
  d.M = model.massMatrix();
  const Json spec = Json::parse(serializeModelSpec(model.spec()));
  for (const Json& lc : spec.value("load_cases", Json::array()))
    d.loadCaseDefinitions[lc.at("name")] = lc.dump();
  for (int v = 0; v < static_cast<int>(model.spec().vectors.size()); ++v) {
    const int first = model.vectorCoordinate(v);
    if (first >= 0)
      for (int k = 0; k < 3; ++k) d.vectorCoordinates.push_back(first + k);
  }
  return d;
}

void addRun(Dataset& dataset, DatasetRun run) {
  const std::string where = "run " + inQuotes(run.name);
  if (run.name.empty()) throw InputError("a dataset run needs a name");
  for (const DatasetRun& r : dataset.runs)
    if (r.name == run.name) throw InputError(where + ": the dataset already has a run of this name");
  const Eigen::Index n = dataset.nq(), samples = run.t.size();
  if (samples < 1) throw InputError(where + ": no samples");
  for (const auto& [name, value] : run.parameters) {
    if (name.empty()) throw InputError(where + ": a parameter needs a name");
    if (!std::isfinite(value))
      throw InputError(where + ": parameter " + inQuotes(name) + " is not a finite number");
  }
  for (const Channel& c : kChannels) {
    const Eigen::MatrixXd& m = run.*c.matrix;
    if (m.rows() != n || m.cols() != samples)
      throw InputError(where + ": " + c.name + " is " + std::to_string(m.rows()) + " x " +
                       std::to_string(m.cols()) + ", expected " + std::to_string(n) + " x " +
                       std::to_string(samples) + " (coordinates x samples; is it a run of mechanism " +
                       inQuotes(dataset.mechanismName) + "?)");
  }
  for (Eigen::Index k = 0; k < samples; ++k) {
    if (!std::isfinite(run.t(k)))
      throw InputError(where + ", row " + std::to_string(k + 1) + ": time is not a finite number");
    if (k > 0 && !(run.t(k) > run.t(k - 1)))
      throw InputError(where + ", row " + std::to_string(k + 1) + ": time " + std::to_string(run.t(k)) +
                       " does not increase");
    for (const Channel& c : kChannels) {
      const Eigen::MatrixXd& m = run.*c.matrix;
      for (Eigen::Index i = 0; i < n; ++i)
        if (!std::isfinite(m(i, k)))
          throw InputError(where + ", row " + std::to_string(k + 1) + " (t = " + std::to_string(run.t(k)) +
                           "): " + c.name + "." + dataset.coordinateNames[static_cast<std::size_t>(i)] +
                           " is not a finite number");
    }
  }
  dataset.runs.push_back(std::move(run));
}

DatasetRun runFromTable(const Model& model, const TrajectoryTable& table, const std::string& name,
                        const std::string& loadCase) {
  const std::vector<std::string> expected = trajectoryColumns(model);
  for (std::size_t i = 0; i < std::max(expected.size(), table.columns.size()); ++i) {
    const std::string want = i < expected.size() ? expected[i] : "(none)";
    const std::string got = i < table.columns.size() ? table.columns[i] : "(none)";
    if (want != got)
      throw InputError("run " + inQuotes(name) + " is not a trajectory of mechanism " +
                       inQuotes(model.spec().name) + ": column " + std::to_string(i + 1) + " is " +
                       inQuotes(got) + ", expected " + inQuotes(want));
  }
  // Without rows every channel would be an empty matrix, and taking its rows
  // is undefined behaviour (found by fuzzing): refuse it here, as addRun would.
  if (table.data.rows() == 0)
    throw InputError("run " + inQuotes(name) + ": no samples (the CSV has a header only)");
  requireFiniteTable(table, "run " + inQuotes(name));
  DatasetRun run;
  run.name = name;
  run.loadCase = loadCase;
  const Eigen::Index samples = table.data.rows(), n = model.nq();
  run.t = table.data.col(0);
  const std::pair<const char*, Eigen::MatrixXd DatasetRun::*> channels[] = {
      {"", &DatasetRun::q},
      {"qd.", &DatasetRun::qd},
      {"qdd.", &DatasetRun::qdd},
      {"f_spring.", &DatasetRun::f_spring},
      {"f_damper.", &DatasetRun::f_damper},
      {"f_ext.", &DatasetRun::f_ext}};
  for (const auto& [prefix, matrix] : channels) {
    Eigen::MatrixXd& m = run.*matrix;
    m.resize(n, samples);
    for (Eigen::Index i = 0; i < n; ++i) {
      // Coordinate names are "<point|vector>.<axis>", the position columns' names.
      const int column = table.column(prefix + model.coordinateName(static_cast<int>(i)));
      m.row(i) = table.data.col(column).transpose();
    }
  }
  return run;
}

DatasetRun runFromSamples(const std::vector<Sample>& samples, const std::string& name,
                          const std::string& loadCase) {
  DatasetRun run;
  run.name = name;
  run.loadCase = loadCase;
  const auto count = static_cast<Eigen::Index>(samples.size());
  const Eigen::Index n = samples.empty() ? 0 : samples.front().q.size();
  run.t.resize(count);
  for (const Channel& c : kChannels) (run.*c.matrix).resize(n, count);
  for (Eigen::Index k = 0; k < count; ++k) {
    const Sample& s = samples[static_cast<std::size_t>(k)];
    run.t(k) = s.t;
    run.q.col(k) = s.q;
    run.qd.col(k) = s.qd;
    run.qdd.col(k) = s.qdd;
    run.f_spring.col(k) = s.f_spring;
    run.f_damper.col(k) = s.f_damper;
    run.f_ext.col(k) = s.f_ext;
  }
  return run;
}

void mergeDatasets(Dataset& dataset, const Dataset& other) {
  if (dataset.mechanismHash != other.mechanismHash || dataset.coordinateNames != other.coordinateNames)
    throw InputError("cannot mix runs of different mechanisms in one dataset: " +
                     inQuotes(dataset.mechanismName) + " (hash " + hexHash(dataset.mechanismHash) + ") and " +
                     inQuotes(other.mechanismName) + " (hash " + hexHash(other.mechanismHash) + ")");
  for (const auto& [name, definition] : other.loadCaseDefinitions) {
    const auto it = dataset.loadCaseDefinitions.find(name);
    if (it != dataset.loadCaseDefinitions.end() && Json::parse(it->second) != Json::parse(definition))
      throw InputError("load case " + inQuotes(name) + " is defined differently in the two datasets");
  }
  for (const DatasetRun& r : other.runs) addRun(dataset, r);
  dataset.loadCaseDefinitions.insert(other.loadCaseDefinitions.begin(), other.loadCaseDefinitions.end());
}

void splitByRun(const Dataset& dataset, const std::vector<std::string>& validationRuns, Dataset& train,
                Dataset& validation) {
  for (const std::string& name : validationRuns) {
    bool found = false;
    for (const DatasetRun& r : dataset.runs) found = found || r.name == name;
    if (!found) throw InputError("split: the dataset has no run " + inQuotes(name));
  }
  train = headerOf(dataset);
  validation = headerOf(dataset);
  for (const DatasetRun& r : dataset.runs) {
    const bool v = std::find(validationRuns.begin(), validationRuns.end(), r.name) != validationRuns.end();
    (v ? validation : train).runs.push_back(r);
  }
}

void splitByTime(const Dataset& dataset, double validationFraction, Dataset& train, Dataset& validation) {
  if (!(validationFraction >= 0.0 && validationFraction < 1.0))
    throw InputError("split: the validation fraction must be in [0, 1), got " +
                     std::to_string(validationFraction));
  train = headerOf(dataset);
  validation = headerOf(dataset);
  for (const DatasetRun& r : dataset.runs) {
    const Eigen::Index n = r.samples();
    const auto nTrain = std::max<Eigen::Index>(
        1, static_cast<Eigen::Index>(std::ceil((1.0 - validationFraction) * static_cast<double>(n))));
    train.runs.push_back(sliceRun(r, 0, std::min(nTrain, n)));
    if (nTrain < n) validation.runs.push_back(sliceRun(r, nTrain, n - nTrain));
  }
}

void saveDataset(const Dataset& dataset, const std::string& path) {
  Json j;
  j["format"] = "mbdrom-dataset";
  j["version"] = 1;
  j["mechanism"] = {{"name", dataset.mechanismName}, {"hash", hexHash(dataset.mechanismHash)}};
  j["coordinates"] = dataset.coordinateNames;
  j["vector_coordinates"] = dataset.vectorCoordinates;
  j["mass_matrix"] = matrixToJson(dataset.M);
  j["load_cases"] = Json::array();
  for (const std::string& name : dataset.loadCases()) {
    const auto it = dataset.loadCaseDefinitions.find(name);
    if (it != dataset.loadCaseDefinitions.end()) j["load_cases"].push_back(Json::parse(it->second));
  }
  j["runs"] = Json::array();
  for (const DatasetRun& r : dataset.runs) {
    Json jr;
    jr["name"] = r.name;
    jr["load_case"] = r.loadCase;
    if (!r.parameters.empty()) jr["parameters"] = r.parameters;
    jr["t"] = std::vector<double>(r.t.data(), r.t.data() + r.t.size());
    for (const Channel& c : kChannels) jr[c.name] = matrixToJson(r.*c.matrix);
    j["runs"].push_back(std::move(jr));
  }
  writeFileAtomically(path, j.dump() + "\n");
}

Dataset loadDataset(const std::string& path) {
  const Json j = parseJsonInput<Json>(readRegularFile(path, kMaxTrainedModelBytes, "dataset"), path);
  try {
    if (j.value("format", "") != "mbdrom-dataset") throw FileError(path + ": not an mbdrom dataset (format)");
    if (j.value("version", 0) != 1) throw FileError(path + ": unsupported dataset version");
    Dataset d;
    d.mechanismName = j.at("mechanism").at("name").get<std::string>();
    d.mechanismHash = std::stoull(j.at("mechanism").at("hash").get<std::string>(), nullptr, 16);
    d.coordinateNames = j.at("coordinates").get<std::vector<std::string>>();
    d.vectorCoordinates = j.value("vector_coordinates", std::vector<int>{});
    const auto n = static_cast<Eigen::Index>(d.coordinateNames.size());
    for (int i : d.vectorCoordinates)
      if (i < 0 || i >= n)
        throw FileError(path + ": vector_coordinates: index " + std::to_string(i) + " out of range");
    d.M = matrixFromJson(j.at("mass_matrix"), n, path + ": mass_matrix");
    if (d.M.cols() != n)
      throw FileError(path + ": mass_matrix must be " + std::to_string(n) + " x " + std::to_string(n));
    for (const Json& lc : j.value("load_cases", Json::array())) {
      if (!lc.is_object() || !lc.contains("name") || !lc.at("name").is_string())
        throw FileError(path + ": load_cases: every entry needs a \"name\"");
      d.loadCaseDefinitions[lc.at("name").get<std::string>()] = lc.dump();
    }
    for (const Json& jr : j.at("runs")) {
      DatasetRun r;
      r.name = jr.at("name").get<std::string>();
      r.loadCase = jr.value("load_case", "");
      if (jr.contains("parameters")) {
        const Json& jp = jr.at("parameters");
        if (!jp.is_object())
          throw FileError(path + ": run " + inQuotes(r.name) + ": parameters must be an object");
        for (const auto& [name, value] : jp.items()) {
          if (!value.is_number())
            throw FileError(path + ": run " + inQuotes(r.name) + ": parameter " + inQuotes(name) +
                            " is not a number");
          r.parameters[name] = value.get<double>();
        }
      }
      const Json& t = jr.at("t");
      r.t.resize(static_cast<Eigen::Index>(t.size()));
      for (std::size_t k = 0; k < t.size(); ++k)
        r.t(static_cast<Eigen::Index>(k)) = t[k].is_number() ? t[k].get<double>() : std::nan("");
      for (const Channel& c : kChannels)
        r.*c.matrix = matrixFromJson(jr.at(c.name), n, path + ": run " + inQuotes(r.name) + ": " + c.name);
      try {
        addRun(d, std::move(r));
      } catch (const InputError& e) {
        throw InputError(path + ": " + e.what());
      }
    }
    return d;
  } catch (const Json::exception& e) {
    throw FileError(path + ": bad dataset: " + e.what());
  } catch (const std::logic_error&) {  // stoull: not hex, or beyond 64 bits (out_of_range)
    throw FileError(path + ": bad mechanism hash");
  }
}

}  // namespace mbdrom
