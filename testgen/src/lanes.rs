//! Kernels that read lane ids and shuffle by lanes, for the interpreter's
//! renamings (M-RENAME, `semantics/src/machine/renaming.rs`): the
//! differential test compares the reduced enumeration, which renames
//! threads together with the lane values they read and renames values the
//! program treats as names, against the plain one.
//!
//! A [`LaneProgram`] is a kernel `@k` over per-thread `i1 %cK` and
//! `i32 %xK` arguments whose body is a list of statements, some inside one
//! level of `if`/`else` with a `phi` at the join: lane-id reads
//! (`@tid`, `llvm.amdgcn.workitem.id.x`), shuffles and broadcasts by a lane
//! value (`@subgroupShuffle`, `llvm.amdgcn.readlane`, `writelane`),
//! equality and ordering comparisons with values and constants, `select`,
//! unknown functions (a convergent `@op`, an observed `@ext`, an observed
//! `@use`), and the uses no renaming keeps (arithmetic on a value, a
//! first-lane read, a ballot, a wave reduction), so that the analysis's
//! fallbacks are exercised as well. Convergent calls are all controlled by
//! the `entry` token, all by an `anchor`, or all uncontrolled (S-MIX).

use std::fmt::Write;

use proptest::collection::vec;
use proptest::prelude::{any, prop_oneof, Just, Strategy};
use proptest::sample::Index;

/// One statement; operands are indices into the values in scope (taken
/// modulo their number when rendered).
#[derive(Clone, Debug)]
pub enum Stmt {
    /// `%vN = call i32 @tid()` or `@llvm.amdgcn.workitem.id.x()`.
    Tid { amdgcn: bool },
    /// `%vN = call i32 @subgroupShuffle(i32 val, i32 lane)`; `lane` a
    /// constant when `Some`.
    Shuffle {
        val: Index,
        lane: Index,
        konst: Option<u8>,
    },
    /// `%vN = call i32 @llvm.amdgcn.readlane.i32(i32 val, i32 lane)`.
    ReadLane { val: Index, lane: Index },
    /// `%vN = call i32 @llvm.amdgcn.writelane.i32(val, lane, old)`.
    WriteLane { val: Index, lane: Index, old: Index },
    /// `%vN = select i1 c, i32 a, i32 b`.
    Select { c: Index, a: Index, b: Index },
    /// `%bN = icmp eq/ne i32 a, b`.
    CmpEq { a: Index, b: Index, ne: bool },
    /// `%bN = icmp <pred> i32 a, k`.
    CmpConst { a: Index, pred: u8, k: u8 },
    /// `%vN = call i32 @op(i32 a)` (unknown convergent function).
    Op { a: Index },
    /// `%vN = call i32 @ext(i32 a)` (observed, result from the stream).
    Ext { a: Index },
    /// `call void @use(i32 a)`.
    Use { a: Index },
    /// `%vN = add i32 a, 1` (no renaming keeps it).
    Add { a: Index },
    /// `%vN = call i32 @subgroupBroadcastFirst(i32 a)` (reads lane order).
    First { a: Index },
    /// `%vN = call i32 @subgroupAdd(i32 a)` (arithmetic over the set).
    Reduce { a: Index },
}

/// An `if` on a boolean in scope: statements on each side, then a `phi`
/// of the last integer each side defined (or had in scope).
#[derive(Clone, Debug)]
pub enum Top {
    S(Stmt),
    If {
        c: Index,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
    },
}

/// How convergent calls are controlled (S-MIX: all alike).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    Uncontrolled,
    Entry,
    Anchor,
}

#[derive(Clone, Debug)]
pub struct LaneProgram {
    /// Number of `i1 %cK` and `i32 %xK` arguments.
    pub conds: usize,
    pub ints: usize,
    pub control: Control,
    pub body: Vec<Top>,
    /// Return the last integer in scope instead of `void`.
    pub returns: bool,
}

fn arb_stmt(exotic: bool) -> impl Strategy<Value = Stmt> {
    let ix = any::<Index>;
    let common = prop_oneof![
        3 => any::<bool>().prop_map(|amdgcn| Stmt::Tid { amdgcn }),
        4 => (ix(), ix(), proptest::option::weighted(0.2, 0u8..4))
            .prop_map(|(val, lane, konst)| Stmt::Shuffle { val, lane, konst }),
        1 => (ix(), ix()).prop_map(|(val, lane)| Stmt::ReadLane { val, lane }),
        1 => (ix(), ix(), ix()).prop_map(|(val, lane, old)| Stmt::WriteLane { val, lane, old }),
        2 => (ix(), ix(), ix()).prop_map(|(c, a, b)| Stmt::Select { c, a, b }),
        2 => (ix(), ix(), any::<bool>()).prop_map(|(a, b, ne)| Stmt::CmpEq { a, b, ne }),
        2 => (ix(), 0u8..4, 0u8..4).prop_map(|(a, pred, k)| Stmt::CmpConst { a, pred, k }),
        2 => ix().prop_map(|a| Stmt::Op { a }),
        1 => ix().prop_map(|a| Stmt::Ext { a }),
        3 => ix().prop_map(|a| Stmt::Use { a }),
    ];
    let rare = prop_oneof![
        ix().prop_map(|a| Stmt::Add { a }),
        ix().prop_map(|a| Stmt::First { a }),
        ix().prop_map(|a| Stmt::Reduce { a }),
    ];
    if exotic {
        prop_oneof![12 => common, 1 => rare].boxed()
    } else {
        common.boxed()
    }
}

