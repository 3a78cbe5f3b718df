//! Token programs for the verifier's tests: random placements of `entry`,
//! `anchor`, `loop`, controlled and uncontrolled convergent calls (and a
//! few malformed shapes) over testgen's generated CFGs, valid and invalid,
//! reducible and irreducible.
//!
//! A [`TokenProg`] is rendered two ways that must mean the same program:
//! as LLVM IR text for `opt-22` ([`TokenProg::to_ll`]) and directly as our
//! IR ([`TokenProg::to_module`]), so the differential test does not depend
//! on the parser.

use proptest::collection::vec;
use proptest::prelude::{any, prop_oneof, Just, Strategy};
use proptest::sample::Index;

use crate::cfg::{GenCfg, GenTerm};
use crate::graph::DomSets;
use semantics::ir::{
    Attr, Block, BlockId, Bundle, Call, CallArg, Const, Function, Inst, InstKind, Module, Name,
    Operand, Param, Span, TermKind, Terminator, Type, TypedOperand, ValueDef, ValueId, ValueInfo,
};

/// One generated instruction. `usize` fields are token numbers (tokens are
/// numbered in layout order over the whole function).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    Entry,
    Anchor,
    /// `loop` with its bundle's token, or none (S-LOOP-BUNDLE).
    Loop(Option<usize>),
    /// `call void @conv() [ "convergencectrl"(token %tK) ]`
    Ctrl(usize),
    /// `call void @conv()`
    Uncontrolled,
    /// `call void @plain() [ "convergencectrl"(token %tK) ]`
    PlainBundle(usize),
    /// `anchor` with a bundle (S-ANCHOR-BUNDLE).
    AnchorBundle(usize),
    /// `call void @plain()`: not convergent.
    Plain,
}

