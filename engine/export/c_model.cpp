#include "engine/export/c_model.h"

#include "engine/core/error.h"
#include "engine/core/version.h"
#include "engine/export/c_templates.h"
#include "engine/model/model_file.h"
#include "engine/rom/method_registry.h"
#include "engine/rom/reduced_model.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <ctime>
#include <set>

namespace mbdrom {

std::string cNumber(double x) {
  char buffer[32];
  const auto r = std::to_chars(buffer, buffer + sizeof buffer, x);  // shortest exact form
  std::string s(buffer, r.ptr);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  if (s == "inf") return "HUGE_VAL";
  if (s == "-inf") return "(-HUGE_VAL)";
  if (s == "nan" || s == "-nan") return "NAN";
  return s;
}

namespace {

// Text for a C comment: no "*/" that would end it, no "??" trigraph.
std::string commentText(const std::string& text) {
  std::string out;
  for (char c : text) {
    if ((c == '/' && !out.empty() && out.back() == '*') || (c == '?' && !out.empty() && out.back() == '?'))
      out += ' ';
    out += (c == '\n' || c == '\r') ? ' ' : c;
  }
  return out;
}

std::string stringArray(const std::vector<std::string>& v) {
  if (v.empty()) return "{\"\"}";
  std::string s = "{";
  for (std::size_t i = 0; i < v.size(); ++i) {
    s += i ? ", \"" : "\"";
    for (char c : v[i]) {
      if (c == '"' || c == '\\' || c == '?') s += '\\';  // '?': no trigraph in C99
      s += (c == '\n' ? ' ' : c);
    }
    s += "\"";
  }
  return s + "}";
}

// The natural-coordinate combinations the runtime uses: the loads' points and
// directions, then the output points.
struct Combinations {
  std::vector<double> offset, weight;
  std::vector<int> first{0}, index;
  int add(const Combination& c) {
    for (int k = 0; k < 3; ++k) offset.push_back(c.offset(k));
    for (const Combination::Term& t : c.terms) {
      index.push_back(t.index);
      weight.push_back(t.weight);
    }
    first.push_back(static_cast<int>(index.size()));
    return static_cast<int>(first.size()) - 2;
  }
};

Eigen::MatrixXd column(const std::vector<double>& v) {
  Eigen::MatrixXd m(static_cast<Eigen::Index>(v.size()), 1);
  for (std::size_t i = 0; i < v.size(); ++i) m(static_cast<Eigen::Index>(i), 0) = v[i];
  return m;
}

// The trained range of v, or the whole line when it is not known.
void rangeOf(const CVariable& v, double& min, double& max) {
  min = v.hasRange() ? v.min : -HUGE_VAL;
  max = v.hasRange() ? v.max : HUGE_VAL;
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%d", &tm);
  return buffer;
}

}  // namespace

std::string cIntArrayLiteral(const std::vector<int>& v) {
  if (v.empty()) return "{0}";
  std::string s = "{";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "}";
}

std::string cArrayLiteral(const Eigen::MatrixXd& values) {
  if (values.size() == 0) return "{0}";
  std::string s = "{";
  for (Eigen::Index r = 0; r < values.rows(); ++r)
    for (Eigen::Index c = 0; c < values.cols(); ++c) {
      if (r || c) s += (c == 0 ? ",\n  " : ", ");
      s += cNumber(values(r, c));
    }
  return s + "}";
}

void CModelWriter::constant(const std::string& name, const Eigen::MatrixXd& values) {
  constants_ += "TABLE double " + name + "[" + std::to_string(std::max<Eigen::Index>(values.size(), 1)) +
                "] = " + cArrayLiteral(values) + ";\n";
}

void CModelWriter::constant(const std::string& name, const std::vector<double>& values) {
  constant(name, column(values));
}

void CModelWriter::state(const std::string& name, int n) {
  macros_ += "#define " + name + " (s->x + " + std::to_string(stateSize_) + ")\n";
  stateSize_ += n;
}

void CModelWriter::scratch(const std::string& name, int n) {
  macros_ += "#define " + name + " (s->work + SCRATCH_BASE + " + std::to_string(scratchSize_) + ")\n";
  scratchSize_ += n;
}

std::string fillTemplate(std::string text, const std::vector<std::pair<std::string, std::string>>& values) {
  for (const auto& [key, value] : values) {
    const std::string marker = "@" + key + "@";
    for (std::size_t at = text.find(marker); at != std::string::npos;
         at = text.find(marker, at + value.size()))
      text.replace(at, marker.size(), value);
  }
  return text;
}

std::string cIdentifierFrom(const std::string& name) {
  std::string id;
  for (char c : name) id += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (id.empty() || !std::isalpha(static_cast<unsigned char>(id[0]))) id = "m_" + id;
  return id;
}

CModel exportCModel(const ReducedModel& rom, const Model& model, const CExportOptions& options) {
  rom.checkMechanism(model);
  const std::string& id = options.identifier;
  if (id.empty() || !std::isalpha(static_cast<unsigned char>(id[0])) || id.size() > 64 ||
      !std::all_of(id.begin(), id.end(),
                   [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
    throw InputError("\"" + id +
                     "\" is not a C identifier for the exported model (letters, digits and '_', "
                     "starting with a letter, at most 64 characters)");
  std::string lower = id;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "mbdrom_fmi2" || lower.rfind("fmi2", 0) == 0)
    throw InputError("\"" + id +
                     "\" is taken by the FMI wrapper's files and functions: choose another model name");
  const int lc = model.requireLoadCase(options.loadCase);
  const MethodInfo* info = MethodRegistry::global().find(rom.method());
  CModel out;
  out.identifier = id;
  out.method = rom.method();
  out.methodName =
      info ? info->displayName + (info->authors.empty() ? "" : " (" + info->authors + ")") : rom.method();
  out.mechanism = model.spec().name;
  out.loadCase = options.loadCase;
  RunOptions run;
  run.loadCase = lc;
  run.integrator.dt = options.dt;
  if (options.dt < 0.0 || !std::isfinite(options.dt)) throw InputError("the step must be a number >= 0 [s]");
  out.dt = options.dt > 0.0 ? options.dt : rom.heldInputStep();
  // fmi2DoStep refuses a communication step of more than 1e9 model steps: below 1e-12 s, a
  // millisecond would be one.
  if (out.dt < 1e-12)
    throw InputError("a step of " + cNumber(out.dt) +
                     " s is too small to export: a communication step of 1 ms would take more than 1e9 of "
                     "them (the FMU refuses such a step); use 1e-12 s or more");

  // Inputs: the load case's loads.
  Combinations combinations;
  std::vector<int> loadFirst, loadIsTorque, gramFirst;
  std::vector<double> directions, gram;
  const LoadCase& spec = model.spec().loadCases[static_cast<std::size_t>(lc)];
  // A model whose dynamics take no loads (a neural ODE trained with inputs "none") has no inputs.
  const std::size_t loads = rom.takesLoads() ? spec.loads.size() : 0;
  for (std::size_t k = 0; k < loads; ++k) {
    const CompiledLoad& load = model.loads(lc)[k];
    const bool torque = load.type == LoadSpec::Type::Torque;
    loadFirst.push_back(static_cast<int>(combinations.first.size()) - 1);
    loadIsTorque.push_back(torque ? 1 : 0);
    gramFirst.push_back(static_cast<int>(gram.size()));
    for (int c = 0; c < 3; ++c) directions.push_back(load.direction(c));
    if (torque) {
      for (const Combination& d : load.directions) combinations.add(d);
      for (Eigen::Index i = 0; i < load.gramInverse.rows(); ++i)
        for (Eigen::Index j = 0; j < load.gramInverse.cols(); ++j) gram.push_back(load.gramInverse(i, j));
    } else {
      combinations.add(load.point);
    }
    out.inputs.push_back({spec.loads[k].name, torque ? "N.m" : "N",
                          std::string(torque ? "torque" : "force") + " \"" + spec.loads[k].name +
                              "\" of load case \"" + spec.name + "\": magnitude times its direction (" +
                              cNumber(load.direction.x()) + ", " + cNumber(load.direction.y()) + ", " +
                              cNumber(load.direction.z()) + ")",
                          load.function(0.0)});
    if (const auto range = rom.loadRange(spec.loads[k].name)) {
      out.inputs.back().min = range->first;
      out.inputs.back().max = range->second;
      out.inputs.back().description +=
          " (trained from " + cNumber(range->first) + " to " + cNumber(range->second) + ")";
    }
  }
  loadFirst.push_back(static_cast<int>(combinations.first.size()) - 1);

  // Output points.
  std::vector<std::string> points = options.outputs;
  if (points.empty()) {
    for (const CompiledMarker& m : model.markers()) points.push_back(m.name);
    if (points.empty())
      for (const PointSpec& p : model.spec().points)
        if (!p.fixed) points.push_back(p.name);
  }
  std::vector<int> outputPoint;
  std::set<std::string> seen;
  for (const std::string& name : points) {
    if (!seen.insert(name).second) throw InputError("output \"" + name + "\" is named twice");
    if (model.findPoint(name) < 0 && model.findMarker(name) < 0) {
      std::string known;
      for (const PointSpec& q : model.spec().points) known += (known.empty() ? "" : ", ") + q.name;
      for (const CompiledMarker& q : model.markers()) known += (known.empty() ? "" : ", ") + q.name;
      throw InputError("output \"" + name + "\": the mechanism \"" + model.spec().name +
                       "\" has no point or marker of that name (it has " + known + ")");
    }
    const Combination c = model.pointCombination(name);
    outputPoint.push_back(combinations.add(c));
    for (const char* axis : {"x", "y", "z"})
      out.outputs.push_back({name + "." + axis, "m", "position of " + name + " along " + axis});
    for (const char* axis : {"x", "y", "z"})
      out.outputs.push_back({"qd." + name + "." + axis, "m/s", "velocity of " + name + " along " + axis});
  }

  // The method's part.
  CModelWriter method;
  rom.writeC(model, run, out.dt, method);
  for (const std::string& r : method.reduced()) {
    out.outputs.push_back({r, "", "reduced coordinate " + r});
    if (r == "cluster") {
      out.outputs.back().integer = true;
      out.outputs.back().description = "the local model (cluster) in use, from 0";
    }
  }
  out.trainedSpan = rom.trainedSpan();
  out.verdict = rom.metrics().value("verdict", std::string());
  out.created = rom.created();
  out.settings = rom.settings().dump();
  out.outputs.push_back(
      {"envelope_distance", "",
       "distance outside the training envelope (0 inside; above 0.1 the model extrapolates; -1: the "
       "model has no envelope)",
       0.0, true});
  // Parameters start in the middle of the range they were trained on (metric "parameter_ranges").
  const nlohmann::ordered_json ranges =
      rom.metrics().value("parameter_ranges", nlohmann::ordered_json::object());
  for (const std::string& p : rom.parameterNames()) {
    CVariable v{p, "", "parameter " + p, 0.0};
    if (ranges.contains(p) && ranges.at(p).is_array() && ranges.at(p).size() == 2 &&
        ranges.at(p).at(0).is_number() && ranges.at(p).at(1).is_number()) {
      const double lo = ranges.at(p).at(0).get<double>(), hi = ranges.at(p).at(1).get<double>();
      v.start = 0.5 * (lo + hi);
      v.min = lo;
      v.max = hi;
      v.description += " (trained from " + cNumber(lo) + " to " + cNumber(hi) + ")";
    }
    out.parameters.push_back(v);
  }
  std::set<std::string> names;
  for (const auto* list : {&out.inputs, &out.outputs, &out.parameters})
    for (const CVariable& v : *list) {
      // The names reach the XML and the C strings: the model's one name rule (a parameter's name
      // comes from the training data, not from the model file).
      try {
        checkElementName("variable \"" + v.name + "\" of the exported model", v.name);
      } catch (const ModelError& e) {
        throw InputError(e.what());
      }
      if (!names.insert(v.name).second)
        throw InputError("the exported model would have two variables named \"" + v.name +
                         "\" (a load, point or parameter named like an output): rename one");
    }

  // The training envelope's groups in C: the state (NE), the generalized external force
  // (NQ) and the parameters (NP), unit 0 where a value is not checked.
  const TrainingEnvelope& envelope = rom.envelope();
  const int nq = model.nq();
  const int ne = method.envelopeState();
  const auto np0 = static_cast<int>(out.parameters.size());
  Eigen::VectorXd low = Eigen::VectorXd::Zero(ne + nq + np0), high = low, unit = low;
  for (const EnvelopeGroup& g : envelope.groups()) {
    if (g.name == "state" && g.low.size() == ne) {
      low.head(ne) = g.low;
      high.head(ne) = g.high;
      unit.head(ne) = g.unit;
    } else if (g.name == "inputs" && g.low.size() == nq) {
      low.segment(ne, nq) = g.low;
      high.segment(ne, nq) = g.high;
      unit.segment(ne, nq) = g.unit;
    } else if (g.name == "parameters") {
      for (std::size_t i = 0; i < g.labels.size(); ++i)
        for (int k = 0; k < np0; ++k)
          if (out.parameters[static_cast<std::size_t>(k)].name == g.labels[i]) {
            const auto at = static_cast<Eigen::Index>(i);
            low(ne + nq + k) = g.low(at);
            high(ne + nq + k) = g.high(at);
            unit(ne + nq + k) = g.unit(at);
          }
    }
  }
  const bool known = envelope.known();

  const auto nu = static_cast<int>(out.inputs.size()), ny = static_cast<int>(out.outputs.size()),
             np = static_cast<int>(out.parameters.size());
  // The joint envelope (engine NeighbourEnvelope), when it is of this mechanism's coordinates.
  const NeighbourEnvelope& joint = envelope.joint();
  const bool hasJoint = joint.known() && joint.coordinates() == nq;
  const NeighbourEnvelope::Tables tables = joint.tables();
  const int jm = hasJoint ? static_cast<int>(tables.positionBasis.cols()) : 0,
            jmf = hasJoint ? static_cast<int>(tables.loadBasis.cols()) : 0,
            jk = hasJoint ? static_cast<int>(tables.samples.cols()) : 0, jn = 2 * jm + 2 * jmf;
  const double gate = hasJoint && joint.calibrated() ? joint.gate() : 0.0;
  const int runtimeScratch = 3 * nq + std::max(ne, jn + jmf);
  std::vector<std::string> inputNames, inputUnits, outputNames, outputUnits, parameterNames;
  Eigen::VectorXd inputStart(nu), parameterStart(np), inputMin(nu), inputMax(nu), parameterMin(np),
      parameterMax(np);
  for (int i = 0; i < nu; ++i) {
    inputNames.push_back(out.inputs[static_cast<std::size_t>(i)].name);
    inputUnits.push_back(out.inputs[static_cast<std::size_t>(i)].unit);
    inputStart(i) = out.inputs[static_cast<std::size_t>(i)].start;
    rangeOf(out.inputs[static_cast<std::size_t>(i)], inputMin(i), inputMax(i));
  }
  for (const CVariable& v : out.outputs) {
    outputNames.push_back(v.name);
    outputUnits.push_back(v.unit);
  }
  for (int i = 0; i < np; ++i) {
    parameterNames.push_back(out.parameters[static_cast<std::size_t>(i)].name);
    parameterStart(i) = out.parameters[static_cast<std::size_t>(i)].start;
    rangeOf(out.parameters[static_cast<std::size_t>(i)], parameterMin(i), parameterMax(i));
  }

  const std::vector<std::pair<std::string, std::string>> values = {
      {"ID", id},
      {"MECHANISM", commentText(model.spec().name)},
      {"METHOD_NAME", commentText(out.methodName)},
      {"LOAD_CASE", commentText(spec.name)},
      {"VERSION", std::string(kVersion) + " (" + gitCommit() + ")"},
      {"DATE", today()},
      {"NU", std::to_string(nu)},
      {"NY", std::to_string(ny)},
      {"NP", std::to_string(np)},
      {"NU_ALLOC", std::to_string(std::max(nu, 1))},
      {"NP_ALLOC", std::to_string(std::max(np, 1))},
      {"NX", std::to_string(std::max(method.stateSize(), 1))},
      {"NWORK", std::to_string(std::max(runtimeScratch + method.scratchSize(), 1))},
      {"DT", cNumber(out.dt)},
      {"NJF_ALLOC", std::to_string(std::max(jmf, 1))},
      {"JOINT_GATE", cNumber(gate)},
  };
  out.header = fillTemplate(kCModelHeaderTemplate, values);

  std::string src = "/* " + id + ".c: see " + id +
                    ".h. Generated by mbdrom; the tables are the trained model's "
                    "and its mechanism's, to the last bit. */\n#include \"" +
                    id +
                    ".h\"\n\n#include <math.h>\n#include <stddef.h>\n\n"
                    "/* Binaries that load on older Linux systems too: glibc 2.29 gave exp, log and pow new\n"
                    "   versions (the same results; only errno handling differs); the first ones exist on\n"
                    "   every x86-64 glibc. */\n"
                    "#if defined(__GLIBC__) && defined(__x86_64__)\n"
                    "__asm__(\".symver exp,exp@GLIBC_2.2.5\");\n__asm__(\".symver log,log@GLIBC_2.2.5\");\n"
                    "__asm__(\".symver pow,pow@GLIBC_2.2.5\");\n__asm__(\".symver exp2,exp2@GLIBC_2.2.5\");\n"
                    "__asm__(\".symver log2,log2@GLIBC_2.2.5\");\n#endif\n\n"
                    "/* Constant tables (a method leaves some unused in some of its variants). */\n"
                    "#if defined(__GNUC__)\n#define TABLE static const __attribute__((unused))\n#else\n"
                    "#define TABLE static const\n#endif\n\n";
  src += "#define NQ " + std::to_string(nq) + "\n#define NU " + std::to_string(nu) + "\n#define NP " +
         std::to_string(np) + "\n#define NR " + std::to_string(method.reduced().size()) + "\n#define NX " +
         std::to_string(std::max(method.stateSize(), 1)) + "\n#define NWORK " +
         std::to_string(std::max(runtimeScratch + method.scratchSize(), 1)) + "\n#define NE " +
         std::to_string(ne) + "\n#define NOUT_POINTS " + std::to_string(outputPoint.size()) +
         "\n#define DT " + id + "_DT\n#define SCRATCH_BASE " + std::to_string(runtimeScratch) +
         "\n#define ENVELOPE_KNOWN " + (known ? "1" : "0") + "\n#define S " + id + "_state\n";
  src += "#define STOP_DIVERGED " + id + "_DIVERGED\n#define STOP_NOT_ASSEMBLED " + id +
         "_NOT_ASSEMBLED\n#define STOP_LEFT_RANGE " + id + "_LEFT_RANGE\n\n";
  src += "const char* const " + id + "_input_names[" + std::to_string(std::max(nu, 1)) +
         "] = " + stringArray(inputNames) + ";\n";
  src += "const char* const " + id + "_input_units[" + std::to_string(std::max(nu, 1)) +
         "] = " + stringArray(inputUnits) + ";\n";
  src += "const double " + id + "_input_start[" + std::to_string(std::max(nu, 1)) +
         "] = " + cArrayLiteral(inputStart) + ";\n";
  src += "const double " + id + "_input_min[" + std::to_string(std::max(nu, 1)) +
         "] = " + cArrayLiteral(inputMin) + ";\n";
  src += "const double " + id + "_input_max[" + std::to_string(std::max(nu, 1)) +
         "] = " + cArrayLiteral(inputMax) + ";\n";
  src += "const char* const " + id + "_output_names[" + std::to_string(ny) +
         "] = " + stringArray(outputNames) + ";\n";
  src += "const char* const " + id + "_output_units[" + std::to_string(ny) +
         "] = " + stringArray(outputUnits) + ";\n";
  src += "const char* const " + id + "_parameter_names[" + std::to_string(std::max(np, 1)) +
         "] = " + stringArray(parameterNames) + ";\n";
  src += "const double " + id + "_parameter_start[" + std::to_string(std::max(np, 1)) +
         "] = " + cArrayLiteral(parameterStart) + ";\n";
  src += "const double " + id + "_parameter_min[" + std::to_string(std::max(np, 1)) +
         "] = " + cArrayLiteral(parameterMin) + ";\n";
  src += "const double " + id + "_parameter_max[" + std::to_string(std::max(np, 1)) +
         "] = " + cArrayLiteral(parameterMax) + ";\n\n";
  src += "/* The mechanism: gravity [N] on each coordinate, the loads' points and directions. */\n";
  src += "static const double gravity_force[" + std::to_string(std::max(nq, 1)) +
         "] = " + cArrayLiteral(model.gravityForce()) + ";\n";
  src += "static const double combination_offset[] = " + cArrayLiteral(column(combinations.offset)) + ";\n";
  src += "static const int combination_first[] = " + cIntArrayLiteral(combinations.first) + ";\n";
  src += "static const int combination_index[] = " + cIntArrayLiteral(combinations.index) + ";\n";
  src += "static const double combination_weight[] = " + cArrayLiteral(column(combinations.weight)) + ";\n";
  src += "static const int load_first[] = " + cIntArrayLiteral(loadFirst) + ";\n";
  src += "static const int load_is_torque[] = " + cIntArrayLiteral(loadIsTorque) + ";\n";
  src += "static const int load_gram_first[] = " + cIntArrayLiteral(gramFirst) + ";\n";
  src += "static const double load_gram_inverse[] = " + cArrayLiteral(column(gram)) + ";\n";
  src += "static const double load_direction[] = " + cArrayLiteral(column(directions)) + ";\n";
  src += "static const int output_point[] = " + cIntArrayLiteral(outputPoint) + ";\n";
  src +=
      "/* The training envelope: state, the generalized external force, the parameters (unit 0: not "
      "checked). */\n";
  src += "static const double envelope_low[] = " + cArrayLiteral(low) + ";\n";
  src += "static const double envelope_high[] = " + cArrayLiteral(high) + ";\n";
  src += "static const double envelope_unit[] = " + cArrayLiteral(unit) + ";\n";
  src +=
      "/* The joint envelope: features of the positions and velocities on the training positions' "
      "principal directions, of the loads and their rates on the loads'; the kept training samples "
      "(features x kept, sorted by the first). */\n";
  src += "#define JOINT_M " + std::to_string(jm) + "\n#define JOINT_MF " + std::to_string(jmf) +
         "\n#define JOINT_K " + std::to_string(jk) + "\n#define JOINT_N " + std::to_string(jn) + "\n";
  const std::pair<const char*, Eigen::MatrixXd> jointTables[] = {
      {"joint_position_basis", tables.positionBasis}, {"joint_load_basis", tables.loadBasis},
      {"joint_position_mean", tables.positionMean},   {"joint_position_scale", tables.positionScale},
      {"joint_velocity_scale", tables.velocityScale}, {"joint_load_mean", tables.loadMean},
      {"joint_load_scale", tables.loadScale},         {"joint_load_rate_scale", tables.loadRateScale},
      {"joint_samples", tables.samples.transpose()}};
  for (const auto& [name, table] : jointTables)
    src += "static const double " + std::string(name) +
           "[] = " + cArrayLiteral(hasJoint ? table : Eigen::MatrixXd()) + ";\n";
  src += "\n";
  src += "/* The method: " + commentText(out.methodName) + ". */\n" + method.constants() + "\n" +
         method.macros() + "\n";
  src += fillTemplate(kCKernelsTemplate, values);
  src += fillTemplate(kCRuntimeFunctionsTemplate, values);
  src += fillTemplate(method.methodCode(), values);
  src += fillTemplate(kCRuntimeTemplate, values);
  out.source = src;
  return out;
}

}  // namespace mbdrom
