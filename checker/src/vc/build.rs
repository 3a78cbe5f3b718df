//! Builders: sort-checked construction of applications, with light
//! simplification (constant folding through [`super::eval`], Boolean unit
//! laws) so that instantiated conditions, e.g. in CEGIS, stay small.
//!
//! Every builder panics on a sort error: terms are built by the encoder, so a
//! mismatch is an encoder bug (STYLE.md item 3), never bad user input.
//! [`Terms::try_app`] is the non-panicking core.

use super::eval::{apply_op, Value};
use super::{Node, Op, Sort, SortError, TermId, Terms, MAX_BV_WIDTH};

fn err<T>(msg: String) -> Result<T, SortError> {
    Err(SortError(msg))
}

impl Terms {
    /// The sort of `op` applied to arguments of sorts `args`, or why not.
    pub fn result_sort(&self, op: Op, args: &[TermId]) -> Result<Sort, SortError> {
        let sorts: Vec<&Sort> = args.iter().map(|&a| self.sort(a)).collect();
        let n = sorts.len();
        let arity = |k: usize| -> Result<(), SortError> {
            if n == k {
                Ok(())
            } else {
                err(format!("{op:?} takes {k} arguments, got {n}"))
            }
        };
        let all_bool = || -> Result<(), SortError> {
            match sorts.iter().find(|s| ***s != Sort::Bool) {
                Some(s) => err(format!("{op:?} takes Bool arguments, got {s:?}")),
                None => Ok(()),
            }
        };
        let all_same = || -> Result<&Sort, SortError> {
            let first = sorts[0];
            match sorts.iter().find(|s| **s != first) {
                Some(s) => err(format!("{op:?} arguments differ: {first:?} and {s:?}")),
                None => Ok(first),
            }
        };
        let same_bv = || -> Result<u32, SortError> {
            let s = all_same()?;
            s.bv_width()
                .ok_or_else(|| SortError(format!("{op:?} takes bit-vectors, got {s:?}")))
        };
        let all_int = || -> Result<(), SortError> {
            match sorts.iter().find(|s| ***s != Sort::Int) {
                Some(s) => err(format!("{op:?} takes Int arguments, got {s:?}")),
                None => Ok(()),
            }
        };
        let ext_width = |w: u32, extra: u32| -> Result<Sort, SortError> {
            match w.checked_add(extra) {
                Some(total) if total <= MAX_BV_WIDTH => Ok(Sort::BitVec(total)),
                _ => err(format!(
                    "{op:?} makes a bit-vector wider than {MAX_BV_WIDTH}"
                )),
            }
        };
        match op {
            Op::Not => {
                arity(1)?;
                all_bool()?;
                Ok(Sort::Bool)
            }
            Op::And | Op::Or => {
                if n < 2 {
                    return err(format!("{op:?} takes at least 2 arguments, got {n}"));
                }
                all_bool()?;
                Ok(Sort::Bool)
            }
            Op::Implies | Op::Xor => {
                arity(2)?;
                all_bool()?;
                Ok(Sort::Bool)
            }
            Op::Ite => {
                arity(3)?;
                if *sorts[0] != Sort::Bool {
                    return err(format!("ite condition has sort {:?}", sorts[0]));
                }
                if sorts[1] != sorts[2] {
                    return err(format!(
                        "ite arms differ: {:?} and {:?}",
                        sorts[1], sorts[2]
                    ));
                }
                Ok(sorts[1].clone())
            }
            Op::Eq => {
                arity(2)?;
                all_same()?;
                Ok(Sort::Bool)
            }
            Op::Distinct => {
                if n < 2 {
                    return err(format!("distinct takes at least 2 arguments, got {n}"));
                }
                all_same()?;
                Ok(Sort::Bool)
            }
            Op::BvNot | Op::BvNeg => {
                arity(1)?;
                Ok(Sort::BitVec(same_bv()?))
            }
            Op::BvAnd
            | Op::BvOr
            | Op::BvXor
            | Op::BvAdd
            | Op::BvSub
            | Op::BvMul
            | Op::BvUdiv
            | Op::BvUrem
            | Op::BvSdiv
            | Op::BvSrem
            | Op::BvShl
            | Op::BvLshr
            | Op::BvAshr => {
                arity(2)?;
                Ok(Sort::BitVec(same_bv()?))
            }
            Op::BvUlt | Op::BvUle | Op::BvSlt | Op::BvSle => {
                arity(2)?;
                same_bv()?;
                Ok(Sort::Bool)
            }
            Op::Concat => {
                arity(2)?;
                match (sorts[0], sorts[1]) {
                    (Sort::BitVec(a), Sort::BitVec(b)) => ext_width(*a, *b),
                    (a, b) => err(format!("concat of {a:?} and {b:?}")),
                }
            }
            Op::Extract { hi, lo } => {
                arity(1)?;
                match sorts[0] {
                    Sort::BitVec(w) if lo <= hi && hi < *w => Ok(Sort::BitVec(hi - lo + 1)),
                    s => err(format!("extract {hi}..{lo} of {s:?}")),
                }
            }
            Op::ZeroExt(k) | Op::SignExt(k) => {
                arity(1)?;
                match sorts[0] {
                    Sort::BitVec(w) => ext_width(*w, k),
                    s => err(format!("{op:?} of {s:?}")),
                }
            }
            Op::IntAdd | Op::IntMul => {
                if n < 2 {
                    return err(format!("{op:?} takes at least 2 arguments, got {n}"));
                }
                all_int()?;
                Ok(Sort::Int)
            }
            Op::IntSub => {
                arity(2)?;
                all_int()?;
                Ok(Sort::Int)
            }
            Op::IntNeg => {
                arity(1)?;
                all_int()?;
                Ok(Sort::Int)
            }
            Op::IntLe | Op::IntLt => {
                arity(2)?;
                all_int()?;
                Ok(Sort::Bool)
            }
            Op::Fp(fop, f) => super::float::result_sort(fop, f, &sorts),
            Op::Apply(f) => {
                let decl = self.func_decl(f);
                if decl.domain.len() != n {
                    return err(format!(
                        "{} takes {} arguments, got {n}",
                        decl.name,
                        decl.domain.len()
                    ));
                }
                for (i, (want, got)) in decl.domain.iter().zip(&sorts).enumerate() {
                    if want != *got {
                        return err(format!(
                            "{} argument {i}: want {want:?}, got {got:?}",
                            decl.name
                        ));
                    }
                }
                Ok(decl.range.clone())
            }
        }
    }

