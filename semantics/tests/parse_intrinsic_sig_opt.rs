//! Intrinsic signatures (issue 11 typeck, issue 12 item 9, issue 13 bad
//! input; `semantics::intrinsics::sig`): on calls generated from every
//! template of the table (the right types, and mutants with an operand
//! dropped or added, the result's type changed, or one operand's type
//! changed), the parser accepts exactly what opt-22 accepts and rejects
//! with opt-22's "invalid intrinsic signature" at opt-22's `line:col`,
//! naming the intrinsic with the expected and the found types. Declarations
//! with a wrong signature are rejected too. Differential against opt-22
//! (loud SKIP without it, failure under `CI=true`).

use semantics::intrinsics::sig::templates;
use semantics::parse_module;
use testgen::oracle::{read_verdict, SplitMix};

fn mangle(t: &str) -> &str {
    match t {
        "float" => "f32",
        "double" => "f64",
        t => t,
    }
}

fn value(t: &str) -> &'static str {
    match t {
        "i1" => "true",
        "float" | "double" => "0.0",
        "ptr" => "null",
        _ => "0",
    }
}

/// The template's types with T and U bound (class choices by `r`), and the
/// name with its overload suffixes.
fn instantiate(name: &str, t: &str, r: &mut SplitMix) -> (String, String, Vec<String>) {
    let t = t.split(" | ").next().expect("a first alternative");
    let (ret, params) = t.split_once(';').expect("template has ';'");
    let pick = |class: &str, r: &mut SplitMix| -> String {
        let opts: &[&str] = match class {
            "int" => &["i32", "i64"],
            "fp" => &["float", "double"],
            _ => &["i32", "i64", "float"],
        };
        opts[r.next(opts.len())].to_string()
    };
    let mut vars: [Option<String>; 2] = [None, None];
    let mut ty = |w: &str, r: &mut SplitMix| -> String {
        let w = w.trim();
        if let Some(inner) = w.strip_prefix("{i1,").and_then(|x| x.strip_suffix('}')) {
            let k = if inner.starts_with('U') { 1 } else { 0 };
            let class = inner.split_once(':').map_or("any", |x| x.1);
            let v = vars[k].get_or_insert_with(|| pick(class, r)).clone();
            return format!("{{ i1, {v} }}");
        }
        let (n, class) = w.split_once(':').unwrap_or((w, "any"));
        match n {
            "T" | "U" => {
                let k = usize::from(n == "U");
                vars[k].get_or_insert_with(|| pick(class, r)).clone()
            }
            _ => n.to_string(),
        }
    };
    let ret = ty(ret, r);
    let params: Vec<String> = params
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| ty(p, r))
        .collect();
    let mut full = name.to_string();
    for v in vars.iter().flatten() {
        full.push('.');
        full.push_str(mangle(v));
    }
    (full, ret, params)
}

fn call_text(name: &str, ret: &str, params: &[String]) -> String {
    let args: Vec<String> = params.iter().map(|p| format!("{p} {}", value(p))).collect();
    let lhs = if ret == "void" { "" } else { "%r = " };
    format!(
        "define void @k() {{\nentry:\n  {lhs}call {ret} @{name}({})\n  ret void\n}}\n",
        args.join(", ")
    )
}

#[test]
fn intrinsic_signatures_are_checked_like_opt() {
    let Some(opt) = testgen::oracle::opt_or_skip("intrinsic_signatures_are_checked_like_opt")
    else {
        return;
    };
    let mut r = SplitMix(7);
    let others = ["i1", "i16", "i32", "i64", "float", "ptr"];
    let (mut accepted, mut rejected) = (0, 0);
    let mut wrong = Vec::new();
    for (name, t) in templates() {
        if t.starts_with("token;") {
            continue; // convergence control: no operands to vary
        }
        let (full, ret, params) = instantiate(name, t, &mut r);
        let mut cases = vec![(ret.clone(), params.clone())];
        if !params.is_empty() {
            cases.push((ret.clone(), params[..params.len() - 1].to_vec()));
            let k = r.next(params.len());
            let mut p = params.clone();
            p[k] = others[r.next(others.len())].to_string();
            cases.push((ret.clone(), p));
        }
        let mut p = params.clone();
        p.push("i32".into());
        cases.push((ret.clone(), p));
        if !ret.starts_with('{') {
            cases.push((others[r.next(others.len())].to_string(), params.clone()));
        }
        for (ret, params) in cases {
            let text = call_text(&full, &ret, &params);
            let theirs = read_verdict(&opt, &text);
            let ours = parse_module("<stdin>", &text).err().map(|e| e.to_string());
            match (&theirs, &ours) {
                (None, None) => accepted += 1,
                (Some(t), Some(o)) => {
                    rejected += 1;
                    // Same position, opt's words, and the intrinsic named.
                    let pos = t.split(": error:").next().unwrap_or("");
                    let their_msg = t.split(": error: ").nth(1).unwrap_or("");
                    if !o.contains(&format!(":{pos}: error: ")) || !o.contains(their_msg) {
                        wrong.push(format!("{text}opt: {t}\nours: {o}"));
                    }
                }
                _ => wrong.push(format!("{text}opt: {theirs:?}\nours: {ours:?}")),
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} disagreements:\n{}",
        wrong.len(),
        wrong.join("\n---\n")
    );
    // Pinned (fixed seed): the right-typed call of each template and some
    // mutants are accepted (LLVM re-mangles the name; cttz/ctlz keep an
    // old one-operand form), the other mutants rejected.
    assert_eq!(
        (accepted, rejected),
        (90, 231),
        "calls accepted, rejected by both"
    );
}

/// A declaration with the wrong signature is rejected at its name, and a
/// call with the wrong arity names the intrinsic, what it is and what was
/// found; never a panic.
#[test]
fn declarations_and_messages() {
    let e = parse_module(
        "t.ll",
        "declare i32 @llvm.ctpop.i32(i64)\ndefine void @k() {\nentry:\n  ret void\n}\n",
    )
    .expect_err("wrong declaration");
    assert_eq!(
        e.to_string(),
        "t.ll:1:13: error: invalid intrinsic signature: @llvm.ctpop.i32 is T:int (T), called as i32 (i64)"
    );
    let e = parse_module(
        "t.ll",
        "define void @k() {\nentry:\n  %r = call i32 @llvm.amdgcn.readlane.i32(i32 0)\n  ret void\n}\n",
    )
    .expect_err("wrong arity");
    assert_eq!(
        e.to_string(),
        "t.ll:3:17: error: invalid intrinsic signature: @llvm.amdgcn.readlane.i32 is T:any (T, i32), called as i32 (i32)"
    );
}
