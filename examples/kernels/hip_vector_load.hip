// float4 and int2 loads as HIP code without the runtime headers writes them
// (clang's ext_vector_type, what hip_vector_types.h builds on): element-wise
// float arithmetic, a horizontal sum, then each lane's difference to lane 0
// through readfirstlane.
//
// Hand-worked (y = x * x + 1, every value exact in float):
//   t0: x = (1, 2, 0.5, -1)         y sums to 10.25 -> 10, q = ( 3,  4): r = 22
//   t1: x = (0, -3, 1.5, 2)         y sums to 19.25 -> 19, q = (-2,  5): r =  9
//   t2: x = (0.25, 0.5, 0.75, 1)    y sums to 5.875 ->  5, q = ( 7,  0): r =  5
//   t3: x = (4, -4, 2.5, 0)         y sums to 42.25 -> 42, q = (-1, -1): r = 43
// out = r - r(t0) = 0 -13 -17 21.
//
// CONVCHECK: kernel vector_load threads 4 subgroup 4
// CONVCHECK: arg 0 buffer i32 x4 = 0
// CONVCHECK: arg 1 buffer f32 x16 = 1.0 2.0 0.5 -1.0 0.0 -3.0 1.5 2.0 0.25 0.5 0.75 1.0 4.0 -4.0 2.5 0.0
// CONVCHECK: arg 2 buffer i32 x8 = 3 4 -2 5 7 0 -1 -1
// CONVCHECK: expect arg 0 = 0 -13 -17 21
typedef float float4 __attribute__((ext_vector_type(4)));
typedef int int2 __attribute__((ext_vector_type(2)));

extern "C" __attribute__((global)) void vector_load(int *out, const float4 *f,
                                                    const int2 *p) {
  unsigned tid = __builtin_amdgcn_workitem_id_x();
  float4 x = f[tid];
  int2 q = p[tid];
  float4 y = x * x + 1.0f;
  int r = (int)(y.x + y.y + y.z + y.w) + q.x * q.y;
  out[tid] = r - __builtin_amdgcn_readfirstlane(r);
}
