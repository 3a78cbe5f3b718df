// Vector types as OpenCL C code uses them: int4 and float4 loads, element-wise
// arithmetic, a float-to-int conversion, swizzles (shufflevector), clang's
// vector reductions (llvm.vector.reduce.add / .smax), then a subgroup
// reduction of each work-item's sum.
//
// Hand-worked for 4 work-items, a[i] = (i, i+1, i+2, i+3) and the floats below
// (g * 0.5 converted toward zero):
//   t0: f = ( 2.0,  4.5, -3.0,  7.0) -> ( 1, 2, -1, 3), w = (1, 4, 3,  9), s = 17
//   t1: f = ( 9.0, -0.5,  6.0,  1.0) -> ( 4, 0,  3, 0), w = (6, 4, 9,  8), s = 27
//   t2: f = (-7.0,  3.0,  0.0, 12.0) -> (-3, 1,  0, 6), w = (1, 7, 8, 16), s = 32
//   t3: f = ( 5.5,  5.5, -8.0,  2.5) -> ( 2, 2, -4, 1), w = (8, 10, 6, 13), s = 37
// with w = 2 a[i] + that. r = w.wzyx - w.xxyy has maxima 8, 3, 15, 5.
// One subgroup of 4: sum 113, so out = 121 116 128 118.
// Subgroups of 2: 17+27 = 44 and 32+37 = 69, so out = 52 47 84 74.
//
// CONVCHECK: kernel vector_reduce threads 4 subgroup 4
// CONVCHECK: arg 0 buffer i32 x16 = 0 1 2 3 1 2 3 4 2 3 4 5 3 4 5 6
// CONVCHECK: arg 1 buffer f32 x16 = 2.0 4.5 -3.0 7.0 9.0 -0.5 6.0 1.0 -7.0 3.0 0.0 12.0 5.5 5.5 -8.0 2.5
// CONVCHECK: arg 2 buffer i32 x4 = 0
// CONVCHECK: expect arg 2 = 121 116 128 118
// CONVCHECK: kernel vector_reduce threads 4 subgroup 2
// CONVCHECK: arg 0 buffer i32 x16 = 0 1 2 3 1 2 3 4 2 3 4 5 3 4 5 6
// CONVCHECK: arg 1 buffer f32 x16 = 2.0 4.5 -3.0 7.0 9.0 -0.5 6.0 1.0 -7.0 3.0 0.0 12.0 5.5 5.5 -8.0 2.5
// CONVCHECK: arg 2 buffer i32 x4 = 0
// CONVCHECK: expect arg 2 = 52 47 84 74
kernel void vector_reduce(global const int4 *a, global const float4 *f,
                          global int *out) {
  uint i = get_local_id(0);
  int4 v = a[i];
  float4 g = f[i];
  int4 w = v * 2 + __builtin_convertvector(g * 0.5f, int4);
  int4 r = w.wzyx - w.xxyy;
  int s = __builtin_reduce_add(w);
  int m = __builtin_reduce_max(r);
  out[i] = sub_group_reduce_add(s) + m;
}
