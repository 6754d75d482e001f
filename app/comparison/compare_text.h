#pragma once
// Numbers as the Compare dock shows them.

#include <QString>

#include <cmath>

namespace mbdrom::app {

struct ComparisonResult;

/// x with `digits` significant digits, "-" when not finite.
inline QString compareNumber(double x, int digits = 4) {
  if (!std::isfinite(x)) return QStringLiteral("-");
  return QString::number(x, 'g', digits);
}

/// The sentence under the metrics table: what was compared, and every run that stopped early,
/// was slower than the full model or left its training envelope.
QString comparisonSummary(const ComparisonResult& r);

}  // namespace mbdrom::app
