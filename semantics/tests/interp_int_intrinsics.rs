//! P-THREAD: the pure integer intrinsics of the table (`llvm.ctpop`,
//! min/max, `cttz`/`ctlz`, `abs`, `bitreverse`, `bswap`, `fshl`/`fshr`,
//! saturating add/sub) compute what LLVM 22 computes: on constants drawn
//! from a fixed-seed generator (edge values and random bits, widths 8 to
//! 64, both values of the `i1` flags), the interpreter's result equals
//! opt-22's constant folding (`-passes=instsimplify`), poison included.
//! Differential against opt-22: a loud SKIP without it, a failure under
//! `CI=true`.

use semantics::machine::state::ThreadEnd;
use semantics::machine::value::Val;
use semantics::machine::{explore, Options};
use semantics::parse_module;

/// (name, value operands, has an `i1` flag, widths)
const OPS: &[(&str, usize, bool, &[u32])] = &[
    ("ctpop", 1, false, &[8, 16, 32, 64]),
    ("umin", 2, false, &[8, 32, 64]),
    ("smax", 2, false, &[8, 32, 64]),
    ("cttz", 1, true, &[8, 16, 32, 64]),
    ("ctlz", 1, true, &[8, 16, 32, 64]),
    ("abs", 1, true, &[8, 16, 32, 64]),
    ("bitreverse", 1, false, &[8, 16, 32, 64]),
    ("bswap", 1, false, &[16, 32, 64]),
    ("fshl", 3, false, &[8, 16, 32, 64]),
    ("fshr", 3, false, &[8, 16, 32, 64]),
    ("uadd.sat", 2, false, &[8, 16, 32, 64]),
    ("sadd.sat", 2, false, &[8, 16, 32, 64]),
    ("usub.sat", 2, false, &[8, 16, 32, 64]),
    ("ssub.sat", 2, false, &[8, 16, 32, 64]),
];

/// splitmix64: a fixed, dependency-free stream of test constants.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn mask(w: u32) -> u128 {
    (1u128 << w) - 1
}

/// A constant of width `w`: edge values (0, 1, all ones, the signed
/// extremes) half the time, random bits otherwise.
fn constant(r: &mut Rng, w: u32) -> u128 {
    let m = mask(w);
    let edges = [0, 1, m, m >> 1, (m >> 1) + 1, 2, m - 1];
    let x = r.next();
    if x.is_multiple_of(2) {
        edges[(x / 2 % edges.len() as u64) as usize]
    } else {
        (r.next() as u128) & m
    }
}

fn signed(w: u32, v: u128) -> i128 {
    ((v << (128 - w)) as i128) >> (128 - w)
}

#[test]
fn pure_integer_intrinsics_fold_like_opt() {
    let Some(opt) = testgen::oracle::opt_or_skip("pure_integer_intrinsics_fold_like_opt") else {
        return;
    };
    let mut r = Rng(0x5EED_1234);
    let mut text = String::new();
    let mut decls = std::collections::BTreeSet::new();
    let mut cases = Vec::new();
    for &(op, values, flag, widths) in OPS {
        for &w in widths {
            let ty = format!("i{w}");
            let mut params = vec![ty.clone(); values];
            if flag {
                params.push("i1".into());
            }
            decls.insert(format!(
                "declare {ty} @llvm.{op}.{ty}({})",
                params.join(", ")
            ));
            for _ in 0..12 {
                let mut args: Vec<String> = (0..values)
                    .map(|_| format!("{ty} {}", signed(w, constant(&mut r, w))))
                    .collect();
                if flag {
                    args.push(format!("i1 {}", r.next().is_multiple_of(2)));
                }
                let name = format!("f{}", cases.len());
                text.push_str(&format!(
                    "define {ty} @{name}() {{\n  %r = call {ty} @llvm.{op}.{ty}({})\n  ret {ty} %r\n}}\n\n",
                    args.join(", ")
                ));
                cases.push((name, format!("{op}.{ty}({})", args.join(", ")), w));
            }
        }
    }
    for d in &decls {
        text.push_str(d);
        text.push('\n');
    }
    let out = testgen::oracle::run_opt(&opt, &["-passes=instsimplify", "-S"], &text);
    assert!(out.success(), "opt-22 failed: {}", out.stderr);
    // opt's folded value per function: `ret iN K` or `ret iN poison`.
    let mut folded = std::collections::HashMap::new();
    let mut current = None;
    for line in out.stdout.lines() {
        if let Some(rest) = line.strip_prefix("define ") {
            current = rest
                .split('@')
                .nth(1)
                .and_then(|s| s.split('(').next())
                .map(str::to_string);
        } else if let (Some(f), Some(rest)) = (&current, line.trim().strip_prefix("ret ")) {
            let value = rest.split_whitespace().nth(1).unwrap_or("").to_string();
            folded.insert(f.clone(), value);
        }
    }
    let m = parse_module("int_intrinsics.ll", &text).expect("the generated module parses");
    let mut compared = 0;
    let mut wrong = Vec::new();
    for (name, call, w) in &cases {
        let Some(want) = folded.get(name) else {
            continue;
        };
        if want.starts_with('%') {
            continue; // opt left the call alone
        }
        let opts = Options {
            entry: Some(name.clone()),
            threads: 1,
            ..Options::default()
        };
        let ex = explore(&m, &opts).unwrap_or_else(|e| panic!("@{name} runs: {e}"));
        assert_eq!(ex.behaviours.len(), 1, "@{name} is deterministic");
        let got = match &ex.behaviours[0].execution.threads[0].end {
            Some(ThreadEnd::Returned(Val::Poison)) => "poison".to_string(),
            Some(ThreadEnd::Returned(Val::Int { bits, v })) => {
                assert_eq!(bits, w);
                signed(*w, *v).to_string()
            }
            other => panic!("@{name} ({call}) ended with {other:?}"),
        };
        compared += 1;
        if &got != want {
            wrong.push(format!("{call}: opt-22 {want}, interpreter {got}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "P-THREAD results differ from opt-22:\n{}",
        wrong.join("\n")
    );
    // Every case is a call on constants: instsimplify folds them all.
    assert_eq!(
        compared,
        cases.len(),
        "opt-22 folded only {compared} of {} calls",
        cases.len()
    );
    eprintln!("{compared} calls folded by opt-22 and computed alike");
}