impl Op {
    pub fn defines_token(&self) -> bool {
        matches!(
            self,
            Op::Entry | Op::Anchor | Op::Loop(_) | Op::AnchorBundle(_)
        )
    }
    fn uses(&self) -> Option<usize> {
        match self {
            Op::Loop(t) => *t,
            Op::Ctrl(t) | Op::PlainBundle(t) | Op::AnchorBundle(t) => Some(*t),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenProg {
    pub cfg: GenCfg,
    pub convergent: bool,
    /// Instructions of each block, before its terminator.
    pub ops: Vec<Vec<Op>>,
}

/// Raw op before the token count is known.
#[derive(Clone, Debug)]
enum RawOp {
    Entry,
    Anchor,
    Loop(Option<Index>),
    Ctrl(Index),
    Uncontrolled,
    PlainBundle(Index),
    AnchorBundle(Index),
    Plain,
}

fn raw_op(wild: bool) -> impl Strategy<Value = RawOp> {
    let w = if wild { 1 } else { 0 };
    prop_oneof![
        1 + w => Just(RawOp::Entry),
        4 => Just(RawOp::Anchor),
        5 => any::<Index>().prop_map(|i| RawOp::Loop(Some(i))),
        w => Just(RawOp::Loop(None)),
        7 => any::<Index>().prop_map(RawOp::Ctrl),
        w => Just(RawOp::Uncontrolled),
        w => any::<Index>().prop_map(RawOp::PlainBundle),
        w => any::<Index>().prop_map(RawOp::AnchorBundle),
        1 => Just(RawOp::Plain),
    ]
}

/// Resolves raw ops: token references pick among the tokens defined so far
/// that dominate the use when `dominating` (mostly-valid programs), else
/// among all tokens of the function (SSA violations included).
fn resolve(cfg: &GenCfg, raw: Vec<Vec<RawOp>>, refs: Refs) -> Vec<Vec<Op>> {
    let dominating = refs != Refs::Any;
    let dom = DomSets::new(&cfg.succs());
    // Token definitions (block, index-in-block) in layout order.
    let mut defs: Vec<(usize, usize)> = Vec::new();
    for (b, ops) in raw.iter().enumerate() {
        for (i, r) in ops.iter().enumerate() {
            if matches!(
                r,
                RawOp::Entry | RawOp::Anchor | RawOp::Loop(_) | RawOp::AnchorBundle(_)
            ) {
                defs.push((b, i));
            }
        }
    }
    let pick = |b: usize, i: usize, ix: &Index| -> Option<usize> {
        let mut cands: Vec<usize> = (0..defs.len())
            .filter(|&t| {
                let (db, di) = defs[t];
                !dominating || (db == b && di < i) || (db != b && dom.dominates(db, b))
            })
            .collect();
        if cands.is_empty() {
            return None;
        }
        if refs == Refs::Nearest {
            // The closest dominating token: same block first, then the
            // deepest dominator.
            cands.sort_by_key(|&t| {
                let (db, di) = defs[t];
                let depth = dom.dominators_of(db).len();
                std::cmp::Reverse((db == b, depth, di))
            });
            // Mostly the nearest, sometimes the next one out.
            let k = ix.index(4).saturating_sub(2).min(cands.len() - 1);
            return Some(cands[k]);
        }
        Some(cands[ix.index(cands.len())])
    };
    raw.iter()
        .enumerate()
        .map(|(b, ops)| {
            ops.iter()
                .enumerate()
                .map(|(i, r)| match r {
                    RawOp::Entry => Op::Entry,
                    RawOp::Anchor => Op::Anchor,
                    RawOp::Loop(None) => Op::Loop(None),
                    RawOp::Loop(Some(ix)) => Op::Loop(pick(b, i, ix)),
                    RawOp::Ctrl(ix) => pick(b, i, ix).map_or(Op::Uncontrolled, Op::Ctrl),
                    RawOp::Uncontrolled => Op::Uncontrolled,
                    RawOp::PlainBundle(ix) => pick(b, i, ix).map_or(Op::Plain, Op::PlainBundle),
                    RawOp::AnchorBundle(ix) => pick(b, i, ix).map_or(Op::Anchor, Op::AnchorBundle),
                    RawOp::Plain => Op::Plain,
                })
                .collect()
        })
        .collect()
}

/// How token references are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refs {
    /// Any token of the function (SSA violations likely).
    Any,
    /// A token whose definition dominates the use.
    Dominating,
    /// Mostly the nearest dominating token (mostly valid programs).
    Nearest,
}

/// Token programs over `cfg_strategy`: `wild` adds malformed shapes
/// (loops without bundles, uncontrolled calls, bundles on non-convergent
/// calls and anchors); `dominating` makes token references respect SSA.
pub fn arb_token_prog(
    cfg_strategy: impl Strategy<Value = GenCfg>,
    wild: bool,
    refs: Refs,
) -> impl Strategy<Value = TokenProg> {
    cfg_strategy
        .prop_flat_map(move |cfg| {
            let n = cfg.blocks.len();
            (
                Just(cfg),
                any::<bool>(),
                vec(vec(raw_op(wild), 0..=3), n..=n),
            )
        })
        .prop_map(move |(cfg, convergent, mut raw)| {
            let mut convergent = convergent;
            if !wild {
                // Tame placements: entry only at the start of the entry
                // block (in a convergent function), loops first in their
                // block, so that most programs break only cycle/region rules.
                for (b, ops) in raw.iter_mut().enumerate() {
                    for o in ops.iter_mut() {
                        if matches!(o, RawOp::Entry) && b != 0 {
                            *o = RawOp::Anchor;
                        }
                    }
                    ops.sort_by_key(|o| match o {
                        RawOp::Entry => 0,
                        RawOp::Loop(_) => 1,
                        _ => 2,
                    });
                    if b == 0 && ops.iter().any(|o| matches!(o, RawOp::Entry)) {
                        convergent = true;
                        let first_entry = ops.iter().position(|o| matches!(o, RawOp::Entry));
                        let mut k = 0;
                        ops.retain(|o| {
                            let keep = !matches!(o, RawOp::Entry) || Some(k) == first_entry;
                            k += 1;
                            keep
                        });
                    }
                }
            }
            let ops = resolve(&cfg, raw, refs);
            TokenProg {
                cfg,
                convergent,
                ops,
            }
        })
}

/// The mix the tests use: mostly SSA-respecting and near-valid, some wild
/// shapes, some arbitrary references.
pub fn arb_any_token_prog(max_blocks: usize) -> impl Strategy<Value = TokenProg> {
    prop_oneof![
        3 => arb_token_prog(crate::cfg::arb_cfg(max_blocks), false, Refs::Nearest),
        3 => arb_token_prog(crate::cfg::arb_reducible_cfg(max_blocks), false, Refs::Nearest),
        1 => arb_token_prog(crate::cfg::arb_irreducible_cfg(max_blocks), false, Refs::Dominating),
        1 => arb_token_prog(crate::cfg::arb_reducible_cfg(max_blocks), true, Refs::Dominating),
        1 => arb_token_prog(crate::cfg::arb_cfg(max_blocks), true, Refs::Any),
    ]
}

pub const DECLS: &str = "declare void @conv(i32) convergent\n\
declare void @plain(i32)\n\
declare token @llvm.experimental.convergence.entry()\n\
declare token @llvm.experimental.convergence.anchor()\n\
declare token @llvm.experimental.convergence.loop()\n";

fn intrinsic(op: &Op) -> &'static str {
    match op {
        Op::Entry => "llvm.experimental.convergence.entry",
        Op::Loop(_) => "llvm.experimental.convergence.loop",
        _ => "llvm.experimental.convergence.anchor",
    }
}

impl TokenProg {
    /// Token number -> (block, index).
    fn token_defs(&self) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        for (b, ops) in self.ops.iter().enumerate() {
            for (i, o) in ops.iter().enumerate() {
                if o.defines_token() {
                    v.push((b, i));
                }
            }
        }
        v
    }

