//! Strings: `String`, `str`, `Box<str>`, `Rc<str>`, `Arc<str>`, `Cow<str>` (through the generic
//! `Cow` impl) and, with the `compact_str` feature, `CompactString` all share one node type and
//! one column.

use std::marker::PhantomData;
use std::rc::Rc;
use std::sync::Arc;

use super::{is_empty_void, Decode, Encode, ValueDecoder, ValueEncoder};
use crate::branch::{Column, DecodeContext, EncodeResult, Leaf, SchemaWriter};
use crate::encodings::string::{StrColumn, Strings};
use crate::error::DecodeError;
use crate::schema::{NodeRef, NodeType};

/// Collects strings back to back.
#[derive(Debug, Default)]
pub struct StrEncoder(StrColumn);

impl<T: AsRef<str> + ?Sized> ValueEncoder<T> for StrEncoder {
    fn new(_depth: usize) -> Self {
        StrEncoder::default()
    }

    #[inline]
    fn push(&mut self, value: &T) {
        self.0.push(value.as_ref());
    }

    fn bytes(&self) -> usize {
        self.0.bytes()
    }

    fn finish(self, out: &mut SchemaWriter) -> EncodeResult {
        out.leaf(NodeType::Str, Column::Str(self.0))
    }
}

impl Encode for str {
    type Encoder = StrEncoder;
    fn encoded_cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.cmp(other)
    }
}

impl Encode for String {
    type Encoder = StrEncoder;
    fn encoded_cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.cmp(other)
    }
}

/// Hands back decoded strings as any type made from a `&str`.
#[derive(Debug)]
pub struct StrDecoder<T> {
    column: Leaf<Strings>,
    position: usize,
    _type: PhantomData<fn() -> T>,
}

impl<T: for<'s> From<&'s str>> ValueDecoder<T> for StrDecoder<T> {
    fn new(
        node: NodeRef<'_>,
        count: usize,
        ctx: &mut DecodeContext<'_>,
    ) -> Result<Self, DecodeError> {
        let column = if is_empty_void(node, count)? {
            Leaf::empty()
        } else if node.node_type() == NodeType::Str {
            ctx.strings(node, count, 0, Ok)?
        } else {
            return Err(node.mismatch("a string"));
        };
        Ok(StrDecoder {
            column,
            position: 0,
            _type: PhantomData,
        })
    }

    #[inline]
    fn next(&mut self) -> T {
        let value = (self.column.column_holding(self.position, Strings::len)).get(self.position);
        self.position += 1;
        T::from(value)
    }
}

macro_rules! decode_as_string {
    ($($t:ty),*) => {$(
        impl Decode for $t {
            type Decoder = StrDecoder<$t>;
        }
    )*};
}
decode_as_string!(String, Box<str>, Rc<str>, Arc<str>);

/// Strings of up to 24 bytes are kept inline, so decoding them allocates nothing: the fastest way
/// to load many short strings (names, codes, labels).
///
/// ```
/// # #[cfg(feature = "compact_str")] {
/// use compact_str::CompactString;
///
/// #[derive(tree_buf::Encode, tree_buf::Decode, PartialEq, Debug)]
/// struct Country {
///     name: CompactString,
///     code: CompactString,
/// }
///
/// let countries = vec![Country { name: "Aruba".into(), code: "ABW".into() }];
/// let bytes = tree_buf::encode(&countries);
/// assert_eq!(tree_buf::decode::<Vec<Country>>(&bytes).unwrap(), countries);
/// # }
/// ```
#[cfg(feature = "compact_str")]
impl Decode for compact_str::CompactString {
    type Decoder = StrDecoder<compact_str::CompactString>;
}

#[cfg(feature = "compact_str")]
impl Encode for compact_str::CompactString {
    type Encoder = StrEncoder;
    fn encoded_cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.cmp(other)
    }
}
