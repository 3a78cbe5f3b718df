//! Writes large deterministic LLVM IR functions for the benchmarks (not
//! tests): `gen-large cycles N` prints one function of about N blocks mixing
//! sequences, diamonds, nested natural loops, loops with several exits and
//! irreducible two-entry cycles, so every part of the cycle analysis is
//! exercised at scale. Same N, same output.

use std::fmt::Write;

/// A small deterministic generator (SplitMix64), so the benchmark input does
/// not depend on any crate's RNG.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn cycles_function(n: usize) -> String {
    let mut rng = Rng(0x5eed);
    let mut body = String::new();
    // Blocks are emitted in groups; each group starts at `b` and falls
    // through to the next group's first block.
    let mut b = 0usize;
    let conds = 8;
    while b + 12 < n {
        let c = |r: &mut Rng| r.below(conds);
        match rng.below(4) {
            0 => {
                // diamond
                let _ = writeln!(
                    body,
                    "b{b}:\n  br i1 %c{}, label %b{}, label %b{}",
                    c(&mut rng),
                    b + 1,
                    b + 2
                );
                let _ = writeln!(body, "b{}:\n  br label %b{}", b + 1, b + 3);
                let _ = writeln!(body, "b{}:\n  br label %b{}", b + 2, b + 3);
                let _ = writeln!(body, "b{}:\n  br label %b{}", b + 3, b + 4);
                b += 4;
            }
            1 => {
                // nested natural loops with an early exit
                let _ = writeln!(body, "b{b}:\n  br label %b{}", b + 1);
                let _ = writeln!(
                    body,
                    "b{}:\n  br i1 %c{}, label %b{}, label %b{}",
                    b + 1,
                    c(&mut rng),
                    b + 2,
                    b + 5
                );
                let _ = writeln!(
                    body,
                    "b{}:\n  br i1 %c{}, label %b{}, label %b{}",
                    b + 2,
                    c(&mut rng),
                    b + 2,
                    b + 3
                );
                let _ = writeln!(
                    body,
                    "b{}:\n  br i1 %c{}, label %b{}, label %b{}",
                    b + 3,
                    c(&mut rng),
                    b + 1,
                    b + 4
                );
                let _ = writeln!(body, "b{}:\n  br label %b{}", b + 4, b + 5);
                let _ = writeln!(body, "b{}:\n  br label %b{}", b + 5, b + 6);
                b += 6;
            }
            2 => {
                // irreducible: two entries into a two-block cycle
                let _ = writeln!(
                    body,
                    "b{b}:\n  br i1 %c{}, label %b{}, label %b{}",
                    c(&mut rng),
                    b + 1,
                    b + 2
                );
                let _ = writeln!(
                    body,
                    "b{}:\n  br i1 %c{}, label %b{}, label %b{}",
                    b + 1,
                    c(&mut rng),
                    b + 2,
                    b + 3
                );
                let _ = writeln!(
                    body,
                    "b{}:\n  br i1 %c{}, label %b{}, label %b{}",
                    b + 2,
                    c(&mut rng),
                    b + 1,
                    b + 3
                );
                let _ = writeln!(body, "b{}:\n  br label %b{}", b + 3, b + 4);
                b += 4;
            }
            _ => {
                // switch into a loop with several latches
                let _ = writeln!(
                    body,
                    "b{b}:\n  switch i32 %s, label %b{} [\n    i32 0, label %b{}\n    i32 1, label %b{}\n  ]",
                    b + 1,
                    b + 2,
                    b + 3
                );
                let _ = writeln!(
                    body,
                    "b{}:\n  br i1 %c{}, label %b{}, label %b{}",
                    b + 1,
                    c(&mut rng),
                    b + 2,
                    b + 4
                );
                let _ = writeln!(
                    body,
                    "b{}:\n  br i1 %c{}, label %b{}, label %b{}",
                    b + 2,
                    c(&mut rng),
                    b + 1,
                    b + 3
                );
                let _ = writeln!(
                    body,
                    "b{}:\n  br i1 %c{}, label %b{}, label %b{}",
                    b + 3,
                    c(&mut rng),
                    b + 1,
                    b + 4
                );
                let _ = writeln!(body, "b{}:\n  br label %b{}", b + 4, b + 5);
                b += 5;
            }
        }
    }
    let _ = writeln!(body, "b{b}:\n  ret void");
    let params: Vec<String> = (0..conds)
        .map(|i| format!("i1 %c{i}"))
        .chain(["i32 %s".to_string()])
        .collect();
    format!("define void @large({}) {{\n{body}}}\n", params.join(", "))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: gen-large cycles N";
    if args.len() != 3 {
        eprintln!("{usage}");
        std::process::exit(2);
    }
    let Ok(n) = args[2].parse::<usize>() else {
        eprintln!("{usage}: N must be a number");
        std::process::exit(2);
    };
    match args[1].as_str() {
        "cycles" => print!("{}", cycles_function(n)),
        other => {
            eprintln!("{usage}: unknown kind `{other}`");
            std::process::exit(2);
        }
    }
}
