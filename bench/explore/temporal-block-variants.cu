// temporal-block-variants.cu - explore: the kernel temporal-block emits for
// stencil5_iter (sweeps=5, 64 x 64) and a hand variant with vertical pairs
// of cells per thread, timed on one launch. Regenerate the first with
// cuda-opt --passes='temporal-block{sweeps=5,tile=64,rows=64}'.
#include <cuda_runtime.h>
/// Added by cuda-opt temporal-block: 5 sweeps of 'jacobi' per launch. Each
/// block owns 64 x 64 cells; it loads them with a halo of 5 cells (sweeps x
/// radius 1) into shared memory, runs sweep s on the cells at least s x radius
/// inside the tile's edge, and stores its own cells from the last sweep. The
/// cell update is 'jacobi''s own.
__global__ void __launch_bounds__(256)
    jacobi_tb(float *next, const float *cur, int nx, int ny) {
  constexpr int cudaopt_halo = 5;
  constexpr int cudaopt_w = 64 + 2 * cudaopt_halo,
                cudaopt_h = 64 + 2 * cudaopt_halo;
  __shared__ float cudaopt_tile[2][cudaopt_h][cudaopt_w];
  const int cudaopt_x0 = (int)blockIdx.x * 64 - cudaopt_halo;
  const int cudaopt_y0 = (int)blockIdx.y * 64 - cudaopt_halo;
  for (int cudaopt_c = threadIdx.x; cudaopt_c < cudaopt_w * cudaopt_h;
       cudaopt_c += 256) {
    const int cudaopt_ly = cudaopt_c / cudaopt_w,
              cudaopt_lx = cudaopt_c % cudaopt_w;
    const int cudaopt_gx = cudaopt_x0 + cudaopt_lx,
              cudaopt_gy = cudaopt_y0 + cudaopt_ly;
    if (cudaopt_gx >= 0 && cudaopt_gy >= 0 && cudaopt_gx < nx &&
        cudaopt_gy < ny)
      cudaopt_tile[0][cudaopt_ly][cudaopt_lx] =
          cur[(size_t)cudaopt_gy * nx + cudaopt_gx];
  }
  __syncthreads();
  const int cudaopt_tx = threadIdx.x % 32, cudaopt_ty = threadIdx.x / 32;
  const bool cudaopt_inside = cudaopt_x0 >= 0 && cudaopt_y0 >= 0 &&
                              cudaopt_x0 + cudaopt_w <= nx &&
                              cudaopt_y0 + cudaopt_h <= ny;
  // Sweeps 1 .. 4 stay in shared memory, each on a smaller tile.
#pragma unroll
  for (int cudaopt_s = 1; cudaopt_s < 5; ++cudaopt_s) {
    const int cudaopt_m = cudaopt_s * 1;
    for (int cudaopt_ly = cudaopt_m + cudaopt_ty;
         cudaopt_ly < cudaopt_h - cudaopt_m; cudaopt_ly += 8)
      for (int cudaopt_lx = cudaopt_m + cudaopt_tx;
           cudaopt_lx < cudaopt_w - cudaopt_m; cudaopt_lx += 32) {
        const int cudaopt_gx = cudaopt_x0 + cudaopt_lx,
                  cudaopt_gy = cudaopt_y0 + cudaopt_ly;
        if (cudaopt_inside || (cudaopt_gx >= 0 && cudaopt_gy >= 0 &&
                               cudaopt_gx < nx && cudaopt_gy < ny)) {
          int x = cudaopt_gx;
          int y = cudaopt_gy;
          {
            int i = y * nx + x;
            if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
              cudaopt_tile[cudaopt_s & 1][cudaopt_ly][cudaopt_lx] =
                  cudaopt_tile[(cudaopt_s - 1) & 1][cudaopt_ly][cudaopt_lx];
            else
              cudaopt_tile[cudaopt_s & 1][cudaopt_ly][cudaopt_lx] =
                  0.5f * cudaopt_tile[(cudaopt_s - 1) & 1][cudaopt_ly]
                                     [cudaopt_lx] +
                  0.125f * (cudaopt_tile[(cudaopt_s - 1) & 1][cudaopt_ly]
                                        [cudaopt_lx - 1] +
                            cudaopt_tile[(cudaopt_s - 1) & 1][cudaopt_ly]
                                        [cudaopt_lx + 1] +
                            cudaopt_tile[(cudaopt_s - 1) & 1][cudaopt_ly - 1]
                                        [cudaopt_lx] +
                            cudaopt_tile[(cudaopt_s - 1) & 1][cudaopt_ly + 1]
                                        [cudaopt_lx]);
          }
        }
      }
    __syncthreads();
  }
  // The last sweep stores the block's own cells.
  for (int cudaopt_ly = cudaopt_halo + cudaopt_ty;
       cudaopt_ly < cudaopt_h - cudaopt_halo; cudaopt_ly += 8)
    for (int cudaopt_lx = cudaopt_halo + cudaopt_tx;
         cudaopt_lx < cudaopt_w - cudaopt_halo; cudaopt_lx += 32) {
      const int cudaopt_gx = cudaopt_x0 + cudaopt_lx,
                cudaopt_gy = cudaopt_y0 + cudaopt_ly;
      if (cudaopt_inside || (cudaopt_gx >= 0 && cudaopt_gy >= 0 &&
                             cudaopt_gx < nx && cudaopt_gy < ny)) {
        int x = cudaopt_gx;
        int y = cudaopt_gy;
        {
          int i = y * nx + x;
          if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
            next[i] = cudaopt_tile[0][cudaopt_ly][cudaopt_lx];
          else
            next[i] = 0.5f * cudaopt_tile[0][cudaopt_ly][cudaopt_lx] +
                      0.125f * (cudaopt_tile[0][cudaopt_ly][cudaopt_lx - 1] +
                                cudaopt_tile[0][cudaopt_ly][cudaopt_lx + 1] +
                                cudaopt_tile[0][cudaopt_ly - 1][cudaopt_lx] +
                                cudaopt_tile[0][cudaopt_ly + 1][cudaopt_lx]);
        }
      }
    }
}


