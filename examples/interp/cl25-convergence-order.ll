; CL-25: ConvergenceAndUniformity.rst, "Convergence", the table after the
; definition of convergence-before:
;   Thread 1: Entry ...          S2 T ... Exit
;   Thread 2: Entry ...    Q2 R  S1   ... Exit
;   Thread 3: Entry ... P  Q1                    (does not reach Exit)
; Threads are numbered from 0 here: t0 = Thread 1, t1 = Thread 2,
; t2 = Thread 3. The document: with Q1~Q2 and S1~S2, convergence-before
; contains P -> Q2, Q1 -> R, P -> R, P -> T.
; Run: convcheck run examples/interp/cl25-convergence-order.ll --threads 3

define void @kernel() {
Entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  switch i32 %tid, label %S [ i32 1, label %Q
                              i32 2, label %P ]

P:
  br label %Q

Q:
  %is2 = icmp eq i32 %tid, 2
  br i1 %is2, label %Done, label %R

R:
  br label %S

S:
  %is0 = icmp eq i32 %tid, 0
  br i1 %is0, label %T, label %Exit

T:
  br label %Exit

Exit:
  ret void

Done:
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
