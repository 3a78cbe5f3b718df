// Work-group tree reduction in LDS with s_barrier, as HIP code without the
// runtime headers writes it (__attribute__((shared)) and the barrier builtin).
//
// Hand-worked for in = 3 1 4 1 5 9 2 6 and 8 threads: out[0] = 31.
//
// CONVCHECK: kernel shared_reduce threads 8 subgroup 8
// CONVCHECK: arg 0 buffer i32 x1 = 0
// CONVCHECK: arg 1 buffer i32 x8 = 3 1 4 1 5 9 2 6
// CONVCHECK: arg 2 i32 = 8
// CONVCHECK: expect arg 0 = 31
extern "C" __attribute__((global)) void shared_reduce(int *out, const int *in,
                                                      unsigned n) {
  __attribute__((shared)) int scratch[64];
  unsigned tid = __builtin_amdgcn_workitem_id_x();
  scratch[tid] = in[tid];
  __builtin_amdgcn_s_barrier();
  for (unsigned s = n / 2; s > 0; s >>= 1) {
    if (tid < s)
      scratch[tid] += scratch[tid + s];
    __builtin_amdgcn_s_barrier();
  }
  if (tid == 0)
    out[0] = scratch[0];
}
