#include "app/cli/train_options.h"

#include "engine/core/error.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iomanip>
#include <set>
#include <sstream>

namespace mbdrom::cli {
namespace {

using OJson = nlohmann::ordered_json;

constexpr std::size_t kWidth = 100;        // help lines at most this wide
constexpr std::size_t kOptionColumn = 21;  // where an option's help starts
constexpr std::size_t kUsageIndent = 28;   // continuation lines of a synopsis

// Options of train whatever the method.
const std::set<std::string> kCommonValueOptions = {"--model", "--output"};
const std::string kKeepFailing = "--keep-failing";

// What checkSettings fills in for no settings; empty when it asks for some.
OJson settingDefaults(const MethodInfo& method) {
  try {
    return method.checkSettings(OJson::object());
  } catch (const Error&) {
    return OJson::object();
  }
}

bool defaultOn(const SettingSpec& s, const OJson& defaults) {
  return defaults.contains(s.key) && defaults[s.key].is_boolean() && defaults[s.key].get<bool>();
}

std::string optionName(const SettingSpec& s, const OJson& defaults) {
  if (!s.cliOption.empty()) return s.cliOption;
  std::string name = s.key;
  std::replace(name.begin(), name.end(), '_', '-');
  return (s.kind == SettingKind::Flag && defaultOn(s, defaults) ? "--no-" : "--") + name;
}

std::string placeholderOf(const SettingSpec& s) {
  if (s.kind == SettingKind::Flag || !s.cliFlagValue.empty()) return {};
  if (!s.cliPlaceholder.empty()) return s.cliPlaceholder;
  switch (s.kind) {
    case SettingKind::Integer: return "N";
    case SettingKind::Number: return "X";
    case SettingKind::Choice: {
      std::string text;
      for (const std::string& c : s.choices) text += (text.empty() ? "" : "|") + c;
      return text;
    }
    case SettingKind::IntegerList: return "N1,N2,...";
    case SettingKind::NumberList: return "X1,X2,...";
    case SettingKind::NameList: return "NAME1,NAME2,...";
    case SettingKind::Flag: break;
  }
  return {};
}

constexpr double kUnbounded = 9007199254740992.0;  // SettingSpec's default bounds, 2^53

std::string boundText(double x) {
  return std::to_string(static_cast<long long>(x));
}

// " in 1..4096", " >= 0", or "" for an integer without bounds.
std::string rangeText(const SettingSpec& s) {
  const bool lo = s.minimum > -kUnbounded, hi = s.maximum < kUnbounded;
  if (lo && hi) return " in " + boundText(s.minimum) + ".." + boundText(s.maximum);
  if (lo) return " >= " + boundText(s.minimum);
  if (hi) return " <= " + boundText(s.maximum);
  return {};
}

double numberValue(const std::string& option, const std::string& text) {
  double v = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    throw UsageError("option " + option + ": '" + text + "' is not a number");
  return v;
}

long long integerValue(const std::string& option, const std::string& text, const SettingSpec& s,
                       bool inList) {
  const double x = numberValue(option, text);
  if (x != std::floor(x) || x < std::max(s.minimum, -kUnbounded) || x > std::min(s.maximum, kUnbounded))
    throw UsageError(inList ? option + ": expected integers" + rangeText(s) + ", got '" + text + "'"
                            : option + " must be an integer" + rangeText(s));
  return static_cast<long long>(x);
}

OJson settingValue(const MethodOption& o, const std::string& text, const OJson& defaults) {
  const SettingSpec& s = *o.setting;
  switch (s.kind) {
    case SettingKind::Integer: return integerValue(o.option, text, s, false);
    case SettingKind::Number: return numberValue(o.option, text);
    case SettingKind::Flag: return !defaultOn(s, defaults);
    case SettingKind::Choice: {
      if (!s.cliFlagValue.empty()) return s.cliFlagValue;
      if (std::find(s.choices.begin(), s.choices.end(), text) != s.choices.end()) return text;
      std::string allowed;
      for (std::size_t i = 0; i < s.choices.size(); ++i)
        allowed += (i == 0 ? "" : i + 1 == s.choices.size() ? " or " : ", ") + ("\"" + s.choices[i] + "\"");
      throw InputError("option " + o.option + ": " + s.key + " must be " + allowed + ", got \"" + text +
                       "\"");
    }
    case SettingKind::IntegerList:
    case SettingKind::NumberList:
    case SettingKind::NameList: {
      OJson list = OJson::array();
      for (const std::string& item : splitCommaList(text)) {
        if (s.kind == SettingKind::IntegerList)
          list.push_back(integerValue(o.option, item, s, true));
        else if (s.kind == SettingKind::NumberList)
          list.push_back(numberValue(o.option, item));
        else
          list.push_back(item);
      }
      return list;
    }
  }
  return nullptr;
}

// Columns a terminal shows `text` in (UTF-8: continuation bytes take none).
std::size_t displayWidth(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(
      text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// Items laid out in lines of at most kWidth columns: the first line after `first`, the
// others after `indent` spaces; an item wider than a line gets one of its own.
std::string layOut(const std::string& first, const std::vector<std::string>& items, std::size_t indent) {
  std::string out, line = first;
  bool lineEmpty = true;
  for (const std::string& item : items) {
    if (!lineEmpty && displayWidth(line) + 1 + displayWidth(item) > kWidth) {
      out += line + "\n";
      line = std::string(indent, ' ');
      lineEmpty = true;
    }
    line += (lineEmpty ? "" : " ") + item;
    lineEmpty = false;
  }
  return out + line + "\n";
}

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::string word;
  for (char c : text) {
    if (c == ' ') {
      if (!word.empty()) out.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) out.push_back(word);
  return out;
}

// A synopsis in pieces that stay on one line: an option with its value, a bracket.
std::vector<std::string> synopsisItems(const std::string& text) {
  std::vector<std::string> items;
  for (const std::string& w : words(text)) {
    if (!items.empty() && !(w[0] == '-' || w[0] == '[' || w[0] == '(' || w[0] == '|'))
      items.back() += " " + w;
    else
      items.push_back(w);
  }
  return items;
}

std::string optionLine(const std::string& option, const std::string& placeholder, const std::string& help) {
  std::string left = "  " + option + (placeholder.empty() ? "" : " " + placeholder);
  if (left.size() + 2 <= kOptionColumn)
    left.resize(kOptionColumn, ' ');
  else
    left += "  ";
  return layOut(left, words(help), kOptionColumn);
}

// A default as the help shows it: 0.003, 32,16, none, on.
std::string shownValue(const OJson& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "on" : "off";
  if (v.is_array()) {
    if (v.empty()) return "none";
    std::string text;
    for (const OJson& x : v) {
      if (!text.empty()) text += ',';
      text += shownValue(x);
    }
    return text;
  }
  if (v.is_number_float()) {
    std::ostringstream text;
    text << std::setprecision(15) << v.get<double>();
    return text.str();
  }
  return v.dump();
}

std::string settingHelp(const SettingSpec& s, const OJson& defaults) {
  const bool hasDefault = defaults.contains(s.key) && !defaults[s.key].is_null();
  if (s.kind == SettingKind::Flag) {
    const bool on = defaultOn(s, defaults);
    return s.label + (on ? " off: " : ": ") + s.help + " [" + (on ? "on" : "off") + "]";
  }
  std::string text = (s.cliFlagValue.empty() ? s.label : s.label + " = " + s.cliFlagValue) + ": " + s.help;
  if (s.required) return text + " (required)";
  return hasDefault ? text + " [" + shownValue(defaults[s.key]) + "]" : text;
}

}  // namespace

std::vector<MethodOption> methodOptions(const MethodInfo& method) {
  const OJson defaults = settingDefaults(method);
  std::vector<MethodOption> out;
  for (const SettingSpec& s : method.settingsSchema)
    out.push_back({optionName(s, defaults), placeholderOf(s), &s, nullptr, false});
  for (const InputSpec& in : method.inputs)
    out.push_back({in.option, in.role == InputSpec::Role::Flag ? std::string() : in.placeholder, nullptr, &in,
                   in.role == InputSpec::Role::Parameters});
  return out;
}

TrainCommandLine parseTrainCommandLine(const std::vector<std::string>& args, const MethodRegistry& registry) {
  if (args.empty()) throw UsageError("missing the method (" + registry.names() + ")");
  TrainCommandLine c;
  c.method = registry.find(args.front());
  if (!c.method) throw UsageError("unknown method '" + args.front() + "' (known: " + registry.names() + ")");
  // Every method's options are known, so that one of another method is named as such.
  std::set<std::string> values = kCommonValueOptions, flags = {kKeepFailing}, repeatable;
  std::map<std::string, std::string> declaredBy;  // option -> the first method declaring it
  for (const MethodInfo& m : registry.methods())
    for (const MethodOption& o : methodOptions(m)) {
      const bool flag = o.placeholder.empty();
      if (kCommonValueOptions.count(o.option) || o.option == "--data" || o.option == kKeepFailing ||
          (flag && values.count(o.option)) || (!flag && flags.count(o.option)))
        throw InputError("method " + m.name + ": option " + o.option + " is taken" +
                         (declaredBy.count(o.option) ? " by method " + declaredBy[o.option] : std::string()) +
                         " in another form");
      declaredBy.emplace(o.option, m.name);
      (flag ? flags : values).insert(o.option);
      if (o.repeatable) repeatable.insert(o.option);
    }
  std::vector<std::string> rest;
  splitDataArguments(args, 1, rest, c.runs);
  c.arguments = Arguments(rest, values, flags, repeatable);
  const Arguments& a = c.arguments;
  if (!a.positional().empty()) throw UsageError("unexpected argument '" + a.positional().front() + "'");
  const std::vector<MethodOption> own = methodOptions(*c.method);
  for (const std::string& option : a.options())
    if (!kCommonValueOptions.count(option) && option != kKeepFailing &&
        std::none_of(own.begin(), own.end(), [&](const MethodOption& o) { return o.option == option; }))
      throw UsageError("option " + option + " does not apply to method " + c.method->name);
  const OJson defaults = settingDefaults(*c.method);
  for (const MethodOption& o : own) {
    if (!a.has(o.option)) continue;
    if (o.setting)
      c.settings[o.setting->key] = settingValue(o, a.value(o.option), defaults);
    else
      c.inputs[o.option] = o.placeholder.empty() ? std::vector<std::string>{""}
                           : o.repeatable        ? a.all(o.option)
                                                 : std::vector<std::string>{a.value(o.option)};
  }
  c.keepFailing = a.has(kKeepFailing);
  for (const std::string& option : a.options())
    if (option != kKeepFailing)
      c.given[option] = flags.count(option)        ? std::vector<std::string>{""}
                        : repeatable.count(option) ? a.all(option)
                                                   : std::vector<std::string>{a.value(option)};
  if (!c.runs.empty()) c.given["--data"] = c.runs;
  return c;
}

std::string trainUsage(const MethodRegistry& registry) {
  std::string text;
  bool first = true;
  for (const MethodInfo& m : registry.methods()) {
    const std::string prefix =
        std::string(first ? "usage: " : "       ") + "mbdrom-cli train " + m.name + " ";
    first = false;
    std::vector<std::string> items = {"--model MODEL.json", "--data RUN.csv [RUN2.csv ...]", "-o ROM.json"};
    std::vector<std::string> optional;
    for (const MethodOption& o : methodOptions(m)) {
      if (o.input && o.input->otherUsageOnly) continue;
      const std::string item =
          o.option + (o.placeholder.empty() ? "" : " " + o.placeholder) + (o.repeatable ? " ..." : "");
      if (o.setting && o.setting->required)
        items.push_back(item);
      else
        optional.push_back("[" + item + "]");
    }
    items.insert(items.end(), optional.begin(), optional.end());
    items.push_back("[" + kKeepFailing + "]");
    text += layOut(prefix, items, kUsageIndent);
    for (const std::string& other : m.otherUsages) {
      std::vector<std::string> otherItems = synopsisItems(other);
      otherItems.push_back("[" + kKeepFailing + "]");
      text += layOut("       mbdrom-cli train " + m.name + " ", otherItems, kUsageIndent);
    }
  }
  text +=
      "\nTrains a reduced model from reference runs (trajectory CSVs of MODEL) and writes the trained-model\n"
      "file. Progress on stderr; Ctrl+C cancels training and writes no file. A model that fails its\n"
      "checks (it misses its held-out runs or its own training runs) is written, with a warning, and\n"
      "train exits with code 3. The options of each method follow, made from its settings (defaults in\n"
      "brackets).\n\n";
  text += optionLine("--model", "MODEL.json", "the mechanism the runs are trajectories of");
  text += optionLine("--data", "RUN.csv",
                     "one or more runs (more after --data, or --data repeated with commas); a "
                     "dataset file (.json, e.g. from merge) adds its runs");
  text +=
      optionLine("-o", "ROM.json", "the trained-model file, written when training succeeds (or --output)");
  text += optionLine(kKeepFailing, "",
                     "write a model that blows up on one of its own training runs (refused without it), "
                     "for inspection: every run of it warns so");
  for (const MethodInfo& m : registry.methods()) {
    text += '\n';
    text += layOut(m.name + ": ", words(methodTitle(m) + ". " + m.summary), 2);
    if (!m.defaultsAssume.empty()) text += layOut("  ", words("Defaults assume " + m.defaultsAssume), 2);
    const OJson defaults = settingDefaults(m);
    for (const MethodOption& o : methodOptions(m))
      text += optionLine(o.option, o.placeholder,
                         o.setting ? settingHelp(*o.setting, defaults)
                                   : o.input->help + (o.repeatable ? " (repeatable)" : ""));
  }
  return text;
}

}  // namespace mbdrom::cli
