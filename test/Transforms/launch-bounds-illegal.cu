// RUN: not cuda-opt --passes='launch-bounds' --kernel=dynamic %s -o %t.cu 2>&1 | FileCheck %s --check-prefix=DYN
// RUN: not cuda-opt --passes='launch-bounds{threads=128}' --kernel=fixed %s 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: not cuda-opt --passes='launch-bounds' --kernel=bounded %s 2>&1 | FileCheck %s --check-prefix=HAS
// RUN: not cuda-opt --passes='launch-bounds' --kernel=unlaunched %s 2>&1 | FileCheck %s --check-prefix=NOLAUNCH
// RUN: not test -e %t.cu

// DYN: error: pass 'launch-bounds{threads=0,blocks=0}' is not legal here:
// DYN-NEXT: kernel 'dynamic': the block size of the launch at {{.*}}launch-bounds-illegal.cu:21:3 is not a compile-time constant
// SMALL: kernel 'fixed': threads=128 is below the block size 256 used at a launch site
// HAS: kernel 'bounded' already has __launch_bounds__
// NOLAUNCH: kernel 'unlaunched' is not launched in this file, so its block size is unknown; give threads=N

__global__ void dynamic(float *p) { p[threadIdx.x] = 0.0f; }
__global__ void fixed(float *p) { p[threadIdx.x] = 1.0f; }
__global__ void __launch_bounds__(64) bounded(float *p) { p[threadIdx.x] = 2.0f; }
__global__ void unlaunched(float *p) { p[threadIdx.x] = 3.0f; }

void launch(float *p, int threads) {
  fixed<<<1, 256>>>(p);
  bounded<<<1, 64>>>(p);
  dynamic<<<1, threads>>>(p);
}
