//! The mapping of Rust types onto schema nodes and branches.
//!
//! Every type names a column encoder that collects *all* values of that type found at one path
//! (the `name` field of every order, say) and a column decoder that hands them back one by one.
//! Containers hold the encoders of their parts, so a value is taken apart into one column per
//! path while it is pushed, and put together again while it is pulled.

mod derive_support;
mod encoded_order;
mod foreign;
mod maps;
mod option;
mod pointers;
mod primitives;
pub(crate) mod proxy;
mod recursion;
mod seq;
mod strings;
mod tuples;

pub use derive_support::{
    check_unit, Discriminants, EnumNode, Missing, OrDefault, StructNode, TupleNode, UnitEncoder,
};
pub(crate) use recursion::{builds_recursion, new_anchor, post_order, Back, Placed};
pub use recursion::{Indirect, Lazy};

pub(crate) use primitives::char_from_code;
pub(crate) use seq::{read_lengths, Lengths};

use crate::branch::{DecodeContext, EncodeResult, SchemaWriter};
use crate::error::DecodeError;
use crate::schema::NodeRef;

/// A type that tree-buf can encode. Derive it with `#[derive(Encode)]`.
///
/// ```
/// use tree_buf::prelude::*;
///
/// #[derive(Encode, Decode, PartialEq, Debug)]
/// struct Point {
///     x: i32,
///     y: i32,
/// }
///
/// let points = vec![Point { x: 1, y: 2 }, Point { x: 3, y: 4 }];
/// let bytes = encode(&points);
/// assert_eq!(decode::<Vec<Point>>(&bytes).unwrap(), points);
/// ```
pub trait Encode {
    /// Collects the values of this type at one path into columns.
    #[doc(hidden)]
    type Encoder: ValueEncoder<Self>;

    /// The order in which hash maps and sets write their keys: total and deterministic, so that
    /// equal contents encode to equal bytes. The default compares the encoded forms; std types
    /// and the derive compare part by part, faster.
    #[doc(hidden)]
    fn encoded_cmp(&self, other: &Self) -> std::cmp::Ordering {
        encoded_order::by_encoding(self, other)
    }
}

/// A type that tree-buf can decode. Derive it with `#[derive(Decode)]`.
///
/// A type reads files written by other versions of it: fields it lacks are skipped, `Option`
/// fields the file lacks are `None`, integers widen, and so on, by the schema evolution rules of
/// `docs/FORMAT.md`; anything lossy is a [`SchemaMismatch`](crate::DecodeErrorKind::SchemaMismatch).
///
/// ```
/// use tree_buf::prelude::*;
///
/// #[derive(Encode)]
/// struct V1 { id: u32, legacy: String }
///
/// #[derive(Decode, Debug, PartialEq)]
/// struct V2 { id: u64, note: Option<String> }
///
/// let bytes = encode(&vec![V1 { id: 7, legacy: "x".into() }]);
/// assert_eq!(decode::<Vec<V2>>(&bytes)?, [V2 { id: 7, note: None }]);
/// # Ok::<(), tree_buf::DecodeError>(())
/// ```
///
/// The lifetime `'de` is that of the bytes decoded from: a type that borrows (`&'de str`,
/// `&'de [u8]`, `Cow<'de, str>`, or a derived type with such fields) holds slices of them,
/// instead of copies (see [`Reader::decode`](crate::Reader::decode)). A type that owns all it
/// holds decodes from bytes of any lifetime: it is [`DecodeOwned`].
///
/// ```
/// use tree_buf::prelude::*;
///
/// #[derive(Encode, Decode, Debug, PartialEq)]
/// struct Country<'a> {
///     name: &'a str,
///     code: &'a str,
/// }
///
/// let countries = vec![Country { name: "Aruba", code: "ABW" }];
/// let bytes = encode(&countries);
/// let read: Vec<Country<'_>> = decode(&bytes)?;
/// assert_eq!(read, countries);
/// // The names point into `bytes`.
/// assert!(bytes.as_ptr_range().contains(&read[0].name.as_ptr()));
/// # Ok::<(), tree_buf::DecodeError>(())
/// ```
pub trait Decode<'de>: Sized {
    /// Rebuilds the values of this type at one path from columns.
    #[doc(hidden)]
    type Decoder: ValueDecoder<'de, Self>;

    /// Whether the type is a pointer (`Box`, `Rc`, `Arc`) whose decoder reads the same schema
    /// node as the type it points to: a recursive type's values are pooled by the decoder of
    /// the type itself, inside the pointer's.
    #[doc(hidden)]
    const POINTER: bool = false;

    /// Joins the values decoded from the chunks of an archive, each a sequence of some of its
    /// rows, into one; `None` for types that are not sequences.
    #[doc(hidden)]
    fn join_chunks(parts: Vec<Self>) -> Option<Self> {
        let _ = parts;
        None
    }
}

/// A type that decodes from bytes of any lifetime, since it borrows nothing from them: every
/// [`Decode`] type without a lifetime of its own. Readers of files they load themselves (an
/// archive stream, a file read from disk) decode these.
pub trait DecodeOwned: for<'de> Decode<'de> {}

impl<T: for<'de> Decode<'de>> DecodeOwned for T {}

/// Collects every value of type `T` found at one schema path. Implemented by generated code; not
/// part of the stable API.
#[doc(hidden)]
pub trait ValueEncoder<T: ?Sized> {
    /// An empty encoder for a node `depth` schema levels below the root.
    fn new(depth: usize) -> Self
    where
        Self: Sized;

    /// Takes the next value apart into the columns.
    fn push(&mut self, value: &T);

