//! The refinement checker (SMT-backed, added later) and the command-line
//! front end of `convcheck`.
