#pragma once
/// @file
/// The two loops a network's forward pass spends its time in, written so that the compiler
/// vectorises them, in a version for AVX2 chosen at run time on processors that have it
/// (GCC on x86-64) besides the baseline one. The affine map rounds alike in every version; tanh
/// has a third for processors with fused multiply-adds, whose last bits may differ from the
/// others' (all within 4 units in the last place of std::tanh).

#include <cstddef>

namespace mbdrom::nn {

/// z = W x + b: W (rows x cols, column-major), x (cols), b and z (rows); z must not overlap the
/// others.
void affine(std::ptrdiff_t rows, std::ptrdiff_t cols, const double* W, const double* b, const double* x,
            double* z);

/// a = tanh(z), element-wise, n values (a may be z): within 4 units in the last place of
/// std::tanh, NaN kept, ±1 beyond |z| = 20; four to five times faster than std::tanh.
void tanhValues(const double* z, double* a, std::ptrdiff_t n);

}  // namespace mbdrom::nn
