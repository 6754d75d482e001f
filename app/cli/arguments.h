#pragma once
// A small command-line parser for mbdrom-cli subcommands: positional
// arguments and `--name value` / `--flag` options, with clear usage errors.

#include "engine/core/error.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace mbdrom {
class Model;
}

namespace mbdrom::cli {

/// Thrown for bad command lines; the CLI prints the message and the usage.
class UsageError : public InputError {
 public:
  using InputError::InputError;
};

class Arguments {
 public:
  /// valueOptions: options that take a value (e.g. "--load-case"; with "--output", "-o" is
  /// its short form);
  /// flags: options without one; repeatable: value options that may be given more
  /// than once (all(): every value). Anything else starting with "--" is an error,
  /// and so is any other option given twice.
  Arguments() = default;
  Arguments(const std::vector<std::string>& args, const std::set<std::string>& valueOptions,
            const std::set<std::string>& flags = {}, const std::set<std::string>& repeatable = {});

  const std::vector<std::string>& positional() const { return positional_; }
  /// The only positional argument, named `what` in the error when missing or repeated.
  const std::string& single(const std::string& what) const;
  bool has(const std::string& option) const { return values_.count(option) > 0; }
  std::string value(const std::string& option, const std::string& fallback = {}) const;
  /// The output path or folder: `-o` or its long form `--output` ("" when neither is given).
  std::string output() const { return value("--output"); }
  /// Every value of a repeatable option, in command-line order.
  std::vector<std::string> all(const std::string& option) const;
  /// A number option; throws UsageError when it is not a finite number.
  double number(const std::string& option, double fallback) const;
  /// Every option given, in name order.
  std::vector<std::string> options() const;

 private:
  std::vector<std::string> positional_;
  std::map<std::string, std::string> values_;
  std::map<std::string, std::vector<std::string>> repeated_;
};

/// Every argument after --data up to the next option is a run (commas split too);
/// the others, from args[first] on, go to `rest`.
void splitDataArguments(const std::vector<std::string>& args, std::size_t first,
                        std::vector<std::string>& rest, std::vector<std::string>& runs);

/// Fails before the work: `path` (an output) must not be a directory, must be
/// in an existing folder, and must not be one of `inputs` (the same file under
/// any name). Throws UsageError naming both.
void checkOutputPath(const std::string& path, const std::vector<std::string>& inputs);

/// The load case named by --load-case (index), or -1 (gravity only) without it.
/// Throws InputError naming the load cases that exist.
int loadCaseOption(const Model& model, const Arguments& a);

}  // namespace mbdrom::cli
