; CLAIM: CL-15
; SOURCE: CO "Hoisting and sinking"
; ROLE: target
; PAIR: cl15-shuffle-speculate-poison.src.ll
; KERNEL: @example
; EXPECT: refines
; MODES: --observe auto --shuffle-oob poison
; EXPECT-IN: --observe sets --shuffle-oob poison => counterexample
; OPT-VERIFY: ok
;
; The shuffle speculated out of the `if` into the entry block, executed by
; every thread, including those whose %condition is false and whose %id is
; arbitrary. Variant: out-of-range %id yields poison
; ("convcheck-out-of-range"="poison", also marked speculatable).

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
declare i32 @subgroupShuffle(i32, i32) convergent nounwind willreturn memory(none) speculatable "convcheck-out-of-range"="poison"
declare void @use(i32)
