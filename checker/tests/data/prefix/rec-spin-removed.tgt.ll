; R-PREFIX-REC evidence: rec-spin.src.ll with the recursion of @rec
; removed (as if a pass had assumed it terminates): threads with %x == 1
; now return and reach the barrier, where the source never returns.
define void @k(i32 %x) {
entry:
  call void @rec(i32 %x, i32 7)
  call void @barrier()
  ret void
}

define void @rec(i32 %a, i32 %b) {
entry:
  ret void
}

declare void @barrier() convergent
