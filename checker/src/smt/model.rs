//! Z3 models back into [`vc::eval::Model`]s over the query's own variables.
//!
//! Variables get their values by evaluating them in the Z3 model with model
//! completion. Uninterpreted functions get a table with one entry per
//! application that occurs in the query (at the values its arguments take),
//! which is exactly what evaluating the query's terms needs; no default is
//! extracted. Elements of uninterpreted sorts are numbered by their position
//! in the model's universe for that sort.

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use z3::ast::Dynamic;

use super::translate::Translator;
use crate::vc::eval::{FuncTable, Model, Value};
use crate::vc::{Node, Op, Sort, TermId, Terms};

/// Reads values out of one Z3 model.
pub(crate) struct Reader<'m> {
    model: &'m z3::Model,
    universes: HashMap<Arc<str>, Vec<Dynamic>>,
}

impl<'m> Reader<'m> {
    pub(crate) fn new(model: &'m z3::Model) -> Reader<'m> {
        Reader {
            model,
            universes: HashMap::default(),
        }
    }

    /// The value of Z3 term `d` of vc sort `sort` in the model.
    pub(crate) fn value(
        &mut self,
        tr: &mut Translator,
        d: &Dynamic,
        sort: &Sort,
    ) -> Result<Value, String> {
        let v = self
            .model
            .eval(d, true)
            .ok_or_else(|| format!("Z3 could not evaluate {d} in its model"))?;
        let bad = || format!("Z3 model value {v} is not a literal of sort {sort:?}");
        match sort {
            Sort::Bool => v
                .as_bool()
                .and_then(|b| b.as_bool())
                .map(Value::Bool)
                .ok_or_else(bad),
            Sort::BitVec(w) => {
                let b = v.as_bv().ok_or_else(bad)?;
                let bits = match b.as_u64() {
                    Some(x) if *w <= 64 => Some(x as u128),
                    _ => parse_bv_literal(&b.to_string()),
                };
                bits.map(|bits| Value::Bv { width: *w, bits })
                    .ok_or_else(bad)
            }
            Sort::Int => v
                .as_int()
                .and_then(|i| i.as_i128())
                .map(Value::Int)
                .ok_or_else(bad),
            Sort::Uninterpreted(name) => {
                let universe = match self.universes.get_mut(name) {
                    Some(u) => u,
                    None => {
                        let zs = tr.sort(sort);
                        let elems = self
                            .model
                            .get_sort_universe(&zs)
                            .map(|u| u.to_vec())
                            .unwrap_or_default();
                        self.universes.entry(name.clone()).or_insert(elems)
                    }
                };
                let index = match universe.iter().position(|e| *e == v) {
                    Some(i) => i,
                    None => {
                        universe.push(v.clone());
                        universe.len() - 1
                    }
                };
                Ok(Value::Uninterpreted {
                    sort: name.clone(),
                    index: index as u32,
                })
            }
        }
    }
}

/// Parses Z3's printing of a bit-vector numeral: `#x..`, `#b..` or
/// `(_ bvN W)`.
pub(crate) fn parse_bv_literal(s: &str) -> Option<u128> {
    if let Some(hex) = s.strip_prefix("#x") {
        u128::from_str_radix(hex, 16).ok()
    } else if let Some(bin) = s.strip_prefix("#b") {
        u128::from_str_radix(bin, 2).ok()
    } else {
        let rest = s.strip_prefix("(_ bv")?;
        rest.split_whitespace().next()?.parse().ok()
    }
}

/// The model of the query whose assertions are `roots`, restricted to the
/// variables and applications occurring in them.
pub(crate) fn extract(
    tr: &mut Translator,
    zmodel: &z3::Model,
    terms: &Terms,
    roots: &[TermId],
) -> Result<Model, String> {
    let mut reader = Reader::new(zmodel);
    let mut model = Model::new();
    for t in terms.reachable(roots) {
        match terms.node(t) {
            Node::Var(v) => {
                let d = tr.term(terms, t);
                let value = reader.value(tr, &d, terms.sort(t))?;
                model.vars.insert(*v, value);
            }
            Node::App(Op::Apply(f), args) => {
                let mut key = Vec::with_capacity(args.len());
                for &a in args.iter() {
                    let d = tr.term(terms, a);
                    key.push(reader.value(tr, &d, terms.sort(a))?);
                }
                let d = tr.term(terms, t);
                let value = reader.value(tr, &d, terms.sort(t))?;
                let table: &mut FuncTable = model.funcs.entry(*f).or_default();
                if let Some(old) = table.entries.insert(key, value.clone()) {
                    if old != value {
                        return Err(format!(
                            "Z3 model gives {} two values at the same arguments",
                            terms.func_decl(*f).name
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    Ok(model)
}
