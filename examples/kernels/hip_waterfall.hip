// Waterfall loop: serialize over the distinct values of a divergent key, one
// uniform value per round (readfirstlane of the first active lane). The loop's
// iterations are where convergence matters: in round r the lanes still looping
// execute readfirstlane together.
//
// Hand-worked for key = 2 5 2 7 5 2 7 7 (8 lanes):
//   round 1: first active lane 0, u = 2: lanes 0 2 5 leave with 2*10+1 = 21
//   round 2: first active lane 1, u = 5: lanes 1 4 leave with 52
//   round 3: first active lane 3, u = 7: lanes 3 6 7 leave with 73
//
// CONVCHECK: kernel waterfall threads 8 subgroup 8
// CONVCHECK: arg 0 buffer i32 x8 = 0
// CONVCHECK: arg 1 buffer i32 x8 = 2 5 2 7 5 2 7 7
// CONVCHECK: expect arg 0 = 21 52 21 73 52 21 73 73
extern "C" __attribute__((global)) void waterfall(int *out, const int *key) {
  unsigned lane = __builtin_amdgcn_workitem_id_x();
  int k = key[lane];
  int rounds = 0;
  int result = 0;
  for (;;) {
    int u = __builtin_amdgcn_readfirstlane(k);
    rounds++;
    if (u == k) {
      result = u * 10 + rounds;
      break;
    }
  }
  out[lane] = result;
}
