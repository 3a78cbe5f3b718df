//! Inlining of defined functions into one kernel, as a pure program
//! transformation `Module -> Module` (no solver): the axiomatic encoding of
//! the checker covers one function body, so calls of functions defined in
//! the module are replaced by their bodies first.
//!
//! Rules (ConvergentOperations.rst, `llvm.experimental.convergence.entry`,
//! "Function inlining"; SEMANTICS.md D-ENTRY-CALL):
//! - a call with a `"convergencectrl"(token %t)` bundle: the callee's
//!   `entry` intrinsic is removed and its uses are replaced by `%t`, exactly
//!   the document's rule ("Function inlining substitutes this intrinsic with
//!   the token from the operand bundle"). By D-ENTRY-CALL the callee's
//!   `entry` instances are converged iff the call-site instances are, and by
//!   D-CTRL those are converged iff the `%t` instances are, so the operations
//!   that used `entry` keep their communicating sets;
//! - a call without a token to a callee without `entry`: plain inlining.
//!   Anchors stay anchors: D-ANCHOR leaves the choice of converged threads
//!   free (constrained only by D-CW and D-ORDER) both before and after, and
//!   no rule ties an anchor to its caller's call site. One caveat, which the
//!   caller must honour: several inlined copies of one callee are copies of
//!   *one* static instruction of the original program, so instances of two
//!   copies of one anchor may be converged (D-CW relates instances of the
//!   same static instruction). [`Origin`] records the original instruction
//!   and call path of every inlined instruction so that a consumer can
//!   identify the copies (the checker's encoding does);
//! - a call without a token to a callee that uses `entry`: D-ENTRY-CALL
//!   relates the callee's `entry` to the call site's own convergence
//!   (D-UNCTRL: D-MAX), which has no token to substitute. One case has
//!   one: a call outside every cycle of a `convergent` kernel without an
//!   `entry` of its own. There D-MAX converges the instances of all the
//!   threads of the launch group that execute the call ("Outside every
//!   cycle, all instances of X in threads of the same launch group are
//!   converged"), as D-ENTRY-LAUNCH (OpenCL-like environment, the
//!   checker's) converges the instances of the kernel's `entry` and D-CTRL
//!   the calls using its token: such calls get the token of an `entry`
//!   call inserted at the start of the kernel ([`Inlined::entry_added`];
//!   the same meaning, now controlled, as step 4 of CO "Inferring Tokens"
//!   gives them), and are inlined as controlled calls. In a cycle (whose
//!   heart would need a `loop` token, D-MAX-ITER) or in a callee they are
//!   rejected with [`InlineError`]; inventing a token would invent
//!   semantics;
//! - recursion (direct or mutual) is inlined to [`RECURSION_DEPTH`] nested
//!   copies of a function; a call that would nest one more copy is replaced
//!   by a branch to a block that loops forever (`recursion.cut: br label
//!   %recursion.cut`), the rest of its block kept unreachable and its
//!   result poison there. A thread that gets there never returns, so the
//!   step bound cuts its execution: executions that recurse deeper than the
//!   depth are cut like executions longer than the step bound (not compared
//!   in the target, anything allowed in the source, R-BOUND), never given a
//!   wrong meaning. The number of cut call sites is reported
//!   ([`Inlined::recursion_cuts`]) so that verdicts can state the depth.
//!   Each cut is recorded with its callee, arguments and frame
//!   ([`RecursionCut`]), and each inlined call with its frame, arguments
//!   and entry point ([`InlinedCall`]), so that a consumer can tell a
//!   recursion that repeats itself forever from one that would return
//!   deeper (rule R-PREFIX-REC of docs/RULES.md, in the checker).
//!
//! Frames: the instructions of one inlined copy of a callee all have the
//! same [`Origin::path`], the copy's *frame* (the call sites through which
//! it was inlined; the kernel's own frame is empty). Every block also
//! records the frame its terminator belongs to ([`Inlined::term_frames`]).
//!
//! Returns: a callee with one `ret` gets the rest of the caller's block
//! appended to its return block (its returned operand replaces the call's
//! result); several `ret`s branch to a fresh join block whose `phi` defines
//! the call's result. The callee's entry block is merged into the caller's
//! block (an entry block has no predecessors), so inlining a straight-line
//! callee adds no block visits. Cloned values and blocks get fresh names
//! `callee.name` (with a numeric suffix when taken), unique in the kernel.

