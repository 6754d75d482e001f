// libFuzzer harness: the project manifest reader must turn any text into
// either a checked manifest or an mbdrom::Error — never a crash, hang or leak —
// and a manifest it accepts must survive a write/read round trip. The text is
// also opened as the workbench opens a project (project.json next to the
// pendulum's model.json and a run), and every file it names is checked.
#include "engine/core/error.h"
#include "engine/project/project.h"

#include "engine/model/model_file.h"
#include "engine/project/project_check.h"

#include "tests/test_paths.h"

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

// A project folder of this process: model.json (the pendulum) and runs/a.csv (a header only).
const std::string& projectDir() {
  static const std::string dir = [] {
    const std::filesystem::path d =
        std::filesystem::temp_directory_path() / ("mbdrom_project_fuzz_" + std::to_string(::getpid()));
    std::filesystem::create_directories(d / "runs");
    mbdrom::writeModelSpec(
        mbdrom::readModelSpec(mbdrom::test::sourcePath("/resources/examples/pendulum.json")),
        (d / "model.json").string());
    std::ofstream(d / "runs/a.csv") << "t\n";
    return d.string();
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const mbdrom::ProjectManifest m = mbdrom::parseProjectManifest(text, "fuzz");
    const mbdrom::ProjectManifest again =
        mbdrom::parseProjectManifest(mbdrom::serializeProjectManifest(m), "fuzz-again");
    if (again.runs.size() != m.runs.size() || again.models.size() != m.models.size() ||
        again.datasets.size() != m.datasets.size() || again.modelFile != m.modelFile)
      __builtin_trap();
    for (const auto& r : m.runs)
      if (r.file.empty() || r.file.front() == '/' || r.file == ".." || r.file.rfind("../", 0) == 0 ||
          r.file.find("/../") != std::string::npos)
        __builtin_trap();
  } catch (const mbdrom::Error&) {
  }
  // As the workbench opens it.
  std::ofstream(projectDir() + "/project.json", std::ios::binary | std::ios::trunc) << text;
  try {
    const mbdrom::Project p = mbdrom::readProject(projectDir());
    for (const mbdrom::ProjectFileCheck& c : mbdrom::checkProjectFiles(p))
      if (c.file.empty()) __builtin_trap();
  } catch (const mbdrom::Error&) {
  }
  return 0;
}
