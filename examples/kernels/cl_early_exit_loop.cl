// Early-exit loop with a thread-dependent trip count and a subgroup operation
// in the body: in iteration i, the lanes still in the loop (trip > i) execute
// the reduction together and count themselves.
//
// Hand-worked for trip = 1 3 2 3 (4 lanes):
//   iteration 0: lanes 0 1 2 3 active, count 4
//   iteration 1: lanes 1 2 3 active,   count 3
//   iteration 2: lanes 1 3 active,     count 2
//   seen = 4, 9, 7, 9; i = 1, 3, 2, 3; out = seen * 100 + i.
//
// CONVCHECK: kernel early_exit_loop threads 4 subgroup 4
// CONVCHECK: arg 0 buffer i32 x4 = 1 3 2 3
// CONVCHECK: arg 1 buffer i32 x4 = 0
// CONVCHECK: expect arg 1 = 401 903 702 903
kernel void early_exit_loop(global const int *trip, global int *out) {
  uint lane = get_sub_group_local_id();
  int n = trip[lane];
  int i = 0, seen = 0;
  while (i < 10) {
    if (i >= n)
      break;
    seen += sub_group_reduce_add(1);
    i++;
  }
  out[lane] = seen * 100 + i;
}
