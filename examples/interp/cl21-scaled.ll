; Benchmark for the reference interpreter (issue 4, "Performance"): the
; CL-21 loop shape (Entry -> H -> (B) -> L -> H | Exit) with per-thread trip
; counts near %n and a per-thread pattern of B visits.
; Run: convcheck run examples/interp/cl21-scaled.ll --threads 64 --arg n=1000

define void @kernel(i32 %n) {
Entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %extra = and i32 %tid, 3
  %trips = add i32 %n, %extra
  br label %H

H:
  %i = phi i32 [ 0, %Entry ], [ %i.next, %L ]
  %sum = add i32 %i, %tid
  %r = urem i32 %sum, 3
  %takeB = icmp eq i32 %r, 0
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