use std::collections::{HashMap, HashSet};

use crate::ir::{
    Block, BlockId, Call, Const, Function, Inst, InstKind, Module, Name, Operand, Span, TermKind,
    Terminator, Type, ValueDef, ValueId, ValueInfo,
};
use crate::parse::for_each_operand_mut;

const ENTRY: &str = "llvm.experimental.convergence.entry";

/// Upper bound on the kernel's instructions after inlining (a guard against
/// exponential growth; programs this large are far outside the checker's
/// bounds anyway).
pub const MAX_INSTS: usize = 20_000;

/// How many nested copies of one function inlining makes before it cuts a
/// recursive call (module documentation).
pub const RECURSION_DEPTH: usize = 3;

/// A static instruction of the original module.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    pub func: String,
    pub block: BlockId,
    pub index: usize,
}

/// Where an instruction of the inlined kernel comes from: the original
/// instruction and the call sites (original locations, outermost first)
/// through which it was inlined. Two instructions of the inlined kernel
/// with the same `loc` are copies of one static instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Origin {
    pub loc: Loc,
    pub path: Vec<Loc>,
}

/// The result of [`inline_kernel`].
#[derive(Clone, Debug)]
pub struct Inlined {
    /// The module with the kernel's calls of defined functions inlined
    /// (the other functions are unchanged).
    pub module: Module,
    /// Per block, per instruction of the inlined kernel: its origin.
    pub origins: Vec<Vec<Origin>>,
    /// Number of call sites inlined (0: the module is unchanged).
    pub calls_inlined: usize,
    /// Number of recursive call sites cut at [`RECURSION_DEPTH`].
    pub recursion_cuts: usize,
    /// Per block of the inlined kernel: the frame (call path, as
    /// [`Origin::path`]) its terminator belongs to.
    pub term_frames: Vec<Vec<Loc>>,
    /// Every call inlined, in the order it was inlined.
    pub calls: Vec<InlinedCall>,
    /// Every recursive call cut at [`RECURSION_DEPTH`].
    pub cuts: Vec<RecursionCut>,
    /// Whether an `entry` call was inserted at the start of the kernel for
    /// its uncontrolled calls, outside every cycle, of callees that use
    /// `entry` (module documentation).
    pub entry_added: bool,
}

/// One inlined call: a copy of the callee's body.
#[derive(Clone, Debug)]
pub struct InlinedCall {
    /// The callee (without `@`).
    pub callee: String,
    /// The copy's frame: the [`Origin::path`] of its instructions (the
    /// caller's frame and then the call's location).
    pub frame: Vec<Loc>,
    /// The block the callee's entry block was merged into, and the index
    /// there of the copy's first instruction: the visit of `block` enters
    /// the copy at `start`.
    pub block: BlockId,
    pub start: usize,
    /// The call's arguments, as operands of the inlined kernel.
    pub args: Vec<(Type, Operand)>,
}

/// A recursive call cut at [`RECURSION_DEPTH`]: the thread that reaches it
/// branches to `block`, which loops forever.
#[derive(Clone, Debug)]
pub struct RecursionCut {
    /// The callee (without `@`).
    pub callee: String,
    /// The frame the call executed in (its [`Origin::path`]) and the call
    /// itself.
    pub frame: Vec<Loc>,
    pub call: Loc,
    /// The `recursion.cut` block.
    pub block: BlockId,
    /// The call's arguments, as operands of the inlined kernel.
    pub args: Vec<(Type, Operand)>,
}

/// Why a kernel's calls cannot be inlined.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message} at {at}")]
pub struct InlineError {
    pub message: String,
    /// The call site, as `@function %block line N`.
    pub at: String,
}

