// Subgroup broadcast and votes (sub_group_broadcast, sub_group_all,
// sub_group_any) in uniform control flow.
//
// Hand-worked for in = 3 1 4 1 5 9 2 6: broadcast of lane 2 is 4; all(v > 0)
// is 1; any(v > 8) is 1 (lane 5). Every lane stores 4*100 + 1*10 + 1 = 411.
//
// CONVCHECK: kernel broadcast_vote threads 8 subgroup 8
// CONVCHECK: arg 0 buffer i32 x8 = 3 1 4 1 5 9 2 6
// CONVCHECK: arg 1 buffer i32 x8 = 0
// CONVCHECK: expect arg 1 = 411 411 411 411 411 411 411 411
kernel void broadcast_vote(global const int *in, global int *out) {
  uint lid = get_local_id(0);
  int v = in[lid];
  int b = sub_group_broadcast(v, 2);
  int all = sub_group_all(v > 0);
  int any = sub_group_any(v > 8);
  out[lid] = b * 100 + all * 10 + any;
}
