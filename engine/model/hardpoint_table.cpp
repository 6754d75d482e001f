#include "engine/model/hardpoint_table.h"

#include "engine/core/error.h"
#include "engine/core/number_text.h"
#include "engine/model/model_file.h"
#include "engine/model/spec_edit.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

namespace mbdrom {

namespace {

const char* const kColumnNames[] = {"name", "x", "y", "z", "fixed", "bodies"};

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t lead = 0;
  while (lead < s.size() && std::isspace(static_cast<unsigned char>(s[lead]))) ++lead;
  return s.substr(lead);
}

// The rows and cells of a pasted block (tabs when the block has any, else commas).
std::vector<std::vector<std::string>> cells(const std::string& text) {
  const char separator = text.find('\t') != std::string::npos ? '\t' : ',';
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trimmed(line).empty()) continue;
    std::vector<std::string> row;
    std::string cell;
    std::istringstream fields(line);
    while (std::getline(fields, cell, separator)) row.push_back(trimmed(cell));
    if (!line.empty() && line.back() == separator) row.emplace_back();
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

std::string hardpointBodies(const ModelSpec& spec, int index) {
  const std::string& name = spec.points.at(static_cast<std::size_t>(index)).name;
  std::string bodies;
  for (const BodySpec& b : spec.bodies)
    if (std::find(b.points.begin(), b.points.end(), name) != b.points.end())
      bodies += (bodies.empty() ? "" : "; ") + b.name;  // no comma: the CSV cell needs no quotes
  return bodies;
}

std::string hardpointCsv(const ModelSpec& spec) {
  std::string text = "name,x,y,z,fixed,bodies\n";
  for (std::size_t i = 0; i < spec.points.size(); ++i) {
    const PointSpec& p = spec.points[i];
    text += csvField(p.name);
    for (int k = 0; k < 3; ++k) {
      text += ',';
      text += shortestNumberText(p.position(k));
    }
    text += p.fixed ? ",true," : ",false,";
    text += csvField(hardpointBodies(spec, static_cast<int>(i))) + "\n";
  }
  return text;
}

void pasteHardpoints(ModelSpec& spec, int row, int column, const std::string& text) {
  const std::vector<std::vector<std::string>> block = cells(text);
  if (block.empty()) throw InputError("paste: nothing to paste");
  ModelSpec out = spec;
  for (std::size_t r = 0; r < block.size(); ++r) {
    const int target = row + static_cast<int>(r);
    if (target < 0 || target >= static_cast<int>(out.points.size()))
      throw InputError("paste: row " + std::to_string(target + 1) + " is past the table's " +
                       std::to_string(out.points.size()) + " points");
    for (std::size_t c = 0; c < block[r].size(); ++c) {
      const int col = column + static_cast<int>(c);
      const std::string& cell = block[r][c];
      const std::string where = "paste: row " + std::to_string(target + 1) + ", column " +
                                (col >= 0 && col <= kHardpointBodies ? kColumnNames[col] : "?");
      PointSpec& p = out.points[static_cast<std::size_t>(target)];
      if (col < 0 || col > kHardpointBodies) throw InputError(where + ": the table has 6 columns");
      if (col == kHardpointName) {
        if (cell != p.name) {
          try {
            renameElement(out, {ElementKind::Point, target, 0}, cell);
          } catch (const InputError& e) {
            throw InputError(where + ": " + e.what());
          }
        }
      } else if (col >= kHardpointX && col <= kHardpointZ) {
        const std::optional<double> x = parseWholeNumber(cell);
        if (!x || !std::isfinite(*x)) throw InputError(where + ": \"" + cell + "\" is not a number (metres)");
        if (!(std::abs(*x) <= kMaxModelNumber))
          throw InputError(where + ": \"" + cell +
                           "\" is beyond the model format's range (|value| <= 1e15 m)");
        p.position(col - kHardpointX) = *x;
      } else if (col == kHardpointFixed) {
        std::string v = cell;
        for (char& ch : v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        if (v == "true" || v == "yes" || v == "1" || v == "x" || v == "fixed")
          p.fixed = true;
        else if (v == "false" || v == "no" || v == "0" || v.empty() || v == "free")
          p.fixed = false;
        else
          throw InputError(where + ": \"" + cell + "\" is not true or false");
      } else if (cell != hardpointBodies(out, target)) {
        throw InputError(where +
                         ": the bodies column is read-only (it lists the bodies that name the point)");
      }
    }
  }
  spec = std::move(out);
}

}  // namespace mbdrom
