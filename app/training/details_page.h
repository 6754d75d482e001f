#pragma once
// Draws any method's details section (engine/rom/method_details.h) as a page of
// widgets: notes as labels, monospaced text, tables, plots (a picker over the
// plots of a choice). Every widget is named by its item's id, so tests and
// scripts find a method's figures without the page knowing the method.

#include "engine/rom/method_details.h"

#include <QMap>
#include <QString>

class QWidget;

namespace mbdrom::app {

/// A page for `section`. `picks` holds the choice last picked per picker id (kept
/// when a run's page replaces the previous one); the page keeps it up to date.
QWidget* makeDetailsPage(const DetailsSection& section, QMap<QString, QString>* picks, QWidget* parent);

}  // namespace mbdrom::app
