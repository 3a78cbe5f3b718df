; CLAIM: CL-20
; SOURCE: CO "Hoisting and sinking"
; ROLE: target
; PAIR: cl20-entry-sink.src.ll
; KERNEL: @example
; EXPECT: counterexample
; WITNESS: 2 threads; %condition = true in one thread, false in the other
; DISTINGUISH: --threads 2 --arg condition=true,false --arg x=0 --arg y=0 :: size(t0@pure.convergent.operation[0]) == 1
; OPT-VERIFY: ok
;
; %a and %b sunk into the conditional block, still controlled by the `entry`
; token. Their communicating set shrinks from the whole launch group to the
; threads with %condition true, so their values differ from every value the
; source can produce.

target triple = "amdgcn-amd-amdhsa"

define void @example(i1 %condition, i32 %x, i32 %y) convergent {
  %tok = call token @llvm.experimental.convergence.entry()
  br i1 %condition, label %then, label %end

then:
  %a = call i32 @pure.convergent.operation(i32 %x) [ "convergencectrl"(token %tok) ]
  %b = call i32 @pure.convergent.operation(i32 %y) [ "convergencectrl"(token %tok) ]
  call void @use(i32 %a, i32 %b)
  br label %end

end:
  ret void
}

declare token @llvm.experimental.convergence.entry() convergent nounwind willreturn memory(none)
declare i32 @pure.convergent.operation(i32) convergent nounwind willreturn memory(none)
declare void @use(i32, i32)
