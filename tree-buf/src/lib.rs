//! # tree-buf
//!
//! A columnar, compressing, self-describing serializer. `#[derive(Encode, Decode)]` flattens
//! every path through a type (`features.[].geometry.coordinates.[].[].0`) into its own typed
//! branch, so each column holds values that resemble each other, and each branch is encoded on its
//! own. The file carries its schema and the byte length of every branch.
//!
//! ```
//! use tree_buf::prelude::*;
//!
//! #[derive(Encode, Decode, Debug, PartialEq)]
//! struct Game {
//!     home: String,
//!     visitor: String,
//!     scores: Vec<(u8, u8)>,
//!     attendance: Option<u32>,
//! }
//!
//! let games = vec![
//!     Game { home: "BOS".into(), visitor: "NYA".into(), scores: vec![(0, 1), (2, 0)], attendance: Some(37_000) },
//!     Game { home: "NYA".into(), visitor: "BOS".into(), scores: vec![], attendance: None },
//! ];
//! let bytes = encode(&games);
//! let back: Vec<Game> = decode(&bytes)?;
//! assert_eq!(back, games);
//! # Ok::<(), tree_buf::DecodeError>(())
//! ```
//!
//! Decoding never trusts its input: malformed, truncated or hostile bytes give a
//! [`DecodeError`] with a [`DecodeErrorKind`] and the schema path where it happened, never a panic,
//! and the memory decoding may use is capped by [`DecodeOptions`].
//!
//! ## Optional features
//!
//! - `json` (on by default): `From` conversions between [`Value`] and `serde_json::Value`.
//! - `serde` (on by default): the [`serde`] module, columnar encoding of any type
//!   that implements serde's `Serialize`, and decoding into any that implements `Deserialize`.
//! - `parallel` (on by default): large files are encoded and decoded on rayon's threads, as
//!   [`EncodeOptions::parallel`] and [`DecodeOptions::parallel`] allow. Without it, everything
//!   runs on the calling thread and rayon is not a dependency.
//! - `zstd` (default): zstd stages, which the encoder adds to a branch where general-purpose
//!   compression pays (large string columns, say). Without it, files are written with the column
//!   codecs alone, and reading a branch with a zstd stage (from a file written with the feature)
//!   is an [`UnsupportedVersion`](DecodeErrorKind::UnsupportedVersion) error that names the
//!   feature.
//! - `compact_str`: `compact_str::CompactString` encodes and decodes as a string. Strings of up
//!   to 24 bytes are kept inline, so loading many short strings allocates nothing per string.
//! - `uuid`, `chrono`, `time`, `rust_decimal`, `ordered-float`, `indexmap`, `smallvec`, `bytes`:
//!   [`Encode`] and [`Decode`] for those crates' types, each in a form the column codecs compress:
//!   a `Uuid` as a `u128`; an instant (`DateTime`, `NaiveDateTime`, `OffsetDateTime`,
//!   `PrimitiveDateTime`) as its whole seconds since the Unix epoch and its nanoseconds (and its
//!   offset in seconds, where it has one), so that a column of timestamps delta-encodes; a date as
//!   its day number, a time of day and a duration as seconds and nanoseconds (`time::Time` as
//!   nanoseconds since midnight), an offset as seconds; a `Decimal` as its mantissa and scale (a
//!   scaled integer); `OrderedFloat` and `NotNan` as their float; `IndexMap` and `IndexSet` as a
//!   map and a sequence in insertion order; `SmallVec`, `Bytes` and `BytesMut` as sequences. A
//!   stored value that is not one of the type's (a `NaN` for `NotNan`, a date past chrono's range)
//!   is a [`SchemaMismatch`](DecodeErrorKind::SchemaMismatch) error. For other crates' types, the
//!   derive's `#[tree_buf(with = "module")]` stores a field as any type that encodes.
//! - `codec-api`: the `tree_buf::codec` module, column codecs on plain slices (Simple16), for
//!   benchmarks and programs that want a codec without the file format.

// `unsafe` is allowed only where it is done, each with its reason: memory-mapping an archive,
// filling a vector in place from several threads (`parallel::fill_parts`), advising the kernel
// to back large vectors with huge pages (`memory`), counting the values a Huffman decoder wrote
// in place as a vector's own (`encodings::int::huffman`), reading the slots a set of distinct
// values has written (`encodings::int::distinct`), and the addresses
// through which recursive types' encoders and decoders share values (`types::recursion`).
#![deny(unsafe_code)]

pub mod archive;
mod branch;
mod breakdown;
mod buffer;
#[cfg(feature = "codec-api")]
pub mod codec;
mod columns;
mod encodings;
mod error;
mod file;
mod memory;
mod options;
mod parallel;
mod reader;
mod schema;
#[cfg(feature = "serde")]
pub mod serde;
mod stack;
mod types;
mod value;

