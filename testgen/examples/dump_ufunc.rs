//! Prints generated uniformity function number N (as the differential test
//! names them) as LLVM IR: `cargo run -p testgen --example dump_ufunc -- 101`.
fn main() {
    let id: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let f =
        testgen::uniformity::gen_function(0xC0FFEE ^ id.wrapping_mul(0x9E37), &format!("f{id}"));
    print!("{}{}", f.to_llvm(), testgen::uniformity::DECLARATIONS);
}
