// JsonObjectReader: every getter names the key and the wrong value, ranges and
// choices are said in the message, unknown keys are named with the known ones,
// and each use throws its own error type. Hostile inputs included.

#include "engine/core/json_reader.h"

#include "engine/core/error.h"
#include "engine/core/json_input.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <string>

using namespace mbdrom;
using OJson = nlohmann::ordered_json;
using Reader = JsonObjectReader<OJson>;

namespace {

OJson parse(const std::string& text) {
  return OJson::parse(text);
}

// The message of what `read` throws (an InputError: the default context).
template <typename F>
std::string inputMessage(F read) {
  try {
    read();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no InputError";
}

}  // namespace

TEST_CASE("the reader returns values and falls back to defaults for absent keys", "[json_reader]") {
  const OJson j = parse(
      R"({"n": 2.5, "i": 7, "s": "x", "c": "b", "f": true, "is": [1, 2], "ns": [0.5], "names": ["a"]})");
  Reader r(j, {"node settings"});
  CHECK(r.number("n") == 2.5);
  CHECK(r.number("absent", 4.0) == 4.0);
  CHECK_FALSE(r.optionalNumber("absent_too"));
  CHECK(r.integer("i", 0, {.min = 1, .max = 9}) == 7);
  CHECK(r.integer("absent_int", 3) == 3);
  CHECK(r.text("s") == "x");
  CHECK(r.choice("c", "a", {"a", "b"}) == "b");
  CHECK(r.choice("absent_choice", "a", {"a", "b"}) == "a");
  CHECK(r.boolean("f", false));
  CHECK(r.integers("is", {}) == std::vector<int>{1, 2});
  CHECK(r.numbers("ns", std::vector<double>{}) == std::vector<double>{0.5});
  CHECK(r.names("names", {}) == std::vector<std::string>{"a"});
  CHECK(r.unsignedInteger("seed", 5) == 5);
  CHECK_NOTHROW(r.finish());
}

TEST_CASE("every getter names the key and the wrong value", "[json_reader]") {
  const OJson j = parse(
      R"({"epochs": "ten", "rate": "fast", "flag": 1, "name": 3, "mode": 4, "list": "1, 2", "xs": [1, "2"],)"
      R"( "tags": ["a", 2], "seed": -1, "real": 2.0, "obj": {"a": 1}})");
  Reader r(j, {"node settings"});
  CHECK(inputMessage([&] { r.integer("epochs", 1); }) ==
        "node settings: epochs must be an integer, got \"ten\"");
  CHECK(inputMessage([&] { r.integer("real", 1); }) == "node settings: real must be an integer, got 2.0");
  CHECK(inputMessage([&] { r.number("rate", 1.0); }) == "node settings: rate must be a number, got \"fast\"");
  CHECK(inputMessage([&] { r.number("rate", 1.0, {.min = 0}); }) ==
        "node settings: rate must be a number >= 0, got \"fast\"");
  CHECK(inputMessage([&] { r.boolean("flag", false); }) ==
        "node settings: flag must be true or false, got 1");
  CHECK(inputMessage([&] { r.text("name"); }) == "node settings: name must be a string, got 3");
  CHECK(inputMessage([&] {
          r.choice("mode", "a", {"a", "b", "c"});
        }) == "node settings: mode must be \"a\", \"b\" or \"c\", got 4");
  CHECK(inputMessage([&] { r.integers("list", {}); }) ==
        "node settings: list must be an array of integers, got \"1, 2\"");
  CHECK(inputMessage([&] { r.integers("xs", {}); }) == "node settings: xs must be an integer, got \"2\"");
  CHECK(inputMessage([&] { r.numbers("xs", std::vector<double>{}); }) ==
        "node settings: xs must be a number, got \"2\"");
  CHECK(inputMessage([&] { r.numbers("list", std::vector<double>{}); }) ==
        "node settings: list must be an array of numbers, got \"1, 2\"");
  CHECK(inputMessage([&] { r.names("tags", {}); }) == "node settings: tags must be an array of names, got 2");
  CHECK(inputMessage([&] { r.names("obj", {}); }) ==
        "node settings: obj must be an array of names, got an object");
  CHECK(inputMessage([&] { r.unsignedInteger("seed", 1); }) ==
        "node settings: seed must be an integer >= 0, got -1");
  CHECK(inputMessage([&] { r.text("missing"); }) == "node settings: missing is missing");
  CHECK(inputMessage([&] { r.array("name"); }) == "node settings: name must be an array, got 3");
}

TEST_CASE("ranges and choices are said in the message", "[json_reader]") {
  const OJson j = parse(R"({"a": 0, "b": 1.0, "c": 7, "d": -3, "e": [2, 0], "f": [], "g": "z", "h": 0.0})");
  Reader r(j, {"pca settings"});
  CHECK(inputMessage([&] { r.integer("a", 1, {.min = 1}); }) ==
        "pca settings: a must be an integer >= 1, got 0");
  CHECK(inputMessage([&] { r.number("b", 0.5, {.min = 0, .max = 1, .minOpen = true, .maxOpen = true}); }) ==
        "pca settings: b must be in (0, 1), got 1.0");
  CHECK(inputMessage([&] { r.number("b", 0.5, {.min = 0, .max = 1, .maxOpen = true}); }) ==
        "pca settings: b must be in [0, 1), got 1.0");
  CHECK(inputMessage([&] { r.number("h", 1.0, {.min = 0, .minOpen = true, .note = "[s]"}); }) ==
        "pca settings: h must be > 0 [s], got 0.0");
  CHECK(inputMessage([&] { r.integer("c", 4, {.min = 2, .max = 6}); }) ==
        "pca settings: c must be an integer in 2..6, got 7");
  CHECK(inputMessage([&] { r.integer("d", 0, {.max = -5, .note = "(negative: backwards)"}); }) ==
        "pca settings: d must be an integer <= -5 (negative: backwards), got -3");
  CHECK(inputMessage([&] { r.integers("e", {}, {.min = 1}); }) ==
        "pca settings: e must be an integer >= 1, got 0");
  CHECK(inputMessage([&] { r.integers("f", {1}, {.min = 1}, true); }) ==
        "pca settings: f must be a non-empty array of integers >= 1, got []");
  CHECK(inputMessage([&] {
          r.choice("g", "x", {"x", "y"});
        }) == "pca settings: g must be \"x\" or \"y\", got \"z\"");
  CHECK(r.number("b", 0.5, {.min = 0, .max = 1}) == 1.0);  // a closed end is allowed
}

TEST_CASE("finish names the first unknown key and the known ones", "[json_reader]") {
  const OJson j = parse(R"({"nr": 2, "epoch": 3, "other": 4})");
  Reader r(j, {"node settings"});
  r.integer("nr", 1);
  r.integer("epochs", 10);
  CHECK(inputMessage([&] { r.finish(); }) == "node settings: unknown setting \"epoch\" (known: nr, epochs)");
  // A key asked about with has() is known.
  const OJson k = parse(R"({"file": "a.csv"})");
  Reader s(k, {"table"});
  CHECK(s.has("file"));
  CHECK_NOTHROW(s.finish());
}

TEST_CASE("each use throws its own error type with its own wording", "[json_reader]") {
  const OJson j = parse(R"({"mass": "heavy", "masss": 1})");
  {
    Reader r(
        j,
        {.where = "bodies[0] \"arm\"", .error = JsonErrorKind::Model, .quoteKeys = true, .keyNoun = "key"});
    CHECK_THROWS_AS(r.number("mass"), ModelError);
    CHECK_THROWS_WITH(r.number("mass"), "bodies[0] \"arm\": \"mass\" must be a number, got \"heavy\"");
    CHECK_THROWS_WITH(r.finish(), Catch::StartsWith("bodies[0] \"arm\": unknown key \"masss\""));
  }
  {
    Reader r(j, {.where = "rom.json: settings", .error = JsonErrorKind::File});
    CHECK_THROWS_AS(r.number("mass"), FileError);
    CHECK_THROWS_WITH(r.number("mass"), "rom.json: settings: mass must be a number, got \"heavy\"");
  }
  {
    Reader r(j, {"pod settings"});
    CHECK_THROWS_AS(r.number("mass"), InputError);
  }
  CHECK_THROWS_AS(Reader(parse("[1, 2]"), {.where = "x", .error = JsonErrorKind::File}), FileError);
  CHECK_THROWS_WITH(Reader(parse("[1, 2]"), {"pod settings"}), "pod settings: expected an object, got array");
  CHECK_THROWS_WITH(Reader(parse("null"), {"pod settings"}), "pod settings: expected an object, got null");
}

TEST_CASE("the reader works on nlohmann::json as on ordered_json", "[json_reader]") {
  const nlohmann::json j = nlohmann::json::parse(R"({"b": 1, "a": "x"})");
  JsonObjectReader<nlohmann::json> r(j, {"plain"});
  CHECK(r.integer("b") == 1);
  CHECK_THROWS_WITH(r.finish(), "plain: unknown setting \"a\" (known: b)");
}

TEST_CASE("hostile inputs are refused by name, not converted", "[json_reader]") {
  // Integers beyond int, beyond long long and beyond 64 bits (parsed as a float).
  const OJson j =
      parse(R"({"big": 3000000000, "huge": 18446744073709551615, "vast": 99999999999999999999999,)"
            R"( "neg": -9223372036854775808, "nested": {"epochs": 3}, "list": [[1]], "deep": [{"a": 1}]})");
  Reader r(j, {"node settings"});
  CHECK(inputMessage([&] { r.integer("big", 1); }) ==
        "node settings: big must be an integer in -2147483648..2147483647, got 3000000000");
  CHECK(inputMessage([&] { r.integer("huge", 1, {.min = 1, .max = 100}); }) ==
        "node settings: huge must be an integer in 1..100, got 18446744073709551615");
  CHECK(inputMessage([&] { r.integer("vast", 1); }) ==
        "node settings: vast must be an integer, got 9.999999999999999e+22");
  CHECK(inputMessage([&] { r.integer("neg", 1, {.min = 0}); }) ==
        "node settings: neg must be an integer >= 0, got -9223372036854775808");
  CHECK(r.unsignedInteger("huge", 1) == std::numeric_limits<std::uint64_t>::max());
  CHECK(inputMessage([&] { r.unsignedInteger("vast", 1); }) ==
        "node settings: vast must be an integer >= 0, got 9.999999999999999e+22");
  // A nested object where a value is expected, a list of lists, a list of objects.
  CHECK(inputMessage([&] { r.integer("nested", 1); }) ==
        "node settings: nested must be an integer, got an object");
  CHECK(inputMessage([&] { r.integers("list", {}); }) ==
        "node settings: list must be an integer, got an array");
  CHECK(inputMessage([&] { r.numbers("deep", std::vector<double>{}); }) ==
        "node settings: deep must be a number, got an object");
  // A long text is cut in the message.
  const OJson longText{{"name", std::string(1000, 'x')}};
  Reader l(longText, {"s"});
  const std::string m = inputMessage([&] { l.integer("name", 1); });
  CHECK(m.size() < 150);
  CHECK_THAT(m, Catch::EndsWith("(1000 characters)"));
}

TEST_CASE("a number JSON cannot hold is refused: 1e400 by the parser, inf and nan by the reader",
          "[json_reader]") {
  // The parser refuses an overflowing literal instead of making it infinity.
  CHECK_THROWS_WITH(parseJsonInput<OJson>(R"({"rate": 1e400})", "s.json"),
                    Catch::Contains("number overflow"));
  CHECK_THROWS_AS(parseJsonInput<OJson>(R"({"rate": NaN})", "s.json"), FileError);
  // Settings built in C++ (a struct's toJson) can hold them.
  const OJson j{{"inf", std::numeric_limits<double>::infinity()}, {"nan", std::nan("")}};
  Reader r(j, {"pod settings"});
  CHECK(inputMessage([&] { r.number("inf", 0.0); }) == "pod settings: inf must be a finite number, got inf");
  CHECK(inputMessage([&] { r.number("nan", 0.0, {.min = 0}); }) ==
        "pod settings: nan must be a finite number, got nan");
}

TEST_CASE("a number limit bounds every number read, also inside lists", "[json_reader]") {
  const OJson j = parse(R"({"mass": 1e300, "xs": [1, 2e20]})");
  Reader r(
      j, {.where = "model", .quoteKeys = true, .numberLimit = 1e15, .limitName = "the model format's range"});
  CHECK(inputMessage([&] { r.number("mass"); }) ==
        "model: \"mass\" = 1e+300 is beyond the model format's range (|value| <= 1e+15)");
  CHECK(inputMessage([&] { r.numbers("xs"); }) ==
        "model: \"xs\" = 2e+20 is beyond the model format's range (|value| <= 1e+15)");
  CHECK(inputMessage([&] { r.numbers("xs", NumberRule{}, 3); }) ==
        "model: \"xs\" must have 3 numbers, got 2");
}
