; CL-10: two nested loops whose hearts both use the outer %anchor.
; Source: ConvergentOperations.rst, "Rationales for Static rules about
;   cycles", last example ("There is a cycle ... that goes through both loop
;   heart intrinsics using %anchor but not through the definition of
;   %anchor, so this code is invalid").
; Stated verdict: rejected (S-CYCLE-2/3).
; expect-verdict: rejected
; expect-rules: S-CYCLE-2, S-CYCLE-4
; expect-llvm-22: rejected
;
; The inner loops get exits so that the outer loop is a cycle through both
; hearts (with the document's endless inner loops no closed path holds
; both). S-CYCLE-2: the outer cycle holds two uses of %anchor. S-CYCLE-4:
; each heart lies on the outer cycle without %anchor and does not dominate
; its header B.

define void @cl10(i1 %condition1, i1 %condition2, i1 %more1, i1 %more2) {
A:
  %anchor = call token @llvm.experimental.convergence.anchor()
  br label %B

B:
  br i1 %condition1, label %L1, label %D

L1:
  %loop1 = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %anchor) ]
  br i1 %more1, label %L1, label %D

D:
  br i1 %condition2, label %L2, label %B

L2:
  %loop2 = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %anchor) ]
  br i1 %more2, label %L2, label %B
}

declare token @llvm.experimental.convergence.anchor()
declare token @llvm.experimental.convergence.loop()
