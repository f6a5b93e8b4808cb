//! Sequences: `Vec`, `VecDeque`, slices, `Box<[T]>`, sets and arrays `[T; N]`.
//!
//! A sequence node stores one length per value and all items of all values, back to back, in its
//! child; an array node stores no lengths since all are `N`. Either reads as the other when the
//! lengths fit. Sets are sequences in sorted order (hash sets by the encoded form of their items),
//! so equal sets encode to equal bytes.

use std::collections::{BTreeSet, HashSet, VecDeque};
use std::hash::{BuildHasher, Hash};

use std::cmp::Ordering;

use super::encoded_order::{by_encoding, cmp_items, sort_by_encoded_key};
use super::primitives::{int_bytes, int_width};
use super::{
    collect_values, is_empty_void, Decode, Encode, Indirect, Lazy, ValueDecoder, ValueEncoder,
};
use crate::branch::{DecodeContext, EncodeResult, Leaf, SchemaWriter};
use crate::error::{DecodeError, DecodeErrorKind};
use crate::schema::{NodeRef, NodeType};

/// Collects the length of every sequence and all their items.
#[derive(Debug)]
pub struct SeqEncoder<T: Encode> {
    lengths: Vec<u64>,
    items: Lazy<T::Encoder>,
}

impl<T: Encode> SeqEncoder<T> {
    fn new_at(depth: usize) -> Self {
        SeqEncoder {
            lengths: Vec::new(),
            items: Lazy::new::<T>(depth + 1),
        }
    }

    #[inline]
    fn push_slice(&mut self, items: &[T]) {
        self.lengths.push(items.len() as u64);
        if !items.is_empty() {
            self.items.push_all(items);
        }
    }

    #[inline]
    fn push_iter<'a>(&mut self, items: impl ExactSizeIterator<Item = &'a T>)
    where
        T: 'a,
    {
        self.lengths.push(items.len() as u64);
        items.for_each(|item| self.items.push(item));
    }

    fn finish_seq(self, out: &mut SchemaWriter) -> EncodeResult {
        let items = self.items;
        out.seq(self.lengths, |out| items.finish::<T>(out))
    }
}

macro_rules! seq_encoder {
    ($([$($generics:tt)*] $t:ty, |$encoder:ident, $value:ident| $push:expr, $cmp:path);* $(;)?) => {$(
        impl<$($generics)*> ValueEncoder<$t> for SeqEncoder<T> {
            fn new(depth: usize) -> Self {
                SeqEncoder::new_at(depth)
            }
            #[inline]
            fn push(&mut self, $value: &$t) {
                let $encoder = self;
                $push
            }
            fn reserve(&mut self, additional: usize) {
                self.lengths.reserve(additional);
            }
            fn bytes(&self) -> usize {
                size_of_val(self.lengths.as_slice()) + self.items.bytes::<T>()
            }
            fn finish(self, out: &mut SchemaWriter) -> EncodeResult {
                self.finish_seq(out)
            }
        }

        impl<$($generics)*> Encode for $t {
            type Encoder = SeqEncoder<T>;
            fn encoded_cmp(&self, other: &Self) -> Ordering {
                $cmp(self, other)
            }
        }
    )*};
}

seq_encoder! {
    [T: Encode] [T], |e, value| e.push_slice(value), cmp_items;
    [T: Encode] Vec<T>, |e, value| e.push_slice(value), cmp_items;
    [T: Encode] VecDeque<T>, |e, value| {
        let (front, back) = value.as_slices();
        e.lengths.push(value.len() as u64);
        e.items.push_all(front);
        e.items.push_all(back);
    }, cmp_items;
    [T: Encode] BTreeSet<T>, |e, value| e.push_iter(value.iter()), cmp_items;
    [T: Encode, S] HashSet<T, S>, |e, value| {
        let mut sorted: Vec<(&T, ())> = value.iter().map(|item| (item, ())).collect();
        sort_by_encoded_key(&mut sorted);
        e.push_iter(sorted.into_iter().map(|(item, ())| item));
    }, by_encoding;
}

#[cfg(feature = "indexmap")]
seq_encoder! {
    [T: Encode, S] indexmap::IndexSet<T, S>, |e, value| e.push_iter(value.iter()), cmp_items;
}

