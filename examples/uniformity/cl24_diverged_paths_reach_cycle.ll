; CL-24 (ConvergenceAndUniformity.rst, "Diverged Paths reaching a Cycle" and
; "Reducible Cycle"; rules U-MCONV, D-HIER).
;
; The divergent branch is in Entry instead of Q. Two threads that enter the
; closed path P -> Q -> R -> S at P and at R respectively execute converged
; or non-converged instances depending on whether P or R is the header
; (the two tables of the document). The document: "when diverged paths
; reach different entries of an irreducible cycle from outside the cycle,
; the static analysis conservatively reports every node in the cycle as
; not m-converged" -- so every value defined in the cycle is divergent,
; even %div.q, computed from uniform arguments only, and the branch in Q
; on a uniform condition does not matter.
;
; @reducible_control is the contrast from "Reducible Cycle": "When
; diverged paths reach the subgraph C from outside, their convergence is
; always determined by the same header H". The diverged paths from Entry
; meet at the header P of a reducible cycle; only the phi at P is
; divergent, values computed from uniform operands inside stay uniform.
;
; Names state the documents' verdicts: %uni.* uniform, %div.* divergent.

define amdgpu_kernel void @entries_p_and_r(i1 %uni.q, i1 %uni.back, i32 %uni.x, ptr addrspace(1) %out) {
entry:
  %div.tid = call i32 @llvm.amdgcn.workitem.id.x()
  %div.cond = icmp eq i32 %div.tid, 0
  br i1 %div.cond, label %P, label %R

P:
  %div.p = add i32 %uni.x, 1
  br label %Q

Q:
  %div.q = add i32 %uni.x, 2
  br i1 %uni.q, label %R, label %S

R:
  %div.r = add i32 %uni.x, 3
  br label %S

S:
  %div.s = phi i32 [ %div.r, %R ], [ %div.q, %Q ]
  br i1 %uni.back, label %P, label %exit

exit:
  ret void
}

define amdgpu_kernel void @reducible_control(i1 %uni.q, i1 %uni.back, i32 %uni.x, ptr addrspace(1) %out) {
entry:
  %div.tid = call i32 @llvm.amdgcn.workitem.id.x()
  %div.cond = icmp eq i32 %div.tid, 0
  br i1 %div.cond, label %A, label %B

A:
  br label %P

B:
  br label %P

P:
  %div.phi = phi i32 [ 0, %A ], [ 1, %B ], [ %uni.s, %S ]
  %uni.p = add i32 %uni.x, 1
  br label %Q

Q:
  %uni.q2 = add i32 %uni.x, 2
  br i1 %uni.q, label %R, label %S

R:
  %uni.r = add i32 %uni.x, 3
  br label %S

S:
  %uni.s = phi i32 [ %uni.r, %R ], [ %uni.q2, %Q ]
  br i1 %uni.back, label %P, label %exit

exit:
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
