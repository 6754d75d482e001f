// The mbdrom Python module: mechanisms, runs and reduced models over the engine.

#include "engine/core/error.h"
#include "engine/core/version.h"
#include "engine/model/model.h"
#include "engine/rom/method_registry.h"
#include "python/bindings/bindings.h"

#include <pybind11/stl.h>

#include <cmath>

namespace py = pybind11;

namespace mbdrom::python {

nlohmann::ordered_json toJson(const py::handle& object, const char* argument) {
  const py::module_ json = py::module_::import("json");
  // NumPy scalars and arrays as the numbers and lists they hold.
  const py::cpp_function plain([](const py::object& value) -> py::object {
    if (py::hasattr(value, "tolist")) return value.attr("tolist")();
    throw py::type_error(std::string(py::str(py::type::of(value).attr("__name__"))) +
                         " is not a number, string, "
                         "boolean, list or dict");
  });
  std::string text;
  try {
    text = json.attr("dumps")(object, py::arg("allow_nan") = false, py::arg("default") = plain)
               .cast<std::string>();
  } catch (py::error_already_set& e) {
    const std::string why = py::str(e.value());
    throw py::type_error(std::string(argument) + ": " +
                         (why.find("Out of range float") != std::string::npos
                              ? std::string("numbers must be finite (a NaN or an infinity was given)")
                              : why));
  }
  return nlohmann::ordered_json::parse(text);
}

py::object fromJson(const nlohmann::ordered_json& json) {
  return py::module_::import("json").attr("loads")(json.dump());
}

namespace {

// The Python classes of the engine's errors (module-lifetime references).
struct ErrorClasses {
  py::object error, input, model, file, solver, cancelled;
};
ErrorClasses& errorClasses() {
  static ErrorClasses classes;
  return classes;
}

// The most derived class of `e`.
const py::object& classOf(const Error& e) {
  const ErrorClasses& c = errorClasses();
  if (dynamic_cast<const InputError*>(&e)) return c.input;
  if (dynamic_cast<const ModelError*>(&e)) return c.model;
  if (dynamic_cast<const FileError*>(&e)) return c.file;
  if (dynamic_cast<const SolverError*>(&e)) return c.solver;
  if (dynamic_cast<const Cancelled*>(&e)) return c.cancelled;
  return c.error;
}

}  // namespace

namespace {

// A warning class of the module (a UserWarning, or a subclass of `base`), made once.
py::handle warningClass(const char* name, const char* doc, PyObject* base = PyExc_UserWarning) {
  return PyErr_NewExceptionWithDoc(name, doc, base, nullptr);
}

}  // namespace

py::handle envelopeWarningClass() {
  static const py::handle cls = warningClass(
      "mbdrom.EnvelopeWarning",
      "A reduced run left its model's training envelope, or ran at a parameter outside the range "
      "trained on: its results there are extrapolated.");
  return cls;
}

py::handle unvalidatedWarningClass() {
  static const py::handle cls =
      warningClass("mbdrom.UnvalidatedWarning",
                   "A run of a reduced model that training could not vouch for: never judged on "
                   "a run it did not see (trained on one run: train on 2 runs or more), or "
                   "found to miss one.");
  return cls;
}

py::handle failedCheckWarningClass() {
  static const py::handle cls =
      warningClass("mbdrom.FailedCheckWarning",
                   "A reduced model that failed its checks in training (it misses its held-out runs or "
                   "its own training runs), issued when train returns it and on every run of it: do "
                   "not trust its results. An UnvalidatedWarning.",
                   unvalidatedWarningClass().ptr());
  return cls;
}

namespace {

// An error class of the module under `base` (mbdrom.Error) and a built-in one.
py::object errorClass(py::module_& m, const char* name, const py::object& base, PyObject* builtin) {
  const std::string full = m.attr("__name__").cast<std::string>() + "." + name;
  const py::tuple bases = py::make_tuple(base, py::handle(builtin));
  auto cls = py::reinterpret_steal<py::object>(PyErr_NewException(full.c_str(), bases.ptr(), nullptr));
  if (!cls) throw py::error_already_set();
  m.attr(name) = cls;
  return cls;
}

}  // namespace

void registerErrors(py::module_& m) {
  // The engine's errors, root and subtypes, with the engine's messages.
  ErrorClasses& c = errorClasses();
  c.error = py::exception<Error>(m, "Error", PyExc_RuntimeError);
  // Also the built-in error Python code catches for them: a bad argument or model file is a
  // ValueError, a file that cannot be read or written an OSError.
  c.input = errorClass(m, "InputError", c.error, PyExc_ValueError);
  c.model = errorClass(m, "ModelError", c.error, PyExc_ValueError);
  c.file = errorClass(m, "FileError", c.error, PyExc_OSError);
  c.solver = py::exception<SolverError>(m, "SolverError", c.error.ptr());
  c.cancelled = py::exception<Cancelled>(m, "Cancelled", c.error.ptr());
  // A reduced run outside what its model was trained on: a warning, not an error
  // (outside="stop" makes it one), so warnings.simplefilter can turn it either way.
  m.attr("EnvelopeWarning") = envelopeWarningClass();
  m.attr("UnvalidatedWarning") = unvalidatedWarningClass();
  m.attr("FailedCheckWarning") = failedCheckWarningClass();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      PyErr_SetString(classOf(e).ptr(), e.what());
    }
  });
}