    /// Sort-checked, hash-consed application without any simplification.
    pub fn try_app(&mut self, op: Op, args: &[TermId]) -> Result<TermId, SortError> {
        let sort = self.result_sort(op, args)?;
        Ok(self.intern(Node::App(op, args.into()), sort))
    }

    /// Sort-checked application with constant folding and the simplifications
    /// of the Boolean builders. Panics on a sort error (an encoder bug).
    pub fn app(&mut self, op: Op, args: &[TermId]) -> TermId {
        if let Err(e) = self.result_sort(op, args) {
            panic!("{e}");
        }
        match op {
            Op::Not => return self.not(args[0]),
            Op::And => return self.and(args),
            Op::Or => return self.or(args),
            Op::Ite => return self.ite(args[0], args[1], args[2]),
            Op::Eq => return self.eq(args[0], args[1]),
            _ => {}
        }
        if let Some(t) = self.fold(op, args) {
            return t;
        }
        if let Some(t) = self.slice(op, args) {
            return t;
        }
        // R-FLOAT-SMT: IEEE addition, multiplication, equality and the
        // product of fma are commutative bit for bit once NaN results are
        // canonical, so their operands are put in id order: `x + y` and
        // `y + x` become one term, which the solver need not prove equal
        // by bit-blasting two adders.
        // Likewise the commutative bit-vector operators: `a + b` of one
        // program and `b + a` of its optimized form are one term.
        if let Op::Fp(
            super::float::FpOp::Add
            | super::float::FpOp::Mul
            | super::float::FpOp::Eq
            | super::float::FpOp::Fma,
            _,
        )
        | Op::BvAdd
        | Op::BvMul
        | Op::BvAnd
        | Op::BvOr
        | Op::BvXor = op
        {
            if args[1] < args[0] {
                let mut sorted = args.to_vec();
                sorted.swap(0, 1);
                return self.try_app(op, &sorted).expect("sort checked above");
            }
        }
        self.try_app(op, args).expect("sort checked above")
    }

