// Warp reduction with shfl.sync.down over a full warp of 32 lanes: after five
// rounds lane 0 holds the sum of all 32 values (lanes whose source is past
// the warp keep their own value, clamp 31).
//
// Hand-worked for in = 0 1 ... 31: out[0] = 496.
//
// CONVCHECK: kernel warp_reduce threads 32 subgroup 32
// CONVCHECK: arg 0 buffer i32 x1 = 0
// CONVCHECK: arg 1 buffer i32 x32 = 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
// CONVCHECK: expect arg 0 = 496
extern "C" __attribute__((global)) void warp_reduce(int *out, const int *in) {
  unsigned tid = __nvvm_read_ptx_sreg_tid_x();
  int v = in[tid];
  for (int off = 16; off > 0; off /= 2)
    v += __nvvm_shfl_sync_down_i32(0xffffffffu, v, off, 31);
  if ((tid & 31) == 0)
    out[tid / 32] = v;
}
