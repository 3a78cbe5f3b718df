; CLAIM: CL-26
; SOURCE: RFC20 "if (cc) { result = ballot(true); } else { result = ballot(true); }"
; ROLE: source
; PAIR: cl26-ballot-merge.tgt.ll
; KERNEL: @example
; EXPECT: counterexample
; WITNESS: 2 threads; %cc = true in one thread, false in the other (source results 0b01 / 0b10, target 0b11 in both)
; DISTINGUISH: --threads 2 --arg cc=true,false :: t0@subgroupBallot == 3
; OPT-VERIFY: ok
;
; The convergence-intrinsics RFC (spec/seeds/004_b0d572e3198739da.txt):
; "uvec4 result; if (cc) { result = ballot(true); } else { result =
; ballot(true); } Even though both sides of the branch are identical, it is
; incorrect to replace the if-statement with a single ballot call. This is
; because ballot communicates with other threads, and the set of those
; threads depends on where ballot is with respect to control flow." The RFC
; predates tokens, so the ballots are uncontrolled (the function is
; `convergent` so that `--uncontrolled inferred` may add an `entry` token).
; uvec4 is modelled as the i64 mask of @subgroupBallot; %cc is per-thread;
; the result is the return value. The target replaces the if-statement by one
; ballot. Under both D-UNCTRL modes each arm's ballot sees only the threads
; of its arm, the merged ballot sees all.

target triple = "amdgcn-amd-amdhsa"

define i64 @example(i1 %cc) convergent {
entry:
  br i1 %cc, label %then, label %else

then:
  %result.then = call i64 @subgroupBallot(i1 true)
  br label %end

else:
  %result.else = call i64 @subgroupBallot(i1 true)
  br label %end

end:
  %result = phi i64 [ %result.then, %then ], [ %result.else, %else ]
  ret i64 %result
}

declare i64 @subgroupBallot(i1) convergent nounwind willreturn memory(none)
