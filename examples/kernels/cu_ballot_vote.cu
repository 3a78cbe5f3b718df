// Warp votes: ballot, all and any with an explicit member mask (8 lanes,
// mask 0xff).
//
// Hand-worked for in = 3 1 4 1 5 9 2 6: ballot(v > 2) has 5 bits set, all(v > 0)
// is 1, any(v > 8) is 1: every lane stores 5*100 + 10 + 1 = 511.
//
// CONVCHECK: kernel ballot_vote threads 8 subgroup 8
// CONVCHECK: arg 0 buffer i32 x8 = 0
// CONVCHECK: arg 1 buffer i32 x8 = 3 1 4 1 5 9 2 6
// CONVCHECK: expect arg 0 = 511 511 511 511 511 511 511 511
extern "C" __attribute__((global)) void ballot_vote(int *out, const int *in) {
  unsigned tid = __nvvm_read_ptx_sreg_tid_x();
  int v = in[tid];
  unsigned b = __nvvm_vote_ballot_sync(0xffu, v > 2);
  int all = __nvvm_vote_all_sync(0xffu, v > 0);
  int any = __nvvm_vote_any_sync(0xffu, v > 8);
  out[tid] = __builtin_popcount(b) * 100 + all * 10 + any;
}