/// Added by cuda-opt temporal-block: 5 sweeps of 'jacobi' per launch. Each
/// block owns 64 x 64 cells; it loads them with a halo of 5 cells (sweeps x
/// radius 1) into shared memory, runs sweep s on the cells at least s x radius
/// inside the tile's edge, and stores its own cells from the last sweep. The
/// cell update is 'jacobi''s own.
__global__ void __launch_bounds__(256)
    jacobi_tb_pairs(float *next, const float *cur, int nx, int ny) {
  constexpr int cudaopt_halo = 5;
  constexpr int cudaopt_w = 64 + 2 * cudaopt_halo,
                cudaopt_h = 64 + 2 * cudaopt_halo;
  __shared__ float cudaopt_tile[2][cudaopt_h][cudaopt_w];
  const int cudaopt_x0 = (int)blockIdx.x * 64 - cudaopt_halo;
  const int cudaopt_y0 = (int)blockIdx.y * 64 - cudaopt_halo;
  for (int cudaopt_c = threadIdx.x; cudaopt_c < cudaopt_w * cudaopt_h;
       cudaopt_c += 256) {
    const int cudaopt_ly = cudaopt_c / cudaopt_w,
              cudaopt_lx = cudaopt_c % cudaopt_w;
    const int cudaopt_gx = cudaopt_x0 + cudaopt_lx,
              cudaopt_gy = cudaopt_y0 + cudaopt_ly;
    if (cudaopt_gx >= 0 && cudaopt_gy >= 0 && cudaopt_gx < nx &&
        cudaopt_gy < ny)
      cudaopt_tile[0][cudaopt_ly][cudaopt_lx] =
          cur[(size_t)cudaopt_gy * nx + cudaopt_gx];
  }
  __syncthreads();
  const int cudaopt_tx = threadIdx.x % 32, cudaopt_ty = threadIdx.x / 32;
  const bool cudaopt_inside = cudaopt_x0 >= 0 && cudaopt_y0 >= 0 &&
                              cudaopt_x0 + cudaopt_w <= nx &&
                              cudaopt_y0 + cudaopt_h <= ny;
  // Sweeps 1 .. 4 stay in shared memory, each on a smaller tile.
#pragma unroll
  for (int cudaopt_s = 1; cudaopt_s < 5; ++cudaopt_s) {
    const int cudaopt_m = cudaopt_s * 1;
    for (int cudaopt_ly0 = cudaopt_m + 2 * cudaopt_ty;
         cudaopt_ly0 < cudaopt_h - cudaopt_m; cudaopt_ly0 += 16)
#pragma unroll
      for (int cudaopt_ly = cudaopt_ly0; cudaopt_ly < cudaopt_ly0 + 2 && cudaopt_ly < cudaopt_h - cudaopt_m; ++cudaopt_ly)
      for (int cudaopt_lx = cudaopt_m + cudaopt_tx;
           cudaopt_lx < cudaopt_w - cudaopt_m; cudaopt_lx += 32) {
        const int cudaopt_gx = cudaopt_x0 + cudaopt_lx,
                  cudaopt_gy = cudaopt_y0 + cudaopt_ly;
        if (cudaopt_inside || (cudaopt_gx >= 0 && cudaopt_gy >= 0 &&
                               cudaopt_gx < nx && cudaopt_gy < ny)) {
          int x = cudaopt_gx;
          int y = cudaopt_gy;
          {
            int i = y * nx + x;
            if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
              cudaopt_tile[cudaopt_s & 1][cudaopt_ly][cudaopt_lx] =
                  cudaopt_tile[(cudaopt_s - 1) & 1][cudaopt_ly][cudaopt_lx];
            else
              cudaopt_tile[cudaopt_s & 1][cudaopt_ly][cudaopt_lx] =
                  0.5f * cudaopt_tile[(cudaopt_s - 1) & 1][cudaopt_ly]
                                     [cudaopt_lx] +
                  0.125f * (cudaopt_tile[(cudaopt_s - 1) & 1][cudaopt_ly]
                                        [cudaopt_lx - 1] +
                            cudaopt_tile[(cudaopt_s - 1) & 1][cudaopt_ly]
                                        [cudaopt_lx + 1] +
                            cudaopt_tile[(cudaopt_s - 1) & 1][cudaopt_ly - 1]
                                        [cudaopt_lx] +
                            cudaopt_tile[(cudaopt_s - 1) & 1][cudaopt_ly + 1]
                                        [cudaopt_lx]);
          }
        }
      }
    __syncthreads();
  }
  // The last sweep stores the block's own cells.
  for (int cudaopt_ly = cudaopt_halo + cudaopt_ty;
       cudaopt_ly < cudaopt_h - cudaopt_halo; cudaopt_ly += 8)
    for (int cudaopt_lx = cudaopt_halo + cudaopt_tx;
         cudaopt_lx < cudaopt_w - cudaopt_halo; cudaopt_lx += 32) {
      const int cudaopt_gx = cudaopt_x0 + cudaopt_lx,
                cudaopt_gy = cudaopt_y0 + cudaopt_ly;
      if (cudaopt_inside || (cudaopt_gx >= 0 && cudaopt_gy >= 0 &&
                             cudaopt_gx < nx && cudaopt_gy < ny)) {
        int x = cudaopt_gx;
        int y = cudaopt_gy;
        {
          int i = y * nx + x;
          if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
            next[i] = cudaopt_tile[0][cudaopt_ly][cudaopt_lx];
          else
            next[i] = 0.5f * cudaopt_tile[0][cudaopt_ly][cudaopt_lx] +
                      0.125f * (cudaopt_tile[0][cudaopt_ly][cudaopt_lx - 1] +
                                cudaopt_tile[0][cudaopt_ly][cudaopt_lx + 1] +
                                cudaopt_tile[0][cudaopt_ly - 1][cudaopt_lx] +
                                cudaopt_tile[0][cudaopt_ly + 1][cudaopt_lx]);
        }
      }
    }
}

