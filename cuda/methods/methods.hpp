#pragma once
// One entry function per method file; registry.cpp lists them in order.
#include "gausslab/cuda/registry.hpp"

namespace gausslab {

MethodEntry cpu_separable_method();     // cpu_methods.cpp
MethodEntry cpu_openmp_method();        // cpu_methods.cpp
MethodEntry naive_2d_method();          // naive_2d.cu
MethodEntry shared_2d_method();         // shared_2d.cu
MethodEntry separable_shared_method();  // separable_shared.cu
MethodEntry separable_texture_method(); // separable_texture.cu
MethodEntry separable_fused_method();   // separable_fused.cu
MethodEntry fft_method();               // fft.cu
MethodEntry recursive_method();         // recursive.cu

}  // namespace gausslab
