// libFuzzer harness: the model loader must turn any text into either a valid
// Model or an mbdrom::Error — never a crash, hang or leak.
#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/model/model_file.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const mbdrom::Model model(mbdrom::parseModelSpec(text, "fuzz"));
    // A model that loads must serialise and load again.
    const mbdrom::Model again(mbdrom::parseModelSpec(mbdrom::serializeModelSpec(model.spec()), "fuzz-again"));
    if (again.nq() != model.nq() || again.mechanismHash() != model.mechanismHash()) __builtin_trap();
  } catch (const mbdrom::Error&) {
  }
  return 0;
}
