// The mbdrom Python module: mechanisms, runs and reduced models over the engine.

#include "engine/core/error.h"
#include "engine/core/version.h"
#include "engine/model/model.h"
#include "engine/rom/method_registry.h"
#include "python/bindings/bindings.h"

#include <pybind11/stl.h>

namespace py = pybind11;

namespace mbdrom::python {

nlohmann::ordered_json toJson(const py::handle& object) {
  const py::module_ json = py::module_::import("json");
  std::string text;
  try {
    text = json.attr("dumps")(object, py::arg("allow_nan") = false).cast<std::string>();
  } catch (py::error_already_set& e) {
    throw py::type_error(std::string("settings must be numbers, strings, booleans, lists or dicts: ") +
                         e.what());
  }
  return nlohmann::ordered_json::parse(text);
}

py::object fromJson(const nlohmann::ordered_json& json) {
  return py::module_::import("json").attr("loads")(json.dump());
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

}  // namespace mbdrom::python

PYBIND11_MODULE(_mbdrom, m) {
  using namespace mbdrom;
  m.doc() = "mbdrom: mechanisms, reference runs and data-driven reduced models of multibody mechanisms.";
  m.attr("__version__") = std::string(kVersion);

  // The engine's errors, root and subtypes, with the engine's messages.
  static py::exception<Error> error(m, "Error", PyExc_RuntimeError);
  static py::exception<InputError> input(m, "InputError", error.ptr());
  static py::exception<ModelError> model(m, "ModelError", error.ptr());
  static py::exception<FileError> file(m, "FileError", error.ptr());
  static py::exception<SolverError> solver(m, "SolverError", error.ptr());
  static py::exception<Cancelled> cancelled(m, "Cancelled", error.ptr());
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      input(e.what());
    } catch (const ModelError& e) {
      model(e.what());
    } catch (const FileError& e) {
      file(e.what());
    } catch (const SolverError& e) {
      solver(e.what());
    } catch (const Cancelled& e) {
      cancelled(e.what());
    } catch (const Error& e) {
      error(e.what());
    }
  });

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
          out.append(d);
        }
        return out;
      },
      "The registered reduced-model methods: name (for train), display name, authors, summary.");

  python::bindModel(m);
  python::bindRun(m);
  python::bindReducedModel(m);
}
