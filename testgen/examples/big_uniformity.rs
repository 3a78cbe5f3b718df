//! A large function for the uniformity benchmark (not a test): N blocks of
//! chained diamonds, loops with divergent exits and irreducible pairs, with
//! values flowing through phis. `cargo run -p testgen --example
//! big_uniformity -- 20000 > big.ll`.
use std::fmt::Write;

fn main() {
    let target: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20000);
    let mut s = String::new();
    s.push_str("define amdgpu_kernel void @big(i32 %n, ptr addrspace(1) %out) {\nentry:\n");
    s.push_str("  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n  br label %s0\n");
    let mut blocks = 1;
    let mut seg = 0;
    let mut cur = "%n".to_string();
    while blocks + 6 < target {
        let k = seg;
        match seg % 3 {
            // Diamond on a divergent condition, phi at the join.
            0 => {
                let _ = write!(
                    s,
                    "s{k}:\n  %c{k} = icmp slt i32 %tid, {k}\n  br i1 %c{k}, label %t{k}, label %e{k}\n\
                     t{k}:\n  %x{k} = add i32 {cur}, 1\n  br label %j{k}\n\
                     e{k}:\n  %y{k} = add i32 {cur}, 2\n  br label %j{k}\n\
                     j{k}:\n  %p{k} = phi i32 [ %x{k}, %t{k} ], [ %y{k}, %e{k} ]\n  br label %s{}\n",
                    k + 1
                );
                blocks += 4;
                cur = format!("%p{k}");
            }
            // Loop whose exit depends on the thread id; value used after it.
            1 => {
                let _ = write!(
                    s,
                    "s{k}:\n  br label %h{k}\n\
                     h{k}:\n  %i{k} = phi i32 [ 0, %s{k} ], [ %i{k}.n, %b{k} ]\n  %i{k}.n = add i32 %i{k}, 1\n  %c{k} = icmp slt i32 %i{k}.n, %tid\n  br i1 %c{k}, label %b{k}, label %x{k}\n\
                     b{k}:\n  %u{k} = add i32 %i{k}, {cur}\n  br label %h{k}\n\
                     x{k}:\n  %v{k} = add i32 %i{k}.n, {cur}\n  br label %s{}\n",
                    k + 1
                );
                blocks += 4;
                cur = format!("%v{k}");
            }
            // Irreducible pair entered on a uniform condition.
            _ => {
                let _ = write!(
                    s,
                    "s{k}:\n  %c{k} = icmp slt i32 %n, {k}\n  br i1 %c{k}, label %a{k}, label %b{k}\n\
                     a{k}:\n  %d{k} = icmp eq i32 %tid, {k}\n  br i1 %d{k}, label %b{k}, label %x{k}\n\
                     b{k}:\n  %f{k} = icmp eq i32 %n, {k}\n  br i1 %f{k}, label %a{k}, label %x{k}\n\
                     x{k}:\n  %w{k} = add i32 {cur}, 3\n  br label %s{}\n",
                    k + 1
                );
                blocks += 4;
                cur = format!("%w{k}");
            }
        }
        seg += 1;
    }
    let _ = write!(
        s,
        "s{seg}:\n  store i32 {cur}, ptr addrspace(1) %out\n  ret void\n}}\n"
    );
    s.push_str("declare i32 @llvm.amdgcn.workitem.id.x()\n");
    print!("{s}");
}