void raiseWithPartialRun(const std::shared_ptr<Run>& partial) {
  raiseWithAttribute("partial_run", partial ? py::cast(partial) : py::none());
}

void raiseWithAttribute(const char* attribute, const py::object& value) {
  try {
    throw;
  } catch (py::error_already_set& e) {
    if (e.value()) e.value().attr(attribute) = value;
    throw;
  } catch (const Error& e) {
    const py::object& cls = classOf(e);
    const py::object exception = cls(e.what());
    exception.attr(attribute) = value;
    PyErr_SetObject(cls.ptr(), exception.ptr());
    throw py::error_already_set();
  }
}

int loadCaseArgument(const Model& model, const py::object& name, const char* argument) {
  if (name.is_none()) return -1;
  if (!py::isinstance<py::str>(name))
    throw py::type_error(std::string(argument) + " must be a load case name (str) or None");
  const auto text = name.cast<std::string>();
  if (text.empty()) return -1;
  const int index = model.findLoadCase(text);
  if (index >= 0) return index;
  std::string known;
  for (const auto& lc : model.spec().loadCases)
    known += (known.empty() ? "" : ", ") + ("\"" + lc.name + "\"");
  throw py::value_error(std::string(argument) + ": the model \"" + model.spec().name +
                        "\" has no load case \"" + text + "\" (it has " +
                        (known.empty() ? std::string("none") : known) + ")");
}

double numberArgument(const py::handle& value, const char* argument) {
  if (py::isinstance<py::bool_>(value) ||
      !(py::isinstance<py::float_>(value) || py::isinstance<py::int_>(value) ||
        py::hasattr(value, "__float__")))
    throw py::type_error(std::string(argument) + " must be a number (got " +
                         std::string(py::str(py::type::of(value).attr("__name__"))) + ")");
  return value.cast<double>();
}

py::object progressArgument(const py::object& progress) {
  if (!progress.is_none() && !PyCallable_Check(progress.ptr()))
    throw py::type_error("progress must be None or a callable taking a dict");
  return progress;
}

RunOptions runOptionsArgument(const Model& model, const py::object& loadCase, double tEnd, double outputDt) {
  RunOptions o;
  o.loadCase = loadCaseArgument(model, loadCase, "load_case");
  if (!std::isfinite(tEnd) || tEnd < 0.0) throw py::value_error("t_end must be a finite number >= 0 [s]");
  if (!std::isfinite(outputDt) || outputDt < 0.0)
    throw py::value_error("output_dt must be a finite number >= 0 [s] (0: every step)");
  o.tEnd = tEnd;
  o.outputDt = outputDt;
  return o;
}

}  // namespace mbdrom::python

PYBIND11_MODULE(_mbdrom, m) {
  using namespace mbdrom;
  m.doc() = "mbdrom: mechanisms, reference runs and data-driven reduced models of multibody mechanisms.";
  m.attr("__version__") = std::string(kVersion);

  python::registerErrors(m);

  m.def(
      "methods",
      [] {
        py::list out;
        for (const MethodInfo& info : MethodRegistry::global().methods()) {
          py::dict d;
          d["name"] = info.name;
          d["display_name"] = info.displayName;
          d["authors"] = info.authors;
          d["summary"] = info.summary;
          d["needs_mechanism"] = info.needsMechanism;
          // Every setting (key, label, help, choices) and the defaults training fills in.
          py::list settings;
          for (const SettingSpec& spec : info.settingsSchema) {
            py::dict one;
            one["key"] = spec.key;
            one["label"] = spec.label;
            one["help"] = spec.help;
            if (!spec.choices.empty()) one["choices"] = spec.choices;
            settings.append(one);
          }
          d["settings"] = settings;
          try {
            d["defaults"] = python::fromJson(info.checkSettings(nlohmann::ordered_json::object()));
          } catch (const InputError& e) {  // a setting without a default (pod's nr): say which
            d["defaults"] = py::none();
            d["defaults_note"] = std::string(e.what());
          }
          out.append(d);
        }
        return out;
      },
      "The registered reduced-model methods: name (for train), display name, authors, summary, their "
      "settings "
      "(key, label, help, choices) and the defaults training fills in (None when one must be given: "
      "defaults_note says which).");

  python::bindModel(m);
  python::bindMechanism(m);
  python::bindRun(m);
  python::bindReducedModel(m);
  python::bindDesign(m);
  python::bindDataset(m);
  python::bindStudy(m);
}