#[cfg(feature = "smallvec")]
seq_encoder! {
    [T: Encode, A: smallvec::Array<Item = T>] smallvec::SmallVec<A>, |e, value| e.push_slice(value), cmp_items;
}

/// `bytes::Bytes` and `BytesMut` as sequences of `u8`, like `Vec<u8>`.
#[cfg(feature = "bytes")]
macro_rules! byte_buffers {
    ($($t:ty: $from_vec:expr),*) => {$(
        impl ValueEncoder<$t> for SeqEncoder<u8> {
            fn new(depth: usize) -> Self {
                SeqEncoder::new_at(depth)
            }
            #[inline]
            fn push(&mut self, value: &$t) {
                self.push_slice(value)
            }
            fn reserve(&mut self, additional: usize) {
                self.lengths.reserve(additional);
            }
            fn bytes(&self) -> usize {
                size_of_val(self.lengths.as_slice()) + self.items.bytes::<u8>()
            }
            fn finish(self, out: &mut SchemaWriter) -> EncodeResult {
                self.finish_seq(out)
            }
        }

        impl Encode for $t {
            type Encoder = SeqEncoder<u8>;
            fn encoded_cmp(&self, other: &Self) -> Ordering {
                cmp_items(self.iter(), other.iter())
            }
        }

        // SAFETY: each byte vector owns its bytes.
        #[allow(unsafe_code)]
        unsafe impl<'de> ValueDecoder<'de, $t> for SeqDecoder<'de, u8> {
            fn new(node: NodeRef<'_>, count: usize, ctx: &mut DecodeContext<'de>) -> Result<Self, DecodeError> {
                SeqDecoder::build(node, count, ctx)
            }
            #[inline]
            fn next(&mut self) -> $t {
                self.next_with(|items, len| $from_vec(items.next_vec(len)), Default::default)
            }
        }

        impl<'de> Decode<'de> for $t {
            type Decoder = SeqDecoder<'de, u8>;
            fn join_chunks(parts: Vec<Self>) -> Option<Self> {
                let mut all =
                    crate::memory::vec_with_capacity(parts.iter().map(|part| part.len()).sum());
                parts.iter().for_each(|part| all.extend_from_slice(part));
                Some($from_vec(all))
            }
        }
    )*};
}

#[cfg(feature = "bytes")]
byte_buffers!(
    bytes::Bytes: bytes::Bytes::from,
    // Through `Bytes`, which takes the vector over without copying it.
    bytes::BytesMut: |bytes: Vec<u8>| bytes::BytesMut::from(bytes::Bytes::from(bytes))
);

/// How many items each value of a sequence, array or map node has.
#[derive(Debug)]
pub(crate) enum Lengths {
    Stream(std::vec::IntoIter<u64>),
    Fixed(usize),
}

impl Lengths {
    #[inline]
    pub(crate) fn next(&mut self) -> usize {
        match self {
            Lengths::Stream(lengths) => lengths.next().unwrap_or(0) as usize,
            Lengths::Fixed(len) => *len,
        }
    }
}

/// Hands back the items of sequences or arrays, from one child holding all of them one after
/// another, or from the elements of a tuple, the items at each position in turn: how a [`Value`]
/// writes arrays of a few scalars that all have one length, so that a file read as `Value` and
/// written again still reads.
///
/// [`Value`]: crate::Value
#[derive(Debug)]
pub struct Items<D> {
    decoders: Vec<D>,
    /// The decoder of the next item.
    at: usize,
}

