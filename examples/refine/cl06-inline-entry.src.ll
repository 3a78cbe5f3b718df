; CLAIM: CL-06
; SOURCE: CO "llvm.experimental.convergence.entry" (function inlining)
; ROLE: source
; PAIR: cl06-inline-entry.tgt.ll
; KERNEL: @main
; EXPECT: refines
; OPT-VERIFY: ok
;
; The document's inlining example before inlining: @callee is convergent and
; ties its convergent operation to its `entry` token; @main calls it inside a
; loop whose heart %inner is controlled by an outer anchor, passing %inner in
; the call's bundle. By D-ENTRY-CALL, threads execute converged instances of
; the callee's `entry` iff they executed converged instances of the call, that
; is, of %inner in the same iteration. The target is the document's "After
; inlining" program, where the operation uses %inner directly ("Function
; inlining substitutes this intrinsic with the token from the operand
; bundle"). The trip count %n is per-thread. Inlining must preserve the
; communicating sets exactly, so the pair refines (and is in fact
; equivalent).

target triple = "amdgcn-amd-amdhsa"

define void @callee() convergent {
  %tok = call token @llvm.experimental.convergence.entry()
  call void @convergent.operation() [ "convergencectrl"(token %tok) ]
  ret void
}

define void @main(i32 %n) {
entry:
  %outer = call token @llvm.experimental.convergence.anchor()
  br label %for

for:
  %i = phi i32 [ 0, %entry ], [ %i.next, %body ]
  %inner = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %outer) ]
  %cmp = icmp slt i32 %i, %n
  br i1 %cmp, label %body, label %exit

body:
  call void @callee() [ "convergencectrl"(token %inner) ]
  %i.next = add i32 %i, 1
  br label %for

exit:
  ret void
}

declare token @llvm.experimental.convergence.entry() convergent nounwind willreturn memory(none)
declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)
declare token @llvm.experimental.convergence.loop() convergent nounwind willreturn memory(none)
declare void @convergent.operation() convergent nounwind