    /// Bit-vector slicing identities: `extract` of a whole value, of an
    /// `extract`, of one side of a `concat` or of bits under a `zero_ext`;
    /// `concat` of two adjacent slices of one value. With them, the bytes
    /// of a value stored and loaded back (R-MEM-SMT, a vector through an
    /// `alloca`: R-VEC-SMT) are that value's term again, so two programs
    /// that route a value differently build the same term (which the
    /// solver need not prove equal by bit-blasting, e.g. under float
    /// operations). Each rewrite is an identity of bit-vector algebra.
    fn slice(&mut self, op: Op, args: &[TermId]) -> Option<TermId> {
        let width = |s: &Self, t: TermId| s.sort(t).bv_width();
        match op {
            Op::Extract { hi, lo } => {
                let a = args[0];
                if lo == 0 && width(self, a) == Some(hi + 1) {
                    return Some(a);
                }
                match self.node(a).clone() {
                    Node::App(Op::Extract { lo: l2, .. }, inner) => {
                        Some(self.extract(hi + l2, lo + l2, inner[0]))
                    }
                    Node::App(Op::Concat, parts) => {
                        let wl = width(self, parts[1])?;
                        if hi < wl {
                            Some(self.extract(hi, lo, parts[1]))
                        } else if lo >= wl {
                            Some(self.extract(hi - wl, lo - wl, parts[0]))
                        } else {
                            None
                        }
                    }
                    Node::App(Op::ZeroExt(_), inner) if Some(hi) < width(self, inner[0]) => {
                        Some(self.extract(hi, lo, inner[0]))
                    }
                    _ => None,
                }
            }
            // `x * 2^k` is `x << k` (what instcombine makes of it), so a
            // program and its optimized form build one term.
            Op::BvMul => {
                let w = width(self, args[0])?;
                let (x, k) = match (self.literal(args[0]), self.literal(args[1])) {
                    (_, Some(Value::Bv { bits, .. })) => (args[0], bits),
                    (Some(Value::Bv { bits, .. }), _) => (args[1], bits),
                    _ => return None,
                };
                if k == 0 || !k.is_power_of_two() {
                    return None;
                }
                let s = self.bv_const(w, u128::from(k.trailing_zeros()));
                Some(self.bv_shl(x, s))
            }
            Op::Concat => match (self.node(args[0]).clone(), self.node(args[1]).clone()) {
                (
                    Node::App(Op::Extract { hi, lo: l1 }, x),
                    Node::App(Op::Extract { hi: h2, lo }, y),
                ) if x[0] == y[0] && l1 == h2 + 1 => Some(self.extract(hi, lo, x[0])),
                _ => None,
            },
            _ => None,
        }
    }

    /// Constant folding: when every argument is a literal and the operator is
    /// interpreted, the evaluator's answer (skipped if it fails, e.g. on Int
    /// overflow, leaving the solver to decide).
    fn fold(&mut self, op: Op, args: &[TermId]) -> Option<TermId> {
        // Floating-point operators are left to the solver, so that its
        // answers stay independent of the interpreter's float code, which
        // the evaluator uses (R-FLOAT-SMT).
        if matches!(op, Op::Apply(_) | Op::Fp(..)) {
            return None;
        }
        let values: Option<Vec<Value>> = args.iter().map(|&a| self.literal(a)).collect();
        let v = apply_op(op, &values?).ok()?;
        Some(
            self.value(&v)
                .expect("interpreted operators produce literal values"),
        )
    }

    /// The value of a literal term.
    pub fn literal(&self, t: TermId) -> Option<Value> {
        match *self.node(t) {
            Node::BoolConst(b) => Some(Value::Bool(b)),
            Node::BvConst { width, bits } => Some(Value::Bv { width, bits }),
            Node::IntConst(i) => Some(Value::Int(i)),
            _ => None,
        }
    }

    /// Whether `t` is the literal `false` (a condition the builders
    /// simplified away: an instance that can never be present, a conflict
    /// that cannot happen).
    pub fn is_false(&self, t: TermId) -> bool {
        matches!(*self.node(t), Node::BoolConst(false))
    }