/// Lane programs with up to `max_stmts` top-level statements; `exotic`
/// adds, rarely, the uses no renaming keeps.
pub fn arb_lane_program(max_stmts: usize, exotic: bool) -> impl Strategy<Value = LaneProgram> {
    let top = prop_oneof![
        4 => arb_stmt(exotic).prop_map(Top::S),
        1 => (any::<Index>(), vec(arb_stmt(exotic), 0..3), vec(arb_stmt(exotic), 0..3))
            .prop_map(|(c, then, els)| Top::If { c, then, els }),
    ];
    (
        0usize..2,
        1usize..3,
        prop_oneof![
            Just(Control::Uncontrolled),
            Just(Control::Entry),
            Just(Control::Anchor)
        ],
        vec(top, 1..=max_stmts.max(1)),
        any::<bool>(),
    )
        .prop_map(|(conds, ints, control, body, returns)| LaneProgram {
            conds,
            ints,
            control,
            body,
            returns,
        })
}

struct Scope {
    ints: Vec<String>,
    bools: Vec<String>,
}

struct Render {
    out: String,
    next: usize,
    bundle: String,
}

impl Render {
    fn fresh(&mut self, p: &str) -> String {
        self.next += 1;
        format!("%{p}{}", self.next)
    }

    fn int(s: &Scope, i: &Index) -> String {
        s.ints[i.index(s.ints.len())].clone()
    }

    fn stmt(&mut self, st: &Stmt, s: &mut Scope) {
        let b = self.bundle.clone();
        let int = |i: &Index| Render::int(s, i);
        let line = match st {
            Stmt::Tid { amdgcn } => {
                let v = self.fresh("v");
                let callee = if *amdgcn {
                    "llvm.amdgcn.workitem.id.x"
                } else {
                    "tid"
                };
                let l = format!("  {v} = call i32 @{callee}()\n");
                s.ints.push(v);
                l
            }
            Stmt::Shuffle { val, lane, konst } => {
                let v = self.fresh("v");
                let lane = match konst {
                    Some(k) => k.to_string(),
                    None => int(lane),
                };
                let l = format!(
                    "  {v} = call i32 @subgroupShuffle(i32 {}, i32 {lane}){b}\n",
                    int(val)
                );
                s.ints.push(v);
                l
            }
            Stmt::ReadLane { val, lane } => {
                let v = self.fresh("v");
                let l = format!(
                    "  {v} = call i32 @llvm.amdgcn.readlane.i32(i32 {}, i32 {}){b}\n",
                    int(val),
                    int(lane)
                );
                s.ints.push(v);
                l
            }
            Stmt::WriteLane { val, lane, old } => {
                let v = self.fresh("v");
                let l = format!(
                    "  {v} = call i32 @llvm.amdgcn.writelane.i32(i32 {}, i32 {}, i32 {}){b}\n",
                    int(val),
                    int(lane),
                    int(old)
                );
                s.ints.push(v);
                l
            }
            Stmt::Select { c, a, b: bb } => {
                if s.bools.is_empty() {
                    return;
                }
                let v = self.fresh("v");
                let l = format!(
                    "  {v} = select i1 {}, i32 {}, i32 {}\n",
                    s.bools[c.index(s.bools.len())],
                    int(a),
                    int(bb)
                );
                s.ints.push(v);
                l
            }
            Stmt::CmpEq { a, b: bb, ne } => {
                let v = self.fresh("b");
                let l = format!(
                    "  {v} = icmp {} i32 {}, {}\n",
                    if *ne { "ne" } else { "eq" },
                    int(a),
                    int(bb)
                );
                s.bools.push(v);
                l
            }
            Stmt::CmpConst { a, pred, k } => {
                let v = self.fresh("b");
                let pred = ["eq", "ult", "sgt", "ne"][*pred as usize % 4];
                let l = format!("  {v} = icmp {pred} i32 {}, {k}\n", int(a));
                s.bools.push(v);
                l
            }
            Stmt::Op { a } => {
                let v = self.fresh("v");
                let l = format!("  {v} = call i32 @op(i32 {}){b}\n", int(a));
                s.ints.push(v);
                l
            }
            Stmt::Ext { a } => {
                let v = self.fresh("v");
                let l = format!("  {v} = call i32 @ext(i32 {})\n", int(a));
                s.ints.push(v);
                l
            }
            Stmt::Use { a } => format!("  call void @use(i32 {})\n", int(a)),
            Stmt::Add { a } => {
                let v = self.fresh("v");
                let l = format!("  {v} = add i32 {}, 1\n", int(a));
                s.ints.push(v);
                l
            }
            Stmt::First { a } => {
                let v = self.fresh("v");
                let l = format!(
                    "  {v} = call i32 @subgroupBroadcastFirst(i32 {}){b}\n",
                    int(a)
                );
                s.ints.push(v);
                l
            }
            Stmt::Reduce { a } => {
                let v = self.fresh("v");
                let l = format!("  {v} = call i32 @subgroupAdd(i32 {}){b}\n", int(a));
                s.ints.push(v);
                l
            }
        };
        self.out += &line;
    }
}

