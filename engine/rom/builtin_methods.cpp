// The explicit list of the built-in reduced-model methods, in the order the
// CLI's help and the Train menu show them. A new method adds one line here.

#include "engine/rom/ae/ae_model.h"
#include "engine/rom/method_registry.h"
#include "engine/rom/node/node_model.h"
#include "engine/rom/pca/pca_model.h"
#include "engine/rom/pod/pod_model.h"
#include "engine/rom/sindy/sindy_model.h"

namespace mbdrom {

void registerBuiltinMethods(MethodRegistry& registry) {
  registry.add(podMethod());
  registry.add(aeMethod());
  registry.add(pcaMethod());
  registry.add(sindyMethod());
  registry.add(nodeMethod());
}

}  // namespace mbdrom
