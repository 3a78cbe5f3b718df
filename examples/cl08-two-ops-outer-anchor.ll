; CL-08: two operations in a loop, both controlled by an anchor outside it.
; Source: ConvergentOperations.rst, "Rationales for Static rules about
;   cycles", second example (blocks A..G; traces A B C D F B D E F G and
;   A B D E F B C D F G).
; Stated verdict: incorrect convergence control (rejected statically).
; expect-verdict: rejected
; expect-rules: S-CYCLE-1, S-CYCLE-2, S-CYCLE-4
; expect-llvm-22: rejected
;
; S-CYCLE-1: each use of %anchor lies on the closed path B..F without the
; anchor. S-CYCLE-2: the closed path B C D E F B holds two uses of %anchor.
; S-CYCLE-4: neither use dominates B, yet both lie on closed paths through B
; without the anchor (rule 4 is stated for every use, not only hearts).

define void @cl08(i1 %condition1, i1 %condition2, i1 %exit) {
A:
  %anchor = call token @llvm.experimental.convergence.anchor()
  br label %B

B:
  br i1 %condition1, label %C, label %D

C:
  call void @convergent.op.1() [ "convergencectrl"(token %anchor) ]
  br label %D

D:
  br i1 %condition2, label %E, label %F

E:
  call void @convergent.op.2() [ "convergencectrl"(token %anchor) ]
  br label %F

F:
  br i1 %exit, label %G, label %B

G:
  ret void
}

declare void @convergent.op.1() convergent
declare void @convergent.op.2() convergent
declare token @llvm.experimental.convergence.anchor()