pub use breakdown::{
    size_breakdown, size_breakdown_with_options, BranchSize, BreakdownOptions, Codec, Encoding,
    SizeBreakdown,
};
pub use buffer::Buffer;
pub use columns::{ColumnNode, Columns, StrValues};
pub use error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
pub use options::{DecodeOptions, EncodeOptions, Preference, MAX_DEPTH};
pub use reader::{Reader, SchemaNode};
pub use schema::{AsPath, NodeType, Path, PathError, Segment};
pub use tree_buf_macros::{Decode, Encode};
pub use types::{Decode, DecodeOwned, Encode};
pub use value::{ArrayWriter, Value, ValueWriter};

/// The traits, derive macros and functions most programs need.
pub mod prelude {
    pub use crate::{decode, encode, Decode, DecodeOwned, Encode, Value};
}

/// Encodes `value` into a self-describing tree-buf file. A program that encodes many values can
/// keep the memory of one call for the next with a [`Buffer`].
///
/// # Panics
///
/// Exactly when [`try_encode`] returns an error, which happens only when the value's schema nests
/// deeper than [`MAX_DEPTH`] levels (see there for how levels count): a type that is not
/// recursive but nested that deep. A recursive Rust type (a linked list, a tree) counts its
/// levels once, however deep its values, and so does a [`Value`], such as JSON with ten thousand
/// levels of nested arrays, whether given whole or piece by piece to a [`ValueWriter`].
///
/// ```
/// let bytes = tree_buf::encode(&vec!["a", "b"]);
/// assert_eq!(tree_buf::decode::<Vec<String>>(&bytes).unwrap(), ["a", "b"]);
/// ```
pub fn encode<T: Encode + ?Sized>(value: &T) -> Vec<u8> {
    match try_encode(value) {
        Ok(bytes) => bytes,
        Err(error) => panic!("tree_buf::encode failed: {error}"),
    }
}

/// Encodes `value` with the default [`EncodeOptions`]; a value whose schema nests deeper than
/// [`MAX_DEPTH`] levels is an [`EncodeErrorKind::DepthLimit`] error, the only error encoding a
/// derived type has (recursive types count their levels once, however deep their values).
pub fn try_encode<T: Encode + ?Sized>(value: &T) -> Result<Vec<u8>, EncodeError> {
    encode_with_options(value, &EncodeOptions::default())
}

/// Encodes `value` with the given options: lossy floats, speed against size, parallelism. Errors
/// as [`try_encode`] does.
pub fn encode_with_options<T: Encode + ?Sized>(
    value: &T,
    options: &EncodeOptions,
) -> Result<Vec<u8>, EncodeError> {
    file::write(value, options)
}

/// Decodes a file written by [`encode`] with the default [`DecodeOptions`].
///
/// A type that borrows (`&'de str`, see [`Decode`]) borrows from `bytes`: strings and bytes the
/// file holds as they are, which it does unless it compressed, packed or keyed them (a string
/// column stored as a function of another, see `docs/FORMAT.md`). Where it did, `Cow<str>`
/// fields own their text, and a `&str` field is a
/// [`SchemaMismatch`](DecodeErrorKind::SchemaMismatch) error: [`Reader::decode`] keeps such
/// columns for as long as the reader, so that they can be borrowed too.
pub fn decode<'de, T: Decode<'de>>(bytes: &'de [u8]) -> Result<T, DecodeError> {
    decode_with_options(bytes, &DecodeOptions::default())
}

/// Decodes a file written by [`encode`] under the given limits.
pub fn decode_with_options<'de, T: Decode<'de>>(
    bytes: &'de [u8],
    options: &DecodeOptions,
) -> Result<T, DecodeError> {
    file::read(bytes, options)
}

/// Compiles and runs the README's examples as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;

/// Items the derive macros' output refers to. Not public API: it may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use crate::branch::{DecodeContext, EncodeResult, SchemaWriter};
    pub use crate::error::DecodeError;
    pub use crate::schema::NodeRef;
    pub use crate::types::proxy::{
        DecodeProxy, EncodeProxy, ProxyDecoder, ProxyEncoder, TryDecodeProxy, TryProxyDecoder,
        ViaFrom, ViaInto, ViaTryFrom,
    };
    pub use crate::types::{
        check_unit, collect_values, DecodeOwned, Discriminants, EnumNode, Missing, OrDefault,
        StructNode, TupleNode, UnitEncoder, ValueDecoder, ValueEncoder,
    };
    pub use core::default::Default;
    pub use core::marker::PhantomData;
    pub use core::result::Result::{self, Ok};
    pub use std::string::{String, ToString};
    pub use std::vec::Vec;
}
