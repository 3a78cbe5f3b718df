// Wave-level stream compaction: a ballot of the keep predicate, then each kept
// lane finds its output slot by counting the kept lanes below it (mbcnt).
// HIP for gfx90a (wave64), written with builtins because -nogpuinc gives no
// headers.
//
// Hand-worked for in = 3 1 4 1 5 9 2 6 (8 lanes), keep the odd values:
//   kept lanes 0 1 3 4 5 -> out = 3 1 1 5 9 (rest untouched), count = 5.
//
// CONVCHECK: kernel ballot_compact threads 8 subgroup 8
// CONVCHECK: arg 0 buffer i32 x8 = 0
// CONVCHECK: arg 1 buffer i32 x1 = 0
// CONVCHECK: arg 2 buffer i32 x8 = 3 1 4 1 5 9 2 6
// CONVCHECK: expect arg 0 = 3 1 1 5 9 0 0 0
// CONVCHECK: expect arg 1 = 5
extern "C" __attribute__((global)) void ballot_compact(int *out, int *count,
                                                       const int *in) {
  unsigned lane = __builtin_amdgcn_workitem_id_x();
  int v = in[lane];
  bool keep = (v & 1) != 0;
  unsigned long long mask = __builtin_amdgcn_ballot_w64(keep);
  unsigned pos = __builtin_amdgcn_mbcnt_hi(
      (unsigned)(mask >> 32), __builtin_amdgcn_mbcnt_lo((unsigned)mask, 0u));
  if (keep)
    out[pos] = v;
  if (lane == 0)
    *count = __builtin_popcountll(mask);
}
