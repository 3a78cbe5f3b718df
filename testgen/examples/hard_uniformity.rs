//! The hard shape for the uniformity benchmark (not a test): a kernel of N
//! blocks with ~25% back edges to random earlier blocks, forward jumps into
//! the resulting cycles (irreducible ones), thread-id-dependent branches,
//! phis and uses after cycles ([`testgen::uniformity::gen_hard_kernel`]).
//! `cargo run -p testgen --example hard_uniformity -- 4000 [SEED] > k.ll`.
use testgen::uniformity::{gen_hard_kernel, DECLARATIONS};

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(4000);
    let seed: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    print!(
        "{}{}",
        gen_hard_kernel(seed, "hard", n).to_llvm(),
        DECLARATIONS
    );
}
