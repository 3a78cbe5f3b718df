#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __device__ __attribute__((device))
extern "C" __device__ int __ockl_get_local_id(int);
__global__ void red(int *out, const int *in) {
  __shared__ int tmp[64];
  int l = __builtin_amdgcn_workitem_id_x();
  tmp[l] = in[l];
  __builtin_amdgcn_s_barrier();
  for (int s = 32; s > 0; s >>= 1) {
    if (l < s) tmp[l] += tmp[l + s];
    __builtin_amdgcn_s_barrier();
  }
  int v = __builtin_amdgcn_readfirstlane(tmp[0]);
  unsigned long long b = __builtin_amdgcn_ballot_w64(v > l);
  if (b) out[0] = v + (int)b;
}
