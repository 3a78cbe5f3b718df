//! `print<uniformity>` for a file, as `convcheck uniformity` prints it (for
//! benchmarks before the subcommand is wired into `convcheck`):
//! `cargo run --release -p semantics --example uniformity_print -- FILE`.
use std::io::Write;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: uniformity_print FILE");
        std::process::exit(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    match semantics::parse_module(&path, &text) {
        Ok(m) => {
            let _ = std::io::stdout().write_all(semantics::uniformity::print_module(&m).as_bytes());
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
}
