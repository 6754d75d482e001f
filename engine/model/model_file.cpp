#include "engine/model/model_file.h"
#include "engine/model/force_element_types.h"
#include "engine/model/joint_types.h"

#include "engine/core/error.h"
#include "engine/core/json_input.h"
#include "engine/core/json_reader.h"
#include "engine/core/number_text.h"
#include "engine/core/ordered_json.h"
#include "engine/model/body_shape.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

namespace mbdrom {

namespace {

using Json = nlohmann::json;
constexpr const char* kFormat = "mbdrom-model";
constexpr int kVersion = 1;

// ---------------------------------------------------------------- reading

// One JSON object of the file, with its location for messages: keys quoted,
// numbers within the model format's range, unknown keys refused by finish().
class Obj : public JsonObjectReader<Json> {
 public:
  Obj(const Json& j, std::string where)
      : JsonObjectReader<Json>(j, {.where = std::move(where),
                                   .error = JsonErrorKind::Model,
                                   .quoteKeys = true,
                                   .keyNoun = "key",
                                   // Beyond this no SI quantity of a mechanism is meant.
                                   .numberLimit = kMaxModelNumber,
                                   .limitName = "the model format's range"}) {}

  Eigen::Vector3d vec3(const char* key) {
    const std::vector<double> v = numbers(key, NumberRule{}, 3);
    return {v[0], v[1], v[2]};
  }
  Eigen::Vector3d vec3(const char* key, const Eigen::Vector3d& fallback) {
    return has(key) ? vec3(key) : fallback;
  }
  Eigen::Matrix3d mat3(const char* key) {
    const Json& v = get(key);
    const std::string msg = keyName(key) + " must be a 3x3 array [[xx, xy, xz], [yx, yy, yz], [zx, zy, zz]]";
    if (!v.is_array() || v.size() != 3) fail(msg);
    Eigen::Matrix3d m;
    for (int r = 0; r < 3; ++r) {
      const Json& row = v[static_cast<std::size_t>(r)];
      if (!row.is_array() || row.size() != 3) fail(msg);
      for (int c = 0; c < 3; ++c) m(r, c) = numberValue(row[static_cast<std::size_t>(c)], key);
    }
    return m;
  }
};

// `list[i] "name"` for an entry; the name is read leniently here, strictly by Obj.
std::string entryWhere(const std::string& list, std::size_t i, const Json& j) {
  std::string w = list + "[" + std::to_string(i) + "]";
  if (j.is_object() && j.contains("name") && j["name"].is_string())
    w += " \"" + j["name"].get<std::string>() + "\"";
  return w;
}

template <typename Enum>
Enum parseEnum(const std::string& text, const std::vector<std::pair<const char*, Enum>>& table,
               const std::string& where, const char* what) {
  for (const auto& [name, value] : table)
    if (text == name) return value;
  std::string known;
  for (const auto& [name, value] : table) known += std::string(known.empty() ? "" : ", ") + name;
  throw ModelError(where + ": unknown " + what + " \"" + text + "\" (known: " + known + ")");
}

// The joint types' file names, from their table.
std::vector<std::pair<const char*, JointType>> jointTypeNames() {
  std::vector<std::pair<const char*, JointType>> names;
  for (const JointTypeInfo& t : jointTypes()) names.emplace_back(t.name, t.type);
  return names;
}

// A force element's types' file names, from their table.
template <typename Enum>
std::vector<std::pair<const char*, Enum>> typeNames(const std::vector<ForceElementType<Enum>>& types) {
  std::vector<std::pair<const char*, Enum>> names;
  for (const ForceElementType<Enum>& t : types) names.emplace_back(t.name, t.value);
  return names;
}

template <typename Enum, std::size_t N>
Enum parseEnum(const std::string& text, const std::pair<const char*, Enum> (&table)[N],
               const std::string& where, const char* what) {
  return parseEnum(text, std::vector<std::pair<const char*, Enum>>(std::begin(table), std::end(table)), where,
                   what);
}

const std::pair<const char*, TimeFunction::Type> kFunctionTypes[] = {
    {"constant", TimeFunction::Type::Constant},
    {"sine", TimeFunction::Type::Sine},
    {"chirp", TimeFunction::Type::Chirp},
    {"step", TimeFunction::Type::Step},
    {"smooth_step", TimeFunction::Type::SmoothStep},
    {"table", TimeFunction::Type::Table},
    {"sum", TimeFunction::Type::Sum}};
const std::pair<const char*, BodyType> kBodyTypes[] = {
    {"rigid", BodyType::Rigid}, {"bar", BodyType::Bar}, {"particle", BodyType::Particle}};
const std::pair<const char*, int> kComponents[] = {{"x", 0}, {"y", 1}, {"z", 2}};
const std::pair<const char*, MeasureType> kMeasureTypes[] = {
    {"joint_angle", MeasureType::JointAngle}, {"joint_displacement", MeasureType::JointDisplacement},
    {"distance", MeasureType::Distance},      {"travel", MeasureType::Travel},
    {"camber", MeasureType::Camber},          {"toe", MeasureType::Toe},
    {"point_angle", MeasureType::PointAngle}};

// Where the CSV files a model names are: relative to the model file's folder
// (base), and, for a model in a project, inside that directory (confine).
struct TablePlace {
  std::string base, confine;
};

// A CSV file named in a model file, refused when it lies outside `confine`
// after resolving links and "..", before anything reads it.
std::string resolve(const TablePlace& place, const std::string& file) {
  namespace fs = std::filesystem;
  const fs::path p(file);
  const std::string path = p.is_absolute() || place.base.empty() ? file : (fs::path(place.base) / p).string();
  if (!place.confine.empty()) {
    std::error_code rootError, pathError;
    const fs::path root = fs::weakly_canonical(place.confine, rootError);
    const fs::path real = fs::weakly_canonical(path, pathError);
    const std::string r = root.string() + "/";
    if (rootError || pathError || real.string().rfind(r, 0) != 0)
      throw FileError("table file \"" + file + "\" lies outside the project " + place.confine +
                      " (a project reads only its own files)");
  }
  return path;
}

TimeFunction readFunction(const Json& j, const std::string& where, const TablePlace& place) {
  Obj o(j, where);
  TimeFunction f;
  f.type = parseEnum(o.text("type"), kFunctionTypes, where, "function type");
  switch (f.type) {
    case TimeFunction::Type::Constant: f.value = o.number("value"); break;
    case TimeFunction::Type::Chirp: f.rate = o.number("rate"); [[fallthrough]];
    case TimeFunction::Type::Sine:
      f.amplitude = o.number("amplitude");
      f.frequency = o.number("frequency");
      f.phase = o.number("phase", 0.0);
      f.offset = o.number("offset", 0.0);
      break;
    case TimeFunction::Type::Step:
      f.t0 = o.number("t0");
      f.value = o.number("value");
      break;
    case TimeFunction::Type::SmoothStep:
      f.t0 = o.number("t0");
      f.t1 = o.number("t1");
      f.value = o.number("value");
      break;
    case TimeFunction::Type::Table:
      if (o.has("file")) {
        if (o.has("times") || o.has("values"))
          throw ModelError(where +
                           ": a table has either \"file\" and \"column\" or \"times\" and \"values\"");
        const std::string file = o.text("file"), column = o.text("column");
        try {
          f = TimeFunction::tableFromCsv(resolve(place, file), column);
        } catch (const FileError& e) {
          throw FileError(where + ": " + e.what());
        }
        f.file = file;  // as written, so that the writer refers to the same file
      } else {
        f.times = o.numbers("times");
        f.values = o.numbers("values");
      }
      break;
    case TimeFunction::Type::Sum: {
      const Json& terms = o.array("terms");
      for (std::size_t i = 0; i < terms.size(); ++i)
        f.terms.push_back(readFunction(terms[i], where + ".terms[" + std::to_string(i) + "]", place));
      break;
    }
  }
  o.finish();
  f.validate(where);
  return f;
}

MeasureSpec readMeasure(Obj& o) {
  MeasureSpec m;
  m.name = o.text("name");
  m.type = parseEnum(o.text("type"), kMeasureTypes, o.where(), "measure type");
  switch (m.type) {
    case MeasureType::JointAngle:
    case MeasureType::JointDisplacement: m.joint = o.text("joint"); break;
    case MeasureType::Distance:
      m.point1 = o.text("point1");
      m.point2 = o.text("point2");
      break;
    case MeasureType::PointAngle:
      m.point1 = o.text("point1");
      m.point2 = o.text("point2");
      m.point3 = o.text("point3");
      break;
    case MeasureType::Travel: m.point1 = o.text("point"); break;
    case MeasureType::Camber:
    case MeasureType::Toe:
      if (o.has("vector")) {
        if (o.has("body") || o.has("axis"))
          throw ModelError(o.where() +
                           ": give the spin axis either as \"vector\" or as \"body\" and \"axis\"");
        m.vector = o.text("vector");
      } else {
        m.body = o.text("body");
        m.axis = o.vec3("axis");
      }
      break;
  }
  return m;
}

ModelSpec readSpec(const Json& root, const TablePlace& place) {
  Obj top(root, "model");
  ModelSpec spec;
  spec.name = top.text("name", "");
  spec.description = top.text("description", "");
  spec.gravity = top.vec3("gravity", Eigen::Vector3d::Zero());
  top.get("format");
  top.get("version");

  const Json& points = top.array("points");
  for (std::size_t i = 0; i < points.size(); ++i) {
    Obj o(points[i], entryWhere("points", i, points[i]));
    spec.points.push_back({o.text("name"), o.vec3("position"), o.boolean("fixed", false)});
    o.finish();
  }
  const Json& vectors = top.array("vectors");
  for (std::size_t i = 0; i < vectors.size(); ++i) {
    Obj o(vectors[i], entryWhere("vectors", i, vectors[i]));
    spec.vectors.push_back({o.text("name"), o.vec3("direction"), o.boolean("fixed", false)});
    o.finish();
  }
  const Json& bodies = top.array("bodies");
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    Obj o(bodies[i], entryWhere("bodies", i, bodies[i]));
    BodySpec b;
    b.name = o.text("name");
    b.type = parseEnum(o.text("type", "rigid"), kBodyTypes, o.where(), "body type");
    b.points = o.names("points", {});
    b.vectors = o.names("vectors", {});
    b.mass = o.number("mass");
    if (b.type != BodyType::Particle || o.has("com")) {
      b.com = o.vec3("com");
    } else if (b.points.size() == 1) {  // a particle's COM is its point
      for (const PointSpec& p : spec.points)
        if (p.name == b.points[0]) b.com = p.position;
    }
    if (b.type == BodyType::Rigid) b.inertia = o.mat3("inertia");
    if (b.type == BodyType::Bar) b.transverseInertia = o.optionalNumber("transverse_inertia");
    const Json& markers = o.array("markers");
    for (std::size_t k = 0; k < markers.size(); ++k) {
      Obj m(markers[k], o.where() + ": " + entryWhere("markers", k, markers[k]));
      b.markers.push_back({m.text("name"), m.vec3("position")});
      m.finish();
    }
    if (o.has("shape") && o.has("shapes"))
      throw ModelError(o.where() + ": give either \"shape\" (one) or \"shapes\" (a list), not both");
    auto readShape = [&](const Json& j, const std::string& where) {
      Obj s(j, where);
      ShapeSpec shape;
      shape.type = s.text("type");
      shape.size = s.numbers("size", std::vector<double>{});
      shape.center = s.vec3("center", Eigen::Vector3d::Zero());
      shape.axis = s.vec3("axis", Eigen::Vector3d::UnitZ());
      shape.angle = s.number("angle", 0.0);
      shape.mirrored = s.boolean("mirrored", false);
      shape.file = s.text("file", "");
      shape.scale = s.number("scale", 1.0, {.min = 0.0, .minOpen = true});
      if (s.has("colour")) shape.colour = s.vec3("colour");
      shape.opacity = s.number("opacity", 1.0);
      s.finish();
      checkShape(shape, where);
      b.shapes.push_back(std::move(shape));
    };
    if (o.has("shape")) readShape(o.get("shape"), o.where() + ": shape");
    if (o.has("shapes")) {
      const Json& shapes = o.array("shapes");
      for (std::size_t k = 0; k < shapes.size(); ++k)
        readShape(shapes[k], o.where() + ": shapes[" + std::to_string(k) + "]");
    }
    o.finish();
    spec.bodies.push_back(std::move(b));
  }
  const Json& joints = top.array("joints");
  for (std::size_t i = 0; i < joints.size(); ++i) {
    Obj o(joints[i], entryWhere("joints", i, joints[i]));
    JointSpec j;
    j.name = o.text("name");
    j.type = parseEnum(o.text("type"), jointTypeNames(), o.where(), "joint type");
    j.body1 = o.text("body1");
    j.body2 = o.text("body2");
    j.point1 = o.text("point1");
    j.point2 = o.text("point2");
    j.axis1 = o.text("axis1", "");
    j.axis2 = o.text("axis2", "");
    j.length = o.optionalNumber("length");
    o.finish();
    spec.joints.push_back(std::move(j));
  }
  const char* const driversKey = forceElementKindInfo(ForceElementKind::Driver).section;
  const Json& drivers = top.array(driversKey);
  for (std::size_t i = 0; i < drivers.size(); ++i) {
    Obj o(drivers[i], entryWhere(driversKey, i, drivers[i]));
    DriverSpec d;
    d.name = o.text("name");
    d.type = parseEnum(o.text("type"), typeNames(driverTypes()), o.where(), "driver type");
    d.body1 = o.text("body1", "");
    d.body2 = o.text("body2", "");
    d.point1 = o.text("point1", "");
    d.point2 = o.text("point2", "");
    d.axis1 = o.text("axis1", "");
    if (d.type == DriverType::Coordinate)
      d.component = parseEnum(o.text("component"), kComponents, o.where(), "component");
    d.function = readFunction(o.get("function"), o.where() + ": function", place);
    o.finish();
    spec.drivers.push_back(std::move(d));
  }
  const char* const springsKey = forceElementKindInfo(ForceElementKind::SpringDamper).section;
  const Json& springs = top.array(springsKey);
  for (std::size_t i = 0; i < springs.size(); ++i) {
    Obj o(springs[i], entryWhere(springsKey, i, springs[i]));
    SpringDamperSpec s;
    s.name = o.text("name");
    s.point1 = o.text("point1");
    s.point2 = o.text("point2");
    s.freeLength = o.number("free_length", 0.0);
    s.stiffness = o.numbers("stiffness", std::vector<double>{});
    s.damping = o.number("damping", 0.0);
    if (o.has("force_table")) {
      Obj t(o.get("force_table"), o.where() + ": force_table");
      s.tableLength = t.numbers("length");
      s.tableForce = t.numbers("force");
      if (s.tableLength.empty()) throw ModelError(t.where() + ": table is empty");
      t.finish();
    }
    s.coilRadius = o.optionalNumber("coil_radius", {.min = 0.0, .minOpen = true});
    o.finish();
    spec.springDampers.push_back(std::move(s));
  }
  const char* const frictionsKey = forceElementKindInfo(ForceElementKind::Friction).section;
  const Json& frictions = top.array(frictionsKey);
  for (std::size_t i = 0; i < frictions.size(); ++i) {
    Obj o(frictions[i], entryWhere(frictionsKey, i, frictions[i]));
    FrictionSpec f;
    f.name = o.text("name");
    f.body1 = o.text("body1");
    f.body2 = o.text("body2");
    f.point1 = o.text("point1");
    f.point2 = o.text("point2");
    f.axis1 = o.text("axis1");
    f.mu = o.number("mu");
    f.normalForce = o.number("normal_force");
    f.law = parseEnum(o.text("law", "coulomb"), typeNames(frictionLaws()), o.where(), "friction law");
    f.regularisationVelocity = o.number("regularisation_velocity", f.regularisationVelocity);
    o.finish();
    spec.frictions.push_back(std::move(f));
  }
  const Json& cases = top.array("load_cases");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    Obj o(cases[i], entryWhere("load_cases", i, cases[i]));
    LoadCase lc;
    lc.name = o.text("name");
    const char* const loadsKey = forceElementKindInfo(ForceElementKind::Load).section;
    const Json& loads = o.array(loadsKey);
    for (std::size_t k = 0; k < loads.size(); ++k) {
      Obj l(loads[k], o.where() + ": " + entryWhere(loadsKey, k, loads[k]));
      LoadSpec ls;
      ls.name = l.text("name");
      ls.type = parseEnum(l.text("type"), typeNames(loadTypes()), l.where(), "load type");
      if (ls.type == LoadSpec::Type::Force)
        ls.point = l.text("point");
      else
        ls.body = l.text("body");
      ls.direction = l.vec3("direction");
      ls.function = readFunction(l.get("function"), l.where() + ": function", place);
      l.finish();
      lc.loads.push_back(std::move(ls));
    }
    o.finish();
    spec.loadCases.push_back(std::move(lc));
  }
  const Json& measures = top.array("measures");
  for (std::size_t i = 0; i < measures.size(); ++i) {
    Obj o(measures[i], entryWhere("measures", i, measures[i]));
    spec.measures.push_back(readMeasure(o));
    o.finish();
  }
  top.finish();
  return spec;
}

