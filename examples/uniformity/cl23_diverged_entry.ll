; CL-23 (ConvergenceAndUniformity.rst, "Diverged Entry Criterion"; rules
; U-MCONV, D-HIER).
;
; The closed path P -> Q -> R -> S -> P has two entries, P and R, so the
; cycle is irreducible and its header depends on the DFS. Q branches on the
; thread id (divergent); S is a join of Q (diverged paths Q -> R -> S and
; Q -> S). R lies on the diverged path Q -> R -> S and is an entry of the
; closed path: a *diverged entry*. The document: "If a diverged entry R
; exists, then in some cycle hierarchy R is the header ... Dynamic instances
; of S executed by threads in set M are not converged with those executed
; in set N due to the presence of R" -- S is not m-converged.
;
; The simplified criterion: B = Q does not strictly dominate J = S, and
; neither candidate header (P or R) strictly dominates S, so no cycle
; satisfies it and every node of the cycle has divergent outputs, even
; values computed only from uniform kernel arguments (%div.s, %div.p).
;
; Names state the documents' verdicts: %uni.* uniform, %div.* divergent.
; @no_diverged_entry is the contrast from the same section ("If R does not
; exist ... threads that diverge at Q reconverge at S in the same iteration
; of C"): with P the only entry, the cycle is reducible, the phi at the
; join S is divergent, but a value computed in S from uniform operands
; stays uniform.

define amdgpu_kernel void @diverged_entry(i1 %uni.enter, i1 %uni.back, i32 %uni.x, ptr addrspace(1) %out) {
entry:
  %div.tid = call i32 @llvm.amdgcn.workitem.id.x()
  br i1 %uni.enter, label %P, label %R

P:
  %div.p = add i32 %uni.x, 1
  br label %Q

Q:
  %div.cond = icmp eq i32 %div.tid, 0
  br i1 %div.cond, label %R, label %S

R:
  br label %S

S:
  %div.join = phi i32 [ 1, %R ], [ 2, %Q ]
  %div.s = add i32 %uni.x, 2
  store i32 %div.s, ptr addrspace(1) %out
  br i1 %uni.back, label %P, label %exit

exit:
  ret void
}

define amdgpu_kernel void @no_diverged_entry(i1 %uni.back, i32 %uni.x, ptr addrspace(1) %out) {
entry:
  %div.tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %P

P:
  %uni.p = add i32 %uni.x, 1
  br label %Q

Q:
  %div.cond = icmp eq i32 %div.tid, 0
  br i1 %div.cond, label %R, label %S

R:
  br label %S

S:
  %div.join = phi i32 [ 1, %R ], [ 2, %Q ]
  %uni.s = add i32 %uni.x, 2
  store i32 %uni.s, ptr addrspace(1) %out
  br i1 %uni.back, label %P, label %exit

exit:
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
