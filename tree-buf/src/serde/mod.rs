//! Columnar encoding of any type that implements serde's `Serialize`, and decoding into any type
//! that implements `Deserialize`: for types that derive serde's traits and not tree-buf's (types
//! of other crates, say).
//!
//! The layout is the one `#[derive(Encode)]` gives the same type: struct fields by name, enum
//! variants with a discriminant stream, sequences with a length stream, options with a presence
//! stream, each leaf its own column. A serde type and its tree-buf twin read each other's files.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Game {
//!     home: String,
//!     visitor: String,
//!     runs: (u8, u8),
//!     #[serde(skip_serializing_if = "Option::is_none")]
//!     attendance: Option<u32>,
//! }
//!
//! #[derive(Deserialize, Debug, PartialEq)]
//! struct Home {
//!     home: String,
//! }
//!
//! let games = vec![
//!     Game { home: "BOS".into(), visitor: "NYA".into(), runs: (3, 2), attendance: Some(37_000) },
//!     Game { home: "NYA".into(), visitor: "BOS".into(), runs: (1, 4), attendance: None },
//! ];
//! let bytes = tree_buf::serde::to_vec(&games)?;
//! assert_eq!(tree_buf::serde::from_slice::<Vec<Game>>(&bytes)?, games);
//! // A type with fewer fields reads only their branches.
//! let homes: Vec<Home> = tree_buf::serde::from_slice(&bytes)?;
//! assert_eq!(homes[1].home, "NYA");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## How serde's data model is stored
//!
//! | serde | schema node |
//! |---|---|
//! | `bool`, integers up to 128 bits, `f32`, `f64`, `char`, strings | leaves of that type |
//! | bytes (`serialize_bytes`) | a sequence of `u8`, as `Vec<u8>` |
//! | `None` / `Some` | an option |
//! | unit, unit struct | a unit |
//! | newtype struct | its content (transparent, as the derive's newtypes) |
//! | sequence | a sequence |
//! | tuple, tuple struct | a tuple; of 5 or more elements of one primitive type, an array |
//! | map | a map |
//! | struct | a struct; a field that some values leave out gets a presence stream |
//! | enum variant | an enum: variants in the order of their index in the type |
//! | values of different shapes at one place | a union, as a [`Value`](crate::Value) writes |
//!
//! A derived type and its serde twin write the same bytes when every variant of each enum
//! occurs and no place holds only `None`s or empty sequences: serde shows a value's type only
//! through values, so a variant that never occurs is left out of the schema, and a place that
//! never held a value is a `Void` node where the derive writes an empty column of its type.
//! serde writes a `HashMap` in its iteration order, where the derive sorts the keys. serde shows
//! arrays as tuples: a tuple of 5 or more elements of one primitive type is stored as an array
//! (one column of all items, as the derive stores `[u8; 20]`), a shorter one as a tuple (a
//! column per element, as the derive stores `(f64, f64)`). Files read back into either type,
//! but for a derived tuple of 5 or more elements of one type, which reads only tuples.
//!
//! Decoding reads the file's own types (a self-describing format: `deserialize_any` works, so
//! `serde_json::Value`, untagged and internally tagged enums read), and offers a struct the
//! fields its type names, so the branches of the others are never read. An enum read without its
//! type (into `serde_json::Value`, say) is a map of one entry, the variant's name to its content.
//! A struct whose every field the file has, none of them optional, is handed to its visitor as a
//! sequence in the type's order (`visit_seq`, as serde's non-self-describing formats hand every
//! struct), which spares a key string per field; other structs as a map of their names.
//! It runs on the calling thread; leaves are decoded when a value first reaches them.
//!
//! A recursive type that the derive wrote with every depth in one set of branches (format
//! version 6) stores its values children first, where serde visits a parent first: from the
//! node where the recursion starts, its values are read whole as [`Value`](crate::Value)s and
//! handed to the visitors from those (through `Value`'s own `Deserializer`), as deep as the
//! [`DecodeOptions`] depth limit allows and without overflowing the stack. That part costs a
//! `Value` per value. Writing, serde shows no types, so it cannot tell that a value holds its
//! own type again: each level of nesting takes a schema level, up to
//! [`MAX_DEPTH`](crate::MAX_DEPTH).
//! [`Reader::deserialize`](crate::Reader::deserialize) and
//! [`Reader::deserialize_path`](crate::Reader::deserialize_path) read through serde as
//! [`Reader::decode`](crate::Reader::decode) does: without checksumming the whole data, so that
//! a partial load reads only the bytes it needs.
//!
//! Strings that the file holds as they are (a plain string stream, or a dictionary of one: not
//! compressed, not keyed) are lent from its bytes, so that `&'de str` fields and `#[serde(borrow)]
//! Cow<'de, str>` fields cost no allocation; from other streams a `Cow` gets its own copy and a
//! `&str` is a [`SchemaMismatch`](crate::DecodeErrorKind::SchemaMismatch) error at its path.
//! [`Preference::Faster`](crate::Preference::Faster) keeps most string columns plain (zstd
//! only where it halves one).
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use tree_buf::{EncodeOptions, Preference};
//!
//! #[derive(Serialize, Deserialize)]
//! struct Country<'a> {
//!     name: &'a str,
//! }
//!
//! let countries = [Country { name: "Aruba" }, Country { name: "Angola" }];
//! let options = EncodeOptions::default().prefer(Preference::Faster);
//! let bytes = tree_buf::serde::to_vec_with_options(&countries, &options)?;
//! let back: Vec<Country<'_>> = tree_buf::serde::from_slice(&bytes)?;
//! assert_eq!(back[1].name, "Angola");
//! assert!(bytes.as_ptr_range().contains(&back[1].name.as_ptr()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//! `is_human_readable` is `false` both ways, so types with a compact form (`uuid::Uuid`) use it.
//!
//! Errors are [`EncodeError`]s and [`DecodeError`]s with the schema path where they happened;
//! a `Serialize` implementation's own error is an [`EncodeErrorKind::Custom`] one, a
//! `Deserialize` implementation's a [`SchemaMismatch`](crate::DecodeErrorKind::SchemaMismatch).
//!
//! [`EncodeErrorKind::Custom`]: crate::EncodeErrorKind::Custom