impl<D> Items<D> {
    /// The decoders of the `total` items of the `count` values of sequence, array or tuple `node`.
    fn new<'de, T>(
        node: NodeRef<'_>,
        count: usize,
        total: usize,
        ctx: &mut DecodeContext<'de>,
    ) -> Result<Self, DecodeError>
    where
        D: ValueDecoder<'de, T>,
    {
        ctx.charge(node, total, size_of::<T>())?;
        let decoders = crate::stack::deeper(|| match node.node_type() {
            NodeType::Tuple => (node.children())
                .map(|element| D::new(element, count, ctx))
                .collect(),
            _ => Ok(vec![D::new(
                node.child(0).unwrap_or_else(|| node.void()),
                total,
                ctx,
            )?]),
        })?;
        Ok(Items { decoders, at: 0 })
    }

    #[inline]
    fn next<'de, T>(&mut self) -> T
    where
        D: ValueDecoder<'de, T>,
    {
        let item = self.decoders[self.at].next();
        self.at += 1;
        if self.at == self.decoders.len() {
            self.at = 0;
        }
        item
    }

    /// The next `n` items; from one child, in bulk.
    #[inline]
    fn next_vec<'de, T>(&mut self, n: usize) -> Vec<T>
    where
        D: ValueDecoder<'de, T>,
    {
        match self.decoders.as_mut_slice() {
            [column] => column.next_vec(n),
            _ => collect_values(n, || self.next()),
        }
    }
}

/// Reads the lengths of `count` values from a sequence or array node (or a tuple, whose
/// elements are its items), and their total; `expected` names the type being decoded for a
/// mismatch.
pub(crate) fn read_lengths(
    node: NodeRef<'_>,
    count: usize,
    ctx: &mut DecodeContext<'_>,
    expected: &str,
) -> Result<(Lengths, usize), DecodeError> {
    if is_empty_void(node, count)? {
        return Ok((Lengths::Fixed(0), 0));
    }
    match node.node_type() {
        NodeType::Seq => {
            let (lengths, total) = ctx.lengths(node, count)?;
            Ok((Lengths::Stream(lengths.into_iter()), total))
        }
        NodeType::Array => {
            let total = node.array_items(count)?;
            let len = usize::try_from(node.array_len()).unwrap_or(usize::MAX);
            Ok((Lengths::Fixed(len), total))
        }
        NodeType::Tuple if node.children().len() > 0 => {
            let len = node.children().len();
            Ok((Lengths::Fixed(len), count.saturating_mul(len)))
        }
        _ => Err(node.mismatch(expected)),
    }
}

/// Hands back byte slices borrowed from the bytes decoded (`&'de [u8]`): from the file where it
/// holds them as they are, or where the context keeps them (a [`Reader`](crate::Reader)'s).
#[derive(Debug)]
pub struct BytesRefDecoder<'de> {
    lengths: Lengths,
    bytes: Leaf<&'de [u8]>,
    position: usize,
}

// SAFETY: each slice borrows from the bytes decoded, which live for `'de`.
#[allow(unsafe_code)]
unsafe impl<'de: 'a, 'a> ValueDecoder<'de, &'a [u8]> for BytesRefDecoder<'de> {
    fn new(
        node: NodeRef<'_>,
        count: usize,
        ctx: &mut DecodeContext<'de>,
    ) -> Result<Self, DecodeError> {
        const EXPECTED: &str = "a byte slice (a sequence of u8)";
        // A tuple's items are in a branch per element, which no slice can borrow.
        if node.node_type() == NodeType::Tuple {
            return Err(node.mismatch(EXPECTED));
        }
        let (lengths, total) = read_lengths(node, count, ctx, EXPECTED)?;
        let items = node.child(0).unwrap_or_else(|| node.void());
        let bytes = if total == 0 {
            Leaf::empty()
        } else if let Some(word_bytes) = int_width(items.node_type()) {
            // Wider integers are narrowed as a `u8` field reads them, and kept by a reader.
            let node_type = items.node_type();
            ctx.lent_bytes(
                items,
                total,
                word_bytes + 1,
                move |branch, count, budget| int_bytes(node_type, branch, count, budget),
            )?
        } else {
            return Err(items.mismatch("u8"));
        };
        Ok(BytesRefDecoder {
            lengths,
            bytes,
            position: 0,
        })
    }

    #[inline]
    fn next(&mut self) -> &'a [u8] {
        let start = self.position;
        self.position += self.lengths.next();
        let bytes: &'de [u8] = self.bytes.column();
        bytes.get(start..self.position).unwrap_or_default()
    }
}

impl<'de: 'a, 'a> Decode<'de> for &'a [u8] {
    type Decoder = BytesRefDecoder<'de>;
}

/// Hands back sequences of any collection type.
#[derive(Debug)]
pub struct SeqDecoder<'de, T: Decode<'de>> {
    lengths: Lengths,
    items: Option<Box<Items<Indirect<'de, T>>>>,
}

