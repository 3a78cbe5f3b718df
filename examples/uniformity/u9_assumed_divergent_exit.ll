; U-9 (proofs/FINDINGS.md): LLVM 22 misses temporal divergence of an
; always-uniform value defined in a cycle that is assumed divergent
; (rules U-EXIT, U-MCONV, D-TEMPORAL).
;
; The closed path P -> Q -> S -> P and Q -> R -> S, entered at P and at R,
; is an irreducible cycle. The switch in Q depends on the thread id: its
; join S has the diverged entry R, so the cycle is assumed divergent, and
; its case 0 leaves the cycle, so the cycle has a divergent exit. LLVM
; handles the assumed-divergent cycle first and then skips the exit
; ("exit divergence does not matter if the cycle itself is assumed
; divergent"): every definition of the cycle is divergent *except* the
; always-uniform read-first-lane %r, whose use %use after the exit is left
; uniform. Threads leave in different iterations (thread 0 in the first,
; thread 1 in the second), so the converged instances of %use (outside every
; cycle, D-MAX) read %r from different iterations: 0 and 1.
; `opt-22` and `convcheck uniformity` both print %use uniform; the
; reference interpreter shows the converged instances store 0 and 1
; (semantics/tests/uniformity_interp.rs).

define amdgpu_kernel void @k(i1 %uni.enter, ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br i1 %uni.enter, label %P, label %R
P:
  %i = phi i32 [ 0, %entry ], [ %i.n, %S ]
  br label %Q
Q:
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %i)
  %sel = sub i32 %tid, %i
  switch i32 %sel, label %R [
    i32 0, label %exit
    i32 1, label %S
  ]
R:
  br label %S
S:
  %i.s = phi i32 [ 0, %R ], [ %i, %Q ]
  %i.n = add i32 %i.s, 1
  br label %P
exit:
  %use = add i32 %r, 0
  store i32 %use, ptr addrspace(1) %out
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