mod de;
mod ser;

use ::serde::{Deserialize, Serialize};

use crate::archive::Archive;
use crate::branch::DecodeContext;
use crate::error::{DecodeError, EncodeError};
use crate::file::{FileView, Head, ARCHIVE};
use crate::options::{DecodeOptions, EncodeOptions};
use crate::schema::{NodeRef, SchemaTree};

/// Encodes `value` into a tree-buf file with the default [`EncodeOptions`].
///
/// ```
/// let bytes = tree_buf::serde::to_vec(&vec![(1u32, "one"), (2, "two")])?;
/// let back: Vec<(u32, String)> = tree_buf::decode(&bytes)?;
/// assert_eq!(back, [(1, "one".to_owned()), (2, "two".to_owned())]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn to_vec<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, EncodeError> {
    to_vec_with_options(value, &EncodeOptions::default())
}

/// Encodes `value` with the given options.
pub fn to_vec_with_options<T: Serialize + ?Sized>(
    value: &T,
    options: &EncodeOptions,
) -> Result<Vec<u8>, EncodeError> {
    let mut root = ser::Place::new(0);
    value.serialize(&mut root)?;
    crate::file::write_with(options, |out| root.finish(out))
}

/// Decodes a file (written by [`to_vec`], by [`crate::encode`], or from a [`Value`](crate::Value))
/// with the default [`DecodeOptions`].
///
/// ```
/// # use tree_buf::prelude::*;
/// #[derive(Encode)]
/// struct Point { x: i32, y: i32 }
///
/// #[derive(serde::Deserialize)]
/// struct X { x: i64 }
///
/// let bytes = tree_buf::encode(&vec![Point { x: 1, y: 2 }]);
/// let xs: Vec<X> = tree_buf::serde::from_slice(&bytes)?;
/// assert_eq!(xs[0].x, 1);
/// # Ok::<(), tree_buf::DecodeError>(())
/// ```
pub fn from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<T, DecodeError> {
    from_slice_with_options(bytes, &DecodeOptions::default())
}

/// Decodes a file under the given limits. An archive reads as the sequence of its rows, chunk
/// after chunk, as [`crate::decode`] reads it.
pub fn from_slice_with_options<'de, T: Deserialize<'de>>(
    bytes: &'de [u8],
    options: &DecodeOptions,
) -> Result<T, DecodeError> {
    let head = Head::parse(bytes, options)?;
    if head.flags & ARCHIVE != 0 {
        let archive = Archive::from_bytes_with_options(bytes, options.clone())?;
        return T::deserialize(de::Rows::new(&archive)?);
    }
    let view = FileView::open_with(bytes, head, options, SchemaTree::parse)?;
    view.verify_data(options)?;
    view.check_one_root()?;
    deserialize_root(view.tree.root(), view.context(options))
}

/// Decodes the one value under `root` through `T`'s `Deserialize`.
pub(crate) fn deserialize_root<'de, T: Deserialize<'de>>(
    root: NodeRef<'_>,
    mut ctx: DecodeContext<'de>,
) -> Result<T, DecodeError> {
    let mut root = de::Slot::root(root, 1);
    T::deserialize(de::At::new(&mut root, &mut ctx))
}
