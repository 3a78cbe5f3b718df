; CLAIM: CL-20
; SOURCE: CO "Hoisting and sinking"
; ROLE: source
; PAIR: cl20-entry-sink.tgt.ll
; KERNEL: @example
; EXPECT: counterexample
; WITNESS: 2 threads; %condition = true in one thread, false in the other
; DISTINGUISH: --threads 2 --arg condition=true,false --arg x=0 --arg y=0 :: size(t0@pure.convergent.operation[0]) == 1
; OPT-VERIFY: ok
;
; The CL-19 code with the token from `entry` instead of an anchor (the
; function is therefore `convergent`, S-ENTRY-FUNC). The document: "Note that
; the entry intrinsic behaves differently. Sinking the convergent operations
; is forbidden in the following snippet". The `entry` token is not
; implementation-defined: threads that entered the function together (one
; launch group, D-ENTRY-LAUNCH) execute %a and %b together. The target sinks
; %a and %b into the `if` (the `entry` intrinsic itself must stay in the
; entry block, S-ENTRY-PLACE); they then communicate only among the threads
; that take the branch.

target triple = "amdgcn-amd-amdhsa"

define void @example(i1 %condition, i32 %x, i32 %y) convergent {
  %tok = call token @llvm.experimental.convergence.entry()
  %a = call i32 @pure.convergent.operation(i32 %x) [ "convergencectrl"(token %tok) ]
  %b = call i32 @pure.convergent.operation(i32 %y) [ "convergencectrl"(token %tok) ]
  br i1 %condition, label %then, label %end

then:
  call void @use(i32 %a, i32 %b)
  br label %end

end:
  ret void
}

declare token @llvm.experimental.convergence.entry() convergent nounwind willreturn memory(none)
declare i32 @pure.convergent.operation(i32) convergent nounwind willreturn memory(none)
declare void @use(i32, i32)
