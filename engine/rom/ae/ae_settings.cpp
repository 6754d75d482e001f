// Training settings of the auto-encoder reduced model (AeSettings, declared in ae_model.h).

#include "engine/core/ordered_json.h"
#include "engine/rom/ae/ae_model.h"

#include "engine/core/json_reader.h"

#include <nlohmann/json.hpp>

namespace mbdrom {

AeSettings AeSettings::fromJson(const OJson& j) {
  JsonObjectReader<OJson> r(j, {.where = "ae settings"});
  AeSettings s;
  s.nr = r.integer("nr", s.nr, {.min = 0, .max = 1000000, .note = "(0: the degrees of freedom)"});
  s.hidden = r.integers("hidden", s.hidden, {.min = 1, .max = 4096, .note = "(layer widths)"}, true);
  s.forceHidden =
      r.integers("force_hidden", s.forceHidden, {.min = 1, .max = 4096, .note = "(layer widths)"}, true);
  // Smooth activations only: the reduced equations differentiate the decoder twice.
  s.activation = r.choice("activation", s.activation, {"sigmoid", "tanh", "softplus"});
  s.optimizer = r.choice("optimizer", s.optimizer, {"rmsprop", "adam"});
  s.learningRate = r.number("learning_rate", s.learningRate, {.min = 0.0, .minOpen = true});
  s.batchSize = r.integer("batch_size", s.batchSize, {.min = 1, .max = 1000000});
  s.epochs = r.integer("epochs", s.epochs, {.min = 1, .max = 100000000});
  s.forceEpochs = r.integer("force_epochs", s.forceEpochs, {.min = 0, .max = 100000000});
  s.velocityWeight = r.number("velocity_weight", s.velocityWeight, {.min = 0.0});
  s.seconds = r.number("seconds", s.seconds, {.min = 0.0, .note = "[s] (0: no time budget)"});
  s.seed = r.unsignedInteger("seed", s.seed);
  s.vectorLength = r.number("vector_length", s.vectorLength, {.min = 0.0, .note = "[m] (0: automatic)"});
  s.integrator = r.choice("integrator", s.integrator, {"central_difference", "rk4"});
  s.initialVelocity = r.choice("initial_velocity", s.initialVelocity, {"projected", "zero"});
  s.validationFraction = r.number("validation_fraction", s.validationFraction, {.min = 0.0, .max = 0.5});
  r.finish();
  return s;
}

OJson AeSettings::toJson() const {
  return OJson{{"nr", nr},
               {"hidden", hidden},
               {"force_hidden", forceHidden},
               {"activation", activation},
               {"optimizer", optimizer},
               {"learning_rate", learningRate},
               {"batch_size", batchSize},
               {"epochs", epochs},
               {"force_epochs", forceEpochs},
               {"velocity_weight", velocityWeight},
               {"seconds", seconds},
               {"seed", seed},
               {"vector_length", vectorLength},
               {"integrator", integrator},
               {"initial_velocity", initialVelocity},
               {"validation_fraction", validationFraction}};
}

}  // namespace mbdrom