// Variant F: an interior fast path (__builtin_assume of the interior).
template <bool Interior>
__device__ __forceinline__ void jacobi_sweeps(float (&cudaopt_tile)[2][74][74], float *next, int nx, int ny, int cudaopt_x0, int cudaopt_y0) {
  constexpr int cudaopt_halo = 5;
  constexpr int cudaopt_w = 64 + 2 * cudaopt_halo, cudaopt_h = 64 + 2 * cudaopt_halo;
  const int cudaopt_tx = threadIdx.x % 32, cudaopt_ty = threadIdx.x / 32;
  const bool cudaopt_inside = cudaopt_x0 >= 0 && cudaopt_y0 >= 0 &&
                              cudaopt_x0 + cudaopt_w <= nx &&
                              cudaopt_y0 + cudaopt_h <= ny;
  // Sweeps 1 .. 4 stay in shared memory, each on a smaller tile.
#pragma unroll
  for (int cudaopt_s = 1; cudaopt_s < 5; ++cudaopt_s) {
    const int cudaopt_m = cudaopt_s * 1;
    for (int cudaopt_ly = cudaopt_m + cudaopt_ty;
         cudaopt_ly < cudaopt_h - cudaopt_m; cudaopt_ly += 8)
      for (int cudaopt_lx = cudaopt_m + cudaopt_tx;
           cudaopt_lx < cudaopt_w - cudaopt_m; cudaopt_lx += 32) {
        const int cudaopt_gx = cudaopt_x0 + cudaopt_lx,
                  cudaopt_gy = cudaopt_y0 + cudaopt_ly;
        if (Interior || cudaopt_inside || (cudaopt_gx >= 0 && cudaopt_gy >= 0 &&
                               cudaopt_gx < nx && cudaopt_gy < ny)) {
          int x = cudaopt_gx;
          int y = cudaopt_gy;
          if (Interior)
            __builtin_assume(x >= 1 && y >= 1 && x <= nx - 2 && y <= ny - 2);
          {
            int i = y * nx + x;
            if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
              cudaopt_tile[cudaopt_s & 1][cudaopt_ly][cudaopt_lx] =
                  cudaopt_tile[(cudaopt_s - 1) & 1][cudaopt_ly][cudaopt_lx];
            else
              cudaopt_tile[cudaopt_s & 1][cudaopt_ly][cudaopt_lx] =
                  0.5f * cudaopt_tile[(cudaopt_s - 1) & 1][cudaopt_ly]
                                     [cudaopt_lx] +
                  0.125f * (cudaopt_tile[(cudaopt_s - 1) & 1][cudaopt_ly]
                                        [cudaopt_lx - 1] +
                            cudaopt_tile[(cudaopt_s - 1) & 1][cudaopt_ly]
                                        [cudaopt_lx + 1] +
                            cudaopt_tile[(cudaopt_s - 1) & 1][cudaopt_ly - 1]
                                        [cudaopt_lx] +
                            cudaopt_tile[(cudaopt_s - 1) & 1][cudaopt_ly + 1]
                                        [cudaopt_lx]);
          }
        }
      }
    __syncthreads();
  }
  // The last sweep stores the block's own cells.
  for (int cudaopt_ly = cudaopt_halo + cudaopt_ty;
       cudaopt_ly < cudaopt_h - cudaopt_halo; cudaopt_ly += 8)
    for (int cudaopt_lx = cudaopt_halo + cudaopt_tx;
         cudaopt_lx < cudaopt_w - cudaopt_halo; cudaopt_lx += 32) {
      const int cudaopt_gx = cudaopt_x0 + cudaopt_lx,
                cudaopt_gy = cudaopt_y0 + cudaopt_ly;
      if (Interior || cudaopt_inside || (cudaopt_gx >= 0 && cudaopt_gy >= 0 &&
                             cudaopt_gx < nx && cudaopt_gy < ny)) {
        int x = cudaopt_gx;
        int y = cudaopt_gy;
        if (Interior)
          __builtin_assume(x >= 1 && y >= 1 && x <= nx - 2 && y <= ny - 2);
        {
          int i = y * nx + x;
          if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
            next[i] = cudaopt_tile[0][cudaopt_ly][cudaopt_lx];
          else
            next[i] = 0.5f * cudaopt_tile[0][cudaopt_ly][cudaopt_lx] +
                      0.125f * (cudaopt_tile[0][cudaopt_ly][cudaopt_lx - 1] +
                                cudaopt_tile[0][cudaopt_ly][cudaopt_lx + 1] +
                                cudaopt_tile[0][cudaopt_ly - 1][cudaopt_lx] +
                                cudaopt_tile[0][cudaopt_ly + 1][cudaopt_lx]);
        }
      }
    }
}

