// Work-group tree reduction in local memory, one barrier per level: the
// classic shape whose barriers must stay where every work-item reaches them.
// Work-items below the stride add their partner's partial sum; the loop's trip
// count is uniform (log2 of the work-group size), the guarded add is divergent.
//
// Hand-worked for in = 3 1 4 1 5 9 2 6 and one work-group of 8:
//   level 4: 8 10 6 7;  level 2: 14 17;  level 1: 31.  out[0] = 31.
//
// CONVCHECK: kernel tree_reduce threads 8 subgroup 8
// CONVCHECK: arg 0 buffer i32 x8 = 3 1 4 1 5 9 2 6
// CONVCHECK: arg 1 buffer i32 x1 = 0
// CONVCHECK: expect arg 1 = 31
kernel void tree_reduce(global const int *in, global int *out) {
  local int scratch[64];
  uint lid = get_local_id(0);
  uint n = get_local_size(0);
  scratch[lid] = in[lid];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = n / 2; s > 0; s >>= 1) {
    if (lid < s)
      scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0)
    out[get_group_id(0)] = scratch[0];
}