// ---------------------------------------------------------------- writing

void appendModelNumber(std::string& out, double x) {
  if (!std::isfinite(x)) throw FileError("cannot write a non-finite number to a model file");
  appendShortestNumber(out, x);
}

void appendString(std::string& out, const std::string& s) {
  out += OJson(s).dump();
}

void dumpCompact(std::string& out, const OJson& j) {
  if (j.is_object()) {
    out += '{';
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!first) out += ", ";
      first = false;
      appendString(out, it.key());
      out += ": ";
      dumpCompact(out, it.value());
    }
    out += '}';
  } else if (j.is_array()) {
    out += '[';
    for (std::size_t i = 0; i < j.size(); ++i) {
      if (i) out += ", ";
      dumpCompact(out, j[i]);
    }
    out += ']';
  } else if (j.is_number()) {
    appendModelNumber(out, j.get<double>());
  } else {
    out += j.dump();
  }
}

// Pretty printer: a value that fits on the rest of the line stays compact.
void dumpPretty(std::string& out, const OJson& j, int indent) {
  std::string compact;
  dumpCompact(compact, j);
  if ((!j.is_object() && !j.is_array()) || j.empty() || static_cast<int>(compact.size()) + indent <= 100) {
    out += compact;
    return;
  }
  const std::string pad(static_cast<std::size_t>(indent + 2), ' ');
  if (j.is_object()) {
    out += "{\n";
    std::size_t i = 0;
    for (auto it = j.begin(); it != j.end(); ++it, ++i) {
      out += pad;
      appendString(out, it.key());
      out += ": ";
      dumpPretty(out, it.value(), indent + 2);
      out += i + 1 < j.size() ? ",\n" : "\n";
    }
    out += std::string(static_cast<std::size_t>(indent), ' ') + "}";
  } else {
    out += "[\n";
    for (std::size_t i = 0; i < j.size(); ++i) {
      out += pad;
      dumpPretty(out, j[i], indent + 2);
      out += i + 1 < j.size() ? ",\n" : "\n";
    }
    out += std::string(static_cast<std::size_t>(indent), ' ') + "]";
  }
}

