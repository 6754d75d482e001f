#pragma once
/// @file
/// JsonObjectReader: reads one JSON object of a model file, of training
/// settings or of a trained-model file, key by key, with typed getters that
/// name the key and the wrong value, and finish() that names unknown keys.
///
///     JsonObjectReader<nlohmann::ordered_json> r(j, {"pod settings"});
///     s.nr = r.integer("nr", s.nr, {.min = 1});
///     s.integrator = r.choice("integrator", s.integrator, {"central_difference", "newmark"});
///     r.finish();  // pod settings: unknown setting "nrr" (known: nr, integrator)
///
/// Messages are "<where>: <key> must be ..., got <value>", e.g.
/// `node settings: epochs must be an integer, got "ten"`.

#include "engine/core/error.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace mbdrom {

/// Which exception a reader throws: InputError (settings given by a user or
/// a front end), ModelError (model files), FileError (trained-model files).
enum class JsonErrorKind { Input, Model, File };

/// Throws the exception of `kind` with `message`.
[[noreturn]] void throwJsonError(JsonErrorKind kind, const std::string& message);

/// How a reader words its messages.
struct JsonReaderContext {
  /// Where the object is, the start of every message: "pod settings",
  /// `bodies[0] "arm"`, "run.json: mechanism".
  std::string where{};
  JsonErrorKind error = JsonErrorKind::Input;
  /// Keys in quotes (`"mass" must be a number`, model files) or bare
  /// (`nr must be an integer`, settings).
  bool quoteKeys = false;
  /// What finish() calls an unknown key: `unknown setting "x"`.
  std::string keyNoun = "setting";
  /// Every number read (also inside lists) must have |x| <= numberLimit;
  /// beyond it the message says "is beyond <limitName> (|value| <= limit)".
  double numberLimit = std::numeric_limits<double>::max();
  std::string limitName = "the range of a double";
};

/// Allowed values of a number; an empty rule allows every finite number.
/// Written with designated initialisers: `{.min = 0, .max = 1, .minOpen = true}`.
struct NumberRule {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool minOpen = false;  ///< min itself excluded
  bool maxOpen = false;  ///< max itself excluded
  /// Said after the range in messages: "[m] (0: automatic)".
  std::string note{};
};

/// Allowed values of an integer (by default those of an int).
struct IntegerRule {
  long long min = std::numeric_limits<int>::min();
  long long max = std::numeric_limits<int>::max();
  std::string note{};
};

/// One JSON object read key by key. JsonT is nlohmann::json or
/// nlohmann::ordered_json. The reader refers to the object: it must outlive
/// the reader. Every getter marks its key as known; finish() refuses the keys
/// no getter asked for. A getter with a fallback returns it when the key is
/// absent; one without throws "<key> is missing". Present values are always
/// checked, also when equal to the fallback. Numbers must be finite (1e400
/// parses as infinity and is refused).
template <typename JsonT>
class JsonObjectReader {
 public:
  /// Throws "<where>: expected an object, got <type>" unless `object` is one.
  JsonObjectReader(const JsonT& object, JsonReaderContext context);

  const std::string& where() const { return context_.where; }
  const JsonReaderContext& context() const { return context_; }

  /// Whether the key is present; marks it as known.
  bool has(const std::string& key);
  /// The raw value; throws when absent.
  const JsonT& get(const std::string& key);
  /// The raw value, nullptr when absent.
  const JsonT* find(const std::string& key);

  /// A finite number within `rule`.
  double number(const std::string& key, const NumberRule& rule = NumberRule{});
  double number(const std::string& key, double fallback, const NumberRule& rule = NumberRule{});
  std::optional<double> optionalNumber(const std::string& key, const NumberRule& rule = NumberRule{});
  /// An integer (no fraction, 2.0 is refused) within `rule`.
  int integer(const std::string& key, const IntegerRule& rule = IntegerRule{});
  int integer(const std::string& key, int fallback, const IntegerRule& rule = IntegerRule{});
  /// An integer in 0 .. 2^64 - 1 (seeds).
  std::uint64_t unsignedInteger(const std::string& key, std::uint64_t fallback);
  std::string text(const std::string& key);
  std::string text(const std::string& key, const std::string& fallback);
  /// A text among `allowed`; the message lists them.
  std::string choice(const std::string& key, const std::string& fallback,
                     std::initializer_list<const char*> allowed);
  bool boolean(const std::string& key);
  bool boolean(const std::string& key, bool fallback);
  /// An array of numbers, each checked as number(); `size` >= 0 demands that many.
  std::vector<double> numbers(const std::string& key, const NumberRule& rule = NumberRule{},
                              long long size = -1);
  std::vector<double> numbers(const std::string& key, std::vector<double> fallback,
                              const NumberRule& rule = NumberRule{});
  /// An array of integers, each within `rule`; `nonEmpty` refuses [].
  std::vector<int> integers(const std::string& key, std::vector<int> fallback,
                            const IntegerRule& rule = IntegerRule{}, bool nonEmpty = false);
  /// An array of texts.
  std::vector<std::string> names(const std::string& key, std::vector<std::string> fallback);
  /// An array (of objects, read by the caller); empty when absent.
  const JsonT& array(const std::string& key);

  /// `value` as a number read for `key` (an element of a list the caller
  /// walks itself), with the same checks and messages as number().
  double numberValue(const JsonT& value, const std::string& key, const NumberRule& rule = NumberRule{}) const;

  /// Throws the reader's error type with "<where>: <message>".
  [[noreturn]] void fail(const std::string& message) const;
  /// Throws "<where>: <key> must be <what>, got <value>".
  [[noreturn]] void wrong(const std::string& key, const std::string& what, const JsonT& value) const;

  /// Throws `unknown <keyNoun> "<key>" (known: ...)` for the first key no
  /// getter asked for.
  void finish() const;

  /// `key` as messages write it ("mass" or mass).
  std::string keyName(const std::string& key) const;

 private:
  void mark(const std::string& key);
  int checkedInteger(const JsonT& value, const std::string& key, const IntegerRule& rule) const;

  const JsonT& object_;
  JsonReaderContext context_;
  std::vector<std::string> asked_;  // in the order first asked, for the "known" list
};

/// A short description of `value` for messages: `"ten"`, `2.5`, `an array`, `an object`.
template <typename JsonT>
std::string describeJsonValue(const JsonT& value);

extern template class JsonObjectReader<nlohmann::json>;
extern template class JsonObjectReader<nlohmann::ordered_json>;

}  // namespace mbdrom
