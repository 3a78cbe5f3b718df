; CLAIM: CL-19
; SOURCE: CO "Hoisting and sinking"
; ROLE: target
; PAIR: cl19-anchor-sink-only-b.src.ll
; KERNEL: @example
; EXPECT: counterexample
; WITNESS: 2 threads; %condition = true in one thread, false in the other; the anchor groups both
; DISTINGUISH: --threads 2 --arg condition=true,false --arg x=0 --arg y=0 :: size(t0@pure.convergent.operation[0]) == 2 && size(t0@pure.convergent.operation[1]) == 1
; OPT-VERIFY: ok
;
; Only %b sunk into the conditional block; the anchor and %a stay in the
; entry block. With both threads grouped by the anchor, %a communicates among
; both but %b only among the thread that takes the branch, so %a and %b see
; different sets; in the source they always see the same set.

target triple = "amdgcn-amd-amdhsa"

define void @example(i1 %condition, i32 %x, i32 %y) {
  %tok = call token @llvm.experimental.convergence.anchor()
  %a = call i32 @pure.convergent.operation(i32 %x) [ "convergencectrl"(token %tok) ]
  br i1 %condition, label %then, label %end

then:
  %b = call i32 @pure.convergent.operation(i32 %y) [ "convergencectrl"(token %tok) ]
  call void @use(i32 %a, i32 %b)
  br label %end

end:
  ret void
}

declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)
declare i32 @pure.convergent.operation(i32) convergent nounwind willreturn memory(none)
declare void @use(i32, i32)
