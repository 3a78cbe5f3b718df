; CLAIM: CL-30
; SOURCE: RFC21 "a convergent call can be sunk across a uniform (non-divergent) branch"
; ROLE: source
; PAIR: cl30-sink-uniform-branch.tgt.ll
; KERNEL: @example
; EXPECT: refines
; MODES: --observe auto
; EXPECT-IN: --observe sets => counterexample
; OPT-VERIFY: ok
;
; The 2021 "calls convergent by default" RFC
; (spec/seeds/002_b90a9a32e9e189f0.txt): "the current implementation of
; sinking always bails out on a convergent call. In reality, a convergent
; call can be sunk across a uniform (non-divergent) branch. This is
; disallowed by the current overly conservative definition of convergent, but
; will be allowed by the new definition." An uncontrolled reduction over the
; thread ids precedes a branch on the kernel argument %u, which is uniform
; (P-LAUNCH: arguments of an `amdgpu_kernel`); its result is used only in the
; `then` block. The target sinks the call there. Every thread takes the same
; direction, so either all threads execute the sunk call together (same set,
; same sum, under D-MAX and under the inferred `entry` token) or none does
; and the value is unused. Under `--observe sets` the call is an event and
; the target drops it when %u is false, so the strict reading rejects the
; transform.

target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @example(i1 %u) convergent {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %sum = call i32 @subgroupAdd(i32 %tid)
  br i1 %u, label %then, label %end

then:
  call void @use(i32 %sum)
  br label %end

end:
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @subgroupAdd(i32) convergent nounwind willreturn memory(none)
declare void @use(i32)
