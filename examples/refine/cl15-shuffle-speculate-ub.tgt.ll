; CLAIM: CL-15
; SOURCE: CO "Hoisting and sinking"
; ROLE: target
; PAIR: cl15-shuffle-speculate-ub.src.ll
; KERNEL: @example
; EXPECT: counterexample
; MODES: --shuffle-oob ub
; WITNESS: 2 threads; thread 0: %condition = true, %id = 0; thread 1: %condition = false, %id = 5 (no such thread: UB in the target only)
; DISTINGUISH: --threads 2 --shuffle-oob ub --arg condition=true,false --arg data=7 --arg id=0,5 :: ub
; OPT-VERIFY: ok
;
; The shuffle speculated out of the `if` into the entry block, executed by
; every thread, including those whose %condition is false and whose %id is
; arbitrary. Variant: out-of-range %id is undefined behaviour
; ("convcheck-out-of-range"="ub").

target triple = "amdgcn-amd-amdhsa"

define void @example(i1 %condition, i32 %data, i32 %id) convergent {
  %entry = call token @llvm.experimental.convergence.entry()
  %shuffled = call i32 @subgroupShuffle(i32 %data, i32 %id) [ "convergencectrl"(token %entry) ]
  br i1 %condition, label %then, label %end

then:
  call void @use(i32 %shuffled)
  br label %end

end:
  ret void
}

declare token @llvm.experimental.convergence.entry() convergent nounwind willreturn memory(none)
declare i32 @subgroupShuffle(i32, i32) convergent nounwind willreturn memory(none) "convcheck-out-of-range"="ub"
declare void @use(i32)
