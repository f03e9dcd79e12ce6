// RUN: cuda-opt --analyze %s --kernel transpose_naive --json | FileCheck %s --check-prefix=NAIVE
// RUN: cuda-opt --analyze %s --kernel transpose_tiled --json | FileCheck %s --check-prefix=TILED

__global__ void transpose_naive(float *odata, const float *idata, int width,
                                int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height)
    odata[x * height + y] = idata[y * width + x];
}

// Shared-memory transpose with a padded tile (NVIDIA's sample).
#define TILE_DIM 32
#define BLOCK_ROWS 8
__global__ void transpose_tiled(float *odata, const float *idata) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  int width = gridDim.x * TILE_DIM;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    odata[(y + j) * width + x] = tile[threadIdx.x][threadIdx.y + j];
}

// NAIVE:      "pattern": "strided",
// NAIVE:      "stride_expr": "height",
// NAIVE-NEXT: "text": "odata[x * height + y]"
// NAIVE:      "pattern": "coalesced",
// NAIVE:      "text": "idata[y * width + x]"
// NAIVE:      "idiom": {
// NAIVE-NEXT:   "evidence": "write 'odata[x * height + y]' is contiguous in threadIdx.y while read 'idata[y * width + x]' is contiguous in threadIdx.x (x/y roles swapped)",
// NAIVE-NEXT:   "kind": "transpose"

// The reassigned x and y are followed through the straight-line code, so
// both global accesses are coalesced; the shared tile is read with stride 33.
// TILED:      "global": {
// TILED-NEXT:   "broadcast": 0,
// TILED-NEXT:   "coalesced": 2,
// TILED-NEXT:   "irregular": 0,
// TILED:      "index_form": "1024*blockIdx.x*gridDim.x + 256*gridDim.x*it(j) + 32*gridDim.x*threadIdx.y + 32*blockIdx.y + threadIdx.x",
// TILED:      "pattern": "coalesced",
// TILED:      "text": "odata[(y + j) * width + x]"
// TILED:      "pattern": "strided",
// TILED-NEXT: "space": "shared",
// TILED-NEXT: "stride": 33,
// TILED:      "text": "tile[threadIdx.x][threadIdx.y + j]"
// TILED:      "idiom": {
// TILED-NEXT:   "evidence": "write 'tile[threadIdx.y + j][threadIdx.x]' is contiguous in threadIdx.x while read 'tile[threadIdx.x][threadIdx.y + j]' is contiguous in threadIdx.y (x/y roles swapped)",
// TILED-NEXT:   "kind": "transpose"
// TILED:        "step": "j += BLOCK_ROWS",
// TILED:        "trip_count": 4,
// TILED:        "static_bytes": 4224
