//! Writes a large valid token program for benchmarking `convcheck verify`
//! against `opt-22 -passes=verify` (not a test).
//!
//! Usage: `cargo run --release -p semantics --example gen_token_bench -- [BLOCKS] > bench.ll`
//! (default 20,000 blocks). Each unit of 6 blocks is an outer loop whose
//! heart uses the function's `entry` token, holding an if/else, an inner
//! loop with its own heart, and an anchor, so that dominators, the cycle
//! hierarchy, token liveness and every rule have work to do.

use std::fmt::Write;

fn main() {
    let blocks: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    let units = blocks.saturating_sub(2).div_ceil(6).max(1);
    let mut s = String::new();
    s.push_str("define void @bench(i1 %c) convergent {\nentry:\n");
    s.push_str("  %e = call token @llvm.experimental.convergence.entry()\n  br label %u0.h\n");
    for k in 0..units {
        let next = if k + 1 == units {
            "exit".to_string()
        } else {
            format!("u{}.h", k + 1)
        };
        let _ = write!(
            s,
            "u{k}.h:
  %h{k} = call token @llvm.experimental.convergence.loop() [ \"convergencectrl\"(token %e) ]
  call void @op() [ \"convergencectrl\"(token %h{k}) ]
  br i1 %c, label %u{k}.a, label %u{k}.b
u{k}.a:
  %x{k} = call token @llvm.experimental.convergence.anchor()
  call void @op() [ \"convergencectrl\"(token %x{k}) ]
  br label %u{k}.m
u{k}.b:
  call void @op() [ \"convergencectrl\"(token %h{k}) ]
  br label %u{k}.i
u{k}.i:
  %g{k} = call token @llvm.experimental.convergence.loop() [ \"convergencectrl\"(token %h{k}) ]
  call void @op() [ \"convergencectrl\"(token %g{k}) ]
  br i1 %c, label %u{k}.i, label %u{k}.m
u{k}.m:
  br i1 %c, label %u{k}.h, label %u{k}.x
u{k}.x:
  br label %{next}
"
        );
    }
    s.push_str("exit:\n  ret void\n}\n\n");
    s.push_str("declare void @op() convergent\n");
    s.push_str("declare token @llvm.experimental.convergence.entry()\n");
    s.push_str("declare token @llvm.experimental.convergence.loop()\n");
    s.push_str("declare token @llvm.experimental.convergence.anchor()\n");
    print!("{s}");
}
