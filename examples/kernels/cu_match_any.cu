// match.any.sync: each lane learns which lanes hold the same key (bit i set
// for lane i), the usual first step of warp-aggregated atomics.
//
// Hand-worked for key = 2 5 2 7 5 2 7 7: key 2 at lanes 0 2 5 -> 0b100101 = 37;
// key 5 at lanes 1 4 -> 0b10010 = 18; key 7 at lanes 3 6 7 -> 0b11001000 = 200.
//
// CONVCHECK: kernel match_any threads 8 subgroup 8
// CONVCHECK: arg 0 buffer i32 x8 = 0
// CONVCHECK: arg 1 buffer i32 x8 = 2 5 2 7 5 2 7 7
// CONVCHECK: expect arg 0 = 37 18 37 200 18 37 200 200
extern "C" __attribute__((global)) void match_any(unsigned *out,
                                                  const int *key) {
  unsigned tid = __nvvm_read_ptx_sreg_tid_x();
  out[tid] = __nvvm_match_any_sync_i32(0xffu, key[tid]);
}
