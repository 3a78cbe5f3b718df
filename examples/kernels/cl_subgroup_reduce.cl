// Subgroup reduction: every work-item contributes its local id and receives
// the sum over the work-items of its subgroup (OpenCL 2.0 sub_group_reduce_add).
//
// Hand-worked: with 8 work-items in one subgroup the sum is 0+1+...+7 = 28 in
// every lane; with subgroups of 4, lanes 0-3 get 0+1+2+3 = 6 and lanes 4-7 get
// 4+5+6+7 = 22.
//
// CONVCHECK: kernel subgroup_reduce threads 8 subgroup 8
// CONVCHECK: arg 0 buffer i32 x8 = 0
// CONVCHECK: expect arg 0 = 28 28 28 28 28 28 28 28
// CONVCHECK: kernel subgroup_reduce threads 8 subgroup 4
// CONVCHECK: arg 0 buffer i32 x8 = 0
// CONVCHECK: expect arg 0 = 6 6 6 6 22 22 22 22
kernel void subgroup_reduce(global int *out) {
  uint lid = get_local_id(0);
  out[lid] = sub_group_reduce_add((int)lid);
}
