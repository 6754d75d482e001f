#include "widgets/model_tree.h"

#include "engine/model/force_element_types.h"

#include <QHeaderView>
#include <QMenu>

#include <set>

namespace mbdrom::widgets {

namespace {

// Item data: element kind, index and sub-index; groups carry the kind of their
// children and index -1 (their parent index for markers and loads: -2 - parent).
constexpr int kKindRole = Qt::UserRole;
constexpr int kIndexRole = Qt::UserRole + 1;
constexpr int kSubRole = Qt::UserRole + 2;
constexpr int kGroupRole = Qt::UserRole + 3;

QString kindLabel(ForceElementKind kind) {
  return QString::fromLatin1(forceElementKindInfo(kind).label);
}

QString vec(const Eigen::Vector3d& v) {
  return QStringLiteral("(%1, %2, %3)").arg(v.x(), 0, 'g', 6).arg(v.y(), 0, 'g', 6).arg(v.z(), 0, 'g', 6);
}

QTreeWidgetItem* element(QTreeWidgetItem* parent, const std::string& name, const QString& type,
                         ElementKind kind, int index, int sub = 0) {
  auto* item = new QTreeWidgetItem(parent, {QString::fromStdString(name), type});
  item->setData(0, kKindRole, static_cast<int>(kind));
  item->setData(0, kIndexRole, index);
  item->setData(0, kSubRole, sub);
  return item;
}

}  // namespace

ModelTree::ModelTree(QWidget* parent) : QTreeWidget(parent) {
  setObjectName("modelTree");
  setHeaderLabels({tr("Element"), tr("Type")});
  header()->setStretchLastSection(true);
  setContextMenuPolicy(Qt::CustomContextMenu);
  connect(this, &QTreeWidget::customContextMenuRequested, this, &ModelTree::showContextMenu);
  setSelectionMode(QAbstractItemView::ExtendedSelection);
  connect(this, &QTreeWidget::currentItemChanged, this, [this] { emit currentElementChanged(); });
  connect(this, &QTreeWidget::itemSelectionChanged, this, [this] { emit selectedElementsChanged(); });
}

namespace {

std::optional<ElementRef> refOf(const QTreeWidgetItem* item) {
  if (!item || !item->data(0, kKindRole).isValid()) return std::nullopt;
  return ElementRef{static_cast<ElementKind>(item->data(0, kKindRole).toInt()),
                    item->data(0, kIndexRole).toInt(), item->data(0, kSubRole).toInt()};
}

void expandTo(QTreeWidgetItem* item) {
  for (QTreeWidgetItem* p = item->parent(); p; p = p->parent()) p->setExpanded(true);
}

}  // namespace

std::vector<ElementRef> ModelTree::selectedElements() const {
  std::vector<ElementRef> out;
  for (QTreeWidgetItemIterator it(const_cast<ModelTree*>(this), QTreeWidgetItemIterator::Selected); *it; ++it)
    if (auto ref = refOf(*it)) out.push_back(*ref);
  return out;
}

void ModelTree::selectElements(const std::vector<ElementRef>& refs,
                               const std::optional<ElementRef>& current) {
  {
    const QSignalBlocker block(this);
    clearSelection();
    QTreeWidgetItem* currentFound = nullptr;
    for (const ElementRef& ref : refs)
      if (QTreeWidgetItem* item = findItem(ref)) {
        expandTo(item);
        item->setSelected(true);
        if (current && ref == *current) currentFound = item;
      }
    if (currentFound) {
      setCurrentItem(currentFound, 0, QItemSelectionModel::NoUpdate);
      scrollToItem(currentFound);
    }
  }
  emit selectedElementsChanged();
  emit currentElementChanged();
}

std::optional<ElementRef> ModelTree::elementNamed(ElementKind kind, const QString& name) const {
  for (QTreeWidgetItemIterator it(const_cast<ModelTree*>(this)); *it; ++it)
    if ((*it)->data(0, kKindRole).isValid() && (*it)->data(0, kKindRole).toInt() == static_cast<int>(kind) &&
        (*it)->text(0) == name)
      return refOf(*it);
  return std::nullopt;
}

std::optional<ElementRef> ModelTree::currentElement() const {
  return refOf(currentItem());
}

QTreeWidgetItem* ModelTree::findItem(const ElementRef& ref) const {
  for (QTreeWidgetItemIterator it(const_cast<ModelTree*>(this)); *it; ++it) {
    const QTreeWidgetItem* item = *it;
    if (item->data(0, kKindRole).isValid() &&
        item->data(0, kKindRole).toInt() == static_cast<int>(ref.kind) &&
        item->data(0, kIndexRole).toInt() == ref.index && item->data(0, kSubRole).toInt() == ref.sub)
      return *it;
  }
  return nullptr;
}

void ModelTree::selectElement(const ElementRef& ref) {
  if (QTreeWidgetItem* item = findItem(ref)) {
    for (QTreeWidgetItem* p = item->parent(); p; p = p->parent()) p->setExpanded(true);
    setCurrentItem(item);
    scrollToItem(item);
  }
}

bool ModelTree::selectByName(ElementKind kind, const QString& name) {
  for (QTreeWidgetItemIterator it(this); *it; ++it)
    if ((*it)->data(0, kKindRole).isValid() && (*it)->data(0, kKindRole).toInt() == static_cast<int>(kind) &&
        (*it)->text(0) == name) {
      for (QTreeWidgetItem* p = (*it)->parent(); p; p = p->parent()) p->setExpanded(true);
      setCurrentItem(*it);
      scrollToItem(*it);
      return true;
    }
  return false;
}

void ModelTree::clearSpec() {
  haveSpec_ = false;
  clear();
}

namespace {

// Fills a spec's tree group by group; on a refill each group and item keeps the
// expansion the user left it in.
class TreeFiller {
 public:
  TreeFiller(QTreeWidgetItem* root, bool first, const std::set<QString>& collapsed)
      : root_(root), first_(first), collapsed_(collapsed) {}

