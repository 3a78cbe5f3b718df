; CLAIM: CL-06
; SOURCE: CO "llvm.experimental.convergence.entry" (function inlining)
; ROLE: target
; PAIR: cl06-inline-entry.src.ll
; KERNEL: @main
; EXPECT: refines
; OPT-VERIFY: ok
;
; The document's "After inlining" program: the body of @callee replaces the
; call, and the callee's `entry` token is replaced by %inner, the token of
; the call site's bundle. The operation is now controlled by the loop heart
; directly, so in each iteration it communicates among the threads that
; executed that iteration's %inner together, as the callee's operation did.
; @callee stays defined (it is external) but is no longer called.

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
  call void @convergent.operation() [ "convergencectrl"(token %inner) ]
  %i.next = add i32 %i, 1
  br label %for

exit:
  ret void
}

declare token @llvm.experimental.convergence.entry() convergent nounwind willreturn memory(none)
declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)
declare token @llvm.experimental.convergence.loop() convergent nounwind willreturn memory(none)
declare void @convergent.operation() convergent nounwind
