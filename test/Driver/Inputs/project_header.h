#pragma once
template <typename T> __device__ inline T square_helper(T v) { return v * v; }