    /// Makes room in the columns for `additional` more values, where their number is known (a
    /// slice pushed whole): each column then grows once, not by doubling as its values come. A
    /// hint, which the default ignores; a column whose values may be absent (an option's, a
    /// sequence's items) keeps growing as they come, so that room is never reserved for values
    /// that do not exist.
    fn reserve(&mut self, additional: usize) {
        let _ = additional;
    }

    /// Takes several values apart; containers of primitives copy them in bulk.
    fn push_all(&mut self, values: &[T])
    where
        T: Sized,
    {
        self.reserve(values.len());
        for value in values {
            self.push(value);
        }
    }

    /// About how many bytes the columns of the values pushed so far take, so that a writer of
    /// many rows (an archive) can end a chunk at a size.
    fn bytes(&self) -> usize;

    /// Writes this node of the schema and hands the columns to the writer.
    fn finish(self, out: &mut SchemaWriter) -> EncodeResult;
}

/// Hands back, one by one, the values of type `T` stored under one schema node. Implemented by
/// generated code; not part of the stable API.
///
/// `new` decodes the streams that shape the values (presence, lengths, discriminants) and
/// registers the leaf columns they need with the context, which decodes and validates each (at
/// once on one thread, or all in one batch once the whole tree of decoders is built when they may
/// be spread over threads; see [`decode_root`]). Only then is `next` called, exactly `count` times,
/// and it cannot fail. `new` never reads leaf values, so no count may depend on them.
///
/// # Safety
///
/// The values of a recursive type are built into one pool per file node and handed to the
/// recursion nodes below it, matched by type ids, which leave lifetimes aside: a value built as
/// `Tree<'a, 'b>` may be handed out as the `Tree<'b, 'a>` of its parent's field. So whatever a
/// value holds must be valid for every lifetime of `T` that `'de` outlives: owned, `'static`, or
/// borrowed from the bytes being decoded (or the reader's kept columns). In particular a decoder
/// must not put into two values anything whose type names a lifetime of `T`, such as one
/// `Rc<RefCell<&'a str>>`. The derive's decoders build each value from its fields' decoders, and
/// every decoder of this crate keeps to this.
#[doc(hidden)]
#[allow(unsafe_code)]
pub unsafe trait ValueDecoder<'de, T>: Sized {
    /// Reads the `count` values stored under `node`.
    fn new(
        node: NodeRef<'_>,
        count: usize,
        ctx: &mut DecodeContext<'de>,
    ) -> Result<Self, DecodeError>;

    /// A decoder for a field the file does not have: an error unless there are no values or the
    /// type has a natural absent value (`Option`).
    fn absent(
        missing: Missing<'_>,
        count: usize,
        ctx: &mut DecodeContext<'de>,
    ) -> Result<Self, DecodeError> {
        if count == 0 {
            Self::new(missing.void(), 0, ctx)
        } else {
            Err(missing.error())
        }
    }

    /// The next value.
    fn next(&mut self) -> T;

    /// The next `n` values as a vector; leaves copy them in bulk, or hand over their column's
    /// vector when `n` takes all that is left of it.
    fn next_vec(&mut self, n: usize) -> Vec<T> {
        collect_values(n, || self.next())
    }

    /// The next `n` values, without moving past them, when the decoder holds them decoded side
    /// by side (leaves of plain values do); `None` when it does not, or has fewer. A tuple of
    /// such decoders builds its values from their runs in one loop over locals, where calling
    /// each element's `next` would load and store every element's place in memory on each value.
    /// [`Self::skip_run`] then moves past them, as [`Self::next_vec`] of `n` does, which then
    /// gives exactly those `n` values.
    fn decoded_run(&mut self, n: usize) -> Option<impl Iterator<Item = T>> {
        let _ = n;
        None::<std::iter::Empty<T>>
    }

    /// Moves past the `n` values a [`Self::decoded_run`] handed over.
    fn skip_run(&mut self, n: usize) {
        let _ = n;
    }
}

/// `n` values made by `next`, in a vector. A derived decoder passes the body of its own `next`
/// here as the closure, so that each value is built where it goes: called out of line, its `next`
/// would build each value on the stack, to be copied into the vector at once, which stalls the
/// copy (the store forwarding of the value's parts fails).
#[doc(hidden)]
#[inline]
pub fn collect_values<T>(n: usize, next: impl FnMut() -> T) -> Vec<T> {
    let mut values = crate::memory::vec_with_capacity(n);
    values.extend(std::iter::repeat_with(next).take(n));
    values
}

/// Checks how a decoder must treat a `Void` node: `Ok(true)` when the node is void and there are
/// no values (the decoder is empty), `Ok(false)` when the node is not void, and an error when a
/// void node is asked for values.
pub(crate) fn is_empty_void(node: NodeRef<'_>, count: usize) -> Result<bool, DecodeError> {
    if node.node_type() != crate::schema::NodeType::Void {
        return Ok(false);
    }
    if count == 0 {
        Ok(true)
    } else {
        Err(DecodeError::new(
            crate::error::DecodeErrorKind::Corrupt,
            node.path(),
            format!("no values were written here, but {count} are needed"),
        ))
    }
}

/// Builds the decoders of the `count` values under `node`; with `parallel`, the leaf columns they
/// register are decoded afterwards, together, on rayon's threads if they are large enough.
pub(crate) fn decode_root<'de, T, D: ValueDecoder<'de, T>>(
    mut ctx: DecodeContext<'de>,
    node: NodeRef<'_>,
    count: usize,
    parallel: bool,
) -> Result<D, DecodeError> {
    if parallel {
        ctx.defer_leaves();
    }
    let decoder = D::new(node, count, &mut ctx)?;
    ctx.decode_leaves(node, parallel)?;
    Ok(decoder)
}
