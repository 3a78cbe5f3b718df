; CLAIM: CL-19
; SOURCE: CO "Hoisting and sinking"
; ROLE: source
; PAIR: cl19-anchor-sink-only-b.tgt.ll
; KERNEL: @example
; EXPECT: counterexample
; WITNESS: 2 threads; %condition = true in one thread, false in the other; the anchor groups both
; DISTINGUISH: --threads 2 --arg condition=true,false --arg x=0 --arg y=0 :: size(t0@pure.convergent.operation[0]) == 2 && size(t0@pure.convergent.operation[1]) == 1
; OPT-VERIFY: ok
;
; The document's "Convergent operations can be sunk together with their
; anchor" example: an anchor %tok controls two pure convergent operations %a
; and %b (memory(none): their values are functions of their communicating
; sets, C-OPS), used only inside `if (condition)` with a per-thread
; %condition. In the source %a and %b always have the same communicating set.
; The target sinks only %b. The document: "sinking *only* the convergent
; operation producing %b would be incorrect. That would allow threads for
; which condition is false to communicate at %a, but not at %b, which the
; original program doesn't allow."

target triple = "amdgcn-amd-amdhsa"

define void @example(i1 %condition, i32 %x, i32 %y) {
  %tok = call token @llvm.experimental.convergence.anchor()
  %a = call i32 @pure.convergent.operation(i32 %x) [ "convergencectrl"(token %tok) ]
  %b = call i32 @pure.convergent.operation(i32 %y) [ "convergencectrl"(token %tok) ]
  br i1 %condition, label %then, label %end

then:
  call void @use(i32 %a, i32 %b)
  br label %end

end:
  ret void
}

declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)
declare i32 @pure.convergent.operation(i32) convergent nounwind willreturn memory(none)
declare void @use(i32, i32)
