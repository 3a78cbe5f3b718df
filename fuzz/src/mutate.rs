//! Mutations of seed files (issue 11 item 3): byte and token mutations,
//! truncation, huge integers, deep nesting, invalid UTF-8, and splices of
//! lines from another seed. Every mutation is a pure function of the
//! random stream, so an input is reproduced from (seed, index).

/// SplitMix64: a small, fixed generator, so that a campaign is reproduced
/// from its seed whatever the versions of the workspace's crates.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    /// The generator of input `index` of the campaign `seed`.
    pub fn for_input(seed: u64, index: u64) -> Rng {
        let mut r = Rng(seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        r.next_u64();
        r
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
    pub fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// The kinds of mutation, for the campaign's figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mutation {
    Byte,
    Token,
    Line,
    Truncate,
    HugeInteger,
    DeepNesting,
    InvalidUtf8,
    Splice,
}

impl Mutation {
    pub const ALL: [Mutation; 8] = [
        Mutation::Byte,
        Mutation::Token,
        Mutation::Line,
        Mutation::Truncate,
        Mutation::HugeInteger,
        Mutation::DeepNesting,
        Mutation::InvalidUtf8,
        Mutation::Splice,
    ];
}

/// Tokens of LLVM IR worth inserting: keywords, types, intrinsics, bundle
/// and metadata syntax, edge values.
const DICTIONARY: &[&str] = &[
    "define",
    "declare",
    "call",
    "br",
    "label",
    "phi",
    "ret",
    "void",
    "i1",
    "i8",
    "i32",
    "i64",
    "i128",
    "ptr",
    "token",
    "float",
    "double",
    "<4 x i32>",
    "[2 x i32]",
    "{ i32, i1 }",
    "%x",
    "%0",
    "%entry",
    "@f",
    "@llvm.experimental.convergence.entry()",
    "@llvm.experimental.convergence.anchor()",
    "@llvm.experimental.convergence.loop()",
    "[ \"convergencectrl\"(token %t) ]",
    "convergent",
    "switch",
    "unreachable",
    "select",
    "icmp eq",
    "add",
    "sdiv",
    "udiv",
    "srem",
    "shl",
    "load",
    "store",
    "alloca",
    "getelementptr",
    "extractvalue",
    "insertelement",
    "shufflevector",
    "atomicrmw",
    "undef",
    "poison",
    "null",
    "zeroinitializer",
    "true",
    "false",
    "0",
    "-1",
    "1",
    "2147483647",
    "-2147483648",
    "!0",
    "!{}",
    "#0",
    "attributes",
    ",",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "<",
    ">",
    "=",
    "*",
    "...",
    "\"",
    ";",
    "\n",
    "nsw",
    "nuw",
    "align 4",
    "addrspace(1)",
    "@llvm.amdgcn.ballot.i64",
    "@llvm.amdgcn.workitem.id.x()",
];

const HUGE: &[&str] = &[
    "99999999999999999999999",
    "-170141183460469231731687303715884105729",
    "340282366920938463463374607431768211456",
    "18446744073709551616",
    "4294967296",
    "9223372036854775808",
    "-0",
    "0x7FFFFFFFFFFFFFFFFFFF",
    "1e999",
];

/// Applies 1 to 4 random mutations to `seed` (`other` gives lines to
/// splice); returns the input and the mutations applied.
pub fn mutate(rng: &mut Rng, seed: &[u8], other: &[u8]) -> (Vec<u8>, Vec<Mutation>) {
    let mut data = seed.to_vec();
    let n = 1 + rng.below(4);
    let mut done = Vec::with_capacity(n);
    for _ in 0..n {
        let m = *rng.pick(&Mutation::ALL);
        apply(rng, m, &mut data, other);
        done.push(m);
    }
    (data, done)
}

/// Token boundaries: starts of runs of identifier characters, and single
/// punctuation characters.
fn tokens(data: &[u8]) -> Vec<(usize, usize)> {
    let word = |b: u8| b.is_ascii_alphanumeric() || b"%@._-$\"".contains(&b);
    let mut out = Vec::new();
    let mut i = 0;
    while i < data.len() {
        let b = data[i];
        if b.is_ascii_whitespace() {
            i += 1;
        } else if word(b) {
            let s = i;
            while i < data.len() && word(data[i]) {
                i += 1;
            }
            out.push((s, i));
        } else {
            out.push((i, i + 1));
            i += 1;
        }
    }
    out
}

fn lines(data: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut s = 0;
    for (i, b) in data.iter().enumerate() {
        if *b == b'\n' {
            out.push((s, i + 1));
            s = i + 1;
        }
    }
    if s < data.len() {
        out.push((s, data.len()));
    }
    out
}

fn nesting(rng: &mut Rng) -> Vec<u8> {
    let depth = *rng.pick(&[64usize, 1_000, 10_000, 100_000]);
    let s = match rng.below(6) {
        0 => format!("i32{}", "*".repeat(depth)),
        1 => format!("{}i32{}", "[1 x ".repeat(depth), "]".repeat(depth)),
        2 => format!("{}i32{}", "{ ".repeat(depth), " }".repeat(depth)),
        3 => format!("{}0{}", "(".repeat(depth), ")".repeat(depth)),
        4 => format!("{}i32 0{}", "[".repeat(depth), "]".repeat(depth)),
        _ => format!("{}!{{}}{}", "!{".repeat(depth), "}".repeat(depth)),
    };
    s.into_bytes()
}

fn apply(rng: &mut Rng, m: Mutation, data: &mut Vec<u8>, other: &[u8]) {
    let at = |rng: &mut Rng, data: &Vec<u8>| rng.below(data.len() + 1);
    match m {
        Mutation::Byte => match rng.below(3) {
            0 if !data.is_empty() => {
                let i = rng.below(data.len());
                data[i] ^= 1 << rng.below(8);
            }
            1 => {
                let i = at(rng, data);
                let b = *rng.pick(b" \n%@,()[]{}<>=\"!#0123456789xi*:;");
                data.insert(i, b);
            }
            _ if !data.is_empty() => {
                let i = rng.below(data.len());
                let len = 1 + rng.below(8.min(data.len() - i));
                data.drain(i..i + len);
            }
            _ => {}
        },
        Mutation::Token => {
            let toks = tokens(data);
            if toks.is_empty() {
                return;
            }
            let (s, e) = *rng.pick(&toks);
            match rng.below(4) {
                0 => {
                    data.drain(s..e);
                }
                1 => {
                    let tok = data[s..e].to_vec();
                    data.splice(s..s, tok.into_iter().chain([b' ']));
                }
                2 => {
                    let (s2, e2) = *rng.pick(&toks);
                    let tok = data[s2..e2].to_vec();
                    data.splice(s..e, tok);
                }
                _ => {
                    let w = rng.pick(DICTIONARY).as_bytes().to_vec();
                    data.splice(s..e, w);
                }
            }
        }
        Mutation::Line => {
            let ls = lines(data);
            if ls.len() < 2 {
                return;
            }
            let (s, e) = *rng.pick(&ls);
            let line = data[s..e].to_vec();
            match rng.below(3) {
                0 => {
                    data.drain(s..e);
                }
                1 => {
                    data.splice(s..s, line);
                }
                _ => {
                    data.drain(s..e);
                    let ls = lines(data);
                    let to = ls.get(rng.below(ls.len() + 1)).map_or(data.len(), |l| l.0);
                    data.splice(to..to, line);
                }
            }
        }
        Mutation::Truncate => {
            let i = at(rng, data);
            data.truncate(i);
        }
        Mutation::HugeInteger => {
            let nums: Vec<(usize, usize)> = tokens(data)
                .into_iter()
                .filter(|&(s, e)| data[s..e].iter().all(u8::is_ascii_digit))
                .collect();
            let h = rng.pick(HUGE).as_bytes().to_vec();
            if let Some(&(s, e)) = (!nums.is_empty()).then(|| rng.pick(&nums)) {
                // A number, or the width of an integer type (`i<digits>`).
                data.splice(s..e, h);
            } else {
                let i = at(rng, data);
                data.splice(i..i, h);
            }
        }
        Mutation::DeepNesting => {
            let i = at(rng, data);
            let n = nesting(rng);
            data.splice(i..i, n);
        }
        Mutation::InvalidUtf8 => {
            let i = at(rng, data);
            let bad: &[&[u8]] = &[b"\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\x00"];
            data.splice(i..i, rng.pick(bad).iter().copied());
        }
        Mutation::Splice => {
            let ls = lines(other);
            if ls.is_empty() {
                return;
            }
            let (s, e) = *rng.pick(&ls);
            let len = 1 + rng.below(4);
            let end = ls
                .iter()
                .map(|l| l.1)
                .filter(|&x| x >= e)
                .nth(len - 1)
                .unwrap_or(e);
            let piece = other[s..end].to_vec();
            let i = lines(data).get(rng.below(8)).map_or(data.len(), |l| l.0);
            let i = i.min(data.len());
            data.splice(i..i, piece);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_are_reproducible() {
        let seed = b"define void @f() {\nentry:\n  %x = add i32 1, 2\n  ret void\n}\n";
        for i in 0..200 {
            let a = mutate(&mut Rng::for_input(7, i), seed, seed);
            let b = mutate(&mut Rng::for_input(7, i), seed, seed);
            assert_eq!(a, b);
        }
    }

    #[test]
    fn every_mutation_changes_something_sometimes() {
        let seed = b"define void @f() {\nentry:\n  %x = add i32 1, 2\n  ret void\n}\n";
        for m in Mutation::ALL {
            let changed = (0..50).any(|i| {
                let mut d = seed.to_vec();
                apply(&mut Rng::for_input(1, i), m, &mut d, b"declare void @g()\n");
                d != seed
            });
            assert!(changed, "{m:?} never changes the input");
        }
    }
}
