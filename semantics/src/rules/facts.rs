//! Facts about one function that every rule reads: the CFG, dominators,
//! LLVM's cycle hierarchy, which calls are convergent (rule C-CONV), which
//! are control intrinsics (C-INTR), and the token uses (C-CTRL).

use crate::cfg::{Cfg, CycleId, CycleInfo, DomTree};
use crate::intrinsics::{self, Ctrl};
use crate::ir::{BlockId, Call, Function, InstKind, Module, Operand, ValueDef, ValueId};

use super::print::{print_block_operand, print_cycle, print_inst_at};
use super::{Role, RuleId, Site, Violation};

/// The convergence control intrinsics (rule C-INTR).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CtrlKind {
    Entry,
    Anchor,
    Loop,
}

impl CtrlKind {
    /// The kind of a callee name, if it is a control intrinsic (the
    /// intrinsic table's C-INTR rows).
    pub fn of_callee(name: &str) -> Option<CtrlKind> {
        intrinsics::ctrl_of(name).map(|c| match c {
            Ctrl::Entry => CtrlKind::Entry,
            Ctrl::Anchor => CtrlKind::Anchor,
            Ctrl::Loop => CtrlKind::Loop,
        })
    }
    pub fn of_call(call: &Call) -> Option<CtrlKind> {
        call.callee_name().and_then(CtrlKind::of_callee)
    }
}

/// Whether LLVM 22 considers the call convergent (`CallBase::isConvergent`):
/// the `convergent` attribute on the call site or on the callee, which LLVM
/// attaches to the intrinsics its tables mark `convergent` whatever the
/// declaration says (the intrinsic table's `llvm_convergent`). A
/// `convergencectrl` bundle does not make a call convergent in LLVM 22.
pub fn is_convergent_llvm(m: &Module, call: &Call) -> bool {
    if m.has_attr(&call.fn_attrs, "convergent") {
        return true;
    }
    match call.callee_name() {
        Some(name) => {
            if intrinsics::lookup(name).is_some_and(|b| b.llvm_convergent()) {
                return true;
            }
            m.function(name)
                .is_some_and(|g| m.has_attr(&g.fn_attrs, "convergent"))
        }
        None => false,
    }
}

/// Rule C-CONV: a call is convergent if the callee or the call has the
/// `convergent` attribute, or it carries a `convergencectrl` bundle.
pub fn is_convergent_doc(m: &Module, call: &Call) -> bool {
    is_convergent_llvm(m, call) || call.convergence_bundles().next().is_some()
}

/// A use of a token by a `convergencectrl` bundle whose operand is a token
/// produced by a control intrinsic (rule C-CTRL; other bundles are S-TOKEN
/// violations and have no use here).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TokenUse {
    pub block: BlockId,
    pub inst: usize,
    pub token: ValueId,
    pub def_block: BlockId,
    pub def_inst: usize,
    /// The control intrinsic the user is, if any (`Loop` for a heart).
    pub user_kind: Option<CtrlKind>,
}

/// Everything the rules read about one function.
pub struct FnFacts<'a> {
    pub module: &'a Module,
    pub func: &'a Function,
    pub cfg: Cfg,
    pub dom: DomTree,
    pub cycles: CycleInfo,
    /// The document mode's hierarchy: LLVM's, plus the cycles of code
    /// unreachable from the entry (the rules speak of every closed path in
    /// the CFG). `None` when every block is reachable or in LLVM mode.
    pub all_cycles: Option<CycleInfo>,
    /// Reachable from the entry block.
    pub reachable: Vec<bool>,
    /// LLVM's reverse post-order of the reachable blocks (DFS in successor
    /// order).
    pub rpo: Vec<BlockId>,
    /// Whether "convergent" means LLVM 22's notion instead of C-CONV.
    pub llvm_mode: bool,
    /// Valid token uses in layout order.
    pub uses: Vec<TokenUse>,
}

