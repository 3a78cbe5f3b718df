//! Compares two `print<uniformity>` outputs (ours and opt-22's) the way
//! the differential tests do (proofs/FINDINGS.md F-09, U-1): per function,
//! the block part byte for byte, the header modulo what LLVM leaves to
//! hash order (`ugen::headers_agree`). Used by scripts/bench-uniformity.sh.
//!
//! `cargo run --release -p testgen --features test-support --example
//! uniformity_agree -- OURS.txt OPT.txt`: prints `agree` or the first
//! difference, exit 0 or 1.

use testgen::support::ugen::{headers_agree, parse_section, split_sections};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() != 2 {
        eprintln!("usage: uniformity_agree OURS.txt OPT.txt");
        std::process::exit(2);
    }
    let read = |p: &str| {
        std::fs::read_to_string(p).unwrap_or_else(|e| {
            eprintln!("uniformity_agree: {p}: {e}");
            std::process::exit(2)
        })
    };
    let (ours, opt) = (
        split_sections(&read(&args[0])),
        split_sections(&read(&args[1])),
    );
    if ours.len() != opt.len() {
        println!("{} functions vs {}", ours.len(), opt.len());
        std::process::exit(1);
    }
    for ((name, a), (name_b, b)) in ours.iter().zip(&opt) {
        if name != name_b {
            println!("function {name} vs {name_b}");
            std::process::exit(1);
        }
        let ((ha, ba), (hb, bb)) = (parse_section(a), parse_section(b));
        if ba != bb {
            println!("@{name}: the block verdicts differ");
            std::process::exit(1);
        }
        if let Err(e) = headers_agree(&ha, &hb) {
            let mut e = e;
            e.truncate(300);
            println!("@{name}: headers differ: {e}");
            std::process::exit(1);
        }
    }
    println!("agree");
}