OJson vec(const Eigen::Vector3d& v) {
  return OJson::array({v.x(), v.y(), v.z()});
}

// `contents`: a CSV table as its numbers (for the hash: it depends on the
// data, not on the file name) instead of the file reference.
OJson writeFunction(const TimeFunction& f, bool contents) {
  OJson o;
  o["type"] = timeFunctionTypeName(f.type);
  switch (f.type) {
    case TimeFunction::Type::Constant: o["value"] = f.value; break;
    case TimeFunction::Type::Sine:
    case TimeFunction::Type::Chirp:
      o["amplitude"] = f.amplitude;
      o["frequency"] = f.frequency;
      if (f.type == TimeFunction::Type::Chirp) o["rate"] = f.rate;
      if (f.phase != 0.0) o["phase"] = f.phase;
      if (f.offset != 0.0) o["offset"] = f.offset;
      break;
    case TimeFunction::Type::Step:
      o["t0"] = f.t0;
      o["value"] = f.value;
      break;
    case TimeFunction::Type::SmoothStep:
      o["t0"] = f.t0;
      o["t1"] = f.t1;
      o["value"] = f.value;
      break;
    case TimeFunction::Type::Table:
      if (!f.file.empty() && !contents) {
        o["file"] = f.file;
        o["column"] = f.column;
      } else {
        o["times"] = f.times;
        o["values"] = f.values;
      }
      break;
    case TimeFunction::Type::Sum: {
      OJson terms = OJson::array();
      for (const TimeFunction& t : f.terms) terms.push_back(writeFunction(t, contents));
      o["terms"] = terms;
      break;
    }
  }
  return o;
}

