#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
__global__ void red(int *out, const int *in) {
  __shared__ int tmp[64];
  int l = __nvvm_read_ptx_sreg_tid_x();
  tmp[l] = in[l];
  __syncthreads();
  for (int s = 32; s > 0; s >>= 1) {
    if (l < s) tmp[l] += tmp[l + s];
    __syncthreads();
  }
  unsigned b = __nvvm_vote_ballot_sync(0xffffffff, tmp[0] > l);
  int v = __nvvm_shfl_sync_idx_i32(0xffffffff, tmp[l], 0, 31);
  if (b) out[0] = v + (int)b;
}
