#include "engine/core/quantile.h"

#include <catch2/catch.hpp>

using namespace mbdrom;

TEST_CASE("a quantile lies linearly between the order statistics, whatever the order given", "[quantile]") {
  CHECK(quantile({3.0}, 0.9) == 3.0);
  CHECK(quantile({4.0, 1.0, 3.0, 2.0}, 0.0) == 1.0);
  CHECK(quantile({4.0, 1.0, 3.0, 2.0}, 1.0) == 4.0);
  CHECK(quantile({4.0, 1.0, 3.0, 2.0}, 0.5) == Approx(2.5));
  // Ten figures 1 ... 10: the 90th percentile a tenth of the way from the ninth to the tenth.
  CHECK(quantile({10.0, 9.0, 8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0}, 0.9) == Approx(9.1));
}
