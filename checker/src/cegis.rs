//! Counterexample-guided inductive synthesis (R-REF).
