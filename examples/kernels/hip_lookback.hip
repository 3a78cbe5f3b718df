// One step of a decoupled look-back scan, one tile per thread: tile t waits
// until tile t-1 has published its inclusive prefix (acquire load of a flag in
// a spin loop), adds its own aggregate, and publishes (release store).
// On hardware without independent forward progress of the threads of a wave
// this spin can hang; under LLVM's semantics each thread's loop is its own, and
// the run terminates in every fair schedule.
//
// Hand-worked for agg = 3 1 4 1 (4 tiles): prefix = 3 4 8 9, every flag set.
//
// CONVCHECK: kernel lookback threads 4 subgroup 4
// CONVCHECK: arg 0 buffer i32 x4 = 0
// CONVCHECK: arg 1 buffer i32 x4 = 0
// CONVCHECK: arg 2 buffer i32 x4 = 3 1 4 1
// CONVCHECK: expect arg 0 = 3 4 8 9
// CONVCHECK: expect arg 1 = 1 1 1 1
extern "C" __attribute__((global)) void lookback(int *prefix, int *flag,
                                                 const int *agg) {
  unsigned t = __builtin_amdgcn_workitem_id_x();
  int excl = 0;
  if (t > 0) {
    while (__atomic_load_n(&flag[t - 1], __ATOMIC_ACQUIRE) == 0) {
    }
    excl = prefix[t - 1];
  }
  prefix[t] = excl + agg[t];
  __atomic_store_n(&flag[t], 1, __ATOMIC_RELEASE);
}