void putIf(OJson& o, const char* key, const std::string& value) {
  if (!value.empty()) o[key] = value;
}

// The file as a JSON document; `withMeta` adds header, name, description and load cases.
OJson writeSpec(const ModelSpec& spec, bool withMeta, bool inlineTables = false, bool legacyHash = false) {
  OJson root;
  if (withMeta) {
    root["format"] = kFormat;
    root["version"] = kVersion;
    root["name"] = spec.name;
    if (!spec.description.empty()) root["description"] = spec.description;
  }
  root["gravity"] = vec(spec.gravity);
  OJson points = OJson::array();
  for (const PointSpec& p : spec.points) {
    OJson o;
    o["name"] = p.name;
    o["position"] = vec(p.position);
    if (p.fixed) o["fixed"] = true;
    points.push_back(o);
  }
  root["points"] = points;
  OJson vectors = OJson::array();
  for (const VectorSpec& v : spec.vectors) {
    OJson o;
    o["name"] = v.name;
    o["direction"] = vec(v.direction);
    if (v.fixed) o["fixed"] = true;
    vectors.push_back(o);
  }
  root["vectors"] = vectors;
  OJson bodies = OJson::array();
  for (const BodySpec& b : spec.bodies) {
    OJson o;
    o["name"] = b.name;
    o["type"] = bodyTypeName(b.type);
    o["points"] = b.points;
    if (!b.vectors.empty()) o["vectors"] = b.vectors;
    o["mass"] = b.mass;
    o["com"] = vec(b.com);
    if (b.type == BodyType::Rigid) {
      OJson rows = OJson::array();
      for (int r = 0; r < 3; ++r) rows.push_back(vec(b.inertia.row(r).transpose()));
      o["inertia"] = rows;
    }
    if (b.type == BodyType::Bar && b.transverseInertia) o["transverse_inertia"] = *b.transverseInertia;
    if (!b.markers.empty()) {
      OJson markers = OJson::array();
      for (const MarkerSpec& m : b.markers)
        markers.push_back(OJson{{"name", m.name}, {"position", vec(m.position)}});
      o["markers"] = markers;
    }
    // Shapes are for display: outside the mechanism's hash (the legacy hash
    // keeps the first shape as files before shape lists had it).
    if (legacyHash && !b.shapes.empty()) {
      const ShapeSpec& shape = b.shapes.front();
      OJson s;
      s["type"] = shape.type;
      if (!shape.size.empty()) s["size"] = shape.size;
      s["center"] = vec(shape.center);
      s["axis"] = vec(shape.axis);
      putIf(s, "file", shape.file);
      if (shape.scale != 1.0) s["scale"] = shape.scale;
      o["shape"] = s;
    } else if (withMeta && !b.shapes.empty()) {
      OJson list = OJson::array();
      for (const ShapeSpec& shape : b.shapes) {
        OJson s;
        s["type"] = shape.type;
        if (!shape.size.empty()) s["size"] = shape.size;
        s["center"] = vec(shape.center);
        s["axis"] = vec(shape.axis);
        if (shape.angle != 0.0) s["angle"] = shape.angle;
        if (shape.mirrored) s["mirrored"] = true;
        putIf(s, "file", shape.file);
        if (shape.scale != 1.0) s["scale"] = shape.scale;
        if (shape.colour) s["colour"] = vec(*shape.colour);
        if (shape.opacity != 1.0) s["opacity"] = shape.opacity;
        list.push_back(s);
      }
      if (list.size() == 1)
        o["shape"] = list[0];
      else
        o["shapes"] = list;
    }
    bodies.push_back(o);
  }
  root["bodies"] = bodies;
  OJson joints = OJson::array();
  for (const JointSpec& j : spec.joints) {
    OJson o;
    o["name"] = j.name;
    o["type"] = jointTypeName(j.type);
    o["body1"] = j.body1;
    o["body2"] = j.body2;
    o["point1"] = j.point1;
    o["point2"] = j.point2;
    putIf(o, "axis1", j.axis1);
    putIf(o, "axis2", j.axis2);
    if (j.length) o["length"] = *j.length;
    joints.push_back(o);
  }
  root["joints"] = joints;
  OJson drivers = OJson::array();
  for (const DriverSpec& d : spec.drivers) {
    OJson o;
    o["name"] = d.name;
    o["type"] = driverTypeName(d.type);
    putIf(o, "body1", d.body1);
    putIf(o, "body2", d.body2);
    putIf(o, "point1", d.point1);
    putIf(o, "point2", d.point2);
    putIf(o, "axis1", d.axis1);
    if (d.type == DriverType::Coordinate) o["component"] = std::string(1, "xyz"[d.component]);
    o["function"] = writeFunction(d.function, !withMeta || inlineTables);
    drivers.push_back(o);
  }
  root[forceElementKindInfo(ForceElementKind::Driver).section] = drivers;
  OJson springs = OJson::array();
  for (const SpringDamperSpec& s : spec.springDampers) {
    OJson o;
    o["name"] = s.name;
    o["point1"] = s.point1;
    o["point2"] = s.point2;
    o["free_length"] = s.freeLength;
    o["stiffness"] = s.stiffness;
    o["damping"] = s.damping;
    if (!s.tableLength.empty()) o["force_table"] = OJson{{"length", s.tableLength}, {"force", s.tableForce}};
    if (withMeta && s.coilRadius) o["coil_radius"] = *s.coilRadius;  // display only: outside the hash
    springs.push_back(o);
  }
  root[forceElementKindInfo(ForceElementKind::SpringDamper).section] = springs;
  OJson frictions = OJson::array();
  for (const FrictionSpec& f : spec.frictions) {
    OJson o;
    o["name"] = f.name;
    o["body1"] = f.body1;
    o["body2"] = f.body2;
    o["point1"] = f.point1;
    o["point2"] = f.point2;
    o["axis1"] = f.axis1;
    o["mu"] = f.mu;
    o["normal_force"] = f.normalForce;
    o["law"] = frictionLawName(f.law);
    o["regularisation_velocity"] = f.regularisationVelocity;
    frictions.push_back(o);
  }
  root[forceElementKindInfo(ForceElementKind::Friction).section] = frictions;
  // Measures are outputs, not mechanism: outside the hash; left out when none
  // so that files without them keep their text.
  if (withMeta && !spec.measures.empty()) {
    OJson measures = OJson::array();
    for (const MeasureSpec& m : spec.measures) {
      OJson o;
      o["name"] = m.name;
      o["type"] = measureTypeName(m.type);
      switch (m.type) {
        case MeasureType::JointAngle:
        case MeasureType::JointDisplacement: o["joint"] = m.joint; break;
        case MeasureType::Distance:
          o["point1"] = m.point1;
          o["point2"] = m.point2;
          break;
        case MeasureType::PointAngle:
          o["point1"] = m.point1;
          o["point2"] = m.point2;
          o["point3"] = m.point3;
          break;
        case MeasureType::Travel: o["point"] = m.point1; break;
        case MeasureType::Camber:
        case MeasureType::Toe:
          if (!m.vector.empty()) {
            o["vector"] = m.vector;
          } else {
            o["body"] = m.body;
            o["axis"] = vec(m.axis);
          }
          break;
      }
      measures.push_back(o);
    }
    root["measures"] = measures;
  }
  if (withMeta) {
    OJson cases = OJson::array();
    for (const LoadCase& lc : spec.loadCases) {
      OJson loads = OJson::array();
      for (const LoadSpec& l : lc.loads) {
        OJson o;
        o["name"] = l.name;
        o["type"] = loadTypeName(l.type);
        if (l.type == LoadSpec::Type::Force)
          o["point"] = l.point;
        else
          o["body"] = l.body;
        o["direction"] = vec(l.direction);
        o["function"] = writeFunction(l.function, inlineTables);
        loads.push_back(o);
      }
      cases.push_back(
          OJson{{"name", lc.name}, {forceElementKindInfo(ForceElementKind::Load).section, loads}});
    }
    root["load_cases"] = cases;
  }
  return root;
}