/// Inlines, recursively, every call of a function defined in `m` into the
/// kernel `kernel` (name without `@`). See the module documentation for the
/// rules and what is rejected.
pub fn inline_kernel(m: &Module, kernel: &str) -> Result<Inlined, InlineError> {
    let f0 = m
        .function(kernel)
        .filter(|f| f.has_body())
        .ok_or_else(|| InlineError {
            message: format!("no defined function @{kernel}"),
            at: "module".into(),
        })?;
    let mut w = Work {
        m,
        f: f0.clone(),
        term_frames: vec![Vec::new(); f0.blocks.len()],
        calls: Vec::new(),
        cuts: Vec::new(),
        origins: f0
            .blocks
            .iter()
            .enumerate()
            .map(|(b, blk)| {
                (0..blk.insts.len())
                    .map(|i| Origin {
                        loc: Loc {
                            func: kernel.to_string(),
                            block: BlockId(b),
                            index: i,
                        },
                        path: Vec::new(),
                    })
                    .collect()
            })
            .collect(),
    };
    let entry_added = w.control_entry_block_calls();
    let (mut count, mut cuts) = (0, 0);
    while let Some((b, i)) = w.next_call() {
        if w.inline_one(b, i)? {
            count += 1;
        } else {
            cuts += 1;
        }
        let size: usize = w.f.blocks.iter().map(|b| b.insts.len()).sum();
        if size > MAX_INSTS {
            return Err(InlineError {
                message: format!("inlining makes @{kernel} larger than {MAX_INSTS} instructions"),
                at: format!("@{kernel}"),
            });
        }
    }
    if count + cuts > 0 {
        let mut recorded: Vec<&mut Operand> = w
            .calls
            .iter_mut()
            .flat_map(|c| c.args.iter_mut())
            .chain(w.cuts.iter_mut().flat_map(|c| c.args.iter_mut()))
            .map(|(_, op)| op)
            .collect();
        compact(&mut w.f, &mut recorded).map_err(|message| InlineError {
            message,
            at: format!("@{kernel}"),
        })?;
    }
    let mut module = m.clone();
    if let Some(slot) = module.functions.iter_mut().find(|f| f.name == kernel) {
        *slot = w.f;
    }
    Ok(Inlined {
        module,
        origins: w.origins,
        calls_inlined: count,
        recursion_cuts: cuts,
        term_frames: w.term_frames,
        calls: w.calls,
        cuts: w.cuts,
        entry_added,
    })
}

struct Work<'m> {
    m: &'m Module,
    f: Function,
    origins: Vec<Vec<Origin>>,
    /// Per block: the frame of its terminator ([`Inlined::term_frames`]).
    term_frames: Vec<Vec<Loc>>,
    calls: Vec<InlinedCall>,
    cuts: Vec<RecursionCut>,
}

fn called_definition<'m>(m: &'m Module, inst: &Inst) -> Option<&'m Function> {
    match &inst.kind {
        InstKind::Call(c) => c
            .callee_name()
            .and_then(|n| m.function(n))
            .filter(|g| g.has_body()),
        _ => None,
    }
}

fn is_entry(inst: &Inst) -> bool {
    matches!(&inst.kind, InstKind::Call(c) if c.callee_name() == Some(ENTRY))
}

/// Applies `f` to every block reference of a terminator.
fn for_each_target_mut(t: &mut TermKind, f: &mut dyn FnMut(&mut BlockId)) {
    match t {
        TermKind::Br(d) => f(d),
        TermKind::CondBr {
            on_true, on_false, ..
        } => {
            f(on_true);
            f(on_false);
        }
        TermKind::Switch { default, cases, .. } => {
            f(default);
            for (_, d) in cases.iter_mut() {
                f(d);
            }
        }
        TermKind::Ret(_) | TermKind::Unreachable => {}
    }
}

/// Applies `f` to every operand of a terminator.
fn for_each_term_operand_mut(t: &mut TermKind, f: &mut dyn FnMut(&mut Operand)) {
    match t {
        TermKind::CondBr { cond, .. } | TermKind::Switch { cond, .. } => f(cond),
        TermKind::Ret(Some(v)) => f(&mut v.value),
        _ => {}
    }
}

fn name_text(n: &Name) -> String {
    n.to_string()
}

/// Whether function `g` calls the `entry` intrinsic.
fn uses_entry(g: &Function) -> bool {
    g.blocks.iter().flat_map(|b| &b.insts).any(is_entry)
}

