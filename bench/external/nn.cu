// Rodinia 3.1 (University of Virginia; license terms in
// bench/external/LICENSES, "Rodinia"). The upstream file has no license
// header of its own.
//
// cuda-opt external suite: nn.
// From yuhc/gpu-rodinia, cuda/nn/nn_cuda.cu,
// commit 9c10d3ea16ddba2ba057cc3951a9efc4c2cc18a4. The kernel euclid and the LatLong type are upstream's, unchanged.
// The host side is rewritten for the suite (bench/external/README.md): inputs
// are generated instead of read from files, and main checks the result
// against a CPU reference.

#include <cuda_runtime.h>
#define EXT_NAME "nn"
#define EXT_SEED 0x1b873593u
// ---- host helpers of the cuda-opt external suite (not upstream) ----------
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "external_common.h"
// ---------------------------------------------------------------------------
// ---- upstream cuda/nn/nn_cuda.cu, lines 1-5 (unchanged) ----
/*
 * nn.cu
 * Nearest Neighbor
 *
 */
// ---- end of upstream cuda/nn/nn_cuda.cu lines 1-5 ----
// ---- upstream cuda/nn/nn_cuda.cu, lines 32-44 (unchanged) ----
#define DEFAULT_THREADS_PER_BLOCK 256

#define MAX_ARGS 10
#define REC_LENGTH 53 // size of a record in db
#define LATITUDE_POS 28	// character position of the latitude value in each record
#define OPEN 10000	// initial value of nearest neighbors


typedef struct latLong
{
  float lat;
  float lng;
} LatLong;
// ---- end of upstream cuda/nn/nn_cuda.cu lines 32-44 ----
// ---- upstream cuda/nn/nn_cuda.cu, lines 57-72 (unchanged) ----

/**
* Kernel
* Executed on GPU
* Calculates the Euclidean distance from each record in the database to the target position
*/
__global__ void euclid(LatLong *d_locations, float *d_distances, int numRecords,float lat, float lng)
{
	//int globalId = gridDim.x * blockDim.x * blockIdx.y + blockDim.x * blockIdx.x + threadIdx.x;
	int globalId = blockDim.x * ( gridDim.x * blockIdx.y + blockIdx.x ) + threadIdx.x; // more efficient
    LatLong *latLong = d_locations+globalId;
    if (globalId < numRecords) {
        float *dist=d_distances+globalId;
        *dist = (float)sqrt((lat-latLong->lat)*(lat-latLong->lat)+(lng-latLong->lng)*(lng-latLong->lng));
	}
}
// ---- end of upstream cuda/nn/nn_cuda.cu lines 57-72 ----

int main() {
  // 2^24 records (upstream's hurricane files hold ~43k-5M); target as in
  // upstream's run script (-lat 30 -lng 90).
  const int numRecords = 1 << 24;
  const float lat = 30.0f, lng = 90.0f;
  std::vector<LatLong> locations(numRecords);
  for (LatLong &l : locations) { l.lat = frand(7.f, 70.f); l.lng = frand(0.f, 358.f); }
  std::vector<float> distances(numRecords);
  // Upstream's grid: 256 threads a block, blocks split over x and y when
  // they exceed the device's maximum grid x.
  cudaDeviceProp deviceProp;
  CK(cudaGetDeviceProperties(&deviceProp, 0));
  unsigned long maxGridX = deviceProp.maxGridSize[0];
  unsigned long threadsPerBlock = deviceProp.maxThreadsPerBlock < 256 ? deviceProp.maxThreadsPerBlock : 256;
  unsigned long blocks = (numRecords + threadsPerBlock - 1) / threadsPerBlock;
  unsigned long gridY = (blocks + maxGridX - 1) / maxGridX;
  unsigned long gridX = (blocks + gridY - 1) / gridY;
  dim3 gridDim(gridX, gridY);
  LatLong *d_locations;
  float *d_distances;
  CK(cudaMalloc(&d_locations, sizeof(LatLong) * numRecords));
  CK(cudaMalloc(&d_distances, sizeof(float) * numRecords));
  CK(cudaMemcpy(d_locations, locations.data(), sizeof(LatLong) * numRecords, cudaMemcpyHostToDevice));
  euclid<<< gridDim, threadsPerBlock >>>(d_locations,d_distances,numRecords,lat,lng);
  CK(cudaGetLastError());
  CK(cudaMemcpy(distances.data(), d_distances, sizeof(float) * numRecords, cudaMemcpyDeviceToHost));
  for (int i = 0; i < numRecords; i++) {
    double dlat = (double)lat - locations[i].lat, dlng = (double)lng - locations[i].lng;
    double want = std::sqrt(dlat * dlat + dlng * dlng);
    if (!(std::fabs(distances[i] - want) <= 1e-5 * want + 1e-6))
      return fail("d_distances", i, distances[i], want);
  }
  CK(cudaFree(d_locations));
  CK(cudaFree(d_distances));
  std::printf("%s: ok\n", EXT_NAME);
  return 0;
}
