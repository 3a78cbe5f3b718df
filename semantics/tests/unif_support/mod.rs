#![allow(dead_code)]
//! Support code for the uniformity tests (each test binary uses a part).
pub mod ugen;
