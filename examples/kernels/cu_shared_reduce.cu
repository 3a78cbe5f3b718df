// Block tree reduction in shared memory with bar.sync (__syncthreads), then
// the last 2 partial sums combined by a warp shuffle.
//
// Hand-worked for in = 3 1 4 1 5 9 2 6 and 8 threads: out[0] = 31.
//
// CONVCHECK: kernel shared_reduce threads 8 subgroup 8
// CONVCHECK: arg 0 buffer i32 x1 = 0
// CONVCHECK: arg 1 buffer i32 x8 = 3 1 4 1 5 9 2 6
// CONVCHECK: expect arg 0 = 31
extern "C" __attribute__((global)) void shared_reduce(int *out, const int *in) {
  __attribute__((shared)) int scratch[64];
  unsigned tid = __nvvm_read_ptx_sreg_tid_x();
  unsigned n = __nvvm_read_ptx_sreg_ntid_x();
  scratch[tid] = in[tid];
  __syncthreads();
  for (unsigned s = n / 2; s > 1; s >>= 1) {
    if (tid < s)
      scratch[tid] += scratch[tid + s];
    __syncthreads();
  }
  if (tid < 2) {
    int v = scratch[tid];
    v += __nvvm_shfl_sync_down_i32(0x3u, v, 1, 31);
    if (tid == 0)
      out[0] = v;
  }
}
