// train METHOD's options come from the method registry: a test-only method (a replay
// model) registered here gets its settings and inputs parsed and listed in the help
// without any change to the CLI, and bad values are refused naming the option.
#include "app/cli/train_options.h"
#include "engine/core/error.h"
#include "engine/rom/method_registry.h"
#include "tests/engine/rom/replay_model.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace mbdrom;
using namespace mbdrom::cli;
using OJson = nlohmann::ordered_json;

namespace {

// A method no front end knows: every kind of setting, a renamed option, a flag on by
// default and a file input.
MethodInfo replayMethod() {
  MethodInfo m;
  m.name = "replay";
  m.displayName = "replay of recorded samples";
  m.summary = "Replays samples (a test of the command line).";
  m.settingsSchema = {
      SettingSpec{"steps", "Replayed steps", SettingKind::Integer, "Samples replayed"}.range(1, 100),
      {"speed", "Replay speed", SettingKind::Number, "Time factor of the replay"},
      {"mode", "Mode", SettingKind::Choice, "Direction of the replay", {"forward", "backward"}},
      {"loop", "Loop", SettingKind::Flag, "Start again at the end"},
      {"keep_time", "Keep time", SettingKind::Flag, "Keep the recorded time stamps"},
      SettingSpec{"widths", "Widths", SettingKind::IntegerList, "Widths of nothing"}.range(1, 10),
      SettingSpec{"names", "Replayed coordinates", SettingKind::NameList, "Coordinates replayed"}.option(
          "--only", "NAME,..."),
  };
  m.inputs = {{"--recording", "REC.csv", "The recorded samples", InputSpec::Role::File}};
  m.checkSettings = [](const OJson& s) {
    OJson out = {{"steps", 10},       {"speed", 1.0},       {"mode", "forward"},      {"loop", false},
                 {"keep_time", true}, {"widths", OJson{2}}, {"names", OJson::array()}};
    for (const auto& [key, value] : s.items()) {
      if (!out.contains(key)) throw InputError("replay settings: unknown key \"" + key + "\"");
      out[key] = value;
    }
    return out;
  };
  m.train = [](const Dataset&, const OJson&, Monitor&, const Model* model) -> std::unique_ptr<ReducedModel> {
    if (!model) throw InputError("replay: needs the mechanism");
    return std::make_unique<test::ReplayThenDiverge>(*model, std::vector<Sample>{}, 0.0);
  };
  m.load = [](const OJson&, const std::string& source) -> std::unique_ptr<ReducedModel> {
    throw FileError(source + ": replay models are not stored");
  };
  return m;
}

MethodRegistry registryWithReplay() {
  MethodRegistry registry;
  registerBuiltinMethods(registry);
  registry.add(replayMethod());
  return registry;
}

std::vector<std::string> replayArgs(std::vector<std::string> extra) {
  std::vector<std::string> args = {"replay", "--model", "m.json", "--data", "a.csv", "b.csv", "-o", "r.json"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// The message of the UsageError (command line) that parsing `args` throws; "" if none.
std::string usageRefusal(const MethodRegistry& registry, const std::vector<std::string>& args) {
  try {
    parseTrainCommandLine(args, registry);
  } catch (const UsageError& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST_CASE("train parses a registered method's settings and inputs from its schema") {
  const MethodRegistry registry = registryWithReplay();
  const TrainCommandLine c = parseTrainCommandLine(
      replayArgs({"--steps", "5", "--speed", "2.5", "--mode", "backward", "--loop", "--no-keep-time",
                  "--widths", "3,4", "--only", "P.x,Q.y", "--recording", "rec.csv"}),
      registry);
  REQUIRE(c.method == registry.find("replay"));
  CHECK(c.runs == std::vector<std::string>{"a.csv", "b.csv"});
  CHECK(c.settings == OJson{{"steps", 5},
                            {"speed", 2.5},
                            {"mode", "backward"},
                            {"loop", true},
                            {"keep_time", false},
                            {"widths", {3, 4}},
                            {"names", {"P.x", "Q.y"}}});
  CHECK(c.inputs == std::map<std::string, std::vector<std::string>>{{"--recording", {"rec.csv"}}});
  CHECK(c.given.at("--data") == c.runs);
  CHECK(c.given.at("--model") == std::vector<std::string>{"m.json"});
  // The method takes what the command line made of it.
  CHECK(registry.find("replay")->checkSettings(c.settings)["steps"] == 5);
  // Nothing given: no settings (the method's defaults apply).
  CHECK(parseTrainCommandLine(replayArgs({}), registry).settings.empty());
}

TEST_CASE("train lists a registered method's options with their help and defaults in registry order") {
  const std::string help = trainUsage(registryWithReplay());
  INFO(help);
  for (const char* text : {"mbdrom-cli train replay --model MODEL.json", "[--steps N]", "[--only NAME,...]",
                           "[--recording REC.csv]", "replay: replay of recorded samples. Replays samples",
                           "--steps N          Replayed steps: Samples replayed [10]",
                           "--mode forward|backward  Mode: Direction of the replay [forward]",
                           "--loop             Loop: Start again",
                           "--no-keep-time     Keep time off: Keep the recorded time stamps [on]",
                           "--widths N1,N2,...", "--recording REC.csv  The recorded samples"})
    CHECK(help.find(text) != std::string::npos);
  // One block per method, in registration order: the built-in ones, then the test method.
  std::size_t previous = 0;
  for (const char* method : {"\npod: ", "\nae: ", "\npca: ", "\nsindy: ", "\nnode: ", "\nreplay: "}) {
    const std::size_t at = help.find(method);
    CHECK(at != std::string::npos);
    CHECK(at > previous);
    previous = at;
  }
  CHECK(help.rfind("usage: mbdrom-cli train pod ", 0) == 0);
}

TEST_CASE(
    "train refuses an unknown option, a wrong type, a bad choice and another method's option, naming it") {
  const MethodRegistry registry = registryWithReplay();
  CHECK(usageRefusal(registry, replayArgs({"--frobnicate", "1"})) == "unknown option '--frobnicate'");
  CHECK(usageRefusal(registry, replayArgs({"--steps", "ten"})) == "option --steps: 'ten' is not a number");
  CHECK(usageRefusal(registry, replayArgs({"--steps", "2.5"})) == "--steps must be an integer in 1..100");
  CHECK(usageRefusal(registry, replayArgs({"--steps", "500"})) == "--steps must be an integer in 1..100");
  CHECK(usageRefusal(registry, replayArgs({"--speed", "fast"})) == "option --speed: 'fast' is not a number");
  CHECK(usageRefusal(registry, replayArgs({"--widths", "3,x"})) == "option --widths: 'x' is not a number");
  CHECK(usageRefusal(registry, replayArgs({"--widths", "3,11"})) ==
        "--widths: expected integers in 1..10, got '11'");
  CHECK(usageRefusal(registry, replayArgs({"--loop=yes"})) == "unknown option '--loop=yes'");
  CHECK(usageRefusal(registry, replayArgs({"--epochs", "5"})) ==
        "option --epochs does not apply to method replay");
  CHECK(usageRefusal(registry, {"replay2"}) ==
        "unknown method 'replay2' (known: pod, ae, pca, sindy, node, replay)");
  // A value that is not one of the choices: refused before training like the method
  // would (an input error, exit code 1), naming the option and the choices.
  try {
    parseTrainCommandLine(replayArgs({"--mode", "sideways"}), registry);
    FAIL("a bad choice was taken");
  } catch (const UsageError&) {
    FAIL("a bad choice is an input error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "option --mode: mode must be \"forward\" or \"backward\", got \"sideways\"");
  }
}

TEST_CASE("train keeps the built-in methods' option spellings") {
  const MethodRegistry registry = registryWithReplay();
  auto settings = [&](std::vector<std::string> args) {
    return parseTrainCommandLine(args, registry).settings;
  };
  CHECK(settings({"sindy", "--degree", "2", "--no-sign", "--trig", "--estimate-derivatives", "--known",
                  "external,springs", "--harmonics", "1,3", "--omegas", "1.2"}) ==
        OJson{{"known_forces", {"external", "springs"}},
              {"polynomial_degree", 2},
              {"sign_velocity", false},
              {"trig_positions", true},
              {"omegas", {1.2}},
              {"harmonics", {1, 3}},
              {"derivatives", "estimate"}});
  CHECK(settings({"pca", "--no-energy-projection", "--clusters", "8"}) ==
        OJson{{"clusters", 8}, {"energy_projection", false}});
  CHECK(settings({"node", "--coordinates", "all", "--hidden", "8"}) ==
        OJson{{"coordinates", {"all"}}, {"hidden", {8}}});
  CHECK(usageRefusal(registry, {"sindy", "--degree", "10"}) == "--degree must be an integer in 0..9");
  CHECK(usageRefusal(registry, {"sindy", "--nr", "1"}) == "option --nr does not apply to method sindy");
  const TrainCommandLine node = parseTrainCommandLine(
      {"node", "--parameter", "a=1,2", "--parameter", "b=3,4", "--latent", "ae.json"}, registry);
  CHECK(node.inputs.at("--parameter") == std::vector<std::string>{"a=1,2", "b=3,4"});
  CHECK(node.inputs.at("--latent") == std::vector<std::string>{"ae.json"});
}
