; CL-09: ConvergentOperations.rst, "Rationale for the Static rule on cycles",
; third example: the loop heart inside `if (condition1)`, a free-standing
; anchor for op.2. Both threads run two iterations with the paths
;   Thread 1 (t0): A B C D F B D E F G
;   Thread 2 (t1): A B D E F B C D F G
; The document: %loop(1) == %loop(2) and @op.1(1) == @op.1(2); whether
; @op.2(1) == @op.2(2) is implementation-defined (the rules are "silent").
; Run: convcheck run examples/interp/cl09-heart-in-if.ll --threads 2

define void @kernel() {
A:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %anchor = call token @llvm.experimental.convergence.anchor()
  br label %B

B:
  %i = phi i32 [ 0, %A ], [ %i.next, %F ]
  %condition1 = icmp eq i32 %i, %tid
  br i1 %condition1, label %C, label %D

C:
  %loop = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %anchor) ]
  call void @convergent.op.1() [ "convergencectrl"(token %loop) ]
  br label %D

D:
  %condition2 = icmp ne i32 %i, %tid
  br i1 %condition2, label %E, label %F

E:
  %free = call token @llvm.experimental.convergence.anchor()
  call void @convergent.op.2() [ "convergencectrl"(token %free) ]
  br label %F

F:
  %i.next = add i32 %i, 1
  %again = icmp ult i32 %i.next, 2
  br i1 %again, label %B, label %G

G:
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare token @llvm.experimental.convergence.anchor()
declare token @llvm.experimental.convergence.loop()
declare void @convergent.op.1() convergent
declare void @convergent.op.2() convergent