__global__ void __launch_bounds__(256)
    jacobi_tb_interior(float *next, const float *cur, int nx, int ny) {
  constexpr int cudaopt_halo = 5;
  constexpr int cudaopt_w = 64 + 2 * cudaopt_halo,
                cudaopt_h = 64 + 2 * cudaopt_halo;
  __shared__ float cudaopt_tile[2][cudaopt_h][cudaopt_w];
  const int cudaopt_x0 = (int)blockIdx.x * 64 - cudaopt_halo;
  const int cudaopt_y0 = (int)blockIdx.y * 64 - cudaopt_halo;
  for (int cudaopt_c = threadIdx.x; cudaopt_c < cudaopt_w * cudaopt_h;
       cudaopt_c += 256) {
    const int cudaopt_ly = cudaopt_c / cudaopt_w,
              cudaopt_lx = cudaopt_c % cudaopt_w;
    const int cudaopt_gx = cudaopt_x0 + cudaopt_lx,
              cudaopt_gy = cudaopt_y0 + cudaopt_ly;
    if (cudaopt_gx >= 0 && cudaopt_gy >= 0 && cudaopt_gx < nx &&
        cudaopt_gy < ny)
      cudaopt_tile[0][cudaopt_ly][cudaopt_lx] =
          cur[(size_t)cudaopt_gy * nx + cudaopt_gx];
  }
  __syncthreads();
  // Interior: the whole tile lies at least one cell inside the grid, so no
  // cell of it is on the grid's border (the kernel's own test is false).
  const bool cudaopt_interior = cudaopt_x0 >= 1 && cudaopt_y0 >= 1 &&
                                cudaopt_x0 + cudaopt_w <= nx - 1 &&
                                cudaopt_y0 + cudaopt_h <= ny - 1;
  if (cudaopt_interior)
    jacobi_sweeps<true>(cudaopt_tile, next, nx, ny, cudaopt_x0, cudaopt_y0);
  else
    jacobi_sweeps<false>(cudaopt_tile, next, nx, ny, cudaopt_x0, cudaopt_y0);
}

