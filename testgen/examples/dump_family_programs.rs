//! Writes N generated convergent programs of `refine_family` (a divergent
//! branch, C-OPS reductions and barriers, controlled or not, an optional
//! loop with a heart) as OUT/family-NN.ll, from a fixed seed, for
//! `make validate-campaign`:
//! `cargo run -p testgen --example dump_family_programs -- OUT N SEED`.
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use testgen::refine_family::{arb_prog, render};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let out = std::path::PathBuf::from(args.get(1).map_or("target/family", String::as_str));
    let num = |i: usize, d: u64| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let (n, seed) = (num(2, 12), num(3, 1));
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
    );
    std::fs::create_dir_all(&out).expect("create the output directory");
    let strategy = arb_prog(3);
    for i in 0..n {
        let p = strategy
            .new_tree(&mut runner)
            .expect("the strategy generates")
            .current();
        let path = out.join(format!("family-{i:02}.ll"));
        std::fs::write(&path, render(&p)).expect("write a generated program");
    }
}