    /// The literal term for `v`; `None` for values of uninterpreted sorts,
    /// which have no literal syntax.
    pub fn value(&mut self, v: &Value) -> Option<TermId> {
        match v {
            Value::Bool(b) => Some(self.bool_const(*b)),
            Value::Bv { width, bits } => Some(self.bv_const(*width, *bits)),
            Value::Int(i) => Some(self.int_const(*i)),
            Value::Uninterpreted { .. } => None,
        }
    }

    pub fn bool_const(&mut self, b: bool) -> TermId {
        self.intern(Node::BoolConst(b), Sort::Bool)
    }

    pub fn tru(&mut self) -> TermId {
        self.bool_const(true)
    }

    pub fn fls(&mut self) -> TermId {
        self.bool_const(false)
    }

    /// The bit-vector literal `bits mod 2^width`.
    pub fn bv_const(&mut self, width: u32, bits: u128) -> TermId {
        assert!(
            (1..=MAX_BV_WIDTH).contains(&width),
            "vc: bit-vector width {width} outside 1..={MAX_BV_WIDTH}"
        );
        let bits = bits & super::eval::mask(width);
        self.intern(Node::BvConst { width, bits }, Sort::BitVec(width))
    }

    pub fn int_const(&mut self, i: i128) -> TermId {
        self.intern(Node::IntConst(i), Sort::Int)
    }

    pub fn not(&mut self, a: TermId) -> TermId {
        match self.node(a) {
            Node::BoolConst(b) => {
                let b = !*b;
                self.bool_const(b)
            }
            Node::App(Op::Not, inner) => inner[0],
            _ => self
                .try_app(Op::Not, &[a])
                .unwrap_or_else(|e| panic!("{e}")),
        }
    }

    /// Conjunction: `true` for none, the argument for one; drops `true`
    /// arguments and duplicates, and is `false` if any argument is.
    pub fn and(&mut self, args: &[TermId]) -> TermId {
        self.junction(Op::And, false, args)
    }

    /// Disjunction, dual of [`Terms::and`].
    pub fn or(&mut self, args: &[TermId]) -> TermId {
        self.junction(Op::Or, true, args)
    }

    /// A conjunction or disjunction, flattened (an operand of the same
    /// junction contributes its operands) and in term-id order without
    /// duplicates: `a || (b || c)` and `(c || a) || b` of two programs that
    /// accumulate one condition in different orders (poison flags) are one
    /// term.
    fn junction(&mut self, op: Op, absorbing: bool, args: &[TermId]) -> TermId {
        let mut kept: Vec<TermId> = Vec::with_capacity(args.len());
        for &a in args {
            assert!(
                *self.sort(a) == Sort::Bool,
                "vc sort error: {op:?} of a non-Bool term"
            );
            match self.node(a) {
                Node::BoolConst(b) if *b == absorbing => return self.bool_const(absorbing),
                Node::BoolConst(_) => {}
                Node::App(o, inner) if *o == op => kept.extend(inner.iter().copied()),
                _ => kept.push(a),
            }
        }
        kept.sort_unstable();
        kept.dedup();
        match kept.len() {
            0 => self.bool_const(!absorbing),
            1 => kept[0],
            _ => self.try_app(op, &kept).expect("all arguments are Bool"),
        }
    }

    pub fn implies(&mut self, a: TermId, b: TermId) -> TermId {
        if self.literal(a).is_some() || self.literal(b).is_some() {
            let na = self.not(a);
            return self.or(&[na, b]);
        }
        self.try_app(Op::Implies, &[a, b])
            .unwrap_or_else(|e| panic!("{e}"))
    }

    pub fn xor(&mut self, a: TermId, b: TermId) -> TermId {
        self.app(Op::Xor, &[a, b])
    }

    /// `ite c a b`, folded when `c` is a literal or both arms are equal.
    pub fn ite(&mut self, c: TermId, a: TermId, b: TermId) -> TermId {
        if let Err(e) = self.result_sort(Op::Ite, &[c, a, b]) {
            panic!("{e}");
        }
        match self.node(c) {
            Node::BoolConst(true) => a,
            Node::BoolConst(false) => b,
            _ if a == b => a,
            _ => self
                .try_app(Op::Ite, &[c, a, b])
                .expect("sort checked above"),
        }
    }

