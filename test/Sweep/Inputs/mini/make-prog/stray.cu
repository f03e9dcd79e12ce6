#ifndef FROM_VARIANT
#error "built by Makefile_variant only"
#endif
__global__ void stray(int *p) { *p = 1; }