std::string withSource(const std::string& source, const char* what) {
  return source + ": " + what;
}

}  // namespace

const char* measureTypeName(MeasureType type) {
  for (const auto& [name, value] : kMeasureTypes)
    if (value == type) return name;
  return "distance";
}

ModelSpec parseModelSpec(const std::string& text, const std::string& source, const std::string& baseDirectory,
                         const std::string& confineTo) {
  // Malformed JSON, but also numbers beyond double (found by fuzzing), nesting and duplicate keys.
  Json root = parseJsonInput<Json>(text, source);
  if (!root.is_object()) throw FileError(source + ": not a model file (expected a JSON object)");
  if (!root.contains("format") || root["format"] != kFormat)
    throw FileError(source + ": not a model file (\"format\" must be \"" + kFormat + "\")");
  if (!root.contains("version") || !root["version"].is_number_integer())
    throw FileError(source + ": \"version\" is missing or not an integer");
  if (root["version"].get<long long>() != kVersion)
    throw FileError(source + ": unsupported model file version " + root["version"].dump() +
                    " (this program reads version " + std::to_string(kVersion) + ")");
  try {
    return readSpec(root, TablePlace{baseDirectory, confineTo});
  } catch (const ModelError& e) {
    throw ModelError(withSource(source, e.what()));
  } catch (const FileError& e) {  // a CSV table the file refers to
    throw FileError(withSource(source, e.what()));
  }
}