impl<'de, T: Decode<'de>> SeqDecoder<'de, T> {
    fn build(
        node: NodeRef<'_>,
        count: usize,
        ctx: &mut DecodeContext<'de>,
    ) -> Result<Self, DecodeError> {
        let (lengths, total) = read_lengths(node, count, ctx, "a sequence")?;
        if total == 0 {
            return Ok(SeqDecoder {
                lengths,
                items: None,
            });
        }
        Ok(SeqDecoder {
            lengths,
            items: Some(Box::new(Items::new(node, count, total, ctx)?)),
        })
    }

    /// The items of the next sequence, through `collect`.
    #[inline]
    fn next_with<C>(
        &mut self,
        collect: impl FnOnce(&mut Items<Indirect<'de, T>>, usize) -> C,
        empty: impl FnOnce() -> C,
    ) -> C {
        let len = self.lengths.next();
        match self.items.as_deref_mut() {
            Some(items) if len > 0 => collect(items, len),
            _ => empty(),
        }
    }
}

macro_rules! seq_decoder {
    ($([$($generics:tt)*] $t:ty, |$items:ident, $len:ident| $collect:expr, |$parts:ident| $join:expr);* $(;)?) => {$(
        // SAFETY: each collection is built anew from the item decoder's values, which uphold the
        // contract.
        #[allow(unsafe_code)]
        unsafe impl<'de, $($generics)*> ValueDecoder<'de, $t> for SeqDecoder<'de, T> {
            fn new(node: NodeRef<'_>, count: usize, ctx: &mut DecodeContext<'de>) -> Result<Self, DecodeError> {
                SeqDecoder::build(node, count, ctx)
            }
            #[inline]
            fn next(&mut self) -> $t {
                self.next_with(|$items, $len| $collect, Default::default)
            }
        }

        impl<'de, $($generics)*> Decode<'de> for $t {
            type Decoder = SeqDecoder<'de, T>;
            fn join_chunks($parts: Vec<Self>) -> Option<Self> {
                Some($join)
            }
        }
    )*};
}

/// The items of `parts`, one after another: moved a vector at a time, which costs far less than
/// an item at a time.
pub(crate) fn concat<T>(parts: Vec<Vec<T>>) -> Vec<T> {
    let mut all = crate::memory::vec_with_capacity(parts.iter().map(Vec::len).sum());
    for mut part in parts {
        all.append(&mut part);
    }
    all
}

