; CLAIM: CL-15
; SOURCE: CO "Hoisting and sinking"
; ROLE: source
; PAIR: cl15-shuffle-speculate-ub.tgt.ll
; KERNEL: @example
; EXPECT: counterexample
; MODES: --shuffle-oob ub
; WITNESS: 2 threads; thread 0: %condition = true, %id = 0; thread 1: %condition = false, %id = 5 (no such thread: UB in the target only)
; DISTINGUISH: --threads 2 --shuffle-oob ub --arg condition=true,false --arg data=7 --arg id=0,5 :: ub
; OPT-VERIFY: ok
;
; The document's second @subgroupShuffle example: a single `if` on the
; per-thread %condition shuffles %data from lane %id under the `entry`
; token. Variant: out-of-range %id is undefined behaviour
; ("convcheck-out-of-range"="ub"). The target speculates the
; shuffle above the branch. The document: "If @subgroupShuffle is defined
; to have UB when %id is outside of the set of communicating threads, then
; speculating and hoisting @subgroupShuffle might introduce UB." A thread
; whose %condition is false may hold any %id; in the target it executes the
; shuffle and can have UB where the source has none, so the target does not
; refine the source.

target triple = "amdgcn-amd-amdhsa"

define void @example(i1 %condition, i32 %data, i32 %id) convergent {
  %entry = call token @llvm.experimental.convergence.entry()
  br i1 %condition, label %then, label %end

then:
  %shuffled = call i32 @subgroupShuffle(i32 %data, i32 %id) [ "convergencectrl"(token %entry) ]
  call void @use(i32 %shuffled)
  br label %end

end:
  ret void
}

declare token @llvm.experimental.convergence.entry() convergent nounwind willreturn memory(none)
declare i32 @subgroupShuffle(i32, i32) convergent nounwind willreturn memory(none) "convcheck-out-of-range"="ub"
declare void @use(i32)
