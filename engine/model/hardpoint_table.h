#pragma once
/// @file
/// The mechanism's points as a table, the way suspension engineers keep
/// hardpoints: one row per basic point (spec order) with its name, x, y, z [m],
/// whether it is fixed, and the bodies that list it (read-only). Blocks copied
/// from a spreadsheet paste into it; the table exports as CSV.

#include "engine/core/error.h"
#include "engine/model/model_spec.h"

#include <string>
#include <vector>

namespace mbdrom {

/// Columns of the hardpoint table.
enum HardpointColumn {
  kHardpointName = 0,
  kHardpointX,
  kHardpointY,
  kHardpointZ,
  kHardpointFixed,
  kHardpointBodies
};

/// The bodies that list point `index` ("lca; knuckle"), for the read-only column.
std::string hardpointBodies(const ModelSpec& spec, int index);

/// The table as CSV: a header `name,x,y,z,fixed,bodies`, then one row per point;
/// numbers in the shortest form that reads back exactly, fields with a comma or
/// quote in double quotes.
std::string hardpointCsv(const ModelSpec& spec);

/// A pasted cell the table refuses: the message names it, row and column say where it is in
/// the table (column -1: the pasted block's own header; row -1: a row no point matches).
class HardpointCellError : public InputError {
 public:
  HardpointCellError(const std::string& message, int row, int column)
      : InputError(message), row_(row), column_(column) {}
  int row() const { return row_; }
  int column() const { return column_; }

 private:
  int row_, column_;
};

/// Pastes a block of cells (rows separated by line breaks, cells by tabs as a
/// spreadsheet copies them, or by commas) with its top-left cell at (row, column)
/// of the table: a name renames the point and every reference to it, a number sets
/// a coordinate [m], `fixed` takes true/false, yes/no, 1/0 (or x / empty). Cells of
/// the bodies column must match (it is read-only).
/// A block whose first row names columns (`name`, `x`, `y`, `z`, `fixed`, `bodies`, in
/// any order and case, as hardpointCsv writes them) is a table of its own: its columns
/// go where their names say and, with a `name` column, each row to the point of that
/// name (row and column are then ignored).
/// All or nothing: throws HardpointCellError naming the first bad cell ("row 3, column y:
/// ...") and leaves `spec` unchanged.
void pasteHardpoints(ModelSpec& spec, int row, int column, const std::string& text);

}  // namespace mbdrom