    /// The function as LLVM IR (`define void @name(...)`).
    /// Calls to `@conv`/`@plain` pass the function's number (the digits of
    /// its name), so every printed instruction identifies its function.
    pub fn to_ll_fn(&self, name: &str) -> String {
        let id = fn_id(name);
        let mut num = vec![Vec::new(); self.ops.len()];
        let mut k = 0;
        for (b, ops) in self.ops.iter().enumerate() {
            for o in ops {
                num[b].push(k);
                if o.defines_token() {
                    k += 1;
                }
            }
        }
        let body = |b: usize| -> Vec<String> {
            self.ops[b]
                .iter()
                .enumerate()
                .map(|(i, o)| {
                    let bundle = |t: usize| format!(" [ \"convergencectrl\"(token %{name}.t{t}) ]");
                    let t = num[b][i];
                    match o {
                        Op::Entry | Op::Anchor => {
                            format!("%{name}.t{t} = call token @{}()", intrinsic(o))
                        }
                        Op::Loop(_) | Op::AnchorBundle(_) => match o.uses() {
                            None => format!("%{name}.t{t} = call token @{}()", intrinsic(o)),
                            Some(u) => {
                                format!(
                                    "%{name}.t{t} = call token @{}(){}",
                                    intrinsic(o),
                                    bundle(u)
                                )
                            }
                        },
                        Op::Ctrl(u) => format!("call void @conv(i32 {id}){}", bundle(*u)),
                        Op::Uncontrolled => format!("call void @conv(i32 {id})"),
                        Op::PlainBundle(u) => format!("call void @plain(i32 {id}){}", bundle(*u)),
                        Op::Plain => format!("call void @plain(i32 {id})"),
                    }
                })
                .collect()
        };
        let attrs = if self.convergent { "convergent" } else { "" };
        self.cfg.to_ll_with(name, attrs, &body)
    }

