//! Ill-typed `getelementptr` (issue 12 item 9, bad input): the parser
//! accepts and rejects index lists as opt-22 does, with opt-22's message at
//! opt-22's `line:col`, for instructions and constant expressions over
//! structs (named, literal, nested, opaque), arrays, vectors and scalars
//! with constant and variable indices. Differential against opt-22 (loud
//! SKIP without it, failure under `CI=true`).

use testgen::oracle::SplitMix;
use testgen::support::parse_diff::ParseDiff;

const TYPES: &str = "%S = type { i32, [4 x i8], %T }
%T = type { i64, <2 x i32> }
%O = type opaque
@g = global [3 x %S] zeroinitializer
";

const SOURCES: &[&str] = &[
    "i32",
    "%S",
    "%T",
    "[3 x %S]",
    "<4 x i32>",
    "%O",
    "ptr",
    "{ i8, i16 }",
];

const INDICES: &[&str] = &[
    "i32 0", "i32 1", "i32 2", "i32 3", "i32 5", "i64 -1", "i64 %i",
];

#[test]
fn gep_indices_are_checked_like_opt() {
    let Some(opt) = testgen::oracle::opt_or_skip("gep_indices_are_checked_like_opt") else {
        return;
    };
    let mut r = SplitMix(42);
    let mut diff = ParseDiff::default();
    for case in 0..160 {
        let src = SOURCES[r.next(SOURCES.len())];
        let n = 1 + r.next(4);
        let constant = case % 4 == 3;
        let idx: Vec<&str> = (0..n)
            .map(|_| loop {
                let i = INDICES[r.next(INDICES.len())];
                if !(constant && i.contains('%')) {
                    break i;
                }
            })
            .collect();
        let text = if constant {
            format!(
                "{TYPES}define ptr @k() {{\n  ret ptr getelementptr ({src}, ptr @g, {})\n}}\n",
                idx.join(", ")
            )
        } else {
            format!(
                "{TYPES}define ptr @k(ptr %p, i64 %i) {{\n  %q = getelementptr {src}, ptr %p, {}\n  ret ptr %q\n}}\n",
                idx.join(", ")
            )
        };
        diff.check(&opt, &text, text.lines().nth(5).unwrap_or(""));
    }
    diff.finish(20);
}
