// libFuzzer harness: the project manifest reader must turn any text into
// either a checked manifest or an mbdrom::Error — never a crash, hang or leak —
// and a manifest it accepts must survive a write/read round trip.
#include "engine/core/error.h"
#include "engine/project/project.h"

#include <cstddef>
#include <cstdint>
#include <string>

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
  return 0;
}