    /// One module holding `progs` as `@f0, @f1, ...` (token names carry the
    /// function name, so every message opt prints identifies its function).
    pub fn batch_ll(progs: &[TokenProg]) -> String {
        let mut s = String::new();
        for (k, p) in progs.iter().enumerate() {
            s.push_str(&p.to_ll_fn(&format!("f{k}")));
            s.push('\n');
        }
        s.push_str(DECLS);
        s
    }

    /// [`TokenProg::batch_ll`] as our IR.
    pub fn batch_module(progs: &[TokenProg]) -> Module {
        let mut m = Module::default();
        for (k, p) in progs.iter().enumerate() {
            m.functions.push(p.to_function(&format!("f{k}")));
        }
        m.functions.extend(declarations());
        m
    }

    /// A whole module with this one function `@f` and the declarations.
    pub fn to_ll(&self) -> String {
        format!("{}\n{DECLS}", self.to_ll_fn("f"))
    }

    /// The same module built directly as our IR.
    pub fn to_module(&self) -> Module {
        let mut m = Module::default();
        m.functions.push(self.to_function("f"));
        m.functions.extend(declarations());
        m
    }

    pub fn to_function(&self, name: &str) -> Function {
        let id = fn_id(name);
        let mut values = Vec::new();
        let mut params = Vec::new();
        for k in 0..self.cfg.num_i1 {
            params.push(param(Type::Int(1), values.len()));
            values.push(ValueInfo {
                name: Name::Named(format!("c{k}").into()),
                ty: Type::Int(1),
                def: ValueDef::Arg(k),
            });
        }
        for k in 0..self.cfg.num_i32 {
            params.push(param(Type::Int(32), values.len()));
            values.push(ValueInfo {
                name: Name::Named(format!("s{k}").into()),
                ty: Type::Int(32),
                def: ValueDef::Arg(self.cfg.num_i1 + k),
            });
        }
        // Token number -> value id.
        let defs = self.token_defs();
        let first_token_value = values.len();
        for (t, &(b, i)) in defs.iter().enumerate() {
            values.push(ValueInfo {
                name: Name::Named(format!("{name}.t{t}").into()),
                ty: Type::Token,
                def: ValueDef::inst(BlockId(b), i),
            });
        }
        let tok = |t: usize| ValueId(first_token_value + t);
        let mut next_token = 0;
        let mut blocks = Vec::new();
        for (b, ops) in self.ops.iter().enumerate() {
            let mut insts = Vec::new();
            for o in ops {
                let bundles = match o.uses() {
                    Some(u) => vec![Bundle {
                        tag: "convergencectrl".into(),
                        inputs: vec![TypedOperand {
                            ty: Type::Token,
                            value: Operand::Local(tok(u)),
                        }],
                    }],
                    None => Vec::new(),
                };
                let (callee, ty, result, args) = match o {
                    Op::Ctrl(_) | Op::Uncontrolled => ("conv", Type::Void, None, id_arg(id)),
                    Op::PlainBundle(_) | Op::Plain => ("plain", Type::Void, None, id_arg(id)),
                    _ => {
                        let r = tok(next_token);
                        next_token += 1;
                        (intrinsic(o), Type::Token, Some(r), Vec::new())
                    }
                };
                let mut c = call(callee, ty, bundles);
                c.args = args;
                insts.push(Inst {
                    result,
                    kind: InstKind::Call(Box::new(c)),
                    meta: Default::default(),
                    span: Span::default(),
                });
            }
            let kind = match &self.cfg.blocks[b] {
                GenTerm::Ret => TermKind::Ret(None),
                GenTerm::Unreachable => TermKind::Unreachable,
                GenTerm::Br(t) => TermKind::Br(BlockId(*t)),
                GenTerm::CondBr { cond, t, f } => TermKind::CondBr {
                    cond: Operand::Local(ValueId(*cond)),
                    on_true: BlockId(*t),
                    on_false: BlockId(*f),
                },
                GenTerm::Switch {
                    cond,
                    default,
                    cases,
                } => TermKind::Switch {
                    ty: Box::new(Type::Int(32)),
                    cond: Operand::Local(ValueId(self.cfg.num_i1 + cond)),
                    default: BlockId(*default),
                    cases: cases
                        .iter()
                        .enumerate()
                        .map(|(k, c)| {
                            (
                                Const::Int {
                                    value: k as i128,
                                    bool_syntax: false,
                                },
                                BlockId(*c),
                            )
                        })
                        .collect(),
                },
            };
            blocks.push(Block {
                name: Name::Named(format!("b{b}").into()),
                explicit_label: true,
                insts,
                term: Terminator {
                    kind,
                    meta: Default::default(),
                    span: Span::default(),
                },
                span: Span::default(),
            });
        }
        Function {
            name: name.to_string(),
            is_definition: true,
            linkage: Vec::new(),
            cconv: None,
            ret_attrs: Vec::new(),
            ret_ty: Type::Void,
            params,
            varargs: false,
            unnamed_addr: None,
            fn_attrs: if self.convergent {
                vec![Attr::Word("convergent".into())]
            } else {
                Vec::new()
            },
            trailer: Vec::new(),
            blocks,
            values,
            md: vec![],
            unsupported: None,
            span: Span::default(),
        }
    }
}