seq_decoder! {
    [T: Decode<'de>] Vec<T>, |items, len| items.next_vec(len), |parts| concat(parts);
    [T: Decode<'de>] VecDeque<T>, |items, len| items.next_vec(len).into(),
        |parts| concat(parts.into_iter().map(Vec::from).collect()).into();
    [T: Decode<'de>] Box<[T]>, |items, len| items.next_vec(len).into_boxed_slice(),
        |parts| concat(parts.into_iter().map(Vec::from).collect()).into_boxed_slice();
    [T: Decode<'de> + Ord] BTreeSet<T>, |items, len| (0..len).map(|_| items.next()).collect(),
        |parts| parts.into_iter().flatten().collect();
    [T: Decode<'de> + Eq + Hash, S: BuildHasher + Default] HashSet<T, S>, |items, len| (0..len).map(|_| items.next()).collect(),
        |parts| parts.into_iter().flatten().collect();
}

#[cfg(feature = "indexmap")]
seq_decoder! {
    [T: Decode<'de> + Eq + Hash, S: BuildHasher + Default] indexmap::IndexSet<T, S>,
        |items, len| (0..len).map(|_| items.next()).collect(),
        |parts| parts.into_iter().flatten().collect();
}

#[cfg(feature = "smallvec")]
seq_decoder! {
    // Collected item by item, so that a short sequence stays inline and allocates nothing.
    [T: Decode<'de>, A: smallvec::Array<Item = T>] smallvec::SmallVec<A>,
        |items, len| (0..len).map(|_| items.next()).collect(),
        |parts| parts.into_iter().flatten().collect();
}

/// Collects the items of fixed-length arrays.
#[derive(Debug)]
pub struct ArrayEncoder<T: Encode> {
    items: T::Encoder,
}

impl<T: Encode, const N: usize> ValueEncoder<[T; N]> for ArrayEncoder<T> {
    fn new(depth: usize) -> Self {
        ArrayEncoder {
            items: T::Encoder::new(depth + 1),
        }
    }

    #[inline]
    fn push(&mut self, value: &[T; N]) {
        self.items.push_all(value);
    }

    fn reserve(&mut self, additional: usize) {
        self.items.reserve(additional.saturating_mul(N));
    }

    /// The arrays' items, back to back, in one call: a slice of `[f32; 3]`s is copied whole
    /// rather than three values at a time.
    fn push_all(&mut self, values: &[[T; N]]) {
        self.items.push_all(values.as_flattened());
    }

    fn bytes(&self) -> usize {
        self.items.bytes()
    }

    fn finish(self, out: &mut SchemaWriter) -> EncodeResult {
        let items = self.items;
        out.array(N, |out| items.finish(out))
    }
}

impl<T: Encode, const N: usize> Encode for [T; N] {
    type Encoder = ArrayEncoder<T>;
    fn encoded_cmp(&self, other: &Self) -> Ordering {
        cmp_items(self, other)
    }
}

/// Hands back fixed-length arrays.
#[derive(Debug)]
pub struct ArrayDecoder<D> {
    items: Items<D>,
}

// SAFETY: each array is built from the item decoder's values, which uphold the contract.
#[allow(unsafe_code)]
unsafe impl<'de, T: Decode<'de>, const N: usize> ValueDecoder<'de, [T; N]>
    for ArrayDecoder<T::Decoder>
{
    fn new(
        node: NodeRef<'_>,
        count: usize,
        ctx: &mut DecodeContext<'de>,
    ) -> Result<Self, DecodeError> {
        let expected = format!("an array of {N}");
        let (lengths, total) = read_lengths(node, count, ctx, &expected)?;
        let wrong_length = match lengths {
            Lengths::Fixed(len) => (count > 0 && len != N).then_some(len),
            Lengths::Stream(mut lengths) => {
                lengths.find(|&len| len != N as u64).map(|len| len as usize)
            }
        };
        if let Some(len) = wrong_length {
            return Err(DecodeError::new(
                DecodeErrorKind::SchemaMismatch,
                node.path(),
                format!("the file has a sequence of {len} items here, the type expects {expected}"),
            ));
        }
        Ok(ArrayDecoder {
            items: Items::new(node, count, total, ctx)?,
        })
    }

    #[inline]
    fn next(&mut self) -> [T; N] {
        // From one child whose items are decoded side by side, the array takes the next N of
        // them in one loop over locals, not through the items' place for each.
        if let [items] = self.items.decoders.as_mut_slice() {
            // The run holds exactly N items.
            let array = (items.decoded_run(N)).map(|mut run| array_from_run(&mut run));
            if let Some(array) = array {
                items.skip_run(N);
                return array;
            }
        }
        std::array::from_fn(|_| self.items.next())
    }

    fn next_vec(&mut self, n: usize) -> Vec<[T; N]> {
        // From one child whose items are decoded side by side, the n * N items are taken in
        // bulk (the whole rest of a column without a copy), and their vector becomes the
        // arrays' in place when it holds whole arrays.
        if let [items] = self.items.decoders.as_mut_slice() {
            let total = n.checked_mul(N);
            if let Some(total) = total.filter(|&total| items.decoded_run(total).is_some()) {
                return match crate::memory::into_arrays(items.next_vec(total)) {
                    Ok(arrays) => arrays,
                    Err(items) => {
                        let mut items = items.into_iter();
                        collect_values(n, || array_from_run(&mut items))
                    }
                };
            }
        }
        collect_values(n, || self.next())
    }
}

/// The next N items of a run that holds at least that many.
#[inline]
fn array_from_run<T, const N: usize>(run: &mut impl Iterator<Item = T>) -> [T; N] {
    std::array::from_fn(|_| run.next().unwrap_or_else(|| unreachable!()))
}

impl<'de, T: Decode<'de>, const N: usize> Decode<'de> for [T; N] {
    type Decoder = ArrayDecoder<T::Decoder>;
}