ModelSpec readModelSpec(const std::string& path, const std::string& confineTo) {
  ModelSpec spec = parseModelSpec(readRegularFile(path, kMaxModelFileBytes, "model file"), path,
                                  std::filesystem::path(path).parent_path().string(), confineTo);
  spec.directory = std::filesystem::path(path).parent_path().string();
  spec.confineTo = confineTo;
  return spec;
}

Model readModel(const std::string& path) {
  ModelSpec spec = readModelSpec(path);
  try {
    return Model(std::move(spec));
  } catch (const ModelError& e) {
    throw ModelError(withSource(path, e.what()));
  }
}

namespace {

bool allowedName(const std::string& name) {
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (c == ',' || c == '"' || u < 0x20 || u == 0x7f) return false;
  }
  return name.empty() || (name.front() != ' ' && name.back() != ' ');
}

}  // namespace

void checkElementName(const std::string& where, const std::string& name) {
  if (allowedName(name)) return;
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (c == ',' || c == '"' || u < 0x20 || u == 0x7f) {
      const std::string shown =
          u < 0x20 || u == 0x7f ? "a control character (e.g. a line break)" : std::string("'") + c + "'";
      throw ModelError(where + ": the name has " + shown +
                       "; names appear in CSV headers, XML and C and may not contain commas, quotes or "
                       "control characters");
    }
  }
  if (!name.empty() && (name.front() == ' ' || name.back() == ' '))
    throw ModelError(where + " \"" + name + "\": the name starts or ends with a space");
}

