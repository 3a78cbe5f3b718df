; CLAIM: CL-14
; SOURCE: CO "Hoisting and sinking"
; ROLE: source
; PAIR: cl14-shuffle-hoist-poison.tgt.ll
; KERNEL: @example
; EXPECT: refines
; MODES: --observe auto --shuffle-oob poison
; EXPECT-IN: --observe sets --shuffle-oob poison => counterexample
; OPT-VERIFY: ok
;
; The document's first @subgroupShuffle example: both arms of a branch on
; the per-thread %condition shuffle %data from lane %id under the `entry`
; token. Variant: out-of-range %id yields poison ("convcheck-out-of-range"="poison", also marked speculatable).
; The target hoists the two calls above the branch and merges them. The
; document: "After hoisting the calls to @subgroupShuffle, the communicating
; set of threads is the union of the two sets of threads in the original
; program, so %id can only go 'out of range' after hoisting if it did so in
; the original program." Where the source's lane %id is in range, the target
; reads the same lane's %data; where it is out of range the source is UB
; (or poison, which any target value refines). The shuffle is memory(none)
; and modelled (C-OPS), so under the default `--observe auto` only its value
; is observed; under `--observe sets` its communicating set is an event and
; the union set differs from both arms' sets: that strict reading forbids the
; hoist (R-OBS).

target triple = "amdgcn-amd-amdhsa"

define void @example(i1 %condition, i32 %data, i32 %id) convergent {
  %entry = call token @llvm.experimental.convergence.entry()
  br i1 %condition, label %then, label %else

then:
  %shuffled = call i32 @subgroupShuffle(i32 %data, i32 %id) [ "convergencectrl"(token %entry) ]
  call void @use(i32 %shuffled)
  br label %end

else:
  %shuffled.else = call i32 @subgroupShuffle(i32 %data, i32 %id) [ "convergencectrl"(token %entry) ]
  call void @use(i32 %shuffled.else)
  br label %end

end:
  ret void
}

declare token @llvm.experimental.convergence.entry() convergent nounwind willreturn memory(none)
declare i32 @subgroupShuffle(i32, i32) convergent nounwind willreturn memory(none) speculatable "convcheck-out-of-range"="poison"
declare void @use(i32)
