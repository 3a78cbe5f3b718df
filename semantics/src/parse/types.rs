//! Types and constants of the subset (rule P-PROG), and the type relations
//! the parser checks (a use's written type against its definition).

use super::lexer::Tok;
use super::parser::Parser;
use super::ParseError;
use crate::ir::{BinOp, CastOp, Const, ConstExpr, Type, TypedConst};

/// Words that started a constant expression in some LLVM version but are
/// not read here: `ptrtoaddr` (new in LLVM 22, no value semantics yet) and
/// the kinds LLVM removed from constant expressions before 22 (opt-22 rejects
/// them too).
const CONST_EXPR_WORDS: &[&str] = &[
    "ptrtoaddr",
    "zext",
    "sext",
    "fptrunc",
    "fpext",
    "fptoui",
    "fptosi",
    "uitofp",
    "sitofp",
    "mul",
    "shl",
    "lshr",
    "ashr",
    "and",
    "or",
    "icmp",
    "fcmp",
    "select",
    "extractelement",
    "insertelement",
    "shufflevector",
    "extractvalue",
    "insertvalue",
];

impl Parser<'_> {
    /// A type, including suffixes: `T*`, `T addrspace(N)*` (legacy typed
    /// pointers, read as `ptr` / `ptr addrspace(N)`) and `T (params)`
    /// (function types).
    pub fn parse_type(&mut self) -> Result<Type, ParseError> {
        self.parse_type_depth(0)
    }

    /// Rule P-PROG with the nesting bound of [`super::MAX_NESTING`]
    /// (issue 11: no unbounded recursion); pointer suffixes `*` count as
    /// levels, since each wraps the type once more.
    fn parse_type_depth(&mut self, depth: u32) -> Result<Type, ParseError> {
        if depth as usize > super::MAX_NESTING {
            return Err(self.err(format!(
                "type nested deeper than {} levels",
                super::MAX_NESTING
            )));
        }
        let at = self.span();
        let mut ty = match self.peek().clone() {
            Tok::Word(w) => {
                self.bump();
                match w.as_str() {
                    "void" => Type::Void,
                    "half" => Type::Half,
                    "bfloat" => Type::BFloat,
                    "float" => Type::Float,
                    "double" => Type::Double,
                    "x86_fp80" => Type::X86Fp80,
                    "fp128" => Type::Fp128,
                    "label" => Type::Label,
                    "token" => Type::Token,
                    "metadata" => Type::Metadata,
                    "ptr" => {
                        if self.is_word("addrspace") {
                            Type::Ptr(self.addrspace()?)
                        } else {
                            Type::Ptr(0)
                        }
                    }
                    "ppc_fp128" | "x86_amx" | "x86_mmx" | "target" | "opaque" => {
                        return Err(self.unsupported_at(
                            at,
                            &format!("type `{w}`"),
                            "outside the accepted LLVM IR subset (rule P-PROG)",
                        ))
                    }
                    _ => match w.strip_prefix('i').map(str::parse::<u32>) {
                        Some(Ok(n)) if (1..=(1 << 23)).contains(&n) => Type::Int(n),
                        _ => return Err(self.err_at(at, format!("expected a type, found '{w}'"))),
                    },
                }
            }
            Tok::Local(n) => {
                self.bump();
                let name = super::parser::type_name(&n);
                if self.type_seen.insert(name.clone()) {
                    self.type_uses.push((name.clone(), at));
                }
                Type::named(&name)
            }
            Tok::Punct('[') => {
                self.bump();
                let len: u64 = self.uint()?;
                self.expect_word("x")?;
                let elem = self.parse_type_depth(depth + 1)?;
                self.expect_punct(']')?;
                Type::array(len, elem)
            }
            Tok::Punct('<') => {
                self.bump();
                if self.is_punct('{') {
                    let fields = self.struct_fields(depth)?;
                    self.expect_punct('>')?;
                    Type::Struct {
                        fields: fields.into(),
                        packed: true,
                    }
                } else {
                    let scalable = self.eat_word("vscale");
                    if scalable {
                        self.expect_word("x")?;
                    }
                    let len_at = self.span();
                    let len: u64 = self.uint()?;
                    // LLParser: "size too large for vector" (the element
                    // count is 32 bits).
                    let len = u32::try_from(len)
                        .map_err(|_| self.err_at(len_at, "size too large for vector"))?;
                    self.expect_word("x")?;
                    let elem = self.parse_type_depth(depth + 1)?;
                    self.expect_punct('>')?;
                    Type::Vector {
                        len,
                        scalable,
                        elem: Box::new(elem),
                    }
                }
            }
            Tok::Punct('{') => Type::Struct {
                fields: self.struct_fields(depth)?.into(),
                packed: false,
            },
            _ => return Err(self.expected("a type")),
        };
        // Suffixes.
        let mut depth = depth;
        loop {
            if matches!(self.peek(), Tok::Punct('*' | '(')) || self.is_word("addrspace") {
                depth += 1;
                if depth as usize > super::MAX_NESTING {
                    return Err(self.err(format!(
                        "type nested deeper than {} levels",
                        super::MAX_NESTING
                    )));
                }
            }
            // Legacy typed pointers read as opaque ones, as opt-22 reads
            // them (`i8*` is `ptr`, `i32 addrspace(3)*` is `ptr
            // addrspace(3)`): a module and its opt output then have equal
            // signatures (P-LAUNCH). The pointee is dropped: every use in
            // LLVM 22 syntax (load, store, getelementptr, call) names its
            // type explicitly.
            if self.is_punct('*') {
                self.bump();
                ty = Type::Ptr(0);
            } else if self.is_word("addrspace") && matches!(self.peek_at(4), Tok::Punct('*')) {
                let n = self.addrspace()?;
                self.expect_punct('*')?;
                ty = Type::Ptr(n);
            } else if self.is_punct('(') {
                self.bump();
                let mut params = Vec::new();
                let mut varargs = false;
                if !self.eat_punct(')') {
                    loop {
                        if self.peek() == &Tok::Ellipsis {
                            self.bump();
                            varargs = true;
                            self.expect_punct(')')?;
                            break;
                        }
                        params.push(self.parse_type_depth(depth + 1)?);
                        if self.eat_punct(')') {
                            break;
                        }
                        self.expect_punct(',')?;
                    }
                }
                ty = Type::Func(Box::new(crate::ir::FuncType {
                    ret: ty,
                    params,
                    varargs,
                }));
            } else {
                return Ok(ty);
            }
        }
    }

    /// `{ T, T }` (the opening brace is next).
    fn struct_fields(&mut self, depth: u32) -> Result<Vec<Type>, ParseError> {
        self.expect_punct('{')?;
        let mut fields = Vec::new();
        if self.eat_punct('}') {
            return Ok(fields);
        }
        loop {
            fields.push(self.parse_type_depth(depth + 1)?);
            if self.eat_punct('}') {
                return Ok(fields);
            }
            self.expect_punct(',')?;
        }
    }

    /// A constant of type `ty`.
    pub fn parse_const(&mut self, ty: &Type) -> Result<Const, ParseError> {
        self.parse_const_depth(ty, 0)
    }

    /// LLParser's checks of a constant against its written type (what the
    /// semantics relies on: integers are integers, pointers pointers...).
    fn check_const(&self, ty: &Type, c: &Const, at: crate::ir::Span) -> Result<(), ParseError> {
        let ty = self.resolve_named(ty).unwrap_or_else(|| ty.clone());
        let is_float = matches!(
            ty,
            Type::Half | Type::BFloat | Type::Float | Type::Double | Type::X86Fp80 | Type::Fp128
        );
        let ok = match c {
            Const::Int {
                bool_syntax: true, ..
            } => ty == Type::Int(1),
            Const::Int { value, .. } => match ty {
                Type::Int(bits) => {
                    // Signed or unsigned spelling of an N-bit value.
                    bits >= 127 || (-(1i128 << (bits - 1))..=(1i128 << bits) - 1).contains(value)
                }
                _ => false,
            },
            // LLParser: the literal must convert to the type exactly.
            Const::Float(text) => match crate::ir::float::FloatTy::of(&ty) {
                Some(f) => crate::ir::float::parse_literal(text, f).is_ok(),
                None => is_float,
            },
            Const::Null => matches!(ty, Type::Ptr(_) | Type::TypedPtr { .. }),
            Const::None => ty == Type::Token,
            Const::Undef | Const::Poison | Const::ZeroInit => !matches!(
                ty,
                Type::Void | Type::Label | Type::Metadata | Type::Func(_)
            ),
            Const::Vector(items) => {
                matches!(&ty, Type::Vector { len, scalable: false, .. } if *len as usize == items.len())
            }
            Const::Array(items) => {
                matches!(&ty, Type::Array(a) if a.len == items.len() as u64)
            }
            Const::CString(b) => matches!(
                &ty,
                Type::Array(a) if a.elem == Type::Int(8) && a.len == b.len() as u64
            ),
            Const::Struct { fields, packed } => matches!(
                &ty,
                Type::Struct { fields: f, packed: p } if f.len() == fields.len() && p == packed
            ),
            Const::Global(_) => matches!(ty, Type::Ptr(_) | Type::TypedPtr { .. }),
            Const::Expr(e) => same_type(&const_expr_type(e), &ty),
        };
        if ok {
            Ok(())
        } else if is_float && matches!(c, Const::Float(_)) {
            // LLParser's wording: the literal does not convert exactly.
            Err(self.err_at(at, "floating point constant invalid for type".to_string()))
        } else {
            Err(self.err_at(
                at,
                format!(
                    "constant '{}' is invalid for type '{}'",
                    crate::ir::print::const_str(c),
                    crate::ir::print::type_str(&ty)
                ),
            ))
        }
    }

    fn parse_const_depth(&mut self, ty: &Type, depth: u32) -> Result<Const, ParseError> {
        let at = self.span();
        let c = self.parse_const_inner(ty, depth)?;
        self.check_const(ty, &c, at)?;
        Ok(c)
    }

    fn parse_const_inner(&mut self, ty: &Type, depth: u32) -> Result<Const, ParseError> {
        if depth as usize > super::MAX_NESTING {
            return Err(self.err(format!(
                "constant nested deeper than {} levels",
                super::MAX_NESTING
            )));
        }
        let at = self.span();
        match self.peek().clone() {
            Tok::Int(s) => {
                let value = s.parse::<i128>().map_err(|_| {
                    self.unsupported_at(
                        at,
                        "integer constant wider than 128 bits",
                        &format!("integer constant '{s}' does not fit in 128 bits"),
                    )
                })?;
                self.bump();
                Ok(Const::Int {
                    value,
                    bool_syntax: false,
                })
            }
            Tok::Float(s) => {
                self.bump();
                Ok(Const::Float(s))
            }
            Tok::Global(g) => {
                self.bump();
                self.note_global_use(g.clone(), at);
                Ok(Const::Global(g))
            }
            Tok::CStr(b) => {
                self.bump();
                Ok(Const::CString(b))
            }
            Tok::Punct('<') => {
                self.bump();
                if self.is_punct('{') {
                    let fields = self.const_list('}', depth, true)?;
                    self.expect_punct('>')?;
                    Ok(Const::Struct {
                        fields,
                        packed: true,
                    })
                } else {
                    Ok(Const::Vector(self.const_list('>', depth, false)?))
                }
            }
            Tok::Punct('[') => {
                self.bump();
                Ok(Const::Array(self.const_list(']', depth, false)?))
            }
            Tok::Punct('{') => Ok(Const::Struct {
                fields: self.const_list('}', depth, true)?,
                packed: false,
            }),
            Tok::Word(w) => {
                let c = match w.as_str() {
                    "true" => Const::Int {
                        value: 1,
                        bool_syntax: true,
                    },
                    "false" => Const::Int {
                        value: 0,
                        bool_syntax: true,
                    },
                    "null" => Const::Null,
                    "none" => Const::None,
                    "undef" => Const::Undef,
                    "poison" => Const::Poison,
                    "zeroinitializer" => Const::ZeroInit,
                    "splat" => return self.splat(ty, depth),
                    // `u0x...` / `s0x...`: hexadecimal integers.
                    _ if (w.starts_with("u0x") || w.starts_with("s0x")) && w.len() > 3 => {
                        let digits = &w[3..];
                        let raw = u128::from_str_radix(digits, 16).map_err(|_| {
                            self.unsupported_at(
                                at,
                                "integer constant wider than 128 bits",
                                &format!("hexadecimal constant '{w}' is malformed or too wide"),
                            )
                        })?;
                        let bits = digits.len() as u32 * 4;
                        let value = if w.starts_with('s') && bits < 128 && raw >> (bits - 1) & 1 == 1 {
                            raw as i128 - (1i128 << bits)
                        } else {
                            raw as i128
                        };
                        Const::Int {
                            value,
                            bool_syntax: false,
                        }
                    }
                    "getelementptr" | "trunc" | "ptrtoint" | "inttoptr" | "bitcast"
                    | "addrspacecast" | "add" | "sub" | "xor" => {
                        return self.const_expr(&w, depth)
                    }
                    "asm" => return Err(self.unsupported("inline asm")),
                    "blockaddress" | "dso_local_equivalent" | "no_cfi" | "ptrauth" => {
                        return Err(self.unsupported(&w))
                    }
                    _ if CONST_EXPR_WORDS.contains(&w.as_str()) => {
                        return Err(self.unsupported_at(
                            at,
                            "constant expression",
                            &format!("constant expression `{w}` is outside the accepted subset (rule P-PROG)"),
                        ))
                    }
                    _ => return Err(self.expected("a constant")),
                };
                self.bump();
                Ok(c)
            }
            Tok::Meta(_) | Tok::MetaStr(_) => Err(self
                .expected("a constant (metadata is only accepted as a `metadata` call argument)")),
            _ => Err(self.expected("a constant")),
        }
    }

    /// A constant expression of LLVM 22 (P-PROG): `cast (T c to T2)`,
    /// `getelementptr [flags] (T, ptr c, idx...)`, `add|sub|xor [flags] (T a,
    /// T b)`; the opcode is the current token. Operands are checked as
    /// LLParser checks them.
    fn const_expr(&mut self, w: &str, depth: u32) -> Result<Const, ParseError> {
        let at = self.span();
        self.bump();
        let typed = |p: &mut Parser| -> Result<TypedConst, ParseError> {
            let ty = p.parse_type_depth(depth + 1)?;
            let value = p.parse_const_depth(&ty, depth + 1)?;
            Ok(TypedConst { ty, value })
        };
        let e = match w {
            "getelementptr" => {
                let mut flags = Vec::new();
                loop {
                    match self.word() {
                        Some(f @ ("inbounds" | "nuw" | "nusw")) => {
                            flags.push(f.to_string());
                            self.bump();
                        }
                        Some("inrange") => {
                            self.bump();
                            self.expect_punct('(')?;
                            let lo = self.signed_int()?;
                            self.expect_punct(',')?;
                            let hi = self.signed_int()?;
                            self.expect_punct(')')?;
                            flags.push(format!("inrange({lo}, {hi})"));
                        }
                        _ => break,
                    }
                }
                self.expect_punct('(')?;
                let source_ty = self.parse_type_depth(depth + 1)?;
                self.expect_punct(',')?;
                let base = typed(self)?;
                if !matches!(
                    base.ty,
                    Type::Ptr(_) | Type::TypedPtr { .. } | Type::Vector { .. }
                ) {
                    return Err(self.err_at(at, "base of getelementptr must be a pointer"));
                }
                let mut indices = Vec::new();
                while self.eat_punct(',') {
                    let i = typed(self)?;
                    if !matches!(i.ty, Type::Int(_) | Type::Vector { .. }) {
                        return Err(self.err_at(at, "getelementptr index must be an integer"));
                    }
                    indices.push(i);
                }
                let shown: Vec<(&Type, Option<i128>)> = indices
                    .iter()
                    .map(|i: &TypedConst| {
                        let v = match (&i.ty, &i.value) {
                            (Type::Int(_), Const::Int { value, .. }) => Some(*value),
                            _ => None,
                        };
                        (&i.ty, v)
                    })
                    .collect();
                self.check_gep_indices(&source_ty, &shown)
                    .map_err(|m| self.err_at(at, m))?;
                self.expect_punct(')')?;
                ConstExpr::Gep {
                    flags,
                    source_ty,
                    base,
                    indices,
                }
            }
            "add" | "sub" | "xor" => {
                let flags = self.flags();
                let op = match w {
                    "add" => BinOp::Add,
                    "sub" => BinOp::Sub,
                    _ => BinOp::Xor,
                };
                self.expect_punct('(')?;
                let lhs = typed(self)?;
                self.expect_punct(',')?;
                let rhs = typed(self)?;
                self.expect_punct(')')?;
                if !same_type(&lhs.ty, &rhs.ty)
                    || !matches!(lhs.ty, Type::Int(_) | Type::Vector { .. })
                {
                    return Err(self.err_at(
                        at,
                        format!("invalid operand types for constant expression `{w}`"),
                    ));
                }
                ConstExpr::Binary {
                    op,
                    flags,
                    lhs,
                    rhs,
                }
            }
            _ => {
                let op = match w {
                    "trunc" => CastOp::Trunc,
                    "ptrtoint" => CastOp::PtrToInt,
                    "inttoptr" => CastOp::IntToPtr,
                    "bitcast" => CastOp::BitCast,
                    _ => CastOp::AddrSpaceCast,
                };
                self.expect_punct('(')?;
                let from = typed(self)?;
                self.expect_word("to")?;
                let to = self.parse_type_depth(depth + 1)?;
                self.expect_punct(')')?;
                let ok = match op {
                    CastOp::Trunc => {
                        matches!((&from.ty, &to), (Type::Int(a), Type::Int(b)) if b < a)
                    }
                    CastOp::PtrToInt => is_ptr(&from.ty) && matches!(to, Type::Int(_)),
                    CastOp::IntToPtr => matches!(from.ty, Type::Int(_)) && is_ptr(&to),
                    CastOp::AddrSpaceCast => is_ptr(&from.ty) && is_ptr(&to),
                    _ => is_ptr(&from.ty) == is_ptr(&to),
                };
                if !ok {
                    return Err(self.err_at(
                        at,
                        format!(
                            "invalid cast opcode for cast from '{}' to '{}'",
                            crate::ir::print::type_str(&from.ty),
                            crate::ir::print::type_str(&to)
                        ),
                    ));
                }
                ConstExpr::Cast { op, from, to }
            }
        };
        Ok(Const::Expr(Box::new(e)))
    }

    /// An integer literal, possibly negative (`inrange(-8, 8)`).
    fn signed_int(&mut self) -> Result<i64, ParseError> {
        match self.peek().clone() {
            Tok::Int(s) => {
                let v = s
                    .parse::<i64>()
                    .map_err(|_| self.expected("a 64-bit integer"))?;
                self.bump();
                Ok(v)
            }
            _ => Err(self.expected("an integer")),
        }
    }

    /// `splat (T v)`: expanded to the vector constant it denotes, which is
    /// what LLVM's own printer abbreviates.
    fn splat(&mut self, ty: &Type, depth: u32) -> Result<Const, ParseError> {
        let at = self.span();
        self.bump();
        self.expect_punct('(')?;
        let ety = self.parse_type()?;
        let v = self.parse_const_depth(&ety, depth + 1)?;
        self.expect_punct(')')?;
        match ty {
            Type::Vector {
                len,
                scalable: false,
                ..
            } if *len <= 4096 => Ok(Const::Vector(
                (0..*len)
                    .map(|_| TypedConst {
                        ty: ety.clone(),
                        value: v.clone(),
                    })
                    .collect(),
            )),
            _ => Err(self.unsupported_at(
                at,
                "splat constant",
                "`splat` is only accepted for fixed-length vectors",
            )),
        }
    }

    /// Typed constants separated by commas up to `close`; the opener was
    /// consumed unless `brace` (then `{` is next).
    fn const_list(
        &mut self,
        close: char,
        depth: u32,
        brace: bool,
    ) -> Result<Vec<TypedConst>, ParseError> {
        if brace {
            self.expect_punct('{')?;
        }
        let mut out = Vec::new();
        if self.eat_punct(close) {
            return Ok(out);
        }
        loop {
            let ty = self.parse_type_depth(depth + 1)?;
            let value = self.parse_const_depth(&ty, depth + 1)?;
            out.push(TypedConst { ty, value });
            if self.eat_punct(close) {
                return Ok(out);
            }
            self.expect_punct(',')?;
        }
    }

    pub fn note_global_use(&mut self, g: String, at: crate::ir::Span) {
        if self.global_seen.insert(g.clone()) {
            self.global_uses.push((g, at));
        }
    }

    /// The element type reached by `extractvalue` indices.
    pub fn aggregate_elem(&self, ty: &Type, idx: &[u32]) -> Option<Type> {
        let mut t = ty.clone();
        for &i in idx {
            t = match self.resolve_named(&t)? {
                Type::Struct { fields, .. } => fields.get(i as usize)?.clone(),
                Type::Array(a) if (i as u64) < a.len => a.elem,
                _ => return None,
            };
        }
        Some(t)
    }

    /// LLVM's rule for `getelementptr` indices
    /// (`GetElementPtrInst::getIndexedType`): the first index steps over
    /// the pointer; each later one indexes the current type, an array or
    /// vector by any integer, a struct by a constant within its fields; a
    /// scalar or opaque type cannot be indexed. `indices` are (type,
    /// constant value if a scalar integer constant). `Err` is opt-22's
    /// message. Vector indices into structs (splats) are not checked.
    pub fn check_gep_indices(
        &self,
        source: &Type,
        indices: &[(&Type, Option<i128>)],
    ) -> Result<(), &'static str> {
        // An opaque (or undefined) named struct has no size.
        if self.resolve_named(source).is_none() {
            return Err("base element of getelementptr must be sized");
        }
        let mut t = source.clone();
        for (ty, value) in indices.iter().skip(1) {
            t = match self.resolve_named(&t) {
                Some(Type::Struct { fields, .. }) => {
                    if matches!(ty, Type::Vector { .. }) {
                        return Ok(());
                    }
                    match value {
                        Some(i) if *i >= 0 && (*i as usize) < fields.len() => {
                            fields[*i as usize].clone()
                        }
                        _ => return Err("invalid getelementptr indices"),
                    }
                }
                Some(Type::Array(a)) => a.elem,
                Some(Type::Vector { elem, .. }) => *elem,
                _ => return Err("invalid getelementptr indices"),
            };
        }
        Ok(())
    }

    /// A named type's definition (one level), other types as they are.
    pub fn resolve_named(&self, ty: &Type) -> Option<Type> {
        match ty {
            Type::Named(n) => self.named_types.get(&***n).cloned().flatten(),
            t => Some(t.clone()),
        }
    }
}

