//! Choice stream and the generator's types and constants.

/// A stream of random choices; exhausted streams answer 0 (the simplest
/// option everywhere).
pub struct Choices {
    data: Vec<u32>,
    pos: usize,
}

impl Choices {
    pub fn new(data: Vec<u32>) -> Choices {
        Choices { data, pos: 0 }
    }
    pub fn next_u32(&mut self) -> u32 {
        let v = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        v
    }
    /// A number in `0..n` (0 when `n == 0`).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            self.next_u32() as usize % n
        }
    }
    /// True with probability `pct`% (false on an exhausted stream).
    pub fn chance(&mut self, pct: u32) -> bool {
        let v = self.next_u32();
        v != 0 && v % 100 < pct
    }
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
}

/// The types the generator uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GTy {
    I1,
    I8,
    I32,
    I64,
    Half,
    F32,
    F64,
    V4I32,
    V2F32,
    Ptr,
    Ptr1,
    /// `{ i32, float }`
    Sif,
    /// `[2 x i32]`
    A2,
    /// `%struct.S = type { i32, float }`
    Named,
    /// `{ i32, i1 }`, the result of `cmpxchg` on i32.
    Cx,
    /// `<4 x i1>`, the result of vector compares.
    V4I1,
    Token,
}

/// Types values may be generated at (all but tokens and `cmpxchg` pairs).
pub const VALUE_TYS: &[GTy] = &[
    GTy::I1,
    GTy::I8,
    GTy::I32,
    GTy::I64,
    GTy::Half,
    GTy::F32,
    GTy::F64,
    GTy::V4I32,
    GTy::V2F32,
    GTy::Ptr,
    GTy::Ptr1,
    GTy::Sif,
    GTy::A2,
    GTy::Named,
];

impl GTy {
    pub fn text(self) -> &'static str {
        match self {
            GTy::I1 => "i1",
            GTy::I8 => "i8",
            GTy::I32 => "i32",
            GTy::I64 => "i64",
            GTy::Half => "half",
            GTy::F32 => "float",
            GTy::F64 => "double",
            GTy::V4I32 => "<4 x i32>",
            GTy::V2F32 => "<2 x float>",
            GTy::Ptr => "ptr",
            GTy::Ptr1 => "ptr addrspace(1)",
            GTy::Sif => "{ i32, float }",
            GTy::A2 => "[2 x i32]",
            GTy::Named => "%struct.S",
            GTy::Cx => "{ i32, i1 }",
            GTy::V4I1 => "<4 x i1>",
            GTy::Token => "token",
        }
    }
    pub fn is_float(self) -> bool {
        matches!(self, GTy::Half | GTy::F32 | GTy::F64)
    }
    /// Field types of an aggregate.
    pub fn fields(self) -> &'static [GTy] {
        match self {
            GTy::Sif | GTy::Named => &[GTy::I32, GTy::F32],
            GTy::A2 => &[GTy::I32, GTy::I32],
            GTy::Cx => &[GTy::I32, GTy::I1],
            _ => &[],
        }
    }
}

/// Floating literals exactly representable in every float type used.
const FLOATS: &[&str] = &[
    "0.000000e+00",
    "1.000000e+00",
    "-2.500000e+00",
    "5.000000e-01",
    "0.5",
    "3.0",
    "-1.25",
];

/// A constant of type `t` as text (without the type).
pub fn constant(c: &mut Choices, t: GTy) -> String {
    if t != GTy::Token && c.chance(6) {
        return c.pick(&["undef", "poison"]).to_string();
    }
    match t {
        GTy::I1 => c.pick(&["true", "false"]).to_string(),
        GTy::I8 => format!("{}", c.below(256) as i64 - 128),
        GTy::I32 | GTy::I64 => {
            let v = c.next_u32() as i64 % 2000 - 1000;
            if c.chance(10) && t == GTy::I64 {
                "-9223372036854775808".to_string()
            } else {
                v.to_string()
            }
        }
        GTy::Half => c
            .pick(&["0xH3C00", "0xH0000", "1.0", "0xHBC00"])
            .to_string(),
        GTy::F32 => {
            if c.chance(20) {
                c.pick(&["0x3FF0000000000000", "0xC004000000000000"])
                    .to_string()
            } else {
                c.pick(FLOATS).to_string()
            }
        }
        GTy::F64 => {
            if c.chance(20) {
                "0x3FB999999999999A".to_string()
            } else {
                c.pick(FLOATS).to_string()
            }
        }
        GTy::V4I32 => match c.below(4) {
            0 => "zeroinitializer".to_string(),
            1 => format!("splat (i32 {})", c.below(9)),
            _ => format!(
                "<i32 {}, i32 {}, i32 {}, i32 {}>",
                c.below(50),
                c.below(50),
                c.below(50),
                c.below(50)
            ),
        },
        GTy::V2F32 => {
            if c.chance(30) {
                "zeroinitializer".to_string()
            } else {
                format!("<float {}, float {}>", c.pick(FLOATS), c.pick(FLOATS))
            }
        }
        GTy::Ptr => c.pick(&["null", "@g", "@ga", "@\"quoted g\""]).to_string(),
        GTy::Ptr1 => c.pick(&["null", "@gv"]).to_string(),
        GTy::Sif | GTy::Named => {
            if c.chance(30) {
                "zeroinitializer".to_string()
            } else {
                format!("{{ i32 {}, float {} }}", c.below(9), c.pick(FLOATS))
            }
        }
        GTy::A2 => format!("[i32 {}, i32 {}]", c.below(9), c.below(9)),
        GTy::Cx => format!("{{ i32 {}, i1 true }}", c.below(9)),
        GTy::V4I1 => "<i1 true, i1 false, i1 true, i1 true>".to_string(),
        GTy::Token => "none".to_string(),
    }
}
