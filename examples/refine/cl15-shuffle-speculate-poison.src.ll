; CLAIM: CL-15
; SOURCE: CO "Hoisting and sinking"
; ROLE: source
; PAIR: cl15-shuffle-speculate-poison.tgt.ll
; KERNEL: @example
; EXPECT: refines
; MODES: --observe auto --shuffle-oob poison
; EXPECT-IN: --observe sets --shuffle-oob poison => counterexample
; OPT-VERIFY: ok
;
; The document's second @subgroupShuffle example: a single `if` on the
; per-thread %condition shuffles %data from lane %id under the `entry`
; token. Variant: out-of-range %id yields poison
; ("convcheck-out-of-range"="poison", also marked speculatable). The target
; speculates the
; shuffle above the branch. The document: "if @subgroupShuffle is defined
; such that it merely produces an undefined value or poison as result when
; %id is out of range, then speculating is okay." Threads with %condition
; false get a value they never use; a thread with %condition true reads lane
; %id from a larger set: the same %data where the source read in range, a
; defined value where the source had poison. Under `--observe sets` the
; target adds shuffle events in threads that skip the branch, so the strict
; reading rejects it.

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
declare i32 @subgroupShuffle(i32, i32) convergent nounwind willreturn memory(none) speculatable "convcheck-out-of-range"="poison"
declare void @use(i32)