/// Type identity as LLVM sees it after parsing: legacy typed pointers are
/// opaque pointers of their address space; named structs are nominal.
pub fn same_type(a: &Type, b: &Type) -> bool {
    match (a, b) {
        (Type::Ptr(x) | Type::TypedPtr { addrspace: x, .. }, Type::Ptr(y))
        | (Type::Ptr(x), Type::TypedPtr { addrspace: y, .. }) => x == y,
        (Type::TypedPtr { addrspace: x, .. }, Type::TypedPtr { addrspace: y, .. }) => x == y,
        (
            Type::Vector {
                len: l1,
                scalable: s1,
                elem: e1,
            },
            Type::Vector {
                len: l2,
                scalable: s2,
                elem: e2,
            },
        ) => l1 == l2 && s1 == s2 && same_type(e1, e2),
        (Type::Array(a1), Type::Array(a2)) => a1.len == a2.len && same_type(&a1.elem, &a2.elem),
        (
            Type::Struct {
                fields: f1,
                packed: p1,
            },
            Type::Struct {
                fields: f2,
                packed: p2,
            },
        ) => p1 == p2 && f1.len() == f2.len() && f1.iter().zip(f2).all(|(x, y)| same_type(x, y)),
        (Type::Func(f1), Type::Func(f2)) => {
            let (r1, p1, v1) = (&f1.ret, &f1.params, f1.varargs);
            let (r2, p2, v2) = (&f2.ret, &f2.params, f2.varargs);
            v1 == v2
                && same_type(r1, r2)
                && p1.len() == p2.len()
                && p1.iter().zip(p2).all(|(x, y)| same_type(x, y))
        }
        _ => a == b,
    }
}

