// Rodinia 3.1 (University of Virginia; license terms in
// bench/external/LICENSES, "Rodinia"). The upstream file has no license
// header of its own.
//
// cuda-opt external suite: pathfinder.
// From yuhc/gpu-rodinia, cuda/pathfinder/pathfinder.cu,
// commit 9c10d3ea16ddba2ba057cc3951a9efc4c2cc18a4. The kernel dynproc_kernel, its macros and the launch loop calc_path are upstream's, unchanged.
// The host side is rewritten for the suite (bench/external/README.md): inputs
// are generated instead of read from files, and main checks the result
// against a CPU reference.

#include <cuda_runtime.h>
#define EXT_NAME "pathfinder"
#define EXT_SEED 0x3c6ef372u
// ---- host helpers of the cuda-opt external suite (not upstream) ----------
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "external_common.h"
// ---------------------------------------------------------------------------
// ---- upstream cuda/pathfinder/pathfinder.cu, lines 20-23 (unchanged) ----
#define BLOCK_SIZE 256
#define STR_SIZE 256
#define DEVICE 0
#define HALO 1 // halo width along one direction when advancing to the next iteration
// ---- end of upstream cuda/pathfinder/pathfinder.cu lines 20-23 ----
// ---- upstream cuda/pathfinder/pathfinder.cu, lines 82-191 (unchanged) ----
#define IN_RANGE(x, min, max)   ((x)>=(min) && (x)<=(max))
#define CLAMP_RANGE(x, min, max) x = (x<(min)) ? min : ((x>(max)) ? max : x )
#define MIN(a, b) ((a)<=(b) ? (a) : (b))

__global__ void dynproc_kernel(
                int iteration, 
                int *gpuWall,
                int *gpuSrc,
                int *gpuResults,
                int cols, 
                int rows,
                int startStep,
                int border)
{

        __shared__ int prev[BLOCK_SIZE];
        __shared__ int result[BLOCK_SIZE];

	int bx = blockIdx.x;
	int tx=threadIdx.x;
	
        // each block finally computes result for a small block
        // after N iterations. 
        // it is the non-overlapping small blocks that cover 
        // all the input data

        // calculate the small block size
	int small_block_cols = BLOCK_SIZE-iteration*HALO*2;

        // calculate the boundary for the block according to 
        // the boundary of its small block
        int blkX = small_block_cols*bx-border;
        int blkXmax = blkX+BLOCK_SIZE-1;

        // calculate the global thread coordination
	int xidx = blkX+tx;
       
        // effective range within this block that falls within 
        // the valid range of the input data
        // used to rule out computation outside the boundary.
        int validXmin = (blkX < 0) ? -blkX : 0;
        int validXmax = (blkXmax > cols-1) ? BLOCK_SIZE-1-(blkXmax-cols+1) : BLOCK_SIZE-1;

        int W = tx-1;
        int E = tx+1;
        
        W = (W < validXmin) ? validXmin : W;
        E = (E > validXmax) ? validXmax : E;

        bool isValid = IN_RANGE(tx, validXmin, validXmax);

	if(IN_RANGE(xidx, 0, cols-1)){
            prev[tx] = gpuSrc[xidx];
	}
	__syncthreads(); // [Ronny] Added sync to avoid race on prev Aug. 14 2012
        bool computed;
        for (int i=0; i<iteration ; i++){ 
            computed = false;
            if( IN_RANGE(tx, i+1, BLOCK_SIZE-i-2) &&  \
                  isValid){
                  computed = true;
                  int left = prev[W];
                  int up = prev[tx];
                  int right = prev[E];
                  int shortest = MIN(left, up);
                  shortest = MIN(shortest, right);
                  int index = cols*(startStep+i)+xidx;
                  result[tx] = shortest + gpuWall[index];
	
            }
            __syncthreads();
            if(i==iteration-1)
                break;
            if(computed)	 //Assign the computation range
                prev[tx]= result[tx];
	    __syncthreads(); // [Ronny] Added sync to avoid race on prev Aug. 14 2012
      }

      // update the global memory
      // after the last iteration, only threads coordinated within the 
      // small block perform the calculation and switch on ``computed''
      if (computed){
          gpuResults[xidx]=result[tx];		
      }
}

/*
   compute N time steps
*/
int calc_path(int *gpuWall, int *gpuResult[2], int rows, int cols, \
	 int pyramid_height, int blockCols, int borderCols)
{
        dim3 dimBlock(BLOCK_SIZE);
        dim3 dimGrid(blockCols);  
	
        int src = 1, dst = 0;
	for (int t = 0; t < rows-1; t+=pyramid_height) {
            int temp = src;
            src = dst;
            dst = temp;
            dynproc_kernel<<<dimGrid, dimBlock>>>(
                MIN(pyramid_height, rows-t-1), 
                gpuWall, gpuResult[src], gpuResult[dst],
                cols,rows, t, borderCols);

            // for the measurement fairness
            cudaDeviceSynchronize();
	}
        return dst;
}
// ---- end of upstream cuda/pathfinder/pathfinder.cu lines 82-191 ----

int main() {
  // Upstream's usual run: 100000 columns, 100 rows, pyramid height 20; here
  // 2^20 columns, 101 rows (100 steps: five launches of 20 rows).
  const int cols = 1 << 20, rows = 101, pyramid_height = 20;
  std::vector<int> data((size_t)rows * cols), result(cols);
  for (int &x : data) x = (int)(urand() % 10); // upstream: rand() % 10
  int borderCols = (pyramid_height)*HALO;
  int smallBlockCol = BLOCK_SIZE-(pyramid_height)*HALO*2;
  int blockCols = cols/smallBlockCol+((cols%smallBlockCol==0)?0:1);
  int *gpuWall, *gpuResult[2];
  size_t size = (size_t)rows * cols;
  CK(cudaMalloc(&gpuResult[0], sizeof(int) * cols));
  CK(cudaMalloc(&gpuResult[1], sizeof(int) * cols));
  CK(cudaMemcpy(gpuResult[0], data.data(), sizeof(int) * cols, cudaMemcpyHostToDevice));
  CK(cudaMalloc(&gpuWall, sizeof(int) * (size - cols)));
  CK(cudaMemcpy(gpuWall, data.data() + cols, sizeof(int) * (size - cols), cudaMemcpyHostToDevice));
  int final_ret = calc_path(gpuWall, gpuResult, rows, cols, pyramid_height, blockCols, borderCols);
  CK(cudaGetLastError());
  CK(cudaMemcpy(result.data(), gpuResult[final_ret], sizeof(int) * cols, cudaMemcpyDeviceToHost));
  // CPU reference: the minimum-cost path DP row by row, edges clamped.
  std::vector<int> cur(data.begin(), data.begin() + cols), nxt(cols);
  for (int r = 1; r < rows; r++) {
    for (int c = 0; c < cols; c++) {
      int m = cur[c];
      if (c > 0 && cur[c - 1] < m) m = cur[c - 1];
      if (c < cols - 1 && cur[c + 1] < m) m = cur[c + 1];
      nxt[c] = m + data[(size_t)r * cols + c];
    }
    cur.swap(nxt);
  }
  for (int c = 0; c < cols; c++)
    if (result[c] != cur[c]) return fail("result", c, result[c], cur[c]);
  CK(cudaFree(gpuWall));
  CK(cudaFree(gpuResult[0]));
  CK(cudaFree(gpuResult[1]));
  std::printf("%s: ok\n", EXT_NAME);
  return 0;
}
