// libFuzzer harness: trained-network data must load exactly or be refused
// with an mbdrom::Error (FileError), never crash.
#include "engine/core/error.h"
#include "engine/nn/mlp.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    return 0;
  }
  try {
    const mbdrom::nn::Mlp net = mbdrom::nn::Mlp::fromJson(j);
    if (net.parameterCount() < 0 || net.inputs() <= 0) __builtin_trap();
    if (net.parameterCount() < 100000) (void)net.predict(Eigen::MatrixXd::Zero(net.inputs(), 1));
  } catch (const mbdrom::Error&) {
  }
  return 0;
}
