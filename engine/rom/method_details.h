#pragma once
/// @file
/// What a reduced-model method has to show about a trained model, as plain data
/// that any front end can render: sections (a tab of the workbench's Model
/// Details, a heading elsewhere), each a list of items — a note, monospaced
/// text, a table of numbers or text, a plot of named series (or a choice of
/// plots). A method describes its figures in its own files (MethodInfo::details
/// and MethodInfo::runDetails); the front ends render any method's sections
/// the same way and never check a method's name.

#include <limits>
#include <string>
#include <vector>

namespace mbdrom {

/// One curve or point set of a plot.
struct DetailsSeries {
  std::string name = {};  ///< legend entry and data-export column
  std::vector<double> x = {}, y = {};
  bool markers = false;     ///< points instead of a line
  double markerSize = 0.0;  ///< [px]; 0: the front end's default
  bool dashed = false;      ///< dashed line (a prediction drawn over data)
  double lineWidth = 0.0;   ///< [px]; 0: the front end's default
  /// Index into the front end's palette of far-apart hues, so that series of the
  /// same thing share a colour across plots (a cluster, a coordinate); -1: automatic.
  int hue = -1;
  bool darker = false;  ///< a darker shade of its hue (a second series of the same thing)
  int rgb = -1;         ///< a fixed colour 0xRRGGBB (emphasis: the chosen point, black centroids); -1: none
};

/// A plot: axes, titles and series.
struct DetailsPlot {
  std::string title = {}, xLabel = {}, yLabel = {};
  bool logY = false;   ///< logarithmic y axis (non-positive values are not drawn)
  bool legend = true;  ///< show the legend (hide it when the series are many)
  std::vector<DetailsSeries> series = {};
};

/// A table cell: a number, or text when `text` is not empty.
struct DetailsCell {
  double number = std::numeric_limits<double>::quiet_NaN();
  std::string text = {};
};

/// A table with column and (optional) row headings.
struct DetailsTable {
  std::vector<std::string> columns = {};
  std::vector<std::string> rows = {};                ///< row headings; empty: none
  std::vector<std::vector<DetailsCell>> cells = {};  ///< rows x columns
  /// A sparse matrix: zero cells greyed, the others stressed (a coefficient table).
  bool sparse = false;
};

enum class DetailsKind {
  Note,   ///< a sentence or two of prose, then `emphasis` stressed
  Text,   ///< monospaced lines (equations, a listing)
  Table,  ///< `caption` over `table`
  Plot    ///< plots[0]; with `choices`, the plot of the choice picked
};

/// One item of a section.
struct DetailsItem {
  DetailsKind kind = DetailsKind::Note;
  /// Stable name of the item (a widget's object name in the workbench, a file name
  /// on export), e.g. "podSingularValues"; unique within the model's details.
  std::string id = {};
  std::string text = {};      ///< Note: the prose; Text: the lines; Table: the caption
  std::string emphasis = {};  ///< Note: stressed after the text (a verdict, why a run stopped)
  DetailsTable table = {};
  std::vector<DetailsPlot> plots = {};  ///< Plot: one, or one per choice
  /// Plot with alternatives: what is picked (e.g. "Against measure"), the choices
  /// (one per plot), the first one shown, and the picker's stable name.
  std::string chooserLabel = {}, chooserId = {};
  std::vector<std::string> choices = {};
  int choice = 0;
  bool beside = false;  ///< Plot: beside the previous plot rather than below it
};

/// A titled group of items: a tab in the workbench's Model Details.
struct DetailsSection {
  std::string title = {};  ///< e.g. "POD"; a run's section replaces the model's section of the same title
  std::vector<DetailsItem> items = {};
};

DetailsItem detailsNote(std::string id, std::string text, std::string emphasis = {});
DetailsItem detailsText(std::string id, std::string lines);
DetailsItem detailsTable(std::string id, std::string caption, DetailsTable table);
DetailsItem detailsPlot(std::string id, DetailsPlot plot, bool beside = false);
/// A plot picked among `plots` by `choices` (same size), starting with `choice`.
DetailsItem detailsPlotChoice(std::string id, std::string chooserId, std::string chooserLabel,
                              std::vector<std::string> choices, std::vector<DetailsPlot> plots,
                              int choice = 0);

/// 1, 2, ..., n: the x of a plot over an index.
std::vector<double> detailsIndexAxis(std::size_t n);

}  // namespace mbdrom
