#include "app/cli/arguments.h"
#include "engine/rom/method_registry.h"

#include <filesystem>

#include "engine/model/model.h"

#include <charconv>
#include <cmath>
#include <sstream>

namespace mbdrom::cli {

Arguments::Arguments(const std::vector<std::string>& args, const std::set<std::string>& valueOptions,
                     const std::set<std::string>& flags, const std::set<std::string>& repeatable) {
  bool shortOutput = false;  // -o was given (for the error when --output follows)
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() > 1 && a[0] == '-' &&
        !(a.size() > 1 && (std::isdigit(static_cast<unsigned char>(a[1])) || a[1] == '.'))) {
      std::string name = a, inlineValue;
      bool hasInline = false;
      if (const auto eq = a.find('='); eq != std::string::npos) {
        name = a.substr(0, eq);
        inlineValue = a.substr(eq + 1);
        hasInline = true;
      }
      const std::string given = name;  // as typed, for the messages
      // -o is --output's short form wherever a command writes an output.
      if (name == "-o" && valueOptions.count("--output")) {
        if (shortOutput) throw UsageError("option -o is given twice");
        shortOutput = true;
        name = "--output";
        if (values_.count(name)) throw UsageError("-o and --output are the same option: give it once");
      } else if (name == "--output" && shortOutput) {
        throw UsageError("-o and --output are the same option: give it once");
      }
      if (values_.count(name) && !repeatable.count(name))
        throw UsageError("option " + name + " is given twice");
      if (valueOptions.count(name) || repeatable.count(name)) {
        if (!hasInline && i + 1 >= args.size()) throw UsageError("option " + given + " needs a value");
        values_[name] = hasInline ? inlineValue : args[++i];
        repeated_[name].push_back(values_[name]);
      } else if (flags.count(name) && !hasInline) {
        values_.insert_or_assign(name, std::string(1, '1'));
      } else {
        throw UsageError("unknown option '" + a + "'");
      }
    } else {
      positional_.push_back(a);
    }
  }
}

const std::string& Arguments::single(const std::string& what) const {
  if (positional_.empty()) throw UsageError("missing " + what);
  if (positional_.size() > 1) throw UsageError("unexpected argument '" + positional_[1] + "'");
  return positional_.front();
}

std::string Arguments::value(const std::string& option, const std::string& fallback) const {
  const auto it = values_.find(option);
  return it == values_.end() ? fallback : it->second;
}

std::vector<std::string> Arguments::all(const std::string& option) const {
  const auto it = repeated_.find(option);
  return it == repeated_.end() ? std::vector<std::string>{} : it->second;
}

double Arguments::number(const std::string& option, double fallback) const {
  const auto it = values_.find(option);
  if (it == values_.end()) return fallback;
  const std::string& text = it->second;
  double v = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    throw UsageError("option " + option + ": '" + text + "' is not a number");
  return v;
}

std::vector<std::string> Arguments::options() const {
  std::vector<std::string> names;
  for (const auto& [name, value] : values_) names.push_back(name);
  return names;
}

void splitDataArguments(const std::vector<std::string>& args, std::size_t first,
                        std::vector<std::string>& rest, std::vector<std::string>& runs) {
  bool inData = false;
  for (std::size_t i = first; i < args.size(); ++i) {
    if (args[i] == "--data") {
      inData = true;
      continue;
    }
    if (args[i].starts_with("-")) inData = false;
    if (inData) {
      for (const std::string& r : splitCommaList(args[i])) runs.push_back(r);
    } else {
      rest.push_back(args[i]);
    }
  }
}

int loadCaseOption(const Model& model, const Arguments& a) {
  return a.has("--load-case") ? model.requireLoadCase(a.value("--load-case")) : -1;
}

void checkOutputPath(const std::string& path, const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw UsageError("-o " + path + ": is a directory; give a file name");
  const fs::path folder = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
  if (!fs::is_directory(folder, ec))
    throw UsageError("-o " + path + ": the folder " + folder.string() + " does not exist");
  if (!fs::exists(path, ec)) return;  // a new file is no input
  for (const std::string& input : inputs)
    if (fs::equivalent(path, input, ec))
      throw UsageError("-o " + path + " is also an input (" + input +
                       "): writing it would overwrite what is read");
}

}  // namespace mbdrom::cli