// Variant H: each thread walks a segment of one column per sweep, keeping
// the centre column's up / centre / down values in registers, so a cell
// costs 3 shared-memory loads and 1 store instead of 5 and 1 (the sum keeps
// the kernel's order: bitwise equal). With the interior path of F.
template <bool Interior, bool Store>
__device__ __forceinline__ void jacobi_window_sweep(
    const float (*src)[74], float (*dst)[74], float *next, int nx, int ny,
    int x0, int y0, int m, bool inside) {
  const int tx = threadIdx.x % 32, ty = threadIdx.x / 32;
  const int per = (74 - 2 * m + 7) / 8;
  const int ly0 = m + ty * per, ly1 = min(74 - m, ly0 + per);
  if (ly0 >= ly1)
    return;
  for (int lx = m + tx; lx < 74 - m; lx += 32) {
    float up = src[ly0 - 1][lx], c = src[ly0][lx];
    for (int ly = ly0; ly < ly1; ++ly) {
      const float dn = src[ly + 1][lx];
      const int x = x0 + lx, y = y0 + ly;
      if (Interior || inside || (x >= 0 && y >= 0 && x < nx && y < ny)) {
        float v;
        if (!Interior && (x == 0 || y == 0 || x == nx - 1 || y == ny - 1))
          v = c;
        else
          v = 0.5f * c + 0.125f * (src[ly][lx - 1] + src[ly][lx + 1] + up + dn);
        if (Store)
          next[y * nx + x] = v;
        else
          dst[ly][lx] = v;
      }
      up = c;
      c = dn;
    }
  }
}
template <bool Interior>
__device__ __forceinline__ void jacobi_window_sweeps(float (&t)[2][74][74],
                                                     float *next, int nx,
                                                     int ny, int x0, int y0) {
  const bool inside = x0 >= 0 && y0 >= 0 && x0 + 74 <= nx && y0 + 74 <= ny;
#pragma unroll
  for (int s = 1; s < 5; ++s) {
    jacobi_window_sweep<Interior, false>(t[(s - 1) & 1], t[s & 1], next, nx,
                                         ny, x0, y0, s, inside);
    __syncthreads();
  }
  jacobi_window_sweep<Interior, true>(t[0], t[1], next, nx, ny, x0, y0, 5,
                                      inside);
}
__global__ void __launch_bounds__(256)
    jacobi_tb_window(float *next, const float *cur, int nx, int ny) {
  __shared__ float t[2][74][74];
  const int x0 = (int)blockIdx.x * 64 - 5, y0 = (int)blockIdx.y * 64 - 5;
  for (int c = threadIdx.x; c < 74 * 74; c += 256) {
    const int ly = c / 74, lx = c % 74, gx = x0 + lx, gy = y0 + ly;
    if (gx >= 0 && gy >= 0 && gx < nx && gy < ny)
      t[0][ly][lx] = cur[(size_t)gy * nx + gx];
  }
  __syncthreads();
  if (x0 >= 1 && y0 >= 1 && x0 + 74 <= nx - 1 && y0 + 74 <= ny - 1)
    jacobi_window_sweeps<true>(t, next, nx, ny, x0, y0);
  else
    jacobi_window_sweeps<false>(t, next, nx, ny, x0, y0);
}

