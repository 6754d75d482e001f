#include "engine/nn/dense_kernels.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

// Versions of each loop for AVX-512 (x86-64-v4: eight doubles a vector, where the processor's
// units are that wide, twice AVX2's work per instruction) and AVX2, chosen when the program starts
// (GNU ifunc); the vectoriser's dynamic cost model, since -O2's cheapest one leaves these loops
// scalar. Each element's arithmetic is the same in every version of the product W x: unfused
// (fusing its sums made it slower, not faster) and in the engine's order, so all give the same
// bits. tanh's versions with fused multiply-adds (x86-64-v4 and -v3, the same bits): its
// polynomial's fourteen steps are a multiply and an add each, fused 1.6 times faster; a fused step
// rounds once, not twice, so its last bits differ from the unfused versions' (each within the
// stated 4 units in the last place).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define MBDROM_VECTOR_LOOP                                           \
  __attribute__((target_clones("arch=x86-64-v4", "avx2", "default"), \
                 optimize("vect-cost-model=dynamic", "fp-contract=off")))
#define MBDROM_FUSED_VECTOR_LOOP                                                       \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "avx2", "default"), \
                 optimize("vect-cost-model=dynamic", "fp-contract=fast")))
#else
#define MBDROM_VECTOR_LOOP
#define MBDROM_FUSED_VECTOR_LOOP
#endif

namespace mbdrom::nn {

MBDROM_VECTOR_LOOP void affine(std::ptrdiff_t rows, std::ptrdiff_t cols, const double* __restrict W,
                               const double* __restrict b, const double* __restrict x, double* __restrict z) {
  if (rows < 8) {  // a narrow output layer: a dot product per row, not a short loop per column
    for (std::ptrdiff_t i = 0; i < rows; ++i) {
      double sum = b[i];
      for (std::ptrdiff_t j = 0; j < cols; ++j) sum += W[j * rows + i] * x[j];
      z[i] = sum;
    }
    return;
  }
  // Four columns per pass over z: a third fewer loads and stores of z than one at a time.
  for (std::ptrdiff_t i = 0; i < rows; ++i) z[i] = b[i];
  std::ptrdiff_t j = 0;
  for (; j + 4 <= cols; j += 4) {
    const double x0 = x[j], x1 = x[j + 1], x2 = x[j + 2], x3 = x[j + 3];
    const double* __restrict w0 = W + j * rows;
    const double* __restrict w1 = w0 + rows;
    const double* __restrict w2 = w1 + rows;
    const double* __restrict w3 = w2 + rows;
    for (std::ptrdiff_t i = 0; i < rows; ++i) z[i] += (w0[i] * x0 + w1[i] * x1) + (w2[i] * x2 + w3[i] * x3);
  }
  for (; j < cols; ++j) {
    const double xj = x[j];
    const double* __restrict w = W + j * rows;
    for (std::ptrdiff_t i = 0; i < rows; ++i) z[i] += w[i] * xj;
  }
}

// tanh |z| = −expm1(−y) / (2 + expm1(−y)), y = 2 |z|: expm1(−y) = 2^−k (e^−r − 1) + (2^−k − 1)
// with k = round(y / ln 2) and |r| ≤ ln 2 / 2, e^−r − 1 by its Taylor polynomial (degree 13,
// truncation below 2e-16 relative), so that small z keep their relative accuracy. Branch-free
// (bit operations for the clamp, the sign and NaN) so that the loop vectorises.
MBDROM_FUSED_VECTOR_LOOP void tanhValues(const double* z, double* a, std::ptrdiff_t n) {
  constexpr double kLog2e = 1.4426950408889634074, kLn2Hi = 6.93147180369123816490e-01,
                   kLn2Lo = 1.90821492927058770002e-10, kRound = 0x1.8p52, kExponent = 0x1p52;
  constexpr std::uint64_t kSign = 0x8000000000000000ULL, kMagnitude = ~kSign,
                          kInfinity = 0x7ff0000000000000ULL;
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const std::uint64_t bits = std::bit_cast<std::uint64_t>(z[i]);
    // y = min(2 |z|, 40), compared as the bits of non-negative doubles: beyond, tanh rounds to 1.
    const double y = std::bit_cast<double>(
        std::min(std::bit_cast<std::uint64_t>(2.0 * std::fabs(z[i])), std::bit_cast<std::uint64_t>(40.0)));
    const double k = (y * kLog2e + kRound) - kRound;
    const double s = k * kLn2Lo - (y - k * kLn2Hi);  // −r
    double p = 1.0 / 6227020800.0;
    p = p * s + 1.0 / 479001600.0;
    p = p * s + 1.0 / 39916800.0;
    p = p * s + 1.0 / 3628800.0;
    p = p * s + 1.0 / 362880.0;
    p = p * s + 1.0 / 40320.0;
    p = p * s + 1.0 / 5040.0;
    p = p * s + 1.0 / 720.0;
    p = p * s + 1.0 / 120.0;
    p = p * s + 1.0 / 24.0;
    p = p * s + 1.0 / 6.0;
    p = p * s + 0.5;
    p = p * s + 1.0;
    p = p * s;  // e^−r − 1
    const double twoK = std::bit_cast<double>(
        (std::bit_cast<std::uint64_t>((1023.0 - k) + kExponent) - std::bit_cast<std::uint64_t>(kExponent))
        << 52);
    const double em1 = twoK * p + (twoK - 1.0);  // ≤ 0
    const std::uint64_t t = std::bit_cast<std::uint64_t>(std::fabs(em1) / (2.0 + em1)) | (bits & kSign);
    const std::uint64_t nan = 0 - static_cast<std::uint64_t>((bits & kMagnitude) > kInfinity);
    a[i] = std::bit_cast<double>((t & ~nan) | (bits & nan));
  }
}

}  // namespace mbdrom::nn
