// scale_add: y = a * x + y on the GPU, for n floats in device memory.
#pragma once
void scale_add(float *y, const float *x, float a, int n);