// Variant G: persistent blocks that prefetch the next tile with cp.async
// while the current one sweeps (the load phase overlapped with the shared-
// memory sweeps of the same block). Buffers: two load buffers and one
// scratch; sweeps ping-pong between the tile's load buffer and the scratch.
#include <cuda_pipeline.h>
constexpr int kHalo = 5, kTile = 64, kW = kTile + 2 * kHalo;
__device__ __forceinline__ void jacobi_issue_load(float *buf, const float *cur,
                                                  int nx, int ny, int x0,
                                                  int y0) {
  for (int c = threadIdx.x; c < kW * kW; c += 256) {
    int ly = c / kW, lx = c % kW, gx = x0 + lx, gy = y0 + ly;
    bool in = gx >= 0 && gy >= 0 && gx < nx && gy < ny;
    __pipeline_memcpy_async(&buf[c], in ? &cur[(size_t)gy * nx + gx] : cur, 4,
                            in ? 0 : 4);
  }
  __pipeline_commit();
}
template <bool Store>
__device__ __forceinline__ void jacobi_sweep(const float *src, float *dst,
                                             float *next, int nx, int ny,
                                             int x0, int y0, int m,
                                             bool inside) {
  const int tx = threadIdx.x % 32, ty = threadIdx.x / 32;
  for (int ly = m + ty; ly < kW - m; ly += 8)
    for (int lx = m + tx; lx < kW - m; lx += 32) {
      int x = x0 + lx, y = y0 + ly;
      if (inside || (x >= 0 && y >= 0 && x < nx && y < ny)) {
        int c = ly * kW + lx;
        float v;
        if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
          v = src[c];
        else
          v = 0.5f * src[c] + 0.125f * (src[c - 1] + src[c + 1] + src[c - kW] +
                                        src[c + kW]);
        if (Store)
          next[(size_t)y * nx + x] = v;
        else
          dst[c] = v;
      }
    }
}
__global__ void __launch_bounds__(256)
    jacobi_tb_pipe(float *next, const float *cur, int nx, int ny) {
  extern __shared__ float smem[];
  float *load[2] = {smem, smem + kW * kW};
  float *scratch = smem + 2 * kW * kW;
  const int tilesX = (nx + kTile - 1) / kTile, tilesY = (ny + kTile - 1) / kTile;
  const int tiles = tilesX * tilesY;
  int t = blockIdx.x, k = 0;
  if (t < tiles)
    jacobi_issue_load(load[0], cur, nx, ny, (t % tilesX) * kTile - kHalo,
                      (t / tilesX) * kTile - kHalo);
  for (; t < tiles; t += gridDim.x, k ^= 1) {
    int n = t + gridDim.x;
    if (n < tiles) {
      jacobi_issue_load(load[k ^ 1], cur, nx, ny, (n % tilesX) * kTile - kHalo,
                        (n / tilesX) * kTile - kHalo);
      __pipeline_wait_prior(1);
    } else {
      __pipeline_wait_prior(0);
    }
    __syncthreads();
    int x0 = (t % tilesX) * kTile - kHalo, y0 = (t / tilesX) * kTile - kHalo;
    bool inside = x0 >= 0 && y0 >= 0 && x0 + kW <= nx && y0 + kW <= ny;
    float *a = load[k], *b = scratch;
    jacobi_sweep<false>(a, b, next, nx, ny, x0, y0, 1, inside);
    __syncthreads();
    jacobi_sweep<false>(b, a, next, nx, ny, x0, y0, 2, inside);
    __syncthreads();
    jacobi_sweep<false>(a, b, next, nx, ny, x0, y0, 3, inside);
    __syncthreads();
    jacobi_sweep<false>(b, a, next, nx, ny, x0, y0, 4, inside);
    __syncthreads();
    jacobi_sweep<true>(a, b, next, nx, ny, x0, y0, 5, inside);
    __syncthreads();
  }
}

