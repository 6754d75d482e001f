#include "engine/rom/method_details.h"

#include "engine/core/error.h"

#include <utility>

namespace mbdrom {

DetailsItem detailsNote(std::string id, std::string text, std::string emphasis) {
  DetailsItem item;
  item.kind = DetailsKind::Note;
  item.id = std::move(id);
  item.text = std::move(text);
  item.emphasis = std::move(emphasis);
  return item;
}

DetailsItem detailsText(std::string id, std::string lines) {
  DetailsItem item;
  item.kind = DetailsKind::Text;
  item.id = std::move(id);
  item.text = std::move(lines);
  return item;
}

DetailsItem detailsTable(std::string id, std::string caption, DetailsTable table) {
  DetailsItem item;
  item.kind = DetailsKind::Table;
  item.id = std::move(id);
  item.text = std::move(caption);
  item.table = std::move(table);
  return item;
}

DetailsItem detailsPlot(std::string id, DetailsPlot plot, bool beside) {
  DetailsItem item;
  item.kind = DetailsKind::Plot;
  item.id = std::move(id);
  item.plots.push_back(std::move(plot));
  item.beside = beside;
  return item;
}

DetailsItem detailsPlotChoice(std::string id, std::string chooserId, std::string chooserLabel,
                              std::vector<std::string> choices, std::vector<DetailsPlot> plots, int choice) {
  if (choices.size() != plots.size())
    throw InputError("details item \"" + id + "\": " + std::to_string(choices.size()) + " choices for " +
                     std::to_string(plots.size()) + " plots");
  DetailsItem item;
  item.kind = DetailsKind::Plot;
  item.id = std::move(id);
  item.chooserId = std::move(chooserId);
  item.chooserLabel = std::move(chooserLabel);
  item.choices = std::move(choices);
  item.plots = std::move(plots);
  item.choice = choice;
  return item;
}

std::vector<double> detailsIndexAxis(std::size_t n) {
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<double>(i + 1);
  return x;
}

}  // namespace mbdrom
