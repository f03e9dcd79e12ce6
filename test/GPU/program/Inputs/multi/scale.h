// A program built from two files: the kernel and its launch live here,
// main() in main.cu (the --run test of program mode).
#pragma once
#include <cuda_runtime.h>
void launch_scale_add(float *y, const float *x, float a, int n);