// Timing harness (explore, not a product path): the generated 5-sweep kernel
// as tune emits it against hand variants, on 8192^2, events, median of 20.
#include <cstdio>
#include <vector>
#include <algorithm>
template <typename F> float timeit(F f) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> t;
  for (int r = 0; r < 23; ++r) {
    cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b); if (r >= 3) t.push_back(ms);
  }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
int main() {
  const int nx = 8192, ny = 8192; size_t n = (size_t)nx * ny;
  float *cur, *next, *ref;
  cudaMalloc(&cur, n * 4); cudaMalloc(&next, n * 4); cudaMalloc(&ref, n * 4);
  std::vector<float> h(n); for (size_t i = 0; i < n; ++i) h[i] = (float)((i * 2654435761u) % 1000) / 1000.0f;
  cudaMemcpy(cur, h.data(), n * 4, cudaMemcpyHostToDevice);
  dim3 g((nx + 63) / 64, (ny + 63) / 64);
  float t0 = timeit([&] { jacobi_tb<<<g, 256>>>(next, cur, nx, ny); });
  cudaMemcpy(ref, next, n * 4, cudaMemcpyDeviceToDevice);
  std::vector<float> a(n), b(n);
  cudaMemcpy(a.data(), ref, n * 4, cudaMemcpyDeviceToHost);
  printf("jacobi_tb (5 sweeps, 64x64): %.4f ms\n", t0);
  auto check = [&](const char *name, float t) {
    cudaMemcpy(b.data(), next, n * 4, cudaMemcpyDeviceToHost);
    bool same = std::equal(a.begin(), a.end(), b.begin());
    printf("%s: %.4f ms (%s)\n", name, t, same ? "bitwise equal" : "DIFFERENT");
  };
  cudaMemset(next, 0, n * 4);
  check("jacobi_tb_pairs", timeit([&] { jacobi_tb_pairs<<<g, 256>>>(next, cur, nx, ny); }));
  cudaMemset(next, 0, n * 4);
  check("jacobi_tb_interior", timeit([&] { jacobi_tb_interior<<<g, 256>>>(next, cur, nx, ny); }));
  cudaMemset(next, 0, n * 4);
  check("jacobi_tb_window", timeit([&] { jacobi_tb_window<<<g, 256>>>(next, cur, nx, ny); }));
  const int pipe_smem = 3 * kW * kW * 4;
  cudaFuncSetAttribute(jacobi_tb_pipe, cudaFuncAttributeMaxDynamicSharedMemorySize, pipe_smem);
  int sms = 0, per = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, jacobi_tb_pipe, 256, pipe_smem);
  for (int mult : {1, 2}) {
    cudaMemset(next, 0, n * 4);
    char name[64];
    snprintf(name, sizeof name, "jacobi_tb_pipe (%d x %d blocks)", sms * per, mult);
    int blocks = sms * per * mult;
    check(name, timeit([&] { jacobi_tb_pipe<<<blocks, 256, pipe_smem>>>(next, cur, nx, ny); }));
  }
  printf("pipe: %d blocks per SM\n", per);
  return 0;
}
