#include "engine/export/c_network.h"

#include "engine/export/c_templates.h"

#include <algorithm>

namespace mbdrom {

namespace {

// The C code numbers the activations as the enum does.
static_assert(static_cast<int>(nn::Activation::Linear) == 0 && static_cast<int>(nn::Activation::ReLU) == 1 &&
              static_cast<int>(nn::Activation::Sigmoid) == 2 && static_cast<int>(nn::Activation::Tanh) == 3 &&
              static_cast<int>(nn::Activation::Softplus) == 4 && static_cast<int>(nn::Activation::SiLU) == 5);

int widest(const nn::Mlp& net) {
  int w = net.inputs();
  for (const nn::LayerSpec& l : net.layers()) w = std::max(w, l.outputs);
  return w;
}

}  // namespace

void writeCNetworkCode(CModelWriter& writer) {
  writer.declarations(kCNetworkTemplate);
}

void writeCNetwork(CModelWriter& writer, const std::string& name, const nn::Mlp& net) {
  std::vector<int> width, activation, offset;
  int in = net.inputs(), at = 0;
  for (const nn::LayerSpec& l : net.layers()) {
    width.push_back(l.outputs);
    activation.push_back(static_cast<int>(l.activation));
    offset.push_back(at);
    at += in * l.outputs + l.outputs;
    in = l.outputs;
  }
  writer.constant(name + "_params", net.parameters());
  writer.constant(name + "_in_mean", net.inputMean());
  writer.constant(name + "_in_scale", net.inputScale());
  writer.constant(name + "_out_mean", net.outputMean());
  writer.constant(name + "_out_scale", net.outputScale());
  writer.declarations("TABLE int " + name + "_width[] = " + cIntArrayLiteral(width) + ";\n" + "TABLE int " +
                      name + "_activation[] = " + cIntArrayLiteral(activation) + ";\n" + "TABLE int " + name +
                      "_offset[] = " + cIntArrayLiteral(offset) + ";\n" + "TABLE mlp_net " + name + " = {" +
                      std::to_string(net.inputs()) + ", " + std::to_string(net.layerCount()) + ", " +
                      std::to_string(widest(net)) + ", " + name + "_width, " + name + "_activation, " + name +
                      "_offset, " + name + "_params, " + name + "_in_mean, " + name + "_in_scale, " + name +
                      "_out_mean, " + name + "_out_scale};\n");
}

int cNetworkScratch(const nn::Mlp& net) {
  const int mw = widest(net);
  int sum = 0;
  for (const nn::LayerSpec& l : net.layers()) sum += l.outputs;
  return std::max({2 * mw, sum + 4 * mw, 9 * mw + 2 * mw * net.inputs()});
}

}  // namespace mbdrom
