// Broadcast operands vectorize refuses, and why.
// RUN: not cuda-opt --passes='vectorize' --kernel=written %s 2>&1 | FileCheck %s --check-prefix=WRITTEN
// RUN: not cuda-opt --passes='vectorize' --kernel=stored %s 2>&1 | FileCheck %s --check-prefix=STORED
// RUN: not cuda-opt --passes='vectorize' --kernel=local_mod %s 2>&1 | FileCheck %s --check-prefix=LOCAL
// RUN: not cuda-opt --passes='vectorize' --kernel=assigned %s 2>&1 | FileCheck %s --check-prefix=ASSIGNED
// RUN: not cuda-opt --passes='vectorize' --kernel=odd_const %s 2>&1 | FileCheck %s --check-prefix=ODD
// RUN: not cuda-opt --passes='vectorize' --kernel=aliased %s 2>&1 | FileCheck %s --check-prefix=ALIASED
// RUN: not cuda-opt --passes='vectorize' --kernel=shifted_mod %s 2>&1 | FileCheck %s --check-prefix=SHIFTED

// The broadcast array itself is written.
// WRITTEN: kernel 'written': the access 'bias[i % cols]' at {{.*}} is written; vectorize reads 'p[i % C]' and 'p[i / C]' as broadcasts, only from arrays the kernel does not write
__global__ void written(float *__restrict__ out, float *__restrict__ bias,
                        int cols, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = bias[i % cols];
    bias[i % cols] = 0.0f;
  }
}

// Read as a broadcast and stored as the thread's own element: other threads
// read the element this one writes.
// STORED: kernel 'stored': 'p' is read as a broadcast ('p[i % cols]' at {{.*}}), but 'p' is written through at {{.*}}; vectorize broadcasts only arrays the kernel does not write
__global__ void stored(float *__restrict__ p, int cols, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = 2.0f * p[i % cols];
}

// A divisor computed in the kernel cannot be tested once before the work.
// LOCAL: kernel 'local_mod': the access 'bias[i % (j + 1)]' at {{.*}} divides its index by '(j + 1)', which is neither a constant nor an integer parameter of the kernel
__global__ void local_mod(float *__restrict__ out,
                          const float *__restrict__ bias, int cols, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int j = cols * 2;
    out[i] = bias[i % (j + 1)];
  }
}

// A parameter divisor the kernel changes.
// ASSIGNED: kernel 'assigned': the access 'bias[i % cols]' at {{.*}} divides its index by parameter 'cols', which the kernel assigns at {{.*}}
__global__ void assigned(float *__restrict__ out,
                         const float *__restrict__ bias, int cols, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = bias[i % cols];
    cols += 1;
  }
}

// A constant divisor that is not a multiple of the width: the vector path
// could never run.
// ODD: kernel 'odd_const': the access 'bias[i % 6]' at {{.*}} divides its index by 6, not a multiple of the width 4, so the 4 elements of a vector do not map to consecutive elements of 'bias'
__global__ void odd_const(float *__restrict__ out,
                          const float *__restrict__ bias, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = bias[i % 6];
}

// Nothing shows that 'out' and 'bias' do not overlap.
// ALIASED: kernel 'aliased': 'bias' is read as a broadcast ('bias[i % cols]' at {{.*}}) and may alias 'out', which the kernel writes through; vectorize needs one of them __restrict__ (restrict-const adds it when every launch passes distinct allocations)
__global__ void aliased(float *out, const float *in, const float *bias,
                        int cols, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + bias[i % cols];
}

// Only `i % C` and `i / C` themselves are broadcasts.
// SHIFTED: kernel 'shifted_mod': the access 'bias[(i + 1) % cols]' at {{.*}} is not 'p[i]' on a pointer parameter p, so its elements are not the thread's own (nor a broadcast 'p[i % C]' or 'p[i / C]')
__global__ void shifted_mod(float *__restrict__ out,
                            const float *__restrict__ bias, int cols, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = bias[(i + 1) % cols];
}

void run(float *f, float *g, float *h, int cols, int n) {
  written<<<(n + 255) / 256, 256>>>(f, g, cols, n);
  stored<<<(n + 255) / 256, 256>>>(f, cols, n);
  local_mod<<<(n + 255) / 256, 256>>>(f, g, cols, n);
  assigned<<<(n + 255) / 256, 256>>>(f, g, cols, n);
  odd_const<<<(n + 255) / 256, 256>>>(f, g, n);
  aliased<<<(n + 255) / 256, 256>>>(f, g, h, cols, n);
  shifted_mod<<<(n + 255) / 256, 256>>>(f, g, cols, n);
}
