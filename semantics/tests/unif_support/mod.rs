pub mod ugen;
