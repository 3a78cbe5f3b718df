//! Ill-typed arithmetic, compares, casts and selects (issue 12 item 9, bad
//! input): the parser accepts and rejects them as opt-22 does, with
//! opt-22's message at opt-22's `line:col` (`parse::typing`). Operand
//! types range over integers, floats, pointers in two address spaces,
//! vectors of each (fixed and scalable, of different lengths), aggregates
//! and tokens-free first-class types; differential against opt-22 (loud
//! SKIP without it, failure under `CI=true`).

use testgen::oracle::SplitMix;
use testgen::support::parse_diff::ParseDiff;

/// Types with a value of each (`%aN` parameters of the test function).
const TYPES: &[&str] = &[
    "i1",
    "i8",
    "i16",
    "i32",
    "i64",
    "half",
    "bfloat",
    "float",
    "double",
    "ptr",
    "ptr addrspace(3)",
    "<2 x i1>",
    "<2 x i16>",
    "<2 x i32>",
    "<4 x i16>",
    "<2 x float>",
    "<2 x double>",
    "<2 x ptr>",
    "<1 x ptr>",
    "<vscale x 2 x i32>",
    "{ i32, i32 }",
    "[2 x i32]",
];

const CASTS: &[&str] = &[
    "trunc",
    "zext",
    "sext",
    "fptrunc",
    "fpext",
    "fptoui",
    "fptosi",
    "uitofp",
    "sitofp",
    "ptrtoint",
    "inttoptr",
    "bitcast",
    "addrspacecast",
];

const BINOPS: &[&str] = &[
    "add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or", "xor",
    "fadd", "fsub", "fmul", "fdiv", "frem",
];

fn header() -> String {
    let params: Vec<String> = TYPES
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{t} %a{i}"))
        .collect();
    format!("define void @k({}) {{\nentry:\n", params.join(", "))
}

#[test]
fn operand_types_are_checked_like_opt() {
    let Some(opt) = testgen::oracle::opt_or_skip("operand_types_are_checked_like_opt") else {
        return;
    };
    let mut r = SplitMix(7);
    let mut diff = ParseDiff::default();
    let head = header();
    for case in 0..240 {
        let a = r.next(TYPES.len());
        let b = r.next(TYPES.len());
        let c = r.next(TYPES.len());
        let inst = match case % 6 {
            0..=2 => format!(
                "%x = {} {} %a{a} to {}",
                CASTS[r.next(CASTS.len())],
                TYPES[a],
                TYPES[b]
            ),
            3 => {
                let op = BINOPS[r.next(BINOPS.len())];
                format!("%x = {op} {} %a{a}, %a{a}", TYPES[a])
            }
            4 => {
                let (pred, which) = if r.next(2) == 0 {
                    ("eq", "icmp")
                } else {
                    ("oeq", "fcmp")
                };
                format!("%x = {which} {pred} {} %a{a}, %a{a}", TYPES[a])
            }
            _ => {
                // The false value has the true value's type half the time.
                let f = if r.next(2) == 0 { b } else { c };
                format!(
                    "%x = select {} %a{a}, {} %a{b}, {} %a{f}",
                    TYPES[a], TYPES[b], TYPES[f]
                )
            }
        };
        let text = format!("{head}  {inst}\n  ret void\n}}\n");
        diff.check(&opt, &text, &inst);
    }
    diff.finish(30);
}
