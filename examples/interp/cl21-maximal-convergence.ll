; CL-21: ConvergenceAndUniformity.rst, "Maximal Convergence" (the table after
; "Maximal convergence can now be demonstrated in the earlier example").
; Two threads run the natural loop Entry -> H -> (B) -> L -> H | Exit:
;   thread 0: Entry H B L H L Exit            (two iterations, B in the first)
;   thread 1: Entry H L H B L H B L Exit      (three iterations, B in the 2nd, 3rd)
; The document's verdicts: H1~H2, B1!~B2, H3~H4, H3!~H5, L1~L2, L3~L4, L3!~L5.
; Run: convcheck run examples/interp/cl21-maximal-convergence.ll --threads 2

define void @kernel() {
Entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %t0 = icmp eq i32 %tid, 0
  ; bit i of %mask: take B in iteration i; %trips: number of iterations
  %mask = select i1 %t0, i32 1, i32 6
  %trips = select i1 %t0, i32 2, i32 3
  br label %H

H:
  %i = phi i32 [ 0, %Entry ], [ %i.next, %L ]
  %bits = lshr i32 %mask, %i
  %bit = and i32 %bits, 1
  %takeB = icmp ne i32 %bit, 0
  br i1 %takeB, label %B, label %L

B:
  br label %L

L:
  %i.next = add i32 %i, 1
  %again = icmp ult i32 %i.next, %trips
  br i1 %again, label %H, label %Exit

Exit:
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
