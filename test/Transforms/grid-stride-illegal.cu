// RUN: not cuda-opt --passes='grid-stride' --kernel=shared %s 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: not cuda-opt --passes='grid-stride' --kernel=tid %s 2>&1 | FileCheck %s --check-prefix=TID
// RUN: not cuda-opt --passes='grid-stride' --kernel=floor %s 2>&1 | FileCheck %s --check-prefix=FLOOR
// RUN: not cuda-opt --passes='grid-stride' --kernel=mismatch %s 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: not cuda-opt --passes='grid-stride' --kernel=unguarded %s 2>&1 | FileCheck %s --check-prefix=NOGUARD
// RUN: not cuda-opt --passes='grid-stride' --kernel=macro %s 2>&1 | FileCheck %s --check-prefix=MACRO
// RUN: not cuda-opt --passes='grid-stride' --kernel=loopret %s 2>&1 | FileCheck %s --check-prefix=LOOPRET

// SHARED: kernel 'shared': kernel 'shared' uses __shared__ memory ('tile' at {{.*}}:[[@LINE+4]]:{{[0-9]+}}), so its threads do not work independently
__global__ void shared(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    __shared__ float tile[256];
    tile[0] = p[i];
    p[i] = tile[0];
  }
}

// TID: kernel 'tid': kernel 'tid' reads threadIdx at {{.*}}:[[@LINE+4]]:{{[0-9]+}} inside its per-element work; only the index may depend on the thread
__global__ void tid(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = threadIdx.x;
}

// FLOOR: kernel 'floor': the grid of the launch at {{.*}} is 'n / 256', not a ceil-div of the work size by the block size like '(n + 255) / 256', so the work size cannot be recovered
__global__ void floor(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = 0.0f;
}

// MISMATCH: kernel 'mismatch': the grid of the launch at {{.*}} is sized for 'm' elements but the kernel's bound 'n' is passed 'n', so cuda-opt cannot show that the grid covers exactly the work
__global__ void mismatch(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = 1.0f;
}

// NOGUARD: kernel 'unguarded': the statement at {{.*}} follows the index but is not a bounds guard 'if (i < n)'
__global__ void unguarded(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  p[i] = 2.0f;
}

// MACRO: kernel 'macro': the launch at {{.*}} is written inside a macro; cuda-opt does not edit macro expansions
__global__ void macro(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = 3.0f;
}
#define LAUNCH_MACRO(p, n) macro<<<((n) + 255) / 256, 256>>>(p, n)

// LOOPRET: kernel 'loopret': the per-element work returns from inside a loop at {{.*}}, which cannot become 'continue' of the new loop
__global__ void loopret(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int k = 0; k < 4; ++k)
      if (p[i] > k)
        return;
}

void run(float *p, int n, int m) {
  shared<<<(n + 255) / 256, 256>>>(p, n);
  tid<<<(n + 255) / 256, 256>>>(p, n);
  floor<<<n / 256, 256>>>(p, n);
  mismatch<<<(m + 255) / 256, 256>>>(p, n);
  unguarded<<<(n + 255) / 256, 256>>>(p, n);
  LAUNCH_MACRO(p, n);
  loopret<<<(n + 255) / 256, 256>>>(p, n);
}