fn fn_id(name: &str) -> i128 {
    name.trim_start_matches(|c: char| !c.is_ascii_digit())
        .parse()
        .unwrap_or(0)
}

fn id_arg(id: i128) -> Vec<CallArg> {
    vec![CallArg {
        ty: Type::Int(32),
        attrs: Vec::new(),
        value: Operand::constant(Const::Int {
            value: id,
            bool_syntax: false,
        }),
    }]
}

fn param(ty: Type, v: usize) -> Param {
    Param {
        ty,
        attrs: Vec::new(),
        value: Some(ValueId(v)),
        decl_name: None,
    }
}

fn call(callee: &str, ty: Type, bundles: Vec<Bundle>) -> Call {
    Call {
        tail: None,
        flags: Vec::new(),
        cconv: None,
        ret_attrs: Vec::new(),
        ty,
        callee: Operand::constant(Const::Global(callee.to_string())),
        args: Vec::new(),
        fn_attrs: Vec::new(),
        bundles,
    }
}

fn decl(name: &str, ret: Type, convergent: bool, params: Vec<Type>) -> Function {
    Function {
        name: name.to_string(),
        is_definition: false,
        linkage: Vec::new(),
        cconv: None,
        ret_attrs: Vec::new(),
        ret_ty: ret,
        params: params
            .into_iter()
            .map(|ty| Param {
                ty,
                attrs: Vec::new(),
                value: None,
                decl_name: None,
            })
            .collect(),
        varargs: false,
        unnamed_addr: None,
        fn_attrs: if convergent {
            vec![Attr::Word("convergent".into())]
        } else {
            Vec::new()
        },
        trailer: Vec::new(),
        blocks: Vec::new(),
        values: Vec::new(),
        md: Vec::new(),
        unsupported: None,
        span: Span::default(),
    }
}

/// The declarations of [`DECLS`] as our IR.
pub fn declarations() -> Vec<Function> {
    vec![
        decl("conv", Type::Void, true, vec![Type::Int(32)]),
        decl("plain", Type::Void, false, vec![Type::Int(32)]),
        decl(
            "llvm.experimental.convergence.entry",
            Type::Token,
            false,
            vec![],
        ),
        decl(
            "llvm.experimental.convergence.anchor",
            Type::Token,
            false,
            vec![],
        ),
        decl(
            "llvm.experimental.convergence.loop",
            Type::Token,
            false,
            vec![],
        ),
    ]
}
