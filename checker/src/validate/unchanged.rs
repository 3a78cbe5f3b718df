//! Rule R-REFL (docs/RULES.md): refinement is reflexive. A function the
//! pipeline did not change refines itself whatever the bounds, so
//! `validate` can give it a verdict where the encoding cannot (a construct
//! outside it, a time limit, a bound too small), and a counterexample for
//! it can only be a bug of the checker.
//!
//! "Did not change" is decided on the parsed modules, for the function and
//! everything it reaches by name (called or referenced functions, globals
//! and their initializers, transitively), plus the module's data layout,
//! triple and named types: the records must be equal (source positions
//! never count, [`semantics::ir::Span`]) up to what the semantics does not
//! read and opt rewrites when it prints a module:
//! - attribute groups are expanded (`#0` in one file may be `#1` in the
//!   other) and attribute lists compared as sets;
//! - the legacy memory attributes are their `memory(...)` spelling
//!   (`readnone` is `memory(none)`, `readonly` `memory(read)`, `writeonly`
//!   `memory(write)`, `argmemonly` `memory(argmem: readwrite)`,
//!   `inaccessiblememonly` `memory(inaccessiblemem: readwrite)`), as opt-22
//!   prints them;
//! - metadata attachments and debug records are left out: neither the
//!   interpreter nor the encoding reads them.
//!
//! Anything else that differs (a value renamed, an instruction moved, a
//! declaration's attributes changed by the pass) makes the function
//! "changed", and the check's own verdict stands.

use std::collections::BTreeSet;

use semantics::ir::{Attr, Function, InstKind, InstMeta, Module};

/// Whether `@name` of `tgt` is `@name` of `src` unchanged (R-REFL), and if
/// not, the first difference found (for messages and tests).
pub fn unchanged(src: &Module, tgt: &Module, name: &str) -> Result<(), String> {
    if src.datalayout != tgt.datalayout {
        return Err("the data layout differs".into());
    }
    if src.triple != tgt.triple {
        return Err("the target triple differs".into());
    }
    if src.types != tgt.types {
        return Err("the named types differ".into());
    }
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut todo = vec![name.to_string()];
    while let Some(n) = todo.pop() {
        if !seen.insert(n.clone()) {
            continue;
        }
        let text = match (src.function(&n), tgt.function(&n)) {
            (Some(a), Some(b)) => {
                let (a, b) = (canonical(src, a), canonical(tgt, b));
                if a != b {
                    return Err(format!("@{n} differs"));
                }
                semantics::ir::print::print_function(&a)
            }
            (None, None) => {
                let find = |m: &Module| m.globals.iter().find(|g| g.name == n).cloned();
                match (find(src), find(tgt)) {
                    (None, None) => continue,
                    (Some(mut a), Some(mut b)) => {
                        a.md.clear();
                        b.md.clear();
                        if a != b {
                            return Err(format!("@{n} differs"));
                        }
                        semantics::ir::print::print_module(&Module {
                            globals: vec![a],
                            ..Module::default()
                        })
                    }
                    _ => return Err(format!("@{n} is in only one of the modules")),
                }
            }
            _ => return Err(format!("@{n} is in only one of the modules")),
        };
        todo.extend(referenced(&text).into_iter().filter(|r| !seen.contains(r)));
    }
    Ok(())
}

/// `f` with its attribute lists canonical and its metadata left out.
fn canonical(m: &Module, f: &Function) -> Function {
    let mut f = f.clone();
    f.fn_attrs = attrs(m, &f.fn_attrs);
    f.ret_attrs = attrs(m, &f.ret_attrs);
    for p in &mut f.params {
        p.attrs = attrs(m, &p.attrs);
    }
    f.md.clear();
    for b in &mut f.blocks {
        for i in &mut b.insts {
            i.meta = InstMeta::default();
            if let InstKind::Call(c) = &mut i.kind {
                c.fn_attrs = attrs(m, &c.fn_attrs);
                c.ret_attrs = attrs(m, &c.ret_attrs);
                for a in &mut c.args {
                    a.attrs = attrs(m, &a.attrs);
                }
            }
        }
        b.term.meta = InstMeta::default();
    }
    f
}

