; CLAIM: CL-14
; SOURCE: CO "Hoisting and sinking"
; ROLE: target
; PAIR: cl14-shuffle-hoist-poison.src.ll
; KERNEL: @example
; EXPECT: refines
; MODES: --observe auto --shuffle-oob poison
; EXPECT-IN: --observe sets --shuffle-oob poison => counterexample
; OPT-VERIFY: ok
;
; Both @subgroupShuffle calls hoisted above the branch into one call under
; the `entry` token. Variant: out-of-range %id yields poison ("convcheck-out-of-range"="poison", also marked speculatable). Its communicating set is now every
; thread of the group, a superset of each arm's set in the source, so every
; in-range read of the source reads the same lane here.

target triple = "amdgcn-amd-amdhsa"

define void @example(i1 %condition, i32 %data, i32 %id) convergent {
  %entry = call token @llvm.experimental.convergence.entry()
  %shuffled = call i32 @subgroupShuffle(i32 %data, i32 %id) [ "convergencectrl"(token %entry) ]
  br i1 %condition, label %then, label %else

then:
  call void @use(i32 %shuffled)
  br label %end

else:
  call void @use(i32 %shuffled)
  br label %end

end:
  ret void
}

declare token @llvm.experimental.convergence.entry() convergent nounwind willreturn memory(none)
declare i32 @subgroupShuffle(i32, i32) convergent nounwind willreturn memory(none) speculatable "convcheck-out-of-range"="poison"
declare void @use(i32)
