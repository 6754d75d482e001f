#include "engine/core/json_reader.h"

#include "engine/core/number_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

namespace mbdrom {

void throwJsonError(JsonErrorKind kind, const std::string& message) {
  switch (kind) {
    case JsonErrorKind::Model: throw ModelError(message);
    case JsonErrorKind::File: throw FileError(message);
    case JsonErrorKind::Input: break;
  }
  throw InputError(message);
}

namespace {

std::string withNote(std::string text, const std::string& note) {
  return note.empty() ? text : text + " " + note;
}

// "in (0, 1)", ">= 0", "<= 5", or "" when the rule allows every number.
std::string rangeText(const NumberRule& r) {
  const bool lo = std::isfinite(r.min), hi = std::isfinite(r.max);
  std::string text;
  if (lo && hi)
    text = std::string("in ") + (r.minOpen ? "(" : "[") + shortestNumberText(r.min) + ", " +
           shortestNumberText(r.max) + (r.maxOpen ? ")" : "]");
  else if (lo)
    text = std::string(r.minOpen ? "> " : ">= ") + shortestNumberText(r.min);
  else if (hi)
    text = std::string(r.maxOpen ? "< " : "<= ") + shortestNumberText(r.max);
  return text;
}

std::string rangeText(const IntegerRule& r) {
  constexpr long long intMin = std::numeric_limits<int>::min(), intMax = std::numeric_limits<int>::max();
  if (r.min > intMin && r.max < intMax) return "in " + std::to_string(r.min) + ".." + std::to_string(r.max);
  if (r.min > intMin) return ">= " + std::to_string(r.min);
  if (r.max < intMax) return "<= " + std::to_string(r.max);
  return "";
}

// "an integer in 1..6 (note)"; `explicitRange` also names the default range of an int.
std::string integerText(const IntegerRule& r, bool explicitRange) {
  std::string range = rangeText(r);
  if (range.empty() && explicitRange) range = "in " + std::to_string(r.min) + ".." + std::to_string(r.max);
  return withNote(range.empty() ? "an integer" : "an integer " + range, r.note);
}

}  // namespace

template <typename JsonT>
std::string describeJsonValue(const JsonT& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return value.empty() ? "[]" : "an array";
  // dump() writes a non-finite number as null.
  if (value.is_number_float() && !std::isfinite(value.template get<double>()))
    return shortestNumberText(value.template get<double>());
  std::string text = value.dump();
  // A long text is cut: the message must stay readable.
  if (text.size() > 60)
    text = text.substr(0, 50) + "...\" (" + std::to_string(text.size() - 2) + " characters)";
  return text;
}

template <typename JsonT>
JsonObjectReader<JsonT>::JsonObjectReader(const JsonT& object, JsonReaderContext context)
    : object_(object), context_(std::move(context)) {
  if (!object_.is_object()) fail(std::string("expected an object, got ") + object_.type_name());
}

template <typename JsonT>
void JsonObjectReader<JsonT>::mark(const std::string& key) {
  if (std::find(asked_.begin(), asked_.end(), key) == asked_.end()) asked_.push_back(key);
}

template <typename JsonT>
std::string JsonObjectReader<JsonT>::keyName(const std::string& key) const {
  return context_.quoteKeys ? "\"" + key + "\"" : key;
}

template <typename JsonT>
void JsonObjectReader<JsonT>::fail(const std::string& message) const {
  throwJsonError(context_.error, context_.where + ": " + message);
}

template <typename JsonT>
void JsonObjectReader<JsonT>::wrong(const std::string& key, const std::string& what,
                                    const JsonT& value) const {
  fail(keyName(key) + " must be " + what + ", got " + describeJsonValue(value));
}

template <typename JsonT>
bool JsonObjectReader<JsonT>::has(const std::string& key) {
  mark(key);
  return object_.contains(key);
}

template <typename JsonT>
const JsonT* JsonObjectReader<JsonT>::find(const std::string& key) {
  mark(key);
  const auto it = object_.find(key);
  return it == object_.end() ? nullptr : &*it;
}

template <typename JsonT>
const JsonT& JsonObjectReader<JsonT>::get(const std::string& key) {
  const JsonT* v = find(key);
  if (!v) fail(keyName(key) + " is missing");
  return *v;
}

template <typename JsonT>
double JsonObjectReader<JsonT>::numberValue(const JsonT& v, const std::string& key,
                                            const NumberRule& rule) const {
  const std::string range = rangeText(rule);
  if (!v.is_number()) wrong(key, withNote(range.empty() ? "a number" : "a number " + range, rule.note), v);
  const double x = v.template get<double>();
  if (!std::isfinite(x)) wrong(key, "a finite number", v);
  if (!(std::abs(x) <= context_.numberLimit)) {
    // Beyond this no quantity of the file is meant: products of such values
    // overflow long before a solver could name them.
    std::ostringstream msg;
    msg << keyName(key) << " = " << x << " is beyond " << context_.limitName
        << " (|value| <= " << context_.numberLimit << ")";
    fail(msg.str());
  }
  const bool low = rule.minOpen ? !(x > rule.min) : !(x >= rule.min);
  const bool high = rule.maxOpen ? !(x < rule.max) : !(x <= rule.max);
  if (low || high) wrong(key, withNote(range, rule.note), v);
  return x;
}

template <typename JsonT>
double JsonObjectReader<JsonT>::number(const std::string& key, const NumberRule& rule) {
  return numberValue(get(key), key, rule);
}

template <typename JsonT>
double JsonObjectReader<JsonT>::number(const std::string& key, double fallback, const NumberRule& rule) {
  const JsonT* v = find(key);
  return v ? numberValue(*v, key, rule) : fallback;
}

template <typename JsonT>
std::optional<double> JsonObjectReader<JsonT>::optionalNumber(const std::string& key,
                                                              const NumberRule& rule) {
  const JsonT* v = find(key);
  if (!v) return std::nullopt;
  return numberValue(*v, key, rule);
}

template <typename JsonT>
int JsonObjectReader<JsonT>::checkedInteger(const JsonT& v, const std::string& key,
                                            const IntegerRule& rule) const {
  if (!v.is_number_integer()) wrong(key, integerText(rule, false), v);
  // An unsigned JSON integer may lie beyond long long, and so beyond every rule.
  if (v.is_number_unsigned() &&
      (rule.max < 0 || v.template get<std::uint64_t>() > static_cast<std::uint64_t>(rule.max)))
    wrong(key, integerText(rule, true), v);
  const long long x = v.template get<long long>();
  if (x < rule.min || x > rule.max) wrong(key, integerText(rule, true), v);
  return static_cast<int>(x);
}

template <typename JsonT>
int JsonObjectReader<JsonT>::integer(const std::string& key, const IntegerRule& rule) {
  return checkedInteger(get(key), key, rule);
}

template <typename JsonT>
int JsonObjectReader<JsonT>::integer(const std::string& key, int fallback, const IntegerRule& rule) {
  const JsonT* v = find(key);
  return v ? checkedInteger(*v, key, rule) : fallback;
}

template <typename JsonT>
std::uint64_t JsonObjectReader<JsonT>::unsignedInteger(const std::string& key, std::uint64_t fallback) {
  const JsonT* v = find(key);
  if (!v) return fallback;
  // Parsed integers >= 0 are unsigned, those built in C++ from an int signed.
  if (!v->is_number_integer() || (!v->is_number_unsigned() && v->template get<long long>() < 0))
    wrong(key, "an integer >= 0", *v);
  return v->template get<std::uint64_t>();
}

template <typename JsonT>
std::string JsonObjectReader<JsonT>::text(const std::string& key) {
  const JsonT& v = get(key);
  if (!v.is_string()) wrong(key, "a string", v);
  return v.template get<std::string>();
}

template <typename JsonT>
std::string JsonObjectReader<JsonT>::text(const std::string& key, const std::string& fallback) {
  return has(key) ? text(key) : fallback;
}

template <typename JsonT>
std::string JsonObjectReader<JsonT>::choice(const std::string& key, const std::string& fallback,
                                            std::initializer_list<const char*> allowed) {
  std::string list;
  std::size_t i = 0;
  for (const char* a : allowed) {
    list += (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") + std::string("\"") + a + "\"";
    ++i;
  }
  const JsonT* v = find(key);
  if (!v) return fallback;
  if (!v->is_string()) wrong(key, list, *v);
  const std::string s = v->template get<std::string>();
  for (const char* a : allowed)
    if (s == a) return s;
  wrong(key, list, *v);
}

template <typename JsonT>
bool JsonObjectReader<JsonT>::boolean(const std::string& key) {
  const JsonT& v = get(key);
  if (!v.is_boolean()) wrong(key, "true or false", v);
  return v.template get<bool>();
}

template <typename JsonT>
bool JsonObjectReader<JsonT>::boolean(const std::string& key, bool fallback) {
  return has(key) ? boolean(key) : fallback;
}

template <typename JsonT>
std::vector<double> JsonObjectReader<JsonT>::numbers(const std::string& key, const NumberRule& rule,
                                                     long long size) {
  const JsonT& v = get(key);
  if (!v.is_array()) wrong(key, "an array of numbers", v);
  if (size >= 0 && static_cast<long long>(v.size()) != size)
    fail(keyName(key) + " must have " + std::to_string(size) + " numbers, got " + std::to_string(v.size()));
  std::vector<double> out;
  out.reserve(v.size());
  for (const JsonT& x : v) out.push_back(numberValue(x, key, rule));
  return out;
}

template <typename JsonT>
std::vector<double> JsonObjectReader<JsonT>::numbers(const std::string& key, std::vector<double> fallback,
                                                     const NumberRule& rule) {
  return has(key) ? numbers(key, rule) : fallback;
}

template <typename JsonT>
std::vector<int> JsonObjectReader<JsonT>::integers(const std::string& key, std::vector<int> fallback,
                                                   const IntegerRule& rule, bool nonEmpty) {
  const JsonT* v = find(key);
  if (!v) return fallback;
  const std::string range = rangeText(rule);
  const std::string what = withNote(std::string(nonEmpty ? "a non-empty" : "an") + " array of integers" +
                                        (range.empty() ? "" : " " + range),
                                    rule.note);
  if (!v->is_array() || (nonEmpty && v->empty())) wrong(key, what, *v);
  std::vector<int> out;
  out.reserve(v->size());
  for (const JsonT& x : *v) out.push_back(checkedInteger(x, key, rule));
  return out;
}

template <typename JsonT>
std::vector<std::string> JsonObjectReader<JsonT>::names(const std::string& key,
                                                        std::vector<std::string> fallback) {
  const JsonT* v = find(key);
  if (!v) return fallback;
  if (!v->is_array()) wrong(key, "an array of names", *v);
  std::vector<std::string> out;
  out.reserve(v->size());
  for (const JsonT& x : *v) {
    if (!x.is_string()) wrong(key, "an array of names", x);
    out.push_back(x.template get<std::string>());
  }
  return out;
}

template <typename JsonT>
const JsonT& JsonObjectReader<JsonT>::array(const std::string& key) {
  static const JsonT empty = JsonT::array();
  const JsonT* v = find(key);
  if (!v) return empty;
  if (!v->is_array()) wrong(key, "an array", *v);
  return *v;
}

template <typename JsonT>
void JsonObjectReader<JsonT>::finish() const {
  for (auto it = object_.begin(); it != object_.end(); ++it) {
    if (std::find(asked_.begin(), asked_.end(), it.key()) != asked_.end()) continue;
    std::string known;
    for (const std::string& k : asked_) known += (known.empty() ? "" : ", ") + k;
    fail("unknown " + context_.keyNoun + " \"" + it.key() + "\"" +
         (known.empty() ? "" : " (known: " + known + ")"));
  }
}

template class JsonObjectReader<nlohmann::json>;
template class JsonObjectReader<nlohmann::ordered_json>;
template std::string describeJsonValue(const nlohmann::json&);
template std::string describeJsonValue(const nlohmann::ordered_json&);

}  // namespace mbdrom