/// The attributes of `list`, groups expanded, legacy memory words in their
/// `memory(...)` spelling, sorted and without repeats.
fn attrs(m: &Module, list: &[Attr]) -> Vec<Attr> {
    let mut out: Vec<Attr> = m
        .expand_attrs(list)
        .into_iter()
        .map(|a| match a {
            Attr::Word(w) => {
                let args = match w.as_str() {
                    "readnone" => "none",
                    "readonly" => "read",
                    "writeonly" => "write",
                    "argmemonly" => "argmem: readwrite",
                    "inaccessiblememonly" => "inaccessiblemem: readwrite",
                    _ => return a.clone(),
                };
                Attr::Paren {
                    name: "memory".into(),
                    args: args.into(),
                }
            }
            other => other.clone(),
        })
        .collect();
    out.sort_by_cached_key(|a| format!("{a:?}"));
    out.dedup();
    out
}

/// The global names (`@x`, `@"x y"`) in printed IR, without `@`.
fn referenced(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'@' {
            i += 1;
            continue;
        }
        i += 1;
        if b.get(i) == Some(&b'"') {
            let start = i + 1;
            let mut j = start;
            while j < b.len() && b[j] != b'"' {
                j += 1;
            }
            out.insert(text[start..j.min(b.len())].to_string());
            i = j + 1;
        } else {
            let start = i;
            while i < b.len()
                && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'.' | b'$' | b'-'))
            {
                i += 1;
            }
            if i > start {
                out.insert(text[start..i].to_string());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Module {
        semantics::parse_module("t.ll", s).expect("test IR parses")
    }

    const SRC: &str = r#"
declare i32 @conv(i32) #1
@g = global i32 7
define void @k(ptr %p) #0 {
entry:
  %x = load i32, ptr @g, !tbaa !3
  %y = call i32 @conv(i32 %x)
  store i32 %y, ptr %p
  ret void
}
attributes #0 = { nounwind convergent }
attributes #1 = { nounwind readnone convergent }
!3 = !{}
"#;

    /// R-REFL: opt's renumbered groups, `memory(none)` for `readnone`,
    /// reordered attributes and dropped metadata are not changes.
    #[test]
    fn opt_printing_is_not_a_change() {
        let tgt = r#"
@g = global i32 7
define void @k(ptr %p) #0 {
entry:
  %x = load i32, ptr @g
  %y = call i32 @conv(i32 %x)
  store i32 %y, ptr %p
  ret void
}
declare i32 @conv(i32) #1
attributes #0 = { convergent nounwind }
attributes #1 = { convergent nounwind memory(none) }
"#;
        assert_eq!(unchanged(&parse(SRC), &parse(tgt), "k"), Ok(()));
    }

    /// R-REFL: a change in the function, in a callee's attributes or in a
    /// referenced global's initializer is a change.
    #[test]
    fn changes_are_found() {
        let body = SRC.replace("store i32 %y", "store i32 %x");
        assert_eq!(
            unchanged(&parse(SRC), &parse(&body), "k"),
            Err("@k differs".into())
        );
        let callee = SRC.replace("nounwind readnone convergent", "nounwind convergent");
        assert_eq!(
            unchanged(&parse(SRC), &parse(&callee), "k"),
            Err("@conv differs".into())
        );
        let global = SRC.replace("global i32 7", "global i32 8");
        assert_eq!(
            unchanged(&parse(SRC), &parse(&global), "k"),
            Err("@g differs".into())
        );
        let layout = format!("target datalayout = \"e-p:32:32\"\n{SRC}");
        assert!(unchanged(&parse(SRC), &parse(&layout), "k").is_err());
    }

    #[test]
    fn names_are_read_from_printed_ir() {
        let r = referenced(r#"call void @"a b"(ptr @g.1), @f"#);
        let want: BTreeSet<String> = ["a b", "g.1", "f"].iter().map(|s| s.to_string()).collect();
        assert_eq!(r, want);
    }
}
