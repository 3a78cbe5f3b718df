//! The parser never panics (rule P-PROG: malformed input is an error with
//! a location, never a crash), and whatever it accepts round-trips through
//! the printer. Inputs: random bytes, random LLVM-looking token soup, and
//! mutations (truncations, token deletions and duplications, line swaps)
//! of generated valid modules.

use proptest::collection::vec;
use proptest::prelude::{any, prop_assert_eq, proptest, ProptestConfig, Strategy};
use proptest::test_runner::TestCaseError;

use semantics::ir::print::print_module;
use semantics::parse::parse_module;
use testgen::modules::module_text;

/// Parses `text`; if accepted, parse(print(m)) == m and print is a fixpoint.
fn check(text: &str) -> Result<(), TestCaseError> {
    if let Ok(m) = parse_module("fuzz.ll", text) {
        let printed = print_module(&m);
        let m2 = parse_module("printed.ll", &printed).map_err(|e| {
            TestCaseError::fail(format!("accepted input prints to rejected text: {e}\n--- input\n{text}\n--- printed\n{printed}"))
        })?;
        prop_assert_eq!(&m2, &m, "round trip differs for\n{}", text);
        prop_assert_eq!(print_module(&m2), printed);
    }
    Ok(())
}

const SOUP: &[&str] = &[
    "define",
    "declare",
    "void",
    "i32",
    "i1",
    "ptr",
    "addrspace(1)",
    "@f",
    "@g",
    "%x",
    "%0",
    "%1",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "<",
    ">",
    ",",
    "=",
    "*",
    "...",
    "x",
    "4",
    "-1",
    "0.5",
    "0x3FF0",
    "entry:",
    "1:",
    "br",
    "label",
    "ret",
    "switch",
    "phi",
    "call",
    "tail",
    "add",
    "icmp",
    "eq",
    "select",
    "load",
    "store",
    "alloca",
    "getelementptr",
    "extractvalue",
    "attributes",
    "#0",
    "!0",
    "!dbg",
    "\"s\"",
    "c\"a\"",
    "convergent",
    "align",
    "undef",
    "zeroinitializer",
    "token",
    "\"convergencectrl\"",
    "global",
    "type",
    "%T",
    "\n",
    "splat",
    "metadata",
    "#dbg_value",
    "unreachable",
    "true",
    "nuw",
    "to",
    "zext",
];

fn soup() -> impl Strategy<Value = String> {
    vec(0..SOUP.len(), 0..120)
        .prop_map(|ix| ix.iter().map(|i| SOUP[*i]).collect::<Vec<_>>().join(" "))
}

/// A mutation of a valid module.
#[derive(Clone, Debug)]
enum Mutation {
    Truncate(usize),
    DeleteTokens(usize, usize),
    DuplicateToken(usize),
    SwapLines(usize, usize),
    ReplaceToken(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    proptest::prop_oneof![
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), 1..4usize).prop_map(|(a, n)| Mutation::DeleteTokens(a, n)),
        any::<usize>().prop_map(Mutation::DuplicateToken),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::ReplaceToken(a, b)),
    ]
}

fn apply(text: &str, m: &Mutation) -> String {
    let toks: Vec<&str> = text.split(' ').collect();
    match *m {
        Mutation::Truncate(at) => {
            let mut at = at % (text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            text[..at].to_string()
        }
        Mutation::DeleteTokens(at, n) => {
            let at = at % toks.len();
            let end = (at + n).min(toks.len());
            [&toks[..at], &toks[end..]].concat().join(" ")
        }
        Mutation::DuplicateToken(at) => {
            let at = at % toks.len();
            let mut t = toks.clone();
            t.insert(at, toks[at]);
            t.join(" ")
        }
        Mutation::SwapLines(a, b) => {
            let mut lines: Vec<&str> = text.lines().collect();
            if !lines.is_empty() {
                let (a, b) = (a % lines.len(), b % lines.len());
                lines.swap(a, b);
            }
            lines.join("\n")
        }
        Mutation::ReplaceToken(at, with) => {
            let mut t = toks.clone();
            let at = at % t.len();
            t[at] = SOUP[with % SOUP.len()];
            t.join(" ")
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_do_not_panic(bytes in vec(any::<u8>(), 0..600)) {
        check(&String::from_utf8_lossy(&bytes))?;
    }

    #[test]
    fn token_soup_does_not_panic(text in soup()) {
        check(&text)?;
    }

    #[test]
    fn mutated_modules_do_not_panic(text in module_text(), ms in vec(mutation(), 1..4)) {
        let mut t = text;
        for m in &ms {
            t = apply(&t, m);
        }
        check(&t)?;
    }
}

/// Mutations of the real LLVM tests of the shared corpus (deterministic,
/// 40 per file): no panic, and accepted mutants round-trip.
#[test]
fn mutated_corpus_files_do_not_panic() {
    let Some(corpus) = testgen::oracle::corpus_or_skip("mutated_corpus_files_do_not_panic") else {
        return;
    };
    fn walk(d: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "ll") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&corpus, &mut files);
    files.sort();
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut rnd = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state as usize
    };
    let mut accepted = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).expect("corpus files are UTF-8");
        for _ in 0..40 {
            let m = match rnd() % 5 {
                0 => Mutation::Truncate(rnd()),
                1 => Mutation::DeleteTokens(rnd(), 1 + rnd() % 3),
                2 => Mutation::DuplicateToken(rnd()),
                3 => Mutation::SwapLines(rnd(), rnd()),
                _ => Mutation::ReplaceToken(rnd(), rnd()),
            };
            let mutant = apply(&text, &m);
            if let Err(e) = check(&mutant) {
                panic!("{}: mutation {m:?}: {e}", f.display());
            }
            if parse_module("m.ll", &mutant).is_ok() {
                accepted += 1;
            }
        }
    }
    eprintln!(
        "mutated_corpus_files: {} mutants, {accepted} accepted (and round-tripped)",
        files.len() * 40
    );
}