namespace {

// Where a value of the file's JSON tree is, named as the reader names it (`gravity[2]`,
// `bodies[0] "arm": key "mass"`); the text is made only when a message needs it.
struct Field {
  const Field* parent = nullptr;  // nullptr: the top of the file
  const std::string* key = nullptr;
  std::size_t index = 0;              // without a key: an entry of the parent's list
  const std::string* name = nullptr;  // the entry's name, when it has one

  std::string text() const {
    if (key) return parent->parent ? parent->text() + ": key \"" + *key + "\"" : "key \"" + *key + "\"";
    // A list of the file's top level names its entries by the list alone (`bodies[0]`).
    const bool topList = parent->key && !parent->parent->parent;
    std::string t = (topList ? *parent->key : parent->text()) + "[" + std::to_string(index) + "]";
    if (name) t += " \"" + *name + "\"";
    return t;
  }
};

void checkValue(const OJson& j, const Field& field);

void checkObject(const OJson& o, const Field& field) {
  for (const auto& [k, v] : o.items()) {
    if (k == "name" && v.is_string()) {
      if (!field.parent) checkElementName("name", v.get_ref<const std::string&>());  // the mechanism's
      continue;  // an entry's: checked where the entry is named
    }
    checkValue(v, Field{&field, &k});
  }
}

void checkValue(const OJson& j, const Field& field) {
  if (j.is_number()) {
    const double x = j.get<double>();
    if (std::isfinite(x) && std::abs(x) <= kMaxModelNumber) return;
    std::ostringstream msg;
    msg << field.text() << " = " << x;
    if (std::isfinite(x))
      msg << " is beyond the model format's range (|value| <= " << kMaxModelNumber << ")";
    else
      msg << " is not a finite number";
    throw ModelError(msg.str());
  }
  if (j.is_object()) {
    checkObject(j, field);
    return;
  }
  if (!j.is_array()) return;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const OJson& item = j[i];
    Field entry{&field, nullptr, i};
    if (item.is_object() && item.contains("name") && item["name"].is_string()) {
      const std::string& name = item["name"].get_ref<const std::string&>();
      if (!allowedName(name)) checkElementName(entry.text(), name);  // named by its place, not by the name
      entry.name = &name;
    }
    checkValue(item, entry);
  }
}

}  // namespace

