; CL-09: the loop heart inside `if (condition1)`, a free-standing anchor for
; op.2 ("unnatural counting of loop iterations").
; Source: ConvergentOperations.rst, "Rationales for Static rules about
;   cycles", third code block (blocks A..G).
; Stated verdict (CLAIMS.md): valid; op.1 instances converged, op.2
;   implementation-defined.
; Tool verdict: REJECTED. The heart %loop in C lies on the closed path
;   B C D F B, which does not contain %anchor's definition, and C does not
;   dominate B: S-CYCLE-4 ("U must dominate all nodes in the closed path";
;   "a heart can occur only in the header of a natural loop"). LLVM 22
;   agrees ("Cycle heart must dominate all blocks in the cycle."). The
;   document's own example contradicts its static rule 4: finding F-2 in
;   proofs/FINDINGS.md.
; expect-verdict: rejected
; expect-rules: S-CYCLE-4
; expect-llvm-22: rejected

define void @cl09(i1 %condition1, i1 %condition2, i1 %exit) {
A:
  %anchor = call token @llvm.experimental.convergence.anchor()
  br label %B

B:
  br i1 %condition1, label %C, label %D

C:
  %loop = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %anchor) ]
  call void @convergent.op.1() [ "convergencectrl"(token %loop) ]
  br label %D

D:
  br i1 %condition2, label %E, label %F

E:
  %free = call token @llvm.experimental.convergence.anchor()
  call void @convergent.op.2() [ "convergencectrl"(token %free) ]
  br label %F

F:
  br i1 %exit, label %G, label %B

G:
  ret void
}

declare void @convergent.op.1() convergent
declare void @convergent.op.2() convergent
declare token @llvm.experimental.convergence.anchor()
declare token @llvm.experimental.convergence.loop()