impl Work<'_> {
    /// D-ENTRY-CALL for uncontrolled calls outside every cycle of the
    /// kernel (module documentation): in a `convergent` kernel without
    /// `entry`, the calls without a token of defined callees that use
    /// `entry`, in blocks outside every cycle, get the token of an `entry`
    /// call inserted at the start of the entry block. Returns whether it
    /// did.
    fn control_entry_block_calls(&mut self) -> bool {
        let m = self.m;
        let f = &self.f;
        if f.blocks.is_empty()
            || !m.has_attr(&f.fn_attrs, "convergent")
            || f.blocks.iter().flat_map(|b| &b.insts).any(is_entry)
        {
            return false;
        }
        // Blocks outside every cycle: the non-trivial strongly connected
        // components are the outermost cycles of every hierarchy (D-HIER),
        // so one hierarchy tells.
        let cycles = crate::cfg::CycleInfo::compute(&crate::cfg::Cfg::from_function(f));
        let targets: Vec<(usize, usize)> = f
            .blocks
            .iter()
            .enumerate()
            .filter(|(b, _)| cycles.cycles_containing(BlockId(*b)).is_empty())
            .flat_map(|(b, blk)| blk.insts.iter().enumerate().map(move |(i, x)| (b, i, x)))
            .filter(|(_, _, x)| match &x.kind {
                InstKind::Call(c) => {
                    c.convergence_bundles().next().is_none()
                        && called_definition(m, x).is_some_and(uses_entry)
                }
                _ => false,
            })
            .map(|(b, i, _)| (b, i))
            .collect();
        if targets.is_empty() {
            return false;
        }
        let mut taken: HashSet<String> = f.values.iter().map(|v| name_text(&v.name)).collect();
        let name = self.fresh_value_name(&mut taken, "entry.token");
        let id = ValueId(self.f.values.len());
        self.f.values.push(ValueInfo {
            name,
            ty: Type::Token,
            // Fixed by `compact` (the call is inlined, so it runs).
            def: ValueDef::Arg(usize::MAX),
        });
        let span = self.f.blocks[0]
            .insts
            .first()
            .map_or(self.f.blocks[0].term.span, |i| i.span);
        for &(b, i) in &targets {
            if let InstKind::Call(c) = &mut self.f.blocks[b].insts[i].kind {
                c.bundles.push(crate::ir::Bundle {
                    tag: "convergencectrl".into(),
                    inputs: vec![crate::ir::TypedOperand {
                        ty: Type::Token,
                        value: Operand::Local(id),
                    }],
                });
            }
        }
        let call = Call {
            tail: None,
            flags: Vec::new(),
            cconv: None,
            ret_attrs: Vec::new(),
            ty: Type::Token,
            callee: Operand::constant(Const::Global(ENTRY.to_string())),
            args: Vec::new(),
            fn_attrs: Vec::new(),
            bundles: Vec::new(),
        };
        self.f.blocks[0].insts.insert(
            0,
            Inst {
                result: Some(id),
                kind: InstKind::Call(Box::new(call)),
                meta: Default::default(),
                span,
            },
        );
        let kernel = self.f.name.clone();
        self.origins[0].insert(
            0,
            Origin {
                loc: Loc {
                    func: kernel,
                    block: BlockId(0),
                    index: usize::MAX,
                },
                path: Vec::new(),
            },
        );
        true
    }

    fn next_call(&self) -> Option<(usize, usize)> {
        for (b, blk) in self.f.blocks.iter().enumerate() {
            for (i, inst) in blk.insts.iter().enumerate() {
                if called_definition(self.m, inst).is_some() {
                    return Some((b, i));
                }
            }
        }
        None
    }

    fn at(&self, b: usize, span: Span) -> String {
        format!(
            "@{} %{} line {}",
            self.f.name,
            name_text(&self.f.blocks[b].name),
            span.line
        )
    }

    fn fresh_value_name(&self, taken: &mut HashSet<String>, base: &str) -> Name {
        let mut cand = base.to_string();
        let mut k = 1;
        while taken.contains(&cand) {
            cand = format!("{base}.{k}");
            k += 1;
        }
        taken.insert(cand.clone());
        Name::Named(cand.into())
    }

    /// Replaces every use of `from` by `to`, in the kernel and in the
    /// recorded arguments of inlined and cut calls.
    fn substitute_all(&mut self, from: ValueId, to: &Operand) {
        substitute(&mut self.f, from, to);
        for op in self
            .calls
            .iter_mut()
            .flat_map(|c| c.args.iter_mut())
            .chain(self.cuts.iter_mut().flat_map(|c| c.args.iter_mut()))
            .map(|(_, op)| op)
        {
            if *op == Operand::Local(from) {
                *op = to.clone();
            }
        }
    }

    /// Replaces the recursive call `call` of `callee` at instruction `i` of
    /// block `b` by a branch to a block that loops forever; the rest of the
    /// block moves to a block without predecessors (module documentation).
    /// The cut is recorded ([`RecursionCut`]).
    fn cut(&mut self, b: usize, i: usize, callee: &str, call: &Call) {
        let inst = self.f.blocks[b].insts[i].clone();
        let o_call = self.origins[b][i].clone();
        if let Some(res) = inst.result {
            self.substitute_all(res, &Operand::constant(Const::Poison));
        }
        let mut taken: HashSet<String> = self.f.blocks.iter().map(|x| name_text(&x.name)).collect();
        let rest_name = self.fresh_value_name(&mut taken, "recursion.rest");
        let cut_name = self.fresh_value_name(&mut taken, "recursion.cut");
        let (rest, cut) = (self.f.blocks.len(), self.f.blocks.len() + 1);
        let blk = &mut self.f.blocks[b];
        let tail = blk.insts.split_off(i + 1);
        blk.insts.pop();
        let old_term = blk.term.clone();
        blk.term.kind = TermKind::Br(BlockId(cut));
        let tail_orig = self.origins[b].split_off(i + 1);
        self.origins[b].pop();
        let succs = old_term.successors();
        self.f.blocks.push(Block {
            name: rest_name,
            explicit_label: true,
            insts: tail,
            term: old_term.clone(),
            span: inst.span,
        });
        self.origins.push(tail_orig);
        self.f.blocks.push(Block {
            name: cut_name,
            explicit_label: true,
            insts: Vec::new(),
            term: Terminator {
                kind: TermKind::Br(BlockId(cut)),
                meta: Default::default(),
                span: inst.span,
            },
            span: inst.span,
        });
        self.origins.push(Vec::new());
        // Frames: the branch to the cut replaces the call in the call's
        // frame; the cut block stands for the callee's copy that was not
        // made; the rest keeps the block's old terminator.
        let old_frame = std::mem::replace(&mut self.term_frames[b], o_call.path.clone());
        self.term_frames.push(old_frame);
        let mut deeper = o_call.path.clone();
        deeper.push(o_call.loc.clone());
        self.term_frames.push(deeper);
        self.cuts.push(RecursionCut {
            callee: callee.to_string(),
            frame: o_call.path,
            call: o_call.loc,
            block: BlockId(cut),
            args: call
                .args
                .iter()
                .map(|a| (a.ty.clone(), a.value.clone()))
                .collect(),
        });
        self.repoint_phis(&succs, b, rest);
    }

    /// The phis of `succs` that named `from` as a predecessor name `to`.
    fn repoint_phis(&mut self, succs: &[BlockId], from: usize, to: usize) {
        let mut succs = succs.to_vec();
        succs.sort();
        succs.dedup();
        for s in succs {
            for x in self.f.blocks[s.0].insts.iter_mut() {
                if let InstKind::Phi { incoming, .. } = &mut x.kind {
                    for (_, pb) in incoming.iter_mut() {
                        if pb.0 == from {
                            *pb = BlockId(to);
                        }
                    }
                }
            }
        }
    }

    /// Inlines the call at instruction `i` of block `b` (one level); false
    /// when the call was a recursive one cut at [`RECURSION_DEPTH`].
    fn inline_one(&mut self, b: usize, i: usize) -> Result<bool, InlineError> {
        let m = self.m;
        let inst = self.f.blocks[b].insts[i].clone();
        let at = self.at(b, inst.span);
        let err = |message: String| InlineError {
            message,
            at: at.clone(),
        };
        let g = called_definition(m, &inst).ok_or_else(|| err("not a call".into()))?;
        let InstKind::Call(call) = &inst.kind else {
            return Err(err("not a call".into()));
        };
        let o_call = self.origins[b][i].clone();
        let copies = std::iter::once(&o_call.loc)
            .chain(&o_call.path)
            .filter(|l| l.func == g.name)
            .count();
        if copies >= RECURSION_DEPTH {
            self.cut(b, i, &g.name, call);
            return Ok(false);
        }
        if g.varargs || call.args.len() != g.params.len() {
            return Err(err(format!(
                "call of @{} with {} arguments, the definition has {}{}",
                g.name,
                call.args.len(),
                g.params.len(),
                if g.varargs { " and varargs" } else { "" }
            )));
        }
        let token: Option<Operand> = call
            .convergence_bundles()
            .next()
            .and_then(|bd| bd.inputs.first())
            .map(|op| op.value.clone());
        let entry: Option<(usize, usize)> = g
            .blocks
            .iter()
            .enumerate()
            .find_map(|(gb, blk)| blk.insts.iter().position(is_entry).map(|gi| (gb, gi)));
        if let Some((gb, _)) = entry {
            if gb != 0 {
                return Err(err(format!(
                    "@{} has its entry intrinsic outside the entry block (S-ENTRY-PLACE)",
                    g.name
                )));
            }
            if token.is_none() {
                return Err(err(format!(
                    "call of @{} without a convergencectrl token, but @{} uses \
                     llvm.experimental.convergence.entry (D-ENTRY-CALL for an \
                     uncontrolled call is not inlined)",
                    g.name, g.name
                )));
            }
        }
        let ret_ty = match &call.ty {
            Type::Func(f) => f.ret.clone(),
            t => t.clone(),
        };
        let res = inst.result;
        // Value map of the callee: arguments -> call operands, `entry` ->
        // the call-site token (the document's rule), others -> fresh values.
        let mut taken: HashSet<String> = self.f.values.iter().map(|v| name_text(&v.name)).collect();
        let mut vmap: HashMap<ValueId, Operand> = HashMap::new();
        for (p, a) in g.params.iter().zip(&call.args) {
            if let Some(v) = p.value {
                vmap.insert(v, a.value.clone());
            }
        }
        let entry_val = entry.and_then(|(gb, gi)| g.blocks[gb].insts[gi].result);
        for (vi, info) in g.values.iter().enumerate() {
            let v = ValueId(vi);
            if vmap.contains_key(&v) || !matches!(info.def, ValueDef::Inst { .. }) {
                continue;
            }
            if Some(v) == entry_val {
                if let Some(t) = &token {
                    vmap.insert(v, t.clone());
                }
                continue;
            }
            let name =
                self.fresh_value_name(&mut taken, &format!("{}.{}", g.name, name_text(&info.name)));
            let id = ValueId(self.f.values.len());
            self.f.values.push(ValueInfo {
                name,
                ty: info.ty.clone(),
                // Fixed by `compact` once the instruction has its place.
                def: ValueDef::Arg(usize::MAX),
            });
            vmap.insert(v, Operand::Local(id));
        }
        // Block map: the callee's entry merges into `b`; the others are new.
        let mut btaken: HashSet<String> =
            self.f.blocks.iter().map(|x| name_text(&x.name)).collect();
        let base = self.f.blocks.len();
        let bmap: Vec<BlockId> = (0..g.blocks.len())
            .map(|gb| {
                if gb == 0 {
                    BlockId(b)
                } else {
                    BlockId(base + gb - 1)
                }
            })
            .collect();
        let remap_ops = |kind: &mut InstKind| {
            for_each_operand_mut(kind, &mut |op| {
                if let Operand::Local(v) = op {
                    if let Some(n) = vmap.get(v) {
                        *op = n.clone();
                    }
                }
            });
            if let InstKind::Phi { incoming, .. } = kind {
                for (_, pb) in incoming.iter_mut() {
                    *pb = bmap[pb.0];
                }
            }
        };
        let mut path = o_call.path.clone();
        path.push(o_call.loc.clone());
        self.calls.push(InlinedCall {
            callee: g.name.clone(),
            frame: path.clone(),
            block: BlockId(b),
            start: i,
            args: call
                .args
                .iter()
                .map(|a| (a.ty.clone(), a.value.clone()))
                .collect(),
        });
        let clone_insts = |gb: usize| -> (Vec<Inst>, Vec<Origin>) {
            let mut out = Vec::new();
            let mut orig = Vec::new();
            for (gi, x) in g.blocks[gb].insts.iter().enumerate() {
                if is_entry(x) {
                    continue;
                }
                let mut kind = x.kind.clone();
                remap_ops(&mut kind);
                let result = x
                    .result
                    .and_then(|r| vmap.get(&r))
                    .and_then(|o| o.as_local());
                // Debug records name the callee's locals: dropped; the
                // attachments refer to module metadata and stay valid.
                out.push(Inst {
                    result,
                    kind,
                    meta: crate::ir::InstMeta::new(
                        x.meta.attachments().to_vec(),
                        thin_vec::ThinVec::new(),
                    ),
                    span: x.span,
                });
                orig.push(Origin {
                    loc: Loc {
                        func: g.name.clone(),
                        block: BlockId(gb),
                        index: gi,
                    },
                    path: path.clone(),
                });
            }
            (out, orig)
        };
        let clone_term = |gb: usize| -> Terminator {
            let mut t = g.blocks[gb].term.clone();
            t.meta.clear_dbg_records();
            for_each_target_mut(&mut t.kind, &mut |d| *d = bmap[d.0]);
            for_each_term_operand_mut(&mut t.kind, &mut |op| {
                if let Operand::Local(v) = op {
                    if let Some(n) = vmap.get(v) {
                        *op = n.clone();
                    }
                }
            });
            t
        };
        // Split the caller's block: head | call | tail.
        let blk = &mut self.f.blocks[b];
        let tail: Vec<Inst> = blk.insts.split_off(i + 1);
        blk.insts.pop();
        let old_term = blk.term.clone();
        let tail_orig: Vec<Origin> = self.origins[b].split_off(i + 1);
        self.origins[b].pop();
        let (ei, eo) = clone_insts(0);
        self.f.blocks[b].insts.extend(ei);
        self.origins[b].extend(eo);
        self.f.blocks[b].term = clone_term(0);
        let caller_frame = std::mem::replace(&mut self.term_frames[b], path.clone());
        for gb in 1..g.blocks.len() {
            let (xs, os) = clone_insts(gb);
            let name = self.fresh_value_name(
                &mut btaken,
                &format!("{}.{}", g.name, name_text(&g.blocks[gb].name)),
            );
            self.f.blocks.push(Block {
                name,
                explicit_label: true,
                insts: xs,
                term: clone_term(gb),
                span: g.blocks[gb].span,
            });
            self.origins.push(os);
            self.term_frames.push(path.clone());
        }
        let rets: Vec<(usize, Option<Operand>)> = (0..g.blocks.len())
            .map(|gb| bmap[gb].0)
            .filter_map(|nb| match &self.f.blocks[nb].term.kind {
                TermKind::Ret(v) => Some((nb, v.as_ref().map(|tv| tv.value.clone()))),
                _ => None,
            })
            .collect();
        let last = if rets.len() == 1 {
            let (r, rv) = rets[0].clone();
            let mut tail = tail;
            let mut old_term = old_term;
            if let Some(res) = res {
                // The returned operand replaces the call's result everywhere.
                let rv = rv.unwrap_or(Operand::constant(Const::Poison));
                self.substitute_all(res, &rv);
                for x in tail.iter_mut() {
                    substitute_inst(&mut x.kind, res, &rv);
                }
                substitute_term(&mut old_term.kind, res, &rv);
            }
            self.f.blocks[r].insts.extend(tail);
            self.origins[r].extend(tail_orig);
            self.f.blocks[r].term = old_term;
            self.term_frames[r] = caller_frame;
            r
        } else {
            // Several returns (or none): a join block, whose phi defines
            // the call's result.
            let name = self.fresh_value_name(&mut btaken, &format!("{}.ret", g.name));
            let j = self.f.blocks.len();
            let mut insts = Vec::new();
            let mut orig = Vec::new();
            let mut tail = tail;
            let mut old_term = old_term;
            match res {
                Some(res) if !rets.is_empty() && ret_ty != Type::Void => {
                    insts.push(Inst {
                        result: Some(res),
                        kind: InstKind::Phi {
                            flags: Vec::new().into(),
                            ty: ret_ty.clone(),
                            incoming: rets
                                .iter()
                                .map(|(rb, rv)| {
                                    (
                                        rv.clone().unwrap_or(Operand::constant(Const::Poison)),
                                        BlockId(*rb),
                                    )
                                })
                                .collect(),
                        },
                        meta: Default::default(),
                        span: inst.span,
                    });
                    orig.push(o_call.clone());
                }
                Some(res) => {
                    // No return: the tail is unreachable; the result is poison.
                    let p = Operand::constant(Const::Poison);
                    self.substitute_all(res, &p);
                    for x in tail.iter_mut() {
                        substitute_inst(&mut x.kind, res, &p);
                    }
                    substitute_term(&mut old_term.kind, res, &p);
                }
                None => {}
            }
            insts.extend(tail);
            orig.extend(tail_orig);
            self.f.blocks.push(Block {
                name,
                explicit_label: true,
                insts,
                term: old_term,
                span: inst.span,
            });
            self.origins.push(orig);
            self.term_frames.push(caller_frame);
            for (rb, _) in &rets {
                self.f.blocks[*rb].term.kind = TermKind::Br(BlockId(j));
            }
            j
        };
        // The caller's successors are now reached from `last`.
        if last != b {
            let succs = self.f.blocks[last].term.successors();
            self.repoint_phis(&succs, b, last);
        }
        Ok(true)
    }
}

