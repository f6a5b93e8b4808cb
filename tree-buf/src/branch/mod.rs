//! Branches: the column of values each schema node owns. Encoders write the schema and fill
//! [`Column`]s through a [`SchemaWriter`]; the file writer turns each column into bytes with a
//! codec from [`crate::encodings`] (keying string and integer columns by their siblings,
//! `keyed.rs`);
//! decoders read them back through [`DecodeContext`], which also keeps the decoding budget.

mod column;
mod context;
mod describe;
mod kept;
mod keyed;
mod writer;

pub(crate) use column::{Column, Words};
pub use context::{DecodeContext, Leaf};
pub(crate) use describe::branch_encoding;
pub(crate) use kept::{Kept, KeptBranch};
pub(crate) use keyed::{key_int_siblings, key_string_siblings};
pub(crate) use writer::IntSibling;
pub use writer::{EncodeResult, SchemaWriter};