  void addGeometry(const ModelSpec& s) const {
    auto* points = group(ModelTree::tr("Points"), s.points.size(), ElementKind::Point);
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      const auto& p = s.points[i];
      element(points, p.name, p.fixed ? ModelTree::tr("fixed point") : ModelTree::tr("point"),
              ElementKind::Point, static_cast<int>(i))
          ->setToolTip(0, vec(p.position) + " m");
    }
    auto* vectors = group(ModelTree::tr("Vectors"), s.vectors.size(), ElementKind::Vector);
    for (std::size_t i = 0; i < s.vectors.size(); ++i) {
      const auto& v = s.vectors[i];
      element(vectors, v.name, v.fixed ? ModelTree::tr("fixed vector") : ModelTree::tr("unit vector"),
              ElementKind::Vector, static_cast<int>(i))
          ->setToolTip(0, vec(v.direction));
    }
    auto* bodies = group(ModelTree::tr("Bodies"), s.bodies.size(), ElementKind::Body);
    for (std::size_t i = 0; i < s.bodies.size(); ++i) {
      const auto& b = s.bodies[i];
      auto* item = element(bodies, b.name, QString::fromLatin1(bodyTypeName(b.type)), ElementKind::Body,
                           static_cast<int>(i));
      item->setToolTip(0, ModelTree::tr("mass %1 kg").arg(b.mass));
      for (std::size_t m = 0; m < b.markers.size(); ++m)
        element(item, b.markers[m].name, ModelTree::tr("marker"), ElementKind::Marker, static_cast<int>(i),
                static_cast<int>(m))
            ->setToolTip(0, vec(b.markers[m].position) + " m");
      item->setExpanded(!first_ && !collapsed_.count(item->text(0)));
    }
  }

  void addConnections(const ModelSpec& s) const {
    auto* joints = group(ModelTree::tr("Joints"), s.joints.size(), ElementKind::Joint);
    for (std::size_t i = 0; i < s.joints.size(); ++i)
      element(joints, s.joints[i].name, QString::fromLatin1(jointTypeName(s.joints[i].type)),
              ElementKind::Joint, static_cast<int>(i));
    auto* drivers = group(ModelTree::tr("Drivers"), s.drivers.size(), ElementKind::Driver);
    for (std::size_t i = 0; i < s.drivers.size(); ++i)
      element(drivers, s.drivers[i].name, QString::fromLatin1(driverTypeName(s.drivers[i].type)),
              ElementKind::Driver, static_cast<int>(i));
    auto* forces = group(ModelTree::tr("Forces"), s.springDampers.size() + s.frictions.size(),
                         ElementKind::SpringDamper);
    for (std::size_t i = 0; i < s.springDampers.size(); ++i)
      element(forces, s.springDampers[i].name, kindLabel(ForceElementKind::SpringDamper),
              ElementKind::SpringDamper, static_cast<int>(i));
    for (std::size_t i = 0; i < s.frictions.size(); ++i)
      element(forces, s.frictions[i].name, kindLabel(ForceElementKind::Friction), ElementKind::Friction,
              static_cast<int>(i));
  }

