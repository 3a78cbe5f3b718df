; R-PREFIX-REC evidence: rec-deep.src.ll without the barrier at the bottom
; of the recursion (depth 5 to 8): a real difference, which only a deeper
; inlining could show; calling the cut threads stuck would answer refines.
define void @k(i32 %x) {
entry:
  %m = and i32 %x, 3
  %n = add i32 %m, 4
  call void @down(i32 %n)
  ret void
}

define void @down(i32 %n) {
entry:
  %z = icmp eq i32 %n, 0
  br i1 %z, label %bottom, label %more

more:
  %n1 = sub i32 %n, 1
  call void @down(i32 %n1)
  ret void

bottom:
  ret void
}

declare void @barrier() convergent
