; R-PREFIX-REC evidence: a recursion that is never stuck. @down counts its
; argument (4 to 7) down to 0 and calls the barrier at the bottom: 5 to 8
; nested calls, deeper than the inliner's 3 copies, so the checker sees
; every thread reach the cut call with an argument different from the
; enclosing copies' (a countdown), which may still return and emit.
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
  call void @barrier()
  ret void
}

declare void @barrier() convergent
