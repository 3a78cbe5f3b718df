// The documents' derivative example as a warp kernel: a horizontal difference
// between the two lanes of a pair (shfl.sync.bfly with lane ^ 1), taken inside
// a divergent branch with the active mask. Where both lanes of a pair are
// inside the branch the difference is defined; where the partner is outside,
// the shuffle reads a lane that does not take part and the result is not
// determined (written `?`): the reason implicit derivatives must not be moved
// into divergent control flow.
//
// Hand-worked for in = 1 2 0 5 3 3 -1 -2 (f = v*v = 1 4 0 25 9 9 1 4), branch
// taken where v > 0 (lanes 0 1 3 4 5):
//   pair 0/1: 4-1 = 3 and 1-4 = -3; lane 3's partner 2 is outside: ?;
//   pair 4/5: 0 and 0; lanes 2 6 7 keep 0.
//
// CONVCHECK: kernel derivative threads 8 subgroup 8
// CONVCHECK: arg 0 buffer i32 x8 = 0
// CONVCHECK: arg 1 buffer i32 x8 = 1 2 0 5 3 3 -1 -2
// CONVCHECK: expect arg 0 = 3 -3 0 ? 0 0 0 0
extern "C" __attribute__((global)) void derivative(int *out, const int *in) {
  unsigned tid = __nvvm_read_ptx_sreg_tid_x();
  int v = in[tid];
  int f = v * v;
  int d = 0;
  if (v > 0)
    d = __nvvm_shfl_sync_bfly_i32(__nvvm_activemask(), f, 1, 31) - f;
  out[tid] = d;
}
