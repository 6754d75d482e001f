#pragma once
// The Help menu: the user guide rendered in the workbench, About mbdrom, About Qt.

class QMenu;
class QWidget;

namespace mbdrom::app {

/// Adds User Guide (F1), About mbdrom and About Qt to `menu`; their windows open over `window`.
void addHelpEntries(QMenu* menu, QWidget* window);
/// Opens the user guide installed beside the program (or in the source tree) over `window`, or
/// says where it is when it is neither.
void openUserGuide(QWidget* window);

}  // namespace mbdrom::app
