// The documents' "reduction in a divergent branch": the even lanes of the
// subgroup reach the reduction together and only they communicate
// (ConvergentOperations.rst, maximal convergence). OpenCL itself requires
// subgroup functions to be reached by the whole subgroup, so this kernel is
// outside OpenCL's contract; in LLVM IR the convergent call has a defined
// communicating set, which is what convcheck computes.
//
// Hand-worked, 8 lanes: even lanes sum 0+2+4+6 = 12, odd lanes keep -1.
//
// CONVCHECK: kernel divergent_reduction threads 8 subgroup 8
// CONVCHECK: arg 0 buffer i32 x8 = 0
// CONVCHECK: expect arg 0 = 12 -1 12 -1 12 -1 12 -1
kernel void divergent_reduction(global int *out) {
  uint lane = get_sub_group_local_id();
  int r = -1;
  if (lane % 2 == 0)
    r = sub_group_reduce_add((int)lane);
  out[lane] = r;
}