    /// Equality; `true` for identical terms, folded for literals.
    pub fn eq(&mut self, a: TermId, b: TermId) -> TermId {
        if let Err(e) = self.result_sort(Op::Eq, &[a, b]) {
            panic!("{e}");
        }
        if a == b {
            return self.tru();
        }
        if let (Some(x), Some(y)) = (self.literal(a), self.literal(b)) {
            // Distinct literal ids of one sort are distinct values (hash-consing).
            return self.bool_const(x == y);
        }
        self.try_app(Op::Eq, &[a, b]).expect("sort checked above")
    }

    pub fn distinct(&mut self, args: &[TermId]) -> TermId {
        if args.len() < 2 {
            return self.tru();
        }
        self.app(Op::Distinct, args)
    }

    /// Applies uninterpreted function `f`.
    pub fn apply(&mut self, f: super::FuncId, args: &[TermId]) -> TermId {
        self.app(Op::Apply(f), args)
    }
}

macro_rules! binary_builders {
    ($($name:ident => $op:expr),* $(,)?) => {
        impl Terms {
            $(
                #[doc = concat!("`", stringify!($op), "` (sort-checked, folded on literals).")]
                pub fn $name(&mut self, a: TermId, b: TermId) -> TermId {
                    self.app($op, &[a, b])
                }
            )*
        }
    };
}

binary_builders! {
    bv_and => Op::BvAnd,
    bv_or => Op::BvOr,
    bv_xor => Op::BvXor,
    bv_add => Op::BvAdd,
    bv_sub => Op::BvSub,
    bv_mul => Op::BvMul,
    bv_udiv => Op::BvUdiv,
    bv_urem => Op::BvUrem,
    bv_sdiv => Op::BvSdiv,
    bv_srem => Op::BvSrem,
    bv_shl => Op::BvShl,
    bv_lshr => Op::BvLshr,
    bv_ashr => Op::BvAshr,
    bv_ult => Op::BvUlt,
    bv_ule => Op::BvUle,
    bv_slt => Op::BvSlt,
    bv_sle => Op::BvSle,
    concat => Op::Concat,
    int_sub => Op::IntSub,
    int_le => Op::IntLe,
    int_lt => Op::IntLt,
}

impl Terms {
    pub fn bv_not(&mut self, a: TermId) -> TermId {
        self.app(Op::BvNot, &[a])
    }
    pub fn bv_neg(&mut self, a: TermId) -> TermId {
        self.app(Op::BvNeg, &[a])
    }
    /// `a >u b`, as `b <u a`.
    pub fn bv_ugt(&mut self, a: TermId, b: TermId) -> TermId {
        self.bv_ult(b, a)
    }
    /// `a >=u b`, as `b <=u a`.
    pub fn bv_uge(&mut self, a: TermId, b: TermId) -> TermId {
        self.bv_ule(b, a)
    }
    pub fn bv_sgt(&mut self, a: TermId, b: TermId) -> TermId {
        self.bv_slt(b, a)
    }
    pub fn bv_sge(&mut self, a: TermId, b: TermId) -> TermId {
        self.bv_sle(b, a)
    }
    /// Bits `hi..=lo` of `a`.
    pub fn extract(&mut self, hi: u32, lo: u32, a: TermId) -> TermId {
        self.app(Op::Extract { hi, lo }, &[a])
    }
    pub fn zero_ext(&mut self, extra: u32, a: TermId) -> TermId {
        if extra == 0 {
            return a;
        }
        self.app(Op::ZeroExt(extra), &[a])
    }
    pub fn sign_ext(&mut self, extra: u32, a: TermId) -> TermId {
        if extra == 0 {
            return a;
        }
        self.app(Op::SignExt(extra), &[a])
    }
    pub fn int_add(&mut self, args: &[TermId]) -> TermId {
        match args.len() {
            0 => self.int_const(0),
            1 => args[0],
            _ => self.app(Op::IntAdd, args),
        }
    }
    pub fn int_mul(&mut self, args: &[TermId]) -> TermId {
        match args.len() {
            0 => self.int_const(1),
            1 => args[0],
            _ => self.app(Op::IntMul, args),
        }
    }
    pub fn int_neg(&mut self, a: TermId) -> TermId {
        self.app(Op::IntNeg, &[a])
    }
}