fn substitute_inst(kind: &mut InstKind, from: ValueId, to: &Operand) {
    for_each_operand_mut(kind, &mut |op| {
        if *op == Operand::Local(from) {
            *op = to.clone();
        }
    });
}

fn substitute_term(kind: &mut TermKind, from: ValueId, to: &Operand) {
    for_each_term_operand_mut(kind, &mut |op| {
        if *op == Operand::Local(from) {
            *op = to.clone();
        }
    });
}

/// Replaces every use of `from` in `f` by `to`.
fn substitute(f: &mut Function, from: ValueId, to: &Operand) {
    for blk in f.blocks.iter_mut() {
        for x in blk.insts.iter_mut() {
            substitute_inst(&mut x.kind, from, to);
        }
        substitute_term(&mut blk.term.kind, from, to);
    }
}

/// Renumbers the values of `f` by the IR convention (arguments first, then
/// instruction results in textual order), dropping values no instruction
/// defines any more (replaced call results), and fixes every `def` and the
/// `recorded` operands kept beside the function.
fn compact(f: &mut Function, recorded: &mut [&mut Operand]) -> Result<(), String> {
    let mut map: HashMap<ValueId, ValueId> = HashMap::new();
    let mut values = Vec::new();
    for (k, p) in f.params.iter().enumerate() {
        if let Some(v) = p.value {
            map.insert(v, ValueId(values.len()));
            let mut info = f.values[v.0].clone();
            info.def = ValueDef::Arg(k);
            values.push(info);
        }
    }
    for (b, blk) in f.blocks.iter().enumerate() {
        for (i, x) in blk.insts.iter().enumerate() {
            if let Some(r) = x.result {
                map.insert(r, ValueId(values.len()));
                let mut info = f.values[r.0].clone();
                info.def = ValueDef::inst(BlockId(b), i);
                values.push(info);
            }
        }
    }
    let mut missing = None;
    let mut fix = |op: &mut Operand| {
        if let Operand::Local(v) = op {
            match map.get(v) {
                Some(n) => *v = *n,
                None => missing = Some(*v),
            }
        }
    };
    for blk in f.blocks.iter_mut() {
        for x in blk.insts.iter_mut() {
            for_each_operand_mut(&mut x.kind, &mut fix);
            if let Some(r) = x.result.as_mut() {
                *r = map[r];
            }
        }
        for_each_term_operand_mut(&mut blk.term.kind, &mut fix);
    }
    for p in f.params.iter_mut() {
        if let Some(v) = p.value.as_mut() {
            *v = map[v];
        }
    }
    for op in recorded.iter_mut() {
        fix(op);
    }
    if let Some(v) = missing {
        return Err(format!(
            "internal error: inlining left a use of the removed value {}",
            name_text(&f.values[v.0].name)
        ));
    }
    f.values = values;
    Ok(())
}

/// Whether `call` calls a function defined in `m` (a call [`inline_kernel`]
/// replaces).
pub fn calls_definition(m: &Module, call: &Call) -> bool {
    call.callee_name()
        .and_then(|n| m.function(n))
        .is_some_and(|g| g.has_body())
}

#[cfg(test)]
#[path = "inline_tests.rs"]
mod tests;
