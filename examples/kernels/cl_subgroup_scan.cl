// Subgroup prefix sums: inclusive and exclusive scans of one value per
// work-item (sub_group_scan_inclusive_add / sub_group_scan_exclusive_add).
//
// Hand-worked for in = 3 1 4 1 5 9 2 6:
//   one subgroup of 8:  inclusive 3 4 8 9 14 23 25 31, exclusive 0 3 4 8 9 14 23 25
//   subgroups of 4:     inclusive 3 4 8 9 5 14 16 22,  exclusive 0 3 4 8 0 5 14 16
//
// CONVCHECK: kernel subgroup_scan threads 8 subgroup 8
// CONVCHECK: arg 0 buffer i32 x8 = 3 1 4 1 5 9 2 6
// CONVCHECK: arg 1 buffer i32 x8 = 0
// CONVCHECK: arg 2 buffer i32 x8 = 0
// CONVCHECK: expect arg 1 = 3 4 8 9 14 23 25 31
// CONVCHECK: expect arg 2 = 0 3 4 8 9 14 23 25
// CONVCHECK: kernel subgroup_scan threads 8 subgroup 4
// CONVCHECK: arg 0 buffer i32 x8 = 3 1 4 1 5 9 2 6
// CONVCHECK: arg 1 buffer i32 x8 = 0
// CONVCHECK: arg 2 buffer i32 x8 = 0
// CONVCHECK: expect arg 1 = 3 4 8 9 5 14 16 22
// CONVCHECK: expect arg 2 = 0 3 4 8 0 5 14 16
kernel void subgroup_scan(global const int *in, global int *incl,
                          global int *excl) {
  uint lid = get_local_id(0);
  int v = in[lid];
  incl[lid] = sub_group_scan_inclusive_add(v);
  excl[lid] = sub_group_scan_exclusive_add(v);
}