impl LaneProgram {
    /// The module: the kernel `@k` and the declarations it calls.
    pub fn to_ll(&self) -> String {
        let mut params: Vec<String> = (0..self.conds).map(|i| format!("i1 %c{i}")).collect();
        params.extend((0..self.ints).map(|i| format!("i32 %x{i}")));
        let mut scope = Scope {
            ints: (0..self.ints).map(|i| format!("%x{i}")).collect(),
            bools: (0..self.conds).map(|i| format!("%c{i}")).collect(),
        };
        let (attr, prologue, bundle) = match self.control {
            Control::Uncontrolled => ("", String::new(), String::new()),
            Control::Entry => (
                " convergent",
                "  %tok = call token @llvm.experimental.convergence.entry()\n".to_string(),
                " [ \"convergencectrl\"(token %tok) ]".to_string(),
            ),
            Control::Anchor => (
                "",
                "  %tok = call token @llvm.experimental.convergence.anchor()\n".to_string(),
                " [ \"convergencectrl\"(token %tok) ]".to_string(),
            ),
        };
        let mut r = Render {
            out: String::new(),
            next: 0,
            bundle,
        };
        r.out += &prologue;
        for (n, t) in self.body.iter().enumerate() {
            match t {
                Top::S(st) => r.stmt(st, &mut scope),
                Top::If { c, then, els } => {
                    if scope.bools.is_empty() {
                        continue;
                    }
                    let cond = scope.bools[c.index(scope.bools.len())].clone();
                    let _ = writeln!(r.out, "  br i1 {cond}, label %then{n}, label %else{n}");
                    let mut last = Vec::new();
                    for (name, body) in [("then", then), ("else", els)] {
                        let _ = writeln!(r.out, "{name}{n}:");
                        let mut inner = Scope {
                            ints: scope.ints.clone(),
                            bools: scope.bools.clone(),
                        };
                        for st in body {
                            r.stmt(st, &mut inner);
                        }
                        last.push(inner.ints.last().cloned().unwrap_or_else(|| "0".into()));
                        let _ = writeln!(r.out, "  br label %join{n}");
                    }
                    let _ = writeln!(r.out, "join{n}:");
                    let v = r.fresh("v");
                    let _ = writeln!(
                        r.out,
                        "  {v} = phi i32 [ {}, %then{n} ], [ {}, %else{n} ]",
                        last[0], last[1]
                    );
                    scope.ints.push(v);
                }
            }
        }
        let (ret_ty, ret) = if self.returns {
            let v = scope.ints.last().cloned().unwrap_or_else(|| "0".into());
            ("i32", format!("  ret i32 {v}\n"))
        } else {
            ("void", "  ret void\n".to_string())
        };
        let mut m = String::from("target triple = \"amdgcn-amd-amdhsa\"\n\n");
        let _ = writeln!(
            m,
            "define {ret_ty} @k({}){attr} {{\nentry:\n{}{ret}}}\n",
            params.join(", "),
            r.out
        );
        m += "declare token @llvm.experimental.convergence.entry() convergent nounwind willreturn memory(none)\n\
              declare token @llvm.experimental.convergence.anchor() convergent nounwind willreturn memory(none)\n\
              declare i32 @tid()\n\
              declare i32 @llvm.amdgcn.workitem.id.x()\n\
              declare i32 @subgroupShuffle(i32, i32) convergent nounwind willreturn memory(none)\n\
              declare i32 @llvm.amdgcn.readlane.i32(i32, i32) convergent nounwind willreturn memory(none)\n\
              declare i32 @llvm.amdgcn.writelane.i32(i32, i32, i32) convergent nounwind willreturn memory(none)\n\
              declare i32 @subgroupBroadcastFirst(i32) convergent nounwind willreturn memory(none)\n\
              declare i32 @subgroupAdd(i32) convergent nounwind willreturn memory(none)\n\
              declare i32 @op(i32) convergent nounwind willreturn memory(none)\n\
              declare i32 @ext(i32)\n\
              declare void @use(i32)\n";
        m
    }
}
