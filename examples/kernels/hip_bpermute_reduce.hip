// Butterfly reduction with ds_bpermute (a backwards permute: each lane reads
// the value of the lane whose byte address it passes). Three rounds over 8
// lanes, partner = lane ^ 1, ^ 2, ^ 4.
//
// Hand-worked for in = 3 1 4 1 5 9 2 6: every lane ends with 31.
//
// CONVCHECK: kernel bpermute_reduce threads 8 subgroup 8
// CONVCHECK: arg 0 buffer i32 x8 = 0
// CONVCHECK: arg 1 buffer i32 x8 = 3 1 4 1 5 9 2 6
// CONVCHECK: expect arg 0 = 31 31 31 31 31 31 31 31
extern "C" __attribute__((global)) void bpermute_reduce(int *out,
                                                        const int *in) {
  unsigned lane = __builtin_amdgcn_workitem_id_x();
  int v = in[lane];
  for (unsigned off = 1; off < 8; off <<= 1)
    v += __builtin_amdgcn_ds_bpermute((int)((lane ^ off) * 4), v);
  out[lane] = v;
}
