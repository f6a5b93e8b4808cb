//! `Option<T>`: a presence stream, and the present values only in the child.

use super::{Decode, Encode, Missing, ValueDecoder, ValueEncoder};
use crate::branch::{DecodeContext, EncodeResult, SchemaWriter};
use crate::error::DecodeError;
use crate::schema::{NodeRef, NodeType};

/// Collects presence bits and the present values.
#[derive(Debug)]
pub struct OptionEncoder<T: Encode> {
    presence: Vec<bool>,
    inner: T::Encoder,
}

impl<T: Encode> ValueEncoder<Option<T>> for OptionEncoder<T> {
    fn new(depth: usize) -> Self {
        OptionEncoder {
            presence: Vec::new(),
            inner: T::Encoder::new(depth + 1),
        }
    }

    #[inline]
    fn push(&mut self, value: &Option<T>) {
        self.presence.push(value.is_some());
        if let Some(value) = value {
            self.inner.push(value);
        }
    }

    /// Room for the presence bits only: how many values are present is not known.
    fn reserve(&mut self, additional: usize) {
        self.presence.reserve(additional);
    }

    fn bytes(&self) -> usize {
        self.presence.len() + self.inner.bytes()
    }

    fn finish(self, out: &mut SchemaWriter) -> EncodeResult {
        let inner = self.inner;
        out.option(self.presence, |out| inner.finish(out))
    }
}

impl<T: Encode> Encode for Option<T> {
    type Encoder = OptionEncoder<T>;
    fn encoded_cmp(&self, other: &Self) -> std::cmp::Ordering {
        match (self, other) {
            (Some(a), Some(b)) => a.encoded_cmp(b),
            (a, b) => a.is_some().cmp(&b.is_some()),
        }
    }
}

/// Hands back `Some` or `None` per the presence stream.
#[derive(Debug)]
pub struct OptionDecoder<D> {
    presence: Presence,
    inner: D,
}

#[derive(Debug)]
enum Presence {
    Stream(std::vec::IntoIter<bool>),
    /// The file has a plain `T` here, which reads as `Option<T>` with every value present.
    All,
    /// The file lacks this field: every value is `None`.
    None,
}

// SAFETY: each value is `None` or one of the inner decoder's values, which uphold the contract.
#[allow(unsafe_code)]
unsafe impl<'de, T: Decode<'de>> ValueDecoder<'de, Option<T>> for OptionDecoder<T::Decoder> {
    fn new(
        node: NodeRef<'_>,
        count: usize,
        ctx: &mut DecodeContext<'de>,
    ) -> Result<Self, DecodeError> {
        if node.node_type() != NodeType::Option {
            return Ok(OptionDecoder {
                presence: Presence::All,
                inner: T::Decoder::new(node, count, ctx)?,
            });
        }
        let presence = ctx.presence(node, count)?;
        let present = presence.iter().filter(|&&p| p).count();
        let child = node.child(0).unwrap_or_else(|| node.void());
        let inner = T::Decoder::new(child, present, ctx)?;
        Ok(OptionDecoder {
            presence: Presence::Stream(presence.into_iter()),
            inner,
        })
    }

    fn absent(
        missing: Missing<'_>,
        count: usize,
        ctx: &mut DecodeContext<'de>,
    ) -> Result<Self, DecodeError> {
        ctx.charge(missing.void(), count, 1)?;
        Ok(OptionDecoder {
            presence: Presence::None,
            inner: T::Decoder::new(missing.void(), 0, ctx)?,
        })
    }

    #[inline]
    fn next(&mut self) -> Option<T> {
        let present = match &mut self.presence {
            Presence::Stream(stream) => stream.next().unwrap_or(false),
            Presence::All => true,
            Presence::None => false,
        };
        present.then(|| self.inner.next())
    }
}

impl<'de, T: Decode<'de>> Decode<'de> for Option<T> {
    type Decoder = OptionDecoder<T::Decoder>;
}
