//! `convcheck`: the command-line front of the semantics and the checker.

fn main() {
    println!("convcheck: under construction");
}
