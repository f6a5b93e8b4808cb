//! Strings: `String`, `str`, `Box<str>`, `Rc<str>`, `Arc<str>`, `Cow<str>`, `&str` and, with the
//! `compact_str` feature, `CompactString` all share one node type and one column. `&str` and
//! `Cow<str>` borrow from the bytes decoded: the column's text where the stream holds it as it is,
//! else what the context keeps (see [`Kept`](crate::branch::Kept)).

use std::borrow::Cow;
use std::rc::Rc;
use std::sync::Arc;

use super::{is_empty_void, Decode, Encode, ValueDecoder, ValueEncoder};
use crate::branch::{Column, DecodeContext, EncodeResult, KeptBranch, Leaf, SchemaWriter};
use crate::encodings::string::{DecodedStrings, StrColumn, Strings};
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

    fn reserve(&mut self, additional: usize) {
        self.0.reserve(additional);
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

/// A string type, and how it is made from decoded strings.
pub trait FromStrings<'de>: Sized {
    /// The text of the column the strings are taken from.
    type Text: Default + Send + Sync + 'de;

    /// The column of `strings`, made when they are decoded; `kept` keeps what must be lent but
    /// is not in the file.
    fn column(
        strings: DecodedStrings<'de>,
        kept: Option<KeptBranch<'de>>,
    ) -> Result<Strings<Self::Text>, DecodeError>;

    /// String `index` of `column`.
    fn at(column: &Strings<Self::Text>, index: usize) -> Self;
}

/// Hands back decoded strings as any string type.
#[derive(Debug)]
pub struct StrDecoder<'de, T: FromStrings<'de>> {
    column: Leaf<Strings<T::Text>>,
    position: usize,
}

// SAFETY: each string owns its text or borrows it from the bytes decoded or the reader's kept
// columns, which live for `'de`.
#[allow(unsafe_code)]
unsafe impl<'de, T: FromStrings<'de>> ValueDecoder<'de, T> for StrDecoder<'de, T> {
    fn new(
        node: NodeRef<'_>,
        count: usize,
        ctx: &mut DecodeContext<'de>,
    ) -> Result<Self, DecodeError> {
        let column = if is_empty_void(node, count)? {
            Leaf::empty()
        } else if node.node_type() == NodeType::Str {
            let kept = ctx.kept(node);
            ctx.strings(node, count, 0, move |strings| T::column(strings, kept))?
        } else {
            return Err(node.mismatch("a string"));
        };
        Ok(StrDecoder {
            column,
            position: 0,
        })
    }

    #[inline]
    fn next(&mut self) -> T {
        let column = self.column.column_holding(self.position, Strings::len);
        // Rows of many string fields read as many columns side by side, more streams than the
        // processor's own prefetcher follows (64 in a Retrosheet game).
        column.prefetch_ahead_of(self.position);
        let value = T::at(column, self.position);
        self.position += 1;
        value
    }
}

/// The string types made from a `&str`, each owning a copy.
macro_rules! owned_strings {
    ($($(#[$doc:meta])* $t:ty),*) => {$(
        impl<'de> FromStrings<'de> for $t {
            type Text = Cow<'de, str>;

            fn column(
                strings: DecodedStrings<'de>,
                _kept: Option<KeptBranch<'de>>,
            ) -> Result<DecodedStrings<'de>, DecodeError> {
                Ok(strings)
            }

            #[inline]
            fn at(column: &DecodedStrings<'de>, index: usize) -> Self {
                <$t>::from(column.get(index))
            }
        }

        $(#[$doc])*
        impl<'de> Decode<'de> for $t {
            type Decoder = StrDecoder<'de, $t>;
        }
    )*};
}
owned_strings!(String, Box<str>, Rc<str>, Arc<str>);
#[cfg(feature = "compact_str")]
owned_strings!(
    /// Strings of up to 24 bytes are kept inline, so decoding them allocates nothing: the
    /// fastest way to own many short strings (names, codes, labels).
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
    compact_str::CompactString
);

/// Borrowed from the bytes decoded: from the file where it holds them as they are, or where the
/// context keeps them (a [`Reader`](crate::Reader)'s).
impl<'de: 'a, 'a> FromStrings<'de> for &'a str {
    type Text = &'de str;

    fn column(
        strings: DecodedStrings<'de>,
        kept: Option<KeptBranch<'de>>,
    ) -> Result<Strings<&'de str>, DecodeError> {
        strings.lend(kept)
    }

    #[inline]
    fn at(column: &Strings<&'de str>, index: usize) -> Self {
        column.get_lent(index)
    }
}

impl<'de: 'a, 'a> Decode<'de> for &'a str {
    type Decoder = StrDecoder<'de, &'a str>;
}

/// Borrowed where `&str` can be, owned where it cannot.
impl<'de: 'a, 'a> FromStrings<'de> for Cow<'a, str> {
    type Text = Cow<'de, str>;

    fn column(
        strings: DecodedStrings<'de>,
        kept: Option<KeptBranch<'de>>,
    ) -> Result<DecodedStrings<'de>, DecodeError> {
        match kept {
            Some(kept) => strings.lend_as_cow(kept),
            None => Ok(strings),
        }
    }

    #[inline]
    fn at(column: &DecodedStrings<'de>, index: usize) -> Self {
        match column.lent(index) {
            Some(lent) => Cow::Borrowed(lent),
            None => Cow::Owned(column.get(index).to_owned()),
        }
    }
}

impl<'de: 'a, 'a> Decode<'de> for Cow<'a, str> {
    type Decoder = StrDecoder<'de, Cow<'a, str>>;
}

#[cfg(feature = "compact_str")]
impl Encode for compact_str::CompactString {
    type Encoder = StrEncoder;
    fn encoded_cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.cmp(other)
    }
}
