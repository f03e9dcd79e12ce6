// RUN: cuda-opt --passes='restrict-const' %s -o %t.cu 2>%t.err
// RUN: FileCheck %s < %t.cu
// RUN: FileCheck %s --check-prefix=NOTE < %t.err
// RUN: %cuda_compile %t.cu

// When aliasing cannot be ruled out at the launch sites, only const is
// added, and a note says why __restrict__ was not.

// NOTE-DAG: note: restrict-const: kernel 'from_params': added const only; __restrict__ is not proven: at the launch at {{.*}}restrict-const-unproven.cu:{{[0-9]+}}:3, 'src' is a parameter of the launching function, so where it points is decided by its callers
// NOTE-DAG: note: restrict-const: kernel 'offset': added const only; __restrict__ is not proven: at the launch at {{.*}}, argument 'buf + 1' is not a plain pointer variable
// NOTE-DAG: note: restrict-const: kernel 'same_twice': added const only; __restrict__ is not proven: at the launch at {{.*}}, 'buf' is passed twice
// NOTE-DAG: note: restrict-const: kernel 'unlaunched': added const only; __restrict__ is not proven: kernel 'unlaunched' is not launched in this file
// NOTE-DAG: note: restrict-const: kernel 'by_name': added const only; __restrict__ is not proven: kernel 'by_name' is extern "C", so it may be launched by name from outside this file
// NOTE-DAG: note: restrict-const: kernel 'reassigned': added const only; __restrict__ is not proven: at the launch at {{.*}}, 'other' is assigned at {{.*}} from something other than cudaMalloc
// NOTE-DAG: note: restrict-const: kernel 'via_global': added const only; __restrict__ is not proven: the kernel reads the global 'g_table' at {{.*}}, which may hold a pointer into an argument
// NOTE-DAG: note: restrict-const: kernel 'address_taken': added const only; __restrict__ is not proven: kernel 'address_taken' is referenced at {{.*}}, which may launch it with other arguments

// CHECK-LABEL: {{^}}__global__ void from_params(float *dst, const float *src) {
__global__ void from_params(float *dst, float *src) { dst[0] = src[1]; }

// CHECK-LABEL: {{^}}__global__ void offset(float *dst, const float *src) {
__global__ void offset(float *dst, float *src) { dst[0] = src[0]; }

// CHECK-LABEL: {{^}}__global__ void same_twice(float *dst, const float *src) {
__global__ void same_twice(float *dst, float *src) { dst[1] = src[0]; }

// CHECK-LABEL: {{^}}__global__ void unlaunched(float *dst, const float *src) {
__global__ void unlaunched(float *dst, float *src) { dst[0] = src[0]; }

// CHECK-LABEL: {{^}}extern "C" __global__ void by_name(float *dst, const float *src) {
extern "C" __global__ void by_name(float *dst, float *src) { dst[0] = src[0]; }

// CHECK-LABEL: {{^}}__global__ void reassigned(float *dst, const float *src) {
__global__ void reassigned(float *dst, float *src) { dst[0] = src[0]; }

__device__ float *g_table;
// CHECK-LABEL: {{^}}__global__ void via_global(float *dst, const float *src) {
__global__ void via_global(float *dst, float *src) { dst[0] = src[0] + g_table[0]; }

// CHECK-LABEL: {{^}}__global__ void address_taken(float *dst, const float *src) {
__global__ void address_taken(float *dst, float *src) { dst[0] = src[0]; }

void run(float *src, cudaStream_t s) {
  float *dst, *buf, *other;
  cudaMalloc(&dst, 64);
  cudaMalloc(&buf, 64);
  cudaMalloc(&other, 64);
  from_params<<<1, 1>>>(dst, src);
  offset<<<1, 1>>>(dst, buf + 1);
  same_twice<<<1, 1>>>(buf, buf);
  by_name<<<1, 1>>>(dst, buf);
  other = buf;
  reassigned<<<1, 1>>>(dst, other);
  via_global<<<1, 1>>>(dst, buf);
}

void run_by_address(cudaStream_t s) {
  float *dst, *src;
  cudaMalloc(&dst, 64);
  cudaMalloc(&src, 64);
  address_taken<<<1, 1>>>(dst, src);
  void *args[] = {&dst, &src};
  cudaLaunchKernel((const void *)address_taken, 1, 1, args, 0, s);
}
