//! Codecs over plain columns of values. They know nothing of Rust types or schemas: each turns a
//! slice of integers, booleans or strings into bytes and back, and documents its wire grammar.
//! The number of values is always supplied by the caller, never trusted from the stream alone.

pub(crate) mod bool;
pub(crate) mod bytes;
pub(crate) mod int;
pub(crate) mod string;