void checkModelFileRules(const ModelSpec& spec) {
  const Field top;
  checkObject(writeSpec(spec, true, true), top);
}

std::string serializeModelSpec(const ModelSpec& spec) {
  std::string out;
  dumpPretty(out, writeSpec(spec, true), 0);
  out += '\n';
  return out;
}

std::string serializeModelSpecSelfContained(const ModelSpec& spec) {
  std::string out;
  dumpPretty(out, writeSpec(spec, true, true), 0);
  out += '\n';
  return out;
}

void writeModelSpec(const ModelSpec& spec, const std::string& path) {
  checkModelFileRules(spec);  // never a file that reading refuses
  writeFileAtomically(path, serializeModelSpec(spec));
}

namespace {

std::uint64_t hashOf(const OJson& document) {
  std::string canonical;
  dumpCompact(canonical, document);
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : canonical) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace

std::uint64_t mechanismHash(const ModelSpec& spec) {
  return hashOf(writeSpec(spec, false));
}

std::uint64_t legacyMechanismHash(const ModelSpec& spec) {
  return hashOf(writeSpec(spec, false, false, true));
}

std::string hashToString(std::uint64_t hash) {
  static const char* digits = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i) {
    s[static_cast<std::size_t>(i)] = digits[hash & 0xf];
    hash >>= 4;
  }
  return s;
}

}  // namespace mbdrom
