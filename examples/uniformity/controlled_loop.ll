; Controlled convergence (ConvergentOperations.rst tokens): LLVM 22's uniformity
; analysis gives convergence control tokens no special treatment: the token
; intrinsics are neither sources nor always uniform, and a value defined in
; a cycle whose exit depends on the thread id is temporally divergent at its
; use after the loop (U-EXIT), token or not. The test checks that
; `convcheck uniformity` prints exactly what opt-22 prints for this file.

define amdgpu_kernel void @t(i32 %n, ptr addrspace(1) %out) convergent {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  %div.tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %loop
loop:
  %uni.i = phi i32 [ 0, %entry ], [ %uni.i1, %loop ]
  %l = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %e) ]
  %uni.r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %div.tid) [ "convergencectrl"(token %l) ]
  %uni.i1 = add i32 %uni.i, 1
  %div.c = icmp slt i32 %uni.i1, %div.tid
  br i1 %div.c, label %loop, label %exit
exit:
  %a = call token @llvm.experimental.convergence.anchor()
  %uni.b = call i32 @llvm.amdgcn.ballot.i32(i1 true) [ "convergencectrl"(token %a) ]
  store i32 %uni.i1, ptr addrspace(1) %out
  ret void
}
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.loop()
declare token @llvm.experimental.convergence.anchor()
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
declare i32 @llvm.amdgcn.ballot.i32(i1)