impl<'a> FnFacts<'a> {
    /// Facts of a function with a body.
    pub fn new(module: &'a Module, func: &'a Function, llvm_mode: bool) -> FnFacts<'a> {
        let cfg = Cfg::from_function(func);
        let dom = DomTree::dominators(&cfg);
        let cycles = CycleInfo::compute(&cfg);
        let rpo = reverse_post_order(&cfg);
        let mut reachable = vec![false; cfg.len()];
        for b in &rpo {
            reachable[b.0] = true;
        }
        let all_cycles = if llvm_mode || reachable.iter().all(|r| *r) {
            None
        } else {
            Some(cycles_with_unreachable(&cfg, &reachable))
        };
        let mut facts = FnFacts {
            module,
            func,
            cfg,
            dom,
            cycles,
            all_cycles,
            reachable,
            rpo,
            llvm_mode,
            uses: Vec::new(),
        };
        facts.uses = facts.collect_uses();
        facts
    }

    fn collect_uses(&self) -> Vec<TokenUse> {
        let mut out = Vec::new();
        for b in self.func.block_ids() {
            for (i, inst) in self.func.block(b).insts.iter().enumerate() {
                let InstKind::Call(call) = &inst.kind else {
                    continue;
                };
                if let Some(token) = self.valid_token_of(call) {
                    if let Some((def_block, def_inst)) = self.def_site(token) {
                        out.push(TokenUse {
                            block: b,
                            inst: i,
                            token,
                            def_block,
                            def_inst,
                            user_kind: CtrlKind::of_call(call),
                        });
                    }
                }
            }
        }
        out
    }

    /// The token of the call's single well-formed `convergencectrl`
    /// bundle, if its operand is produced by a control intrinsic.
    pub fn valid_token_of(&self, call: &Call) -> Option<ValueId> {
        let mut bundles = call.convergence_bundles();
        let b = bundles.next()?;
        if bundles.next().is_some() || b.inputs.len() != 1 || !b.inputs[0].ty.is_token() {
            return None;
        }
        let v = b.inputs[0].value.as_local()?;
        let def = self.func.def_inst(v)?;
        match &def.kind {
            InstKind::Call(c) if CtrlKind::of_call(c).is_some() => Some(v),
            _ => None,
        }
    }

    /// Block and index of the instruction defining `v`.
    pub fn def_site(&self, v: ValueId) -> Option<(BlockId, usize)> {
        match self.func.value(v).def {
            ValueDef::Inst { block, index } => Some((block, index as usize)),
            ValueDef::Arg(_) => None,
        }
    }

    pub fn call_at(&self, b: BlockId, i: usize) -> Option<&'a Call> {
        match &self.func.block(b).insts.get(i)?.kind {
            InstKind::Call(c) => Some(c),
            _ => None,
        }
    }

    pub fn ctrl_kind_at(&self, b: BlockId, i: usize) -> Option<CtrlKind> {
        self.call_at(b, i).and_then(CtrlKind::of_call)
    }

    /// Whether the instruction is convergent in this verifier's mode.
    pub fn is_convergent_at(&self, b: BlockId, i: usize) -> bool {
        match self.call_at(b, i) {
            Some(c) if self.llvm_mode => is_convergent_llvm(self.module, c),
            Some(c) => is_convergent_doc(self.module, c),
            None => false,
        }
    }

    /// Whether the call carries any `convergencectrl` bundle (rule C-CTRL:
    /// controlled).
    pub fn has_bundle_at(&self, b: BlockId, i: usize) -> bool {
        self.call_at(b, i)
            .is_some_and(|c| c.convergence_bundles().next().is_some())
    }

    /// Whether the function has the `convergent` attribute.
    pub fn func_is_convergent(&self) -> bool {
        self.module.has_attr(&self.func.fn_attrs, "convergent")
    }

    /// The instruction at (b, i) printed as LLVM prints it.
    pub fn text(&self, b: BlockId, i: usize) -> String {
        print_inst_at(self.func, b, i)
    }

    pub fn site(&self, role: Role, b: BlockId, i: Option<usize>) -> Site {
        let block = self.func.block(b);
        let (text, span) = match i {
            Some(i) if i < block.insts.len() => (self.text(b, i), block.insts[i].span),
            Some(_) => (print_block_operand(self.func, b), block.term.span),
            None => (print_block_operand(self.func, b), block.span),
        };
        Site {
            role,
            block: self.func.block_name(b),
            inst: i,
            text,
            line: span.line,
            col: span.col,
        }
    }

    /// The cycle printed as LLVM's `GenericCycle::print` does.
    pub fn cycle_text(&self, c: CycleId) -> String {
        print_cycle(self.func, &self.cycles, c)
    }

    /// The hierarchy the document mode checks S-CYCLE-* on (see
    /// [`FnFacts::all_cycles`]).
    pub fn doc_cycles(&self) -> &CycleInfo {
        self.all_cycles.as_ref().unwrap_or(&self.cycles)
    }

    /// A violation reported at instruction (b, i).
    #[allow(clippy::too_many_arguments)]
    pub fn violation(
        &self,
        rule: RuleId,
        b: BlockId,
        i: Option<usize>,
        message: String,
        llvm_message: Option<&str>,
        llvm_lines: Vec<String>,
        sites: Vec<Site>,
    ) -> Violation {
        Violation {
            rule,
            function: self.func.name.clone(),
            block: self.func.block_name(b),
            inst: i,
            message,
            llvm_message: llvm_message.map(str::to_string),
            llvm_lines,
            sites,
            cycle: None,
        }
    }

    /// Whether block `a` dominates block `b` (LLVM's convention for
    /// unreachable blocks, see [`DomTree::dominates`]).
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        self.dom.dominates(a, b)
    }
}