fn is_ptr(t: &Type) -> bool {
    matches!(t, Type::Ptr(_) | Type::TypedPtr { .. })
}

/// The type of a constant expression's value (LangRef "Constant
/// Expressions"): a cast's target, a GEP's pointer (a vector of pointers
/// when the base or an index is a vector), a binary operator's operand type.
pub fn const_expr_type(e: &ConstExpr) -> Type {
    match e {
        ConstExpr::Cast { to, .. } => to.clone(),
        ConstExpr::Binary { lhs, .. } => lhs.ty.clone(),
        ConstExpr::Gep { base, indices, .. } => {
            gep_result_type(&base.ty, indices.iter().map(|i| &i.ty))
        }
    }
}

/// The type a `getelementptr` yields: its base's pointer type, or a vector
/// of them when the base or an index is a vector (LangRef).
pub fn gep_result_type<'a>(base: &'a Type, indices: impl Iterator<Item = &'a Type>) -> Type {
    let ptr = match base {
        Type::Vector { elem, .. } => (**elem).clone(),
        t => t.clone(),
    };
    let vec = std::iter::once(base).chain(indices).find_map(|t| match t {
        Type::Vector { len, scalable, .. } => Some((*len, *scalable)),
        _ => None,
    });
    match vec {
        Some((len, scalable)) => Type::Vector {
            len,
            scalable,
            elem: Box::new(ptr),
        },
        None => ptr,
    }
}

/// `i1`, or a vector of `i1` shaped like `ty` (result of compares).
pub fn bool_like(ty: &Type) -> Type {
    match ty {
        Type::Vector { len, scalable, .. } => Type::Vector {
            len: *len,
            scalable: *scalable,
            elem: Box::new(Type::Int(1)),
        },
        _ => Type::Int(1),
    }
}
