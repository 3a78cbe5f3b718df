; CL-05: ConvergentOperations.rst, "Extended Cycles: Divergent Exit from a
; Loop" (the LLVM IR version). The convergent call in the exit block C uses
; the loop token %inner: only threads that leave the loop in the same
; iteration communicate. Thread t leaves in iteration %n (per-thread argument).
; The document: "the convergent call is performed convergently only by those
; threads that convergently exited the loop in a given iteration".
; Run: convcheck run examples/interp/cl05-exit-loop-token.ll --threads 3 --arg n=0,1,1

define void @example(i32 %n) convergent {
A:
  %entry = call token @llvm.experimental.convergence.entry()
  br label %for

for:
  %i = phi i32 [ 0, %A ], [ %i.next, %D ]
  %inner = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %entry) ]
  %for.cond = icmp ult i32 %i, 4
  br i1 %for.cond, label %B, label %E

B:
  %condition = icmp eq i32 %i, %n
  br i1 %condition, label %C, label %D

C:
  %who = call i32 @subgroupBallot(i1 true) [ "convergencectrl"(token %inner) ]
  br label %E

D:
  %i.next = add i32 %i, 1
  br label %for

E:
  ret void
}

declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.loop()
declare i32 @subgroupBallot(i1) convergent
