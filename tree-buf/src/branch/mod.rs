//! Branches: the column of values each schema node owns. Encoders fill [`Column`]s; the file
//! writer turns each into bytes with a codec from [`crate::encodings`]; decoders read them back
//! through [`DecodeContext`], which also keeps the decoding budget.

mod column;
mod context;
mod keyed;

pub(crate) use column::{Column, Words};
pub use context::{DecodeContext, Leaf};
pub(crate) use keyed::key_string_siblings;
