; CL-07: an operation in an infinite loop controlled by an anchor outside it.
; Source: ConvergentOperations.rst, "Rationales for Static rules about
;   cycles", first example ("This code is forbidden by the first static rule
;   about cycles").
; Stated verdict: rejected by the first static rule about cycles.
; expect-verdict: rejected
; expect-rules: S-CYCLE-1
; expect-llvm-22: rejected
;
; Without the rule, the dynamic rules alone give I1 == J1 == I2 for the two
; iterations of one thread (a contradiction; MC-01 / D-CTRL).

define void @cl07() {
A:
  %anchor = call token @llvm.experimental.convergence.anchor()
  br label %L

L:
  call void @convergent.op() [ "convergencectrl"(token %anchor) ]
  br label %L
}

declare void @convergent.op() convergent
declare token @llvm.experimental.convergence.anchor()
