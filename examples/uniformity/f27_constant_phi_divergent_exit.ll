; F-27 (proofs/FINDINGS.md): a phi at the exit of a loop with a divergent exit merges two
; constants, one per exiting edge. opt-22 calls %p uniform; threads 0 and 1 leave
; through different edges in different iterations and pass 9 and 7 to @use (convcheck run).
define amdgpu_kernel void @k() {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %h
h:
  %i = phi i32 [ 0, %entry ], [ %i.next, %body ]
  %i.next = add i32 %i, 1
  %more = icmp slt i32 %i, 1
  br i1 %more, label %body, label %exit
body:
  %stay = icmp slt i32 %i, %tid
  br i1 %stay, label %h, label %exit
exit:
  %p = phi i32 [ 7, %h ], [ 9, %body ]
  call void @use(i32 %p)
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare void @use(i32) convergent