/// LLVM's `ReversePostOrderTraversal`: iterative DFS from the entry taking
/// successors in terminator order, post-order reversed.
pub fn reverse_post_order(cfg: &Cfg) -> Vec<BlockId> {
    let n = cfg.len();
    if n == 0 {
        return Vec::new();
    }
    let mut visited = vec![false; n];
    let mut post = Vec::with_capacity(n);
    let mut stack: Vec<(BlockId, usize)> = vec![(cfg.entry(), 0)];
    visited[cfg.entry().0] = true;
    while let Some((b, next)) = stack.last_mut() {
        let succs = &cfg.succs[b.0];
        if *next < succs.len() {
            let s = succs[*next];
            *next += 1;
            if !visited[s.0] {
                visited[s.0] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(*b);
            stack.pop();
        }
    }
    post.reverse();
    post
}

/// LLVM's cycle hierarchy computed from a virtual root whose successors are
/// every unreachable block and then the entry block. LLVM's DFS takes the
/// last successor first, so the reachable part is discovered first, exactly
/// as from the entry: its cycles have LLVM's block sets (edges from
/// unreachable code can only add entries to them); the cycles of
/// unreachable code come after.
pub fn cycles_with_unreachable(cfg: &Cfg, reachable: &[bool]) -> CycleInfo {
    let n = cfg.len();
    let mut succs: Vec<Vec<usize>> = Vec::with_capacity(n + 1);
    let mut root: Vec<usize> = (0..n).filter(|b| !reachable[*b]).map(|b| b + 1).collect();
    root.push(1);
    succs.push(root);
    for ss in &cfg.succs {
        succs.push(ss.iter().map(|b| b.0 + 1).collect());
    }
    let shifted = CycleInfo::compute(&Cfg::from_succs(succs));
    let back = |b: &BlockId| BlockId(b.0 - 1);
    shifted.without_first_block(
        shifted
            .cycles
            .iter()
            .map(|c| crate::cfg::Cycle {
                entries: c.entries.iter().map(back).collect(),
                blocks: c.blocks.iter().map(back).collect(),
                parent: c.parent,
                children: c.children.clone(),
                depth: c.depth,
            })
            .collect(),
    )
}

/// The local value an operand names, if any.
pub fn local_of(op: &Operand) -> Option<ValueId> {
    op.as_local()
}