  void addLoadsAndMeasures(const ModelSpec& s) const {
    auto* cases = group(ModelTree::tr("Load cases"), s.loadCases.size(), ElementKind::LoadCase);
    for (std::size_t i = 0; i < s.loadCases.size(); ++i) {
      const auto& lc = s.loadCases[i];
      auto* item =
          element(cases, lc.name, ModelTree::tr("%n load(s)", nullptr, static_cast<int>(lc.loads.size())),
                  ElementKind::LoadCase, static_cast<int>(i));
      for (std::size_t l = 0; l < lc.loads.size(); ++l)
        element(item, lc.loads[l].name, QString::fromLatin1(loadTypeName(lc.loads[l].type)),
                ElementKind::Load, static_cast<int>(i), static_cast<int>(l));
      item->setExpanded(!collapsed_.count(item->text(0)));
    }
    auto* measures = group(ModelTree::tr("Measures"), s.measures.size(), ElementKind::Measure);
    for (std::size_t i = 0; i < s.measures.size(); ++i)
      element(measures, s.measures[i].name, QString::fromLatin1(measureTypeName(s.measures[i].type)),
              ElementKind::Measure, static_cast<int>(i));
  }

 private:
  // A group is open the first time when it is short; later as the user left it.
  QTreeWidgetItem* group(const QString& title, std::size_t count, ElementKind kind) const {
    auto* item = new QTreeWidgetItem(root_, {title, QString::number(count)});
    item->setData(0, kGroupRole, static_cast<int>(kind));
    item->setExpanded(first_ ? (count > 0 && count <= 12) : !collapsed_.count(title));
    return item;
  }

  QTreeWidgetItem* root_;
  bool first_;
  const std::set<QString>& collapsed_;
};

}  // namespace

void ModelTree::setSpec(const ModelSpec& s) {
  const std::optional<ElementRef> selected = currentElement();
  const std::vector<ElementRef> selection = selectedElements();
  std::set<QString> collapsed;
  for (QTreeWidgetItemIterator it(this); *it; ++it)
    if ((*it)->childCount() > 0 && !(*it)->isExpanded()) collapsed.insert((*it)->text(0));
  const bool first = !haveSpec_;
  spec_ = s;
  haveSpec_ = true;
  const QSignalBlocker block(this);
  clear();

  auto* root = element(invisibleRootItem(), s.name, tr("mechanism"), ElementKind::Mechanism, 0);
  root->setToolTip(0, QString::fromStdString(s.description));
  const TreeFiller fill(root, first, collapsed);
  fill.addGeometry(s);
  fill.addConnections(s);
  fill.addLoadsAndMeasures(s);
  root->setExpanded(true);
  resizeColumnToContents(0);
  if (selection.size() > 1) {
    std::vector<ElementRef> kept;
    for (const ElementRef& ref : selection)
      if (elementExists(s, ref)) kept.push_back(ref);
    selectElements(kept, selected);
  } else if (selected && elementExists(s, *selected)) {
    selectElement(*selected);
  }
}

void ModelTree::showContextMenu(const QPoint& pos) {
  if (!haveSpec_) {
    QMenu menu(this);
    menu.addAction(tr("New Project"), this, [this] { emit newProjectRequested(); });
    menu.exec(viewport()->mapToGlobal(pos));
    return;
  }
  QTreeWidgetItem* item = itemAt(pos);
  if (!item) return;
  QMenu menu(this);
  const std::optional<ElementRef> ref =
      item->data(0, kKindRole).isValid()
          ? std::optional<ElementRef>(ElementRef{static_cast<ElementKind>(item->data(0, kKindRole).toInt()),
                                                 item->data(0, kIndexRole).toInt(),
                                                 item->data(0, kSubRole).toInt()})
          : std::nullopt;
  if (item->data(0, kGroupRole).isValid()) {
    const auto kind = static_cast<ElementKind>(item->data(0, kGroupRole).toInt());
    menu.addAction(tr("Add %1").arg(QString::fromLatin1(elementKindName(kind))), this,
                   [this, kind] { emit addRequested(kind, -1); });
  }
  if (ref && ref->kind == ElementKind::Body)
    menu.addAction(tr("Add Marker"), this,
                   [this, r = *ref] { emit addRequested(ElementKind::Marker, r.index); });
  if (ref && ref->kind == ElementKind::LoadCase)
    menu.addAction(tr("Add Load"), this, [this, r = *ref] { emit addRequested(ElementKind::Load, r.index); });
  if (ref && ref->kind != ElementKind::Mechanism) {
    if (!menu.isEmpty()) menu.addSeparator();
    menu.addAction(tr("Rename"), this, [this, r = *ref] { emit renameRequested(r); });
    menu.addAction(tr("Duplicate"), this, [this, r = *ref] { emit duplicateRequested(r); });
    menu.addAction(tr("Delete"), this, [this, r = *ref] { emit removeRequested(r); });
  }
  if (!menu.isEmpty()) menu.exec(viewport()->mapToGlobal(pos));
}

}  // namespace mbdrom::widgets
