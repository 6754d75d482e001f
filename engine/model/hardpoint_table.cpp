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

namespace {

std::string lowered(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// The table columns a header row names, or empty when the row is data: a header names at
// least two columns and holds no number.
std::vector<int> headerColumns(const std::vector<std::string>& first) {
  std::vector<int> columns;
  int named = 0;
  for (const std::string& cell : first) {
    if (parseWholeNumber(cell)) return {};
    const auto* it = std::find(std::begin(kColumnNames), std::end(kColumnNames), lowered(cell));
    columns.push_back(it == std::end(kColumnNames) ? -1 : static_cast<int>(it - std::begin(kColumnNames)));
    named += columns.back() >= 0;
  }
  if (named < 2) return {};
  for (std::size_t c = 0; c < columns.size(); ++c)
    if (columns[c] < 0)
      throw HardpointCellError("paste: the header's column \"" + first[c] +
                                   "\" is not one of the table's (name, x, y, z, fixed, bodies)",
                               -1, -1);
  return columns;
}

// One pasted cell into point `target` at table column `col`.
void pasteCell(ModelSpec& out, int target, int col, const std::string& cell, bool renames) {
  const std::string where = "paste: row " + std::to_string(target + 1) + ", column " +
                            (col >= 0 && col <= kHardpointBodies ? kColumnNames[col] : "?");
  auto refuse = [&](const std::string& why) { throw HardpointCellError(where + ": " + why, target, col); };
  PointSpec& p = out.points[static_cast<std::size_t>(target)];
  if (col < 0 || col > kHardpointBodies) refuse("the table has 6 columns");
  if (col == kHardpointName) {
    if (cell == p.name || !renames) return;
    try {
      renameElement(out, {ElementKind::Point, target, 0}, cell);
    } catch (const InputError& e) {
      refuse(e.what());
    }
  } else if (col >= kHardpointX && col <= kHardpointZ) {
    const std::optional<double> x = parseWholeNumber(cell);
    if (!x || !std::isfinite(*x)) refuse("\"" + cell + "\" is not a number (metres)");
    if (!(std::abs(*x) <= kMaxModelNumber))
      refuse("\"" + cell + "\" is beyond the model format's range (|value| <= 1e15 m)");
    p.position(col - kHardpointX) = *x;
  } else if (col == kHardpointFixed) {
    const std::string v = lowered(cell);
    if (v == "true" || v == "yes" || v == "1" || v == "x" || v == "fixed")
      p.fixed = true;
    else if (v == "false" || v == "no" || v == "0" || v.empty() || v == "free")
      p.fixed = false;
    else
      refuse("\"" + cell + "\" is not true or false");
  } else if (cell != hardpointBodies(out, target)) {
    refuse("the bodies column is read-only (it lists the bodies that name the point)");
  }
}

// The point named `name`, or -1.
int pointNamed(const ModelSpec& spec, const std::string& name) {
  for (std::size_t i = 0; i < spec.points.size(); ++i)
    if (spec.points[i].name == name) return static_cast<int>(i);
  return -1;
}

}  // namespace

void pasteHardpoints(ModelSpec& spec, int row, int column, const std::string& text) {
  std::vector<std::vector<std::string>> block = cells(text);
  if (block.empty()) throw InputError("paste: nothing to paste");
  std::vector<int> columns = headerColumns(block.front());
  const bool header = !columns.empty();
  if (header) block.erase(block.begin());
  if (block.empty()) throw InputError("paste: a header row and nothing under it");
  const auto byName = std::find(columns.begin(), columns.end(), static_cast<int>(kHardpointName));
  ModelSpec out = spec;
  for (std::size_t r = 0; r < block.size(); ++r) {
    int target = row + static_cast<int>(r);
    if (byName != columns.end()) {
      const auto nameCell = static_cast<std::size_t>(byName - columns.begin());
      const std::string name = nameCell < block[r].size() ? block[r][nameCell] : std::string();
      target = pointNamed(out, name);
      if (target < 0)
        throw HardpointCellError("paste: row " + std::to_string(r + 1) +
                                     " of the block: the mechanism has no point \"" + name + "\"",
                                 -1, kHardpointName);
    } else if (target < 0 || target >= static_cast<int>(out.points.size())) {
      throw HardpointCellError("paste: row " + std::to_string(target + 1) + " is past the table's " +
                                   std::to_string(out.points.size()) + " points",
                               -1, -1);
    }
    for (std::size_t c = 0; c < block[r].size(); ++c) {
      if (header && c >= columns.size()) {
        if (block[r][c].empty()) continue;  // a spreadsheet's trailing separators
        throw HardpointCellError("paste: row " + std::to_string(r + 1) + " of the block has a cell (\"" +
                                     block[r][c] + "\") past the header's " + std::to_string(columns.size()) +
                                     " columns",
                                 target, -1);
      }
      const int col = header ? columns[c] : column + static_cast<int>(c);
      pasteCell(out, target, col, block[r][c], byName == columns.end());
    }
  }
  spec = std::move(out);
}

}  // namespace mbdrom
