//! Integer streams: columns of unsigned words of 8 to 128 bits.
//!
//! Signed integers travel as their two's-complement bit pattern of the same width, floats as their
//! IEEE 754 bits; the schema says how to read the words. The number of values (`count`) is never
//! stored at the top: the parent node knows it. Transforms nest another stream, so encodings form
//! a cascade such as `delta → zigzag → bitpack`.
//!
//! ```text
//! int_stream := fixed              tag 0x00, see `fixed`
//!             | varint_stream      tag 0x01, see `varint`
//!             | zigzag | delta     tags 0x02 and 0x03, see `transform`
//!             | bitpack            tag 0x04, see `bitpack`
//!             | simple16           tag 0x05, see `simple16`
//!             | rle                tag 0x06, see `rle`
//!             | dictionary         tag 0x07, see `dictionary`
//!             | zstd               tag 0x08, see `zstd`: around an int_stream of the same count
//!             | group_dictionary   tag 0x0c, see `dictionary`
//!             | huffman            tag 0x0d, see `huffman`
//!             | keyed_int          tag 0x0f, see `keyed`: a branch's stream only
//! ```
//!
//! Tags 0x09 to 0x0b are float transforms (see `float`), valid only in float branches. Cascades
//! may nest at most [`MAX_CASCADE`](super::MAX_CASCADE) levels.

pub(crate) mod bitpack;
mod dictionary;
mod distinct;
pub(crate) mod fixed;
mod huffman;
pub(crate) use huffman::{code_bits as huffman_code_bits, MIN_VALUES as HUFFMAN_MIN_VALUES};
pub(crate) mod keyed;
mod rle;
pub(crate) mod select;
pub(crate) mod simple16;
pub(crate) mod transform;
mod varint;

use std::fmt::Debug;
use std::hash::Hash;
use std::ops::{BitAnd, BitOr, BitXor, Shl, Shr};

use super::budget::Budget;
use super::bytes::ByteReader;
use super::describe::{Codec, Describer, Encoding};
use super::numbering::Key;
use super::scratch::Pooled;
use super::zstd::{self, Frame};
use super::{check_depth, is_empty_form, tags};
use crate::error::DecodeError;
use transform::{AsDecoded, Finish};

pub(crate) use select::encode;

tags! {
    /// The first byte of an integer stream: its codec.
    IntTag, "integer" {
        Fixed = 0x00,
        Varint = 0x01,
        Zigzag = 0x02,
        Delta = 0x03,
        BitPack = 0x04,
        Simple16 = 0x05,
        Rle = 0x06,
        Dictionary = 0x07,
        Zstd = zstd::TAG,
        GroupDictionary = 0x0c,
        Huffman = 0x0d,
        HuffmanStreams = 0x0e,
    }
}

/// An integer stream's header, parsed once by [`IntStream::parse`]: the codec, its parameters,
/// and the streams it nests, still encoded (each is parsed in turn when it is decoded or
/// described). Leaf codecs hold their packed values.
pub(crate) enum IntStream<'a, W> {
    Fixed(fixed::Fixed<'a>),
    Varint(&'a [u8]),
    Zigzag(&'a [u8]),
    Delta(&'a [u8]),
    BitPack(bitpack::BitPacked<'a, W>),
    Simple16(&'a [u8]),
    Rle(rle::Runs<'a>),
    Dictionary(dictionary::Dictionary<'a>),
    Huffman(huffman::Header<'a>),
    Zstd(Frame<'a>),
}

impl<'a, W: Word> IntStream<'a, W> {
    /// Reads the header of the stream `bytes`.
    pub(crate) fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        let mut reader = ByteReader::new(bytes);
        let tag = IntTag::try_from(reader.u8()?)?;
        let body = reader.rest();
        Ok(match tag {
            IntTag::Fixed => IntStream::Fixed(fixed::Fixed::parse::<W>(body)?),
            IntTag::Varint => IntStream::Varint(body),
            IntTag::Zigzag => IntStream::Zigzag(body),
            IntTag::Delta => IntStream::Delta(body),
            IntTag::BitPack => IntStream::BitPack(bitpack::BitPacked::parse(body)?),
            IntTag::Simple16 => IntStream::Simple16(body),
            IntTag::Rle => IntStream::Rle(rle::Runs::parse(body)?),
            IntTag::Dictionary => IntStream::Dictionary(dictionary::Dictionary::parse(body)?),
            IntTag::GroupDictionary => {
                IntStream::Dictionary(dictionary::Dictionary::parse_groups(body)?)
            }
            IntTag::Huffman => IntStream::Huffman(huffman::Header::parse(body, false)?),
            IntTag::HuffmanStreams => IntStream::Huffman(huffman::Header::parse(body, true)?),
            IntTag::Zstd => IntStream::Zstd(Frame::parse(body)?),
        })
    }

    /// The stream's `count` words; it is nested `depth` levels deep.
    pub(crate) fn decode(
        self,
        count: usize,
        budget: &mut Budget,
        depth: usize,
    ) -> Result<Vec<W>, DecodeError> {
        self.decode_then(count, budget, depth, AsDecoded)
    }

    /// [`Self::decode`], each word then made what `finish` makes it: by the codec, in the pass
    /// that makes the words (while each is at hand), but for a transform under a transform
    /// (other than zigzag under delta, which the delta undoes as one), in a pass after.
    fn decode_then(
        self,
        count: usize,
        budget: &mut Budget,
        depth: usize,
        mut finish: impl Finish<W>,
    ) -> Result<Vec<W>, DecodeError> {
        let mut words = match self {
            IntStream::Fixed(fixed) => return fixed.decode(count, finish),
            IntStream::Varint(body) => return varint::decode(body, count, finish),
            IntStream::BitPack(packed) => return packed.decode(count, finish),
            IntStream::Simple16(body) => return simple16::decode(body, count, finish),
            IntStream::Huffman(huffman) => {
                budget.require(huffman.version(), "a Huffman stream")?;
                return huffman.decode(count, budget, depth, finish);
            }
            IntStream::Rle(runs) => return runs.decode(count, budget, depth, finish),
            IntStream::Dictionary(dictionary) => {
                return dictionary.decode(count, budget, depth, finish)
            }
            IntStream::Zstd(frame) => {
                let inner = frame.decompress(max_stream_size::<W>(count), budget)?;
                return decode_nested_then(&inner, count, budget, depth + 1, finish);
            }
            IntStream::Zigzag(inner) => transform::decode_zigzag(inner, count, budget, depth),
            IntStream::Delta(inner) => transform::decode_delta(inner, count, budget, depth),
        }?;
        finish.apply_all(&mut words);
        Ok(words)
    }

    /// The codec and the nested streams, described.
    pub(crate) fn describe(self, at: Describer) -> (Codec, Vec<Encoding>) {
        let nested = |inner| vec![describe::<W>(inner, at.nested())];
        match self {
            IntStream::Fixed(fixed) => (fixed.codec(), Vec::new()),
            IntStream::Varint(_) => (Codec::Varint, Vec::new()),
            IntStream::Zigzag(inner) => (Codec::Zigzag, nested(inner)),
            IntStream::Delta(inner) => (Codec::Delta, nested(inner)),
            IntStream::BitPack(_) => (Codec::BitPack, Vec::new()),
            IntStream::Simple16(_) => (Codec::Simple16, Vec::new()),
            IntStream::Rle(runs) => runs.describe::<W>(at),
            IntStream::Dictionary(dictionary) => dictionary.describe::<W>(at),
            IntStream::Huffman(huffman) => huffman.describe::<W>(at),
            IntStream::Zstd(frame) => frame.describe(at, describe::<W>),
        }
    }
}

/// An unsigned machine word that integer streams are made of.
pub(crate) trait Word:
    Key
    + Pooled
    + Copy
    + Default
    + Eq
    + Ord
    + Hash
    + Debug
    + Send
    + Sync
    + 'static
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
{
    const BITS: u32;
    const BYTES: usize;
    const ZERO: Self;
    const ONE: Self;

    fn leading_zeros(self) -> u32;
    fn wrapping_neg(self) -> Self;
    fn wrapping_add(self, other: Self) -> Self;
    fn wrapping_sub(self, other: Self) -> Self;
    /// The lowest eight bits.
    fn low_byte(self) -> u8;
    fn from_u8(byte: u8) -> Self;
    /// The lowest 64 bits.
    fn low_u64(self) -> u64;
    /// Zero-extends (or truncates) a `u64`.
    fn from_u64(value: u64) -> Self;
    /// The word's little-endian bytes, zeros past its size.
    fn to_le_padded(self) -> [u8; 16];
    /// Reads a word from up to `BYTES` little-endian bytes.
    fn read_le(bytes: &[u8]) -> Self;
    /// Reads a word from the first `BYTES` of 16 little-endian bytes.
    fn from_le_padded(bytes: [u8; 16]) -> Self;
}

macro_rules! impl_word {
    ($($t:ty),*) => {$(
        impl Word for $t {
            const BITS: u32 = <$t>::BITS;
            const BYTES: usize = size_of::<$t>();
            const ZERO: Self = 0;
            const ONE: Self = 1;

            #[inline]
            fn leading_zeros(self) -> u32 {
                <$t>::leading_zeros(self)
            }
            #[inline]
            fn wrapping_neg(self) -> Self {
                <$t>::wrapping_neg(self)
            }
            #[inline]
            fn wrapping_add(self, other: Self) -> Self {
                <$t>::wrapping_add(self, other)
            }
            #[inline]
            fn wrapping_sub(self, other: Self) -> Self {
                <$t>::wrapping_sub(self, other)
            }
            #[inline]
            fn low_byte(self) -> u8 {
                self as u8
            }
            #[inline]
            fn from_u8(byte: u8) -> Self {
                byte as $t
            }
            #[inline]
            fn low_u64(self) -> u64 {
                self as u64
            }
            #[inline]
            fn from_u64(value: u64) -> Self {
                value as $t
            }
            #[inline]
            fn to_le_padded(self) -> [u8; 16] {
                let mut bytes = [0u8; 16];
                bytes[..size_of::<$t>()].copy_from_slice(&self.to_le_bytes());
                bytes
            }
            #[inline]
            fn from_le_padded(bytes: [u8; 16]) -> Self {
                let mut buf = [0u8; size_of::<$t>()];
                buf.copy_from_slice(&bytes[..size_of::<$t>()]);
                <$t>::from_le_bytes(buf)
            }
            #[inline]
            fn read_le(bytes: &[u8]) -> Self {
                let mut buf = [0u8; size_of::<$t>()];
                buf[..bytes.len()].copy_from_slice(bytes);
                <$t>::from_le_bytes(buf)
            }
        }
    )*};
}
impl_word!(u8, u16, u32, u64, u128);

/// The number of significant bits of `value`.
#[inline]
pub(crate) fn bit_width<W: Word>(value: W) -> u32 {
    W::BITS - value.leading_zeros()
}

/// The smallest and largest of `values` (for none, the largest word and 0).
pub(crate) fn extremes<W: Word>(values: &[W]) -> (W, W) {
    values
        .iter()
        .fold((W::ZERO.wrapping_sub(W::ONE), W::ZERO), |(min, max), &v| {
            (min.min(v), max.max(v))
        })
}

/// Decodes `count` words. The caller has charged the budget for the words themselves; nested
/// allocations are charged here.
pub(crate) fn decode<W: Word>(
    bytes: &[u8],
    count: usize,
    budget: &mut Budget,
) -> Result<Vec<W>, DecodeError> {
    decode_nested(bytes, count, budget, 0)
}

/// The `count` bytes of a stream of 8-bit words that holds them as they are (fixed width, one
/// byte each), where they are in `bytes`; `None` for a stream of another codec or width.
pub(crate) fn bytes_as_they_are(bytes: &[u8], count: usize) -> Option<&[u8]> {
    match IntStream::<u8>::parse(bytes).ok()? {
        IntStream::Fixed(fixed) => fixed.bytes_as_they_are(count),
        _ => None,
    }
}

/// [`decode`] for a stream nested `depth` levels inside others.
pub(crate) fn decode_nested<W: Word>(
    bytes: &[u8],
    count: usize,
    budget: &mut Budget,
    depth: usize,
) -> Result<Vec<W>, DecodeError> {
    decode_nested_then(bytes, count, budget, depth, AsDecoded)
}

/// [`decode_nested`], each word then made what `finish` (a transform over the stream) makes it.
fn decode_nested_then<W: Word>(
    bytes: &[u8],
    count: usize,
    budget: &mut Budget,
    depth: usize,
    finish: impl Finish<W>,
) -> Result<Vec<W>, DecodeError> {
    check_depth(depth)?;
    if is_empty_form(bytes, count) {
        return Ok(Vec::new());
    }
    IntStream::<W>::parse(bytes)?.decode_then(count, budget, depth, finish)
}

/// The most bytes an honest stream of `count` words can take, nested encodings included; bounds
/// what a zstd frame may claim to expand to.
pub(crate) fn max_stream_size<W: Word>(count: usize) -> usize {
    count
        .saturating_mul(3 * (W::BYTES + 3))
        .saturating_add(1024)
}

/// The encoding of the branch `bytes` of an integer leaf of words `W`: a keyed stream
/// ([`keyed`]) or any other.
pub(crate) fn describe_branch<W: Word>(bytes: &[u8], at: Describer) -> Encoding {
    if bytes.first() == Some(&keyed::TAG) {
        keyed::describe_stream::<W>(bytes, at)
    } else {
        describe::<W>(bytes, at)
    }
}

/// The encoding of a stream of words `W`, such as `delta → zigzag → bitpack`.
pub(crate) fn describe<W: Word>(bytes: &[u8], at: Describer) -> Encoding {
    at.stream(bytes, IntStream::<W>::parse, IntStream::describe)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::encodings::test_len;
    use crate::encodings::Settings;
    use crate::error::DecodeErrorKind;

    /// The encoding of a stream of words `W`, zstd frames decompressed, as it prints.
    pub(crate) fn described<W: Word>(bytes: &[u8]) -> String {
        describe::<W>(bytes, Describer::new(true)).to_string()
    }

    /// Inputs every integer codec must round-trip: random, sorted, constant, alternating, extreme.
    pub(crate) fn shapes() -> Vec<Vec<u64>> {
        let mut random = crate::encodings::xorshift(0x2545_f491_4f6c_dd1d);
        vec![
            vec![],
            vec![42],
            vec![0; test_len(1000)],
            vec![u64::MAX; 300],
            (0..test_len(5000) as u64).collect(),
            (0..test_len(5000) as u64).map(|i| i * 1000 + 7).collect(),
            (0..test_len(3000))
                .map(|i| if i % 2 == 0 { 0 } else { u64::MAX })
                .collect(),
            (0..test_len(2000)).map(|_| random()).collect(),
            (0..test_len(2000)).map(|_| random() % 100).collect(),
            (0..test_len(4000)).map(|_| random() % 3).collect(),
            (0..test_len(1000)).map(|i| (i / 100) as u64).collect(),
            (0..test_len(777)).map(|_| random() >> 40).collect(),
            (0..129).map(|i| 1u64 << (i % 64)).collect(),
        ]
    }

    fn round_trip_with<W: Word>(values: &[W], settings: &Settings) {
        let mut out = Vec::new();
        let _ = encode(values, settings, &mut out);
        let back =
            decode::<W>(&out, values.len(), &mut Budget::new(u64::MAX)).unwrap_or_else(|e| {
                panic!(
                    "{e} for {} values encoded as {}",
                    values.len(),
                    described::<W>(&out)
                )
            });
        assert_eq!(back, values, "encoded as {}", described::<W>(&out));
    }

    #[test]
    fn the_selected_cascade_round_trips_every_shape_and_width() {
        for settings in [Settings::default(), Settings::fast(), Settings::small()] {
            for shape in shapes() {
                round_trip_with(&shape, &settings);
                round_trip_with(
                    &shape.iter().map(|&v| v as u8).collect::<Vec<_>>(),
                    &settings,
                );
                round_trip_with(
                    &shape.iter().map(|&v| v as u16).collect::<Vec<_>>(),
                    &settings,
                );
                round_trip_with(
                    &shape.iter().map(|&v| v as u32).collect::<Vec<_>>(),
                    &settings,
                );
                round_trip_with(
                    &shape
                        .iter()
                        .map(|&v| u128::from(v) << 60)
                        .collect::<Vec<_>>(),
                    &settings,
                );
            }
        }
    }

    #[test]
    fn deep_cascades_are_errors_not_stack_overflows() {
        let mut bytes = vec![IntTag::Zigzag as u8; 100_000];
        bytes.extend([IntTag::Fixed as u8, 0]);
        assert!(decode::<u64>(&bytes, 1, &mut Budget::new(u64::MAX)).is_err());
        let description = described::<u64>(&bytes);
        assert!(
            description.ends_with("unreadable (corrupt: encodings nest deeper than 8 levels)"),
            "{description}"
        );
    }

    #[test]
    fn tags_are_their_bytes_and_others_are_corrupt() {
        for byte in 0..=u8::MAX {
            match IntTag::try_from(byte) {
                Ok(tag) => assert_eq!(tag as u8, byte),
                Err(error) => {
                    assert_eq!(error.kind(), DecodeErrorKind::Corrupt);
                    assert!(error.message().contains(&format!("{byte:#04x}")), "{error}");
                }
            }
        }
        assert_eq!(IntTag::try_from(0x0d).ok(), Some(IntTag::Huffman));
        // Float transforms are not integer codecs.
        assert!(IntTag::try_from(0x09).is_err());
    }

    /// A stream of no values may be no bytes at all; a stream of values may not, and a tag must
    /// be known even where no values follow it.
    #[test]
    fn unknown_tags_and_empty_streams_of_values_are_errors() {
        assert!(decode::<u64>(&[0x7f], 0, &mut Budget::new(u64::MAX)).is_err());
        assert_eq!(
            decode::<u64>(&[], 0, &mut Budget::new(u64::MAX)),
            Ok(vec![])
        );
        assert_eq!(
            decode::<u64>(&[0x01], 0, &mut Budget::new(u64::MAX)),
            Ok(vec![])
        );
        assert!(decode::<u64>(&[], 1, &mut Budget::new(u64::MAX)).is_err());
        // Nested: a run-length stream of no runs, its lengths and values empty.
        assert_eq!(
            decode::<u64>(&[IntTag::Rle as u8, 0, 0], 0, &mut Budget::new(u64::MAX)),
            Ok(vec![])
        );
        assert!(decode::<u64>(&[0x09, 0], 1, &mut Budget::new(u64::MAX)).is_err());
        assert!(described::<u64>(&[0x09, 0]).starts_with("unreadable (corrupt: unknown integer"));
    }

    /// Descriptions name each codec with its parameters and nested streams; corrupt nested
    /// streams are named as such, inside a description of the rest.
    #[test]
    fn descriptions_print_the_cascade() {
        let fixed = |width: u8| [IntTag::Fixed as u8, width];
        let mut rle = vec![IntTag::Rle as u8, 1];
        crate::encodings::bytes::write_prefixed(&mut rle, &fixed(0));
        rle.push(IntTag::Varint as u8);
        assert_eq!(
            described::<u32>(&rle),
            "rle(lengths: fixed(0 bytes), values: varint)"
        );
        let mut delta = vec![IntTag::Delta as u8, IntTag::Zigzag as u8];
        delta.extend(rle);
        assert_eq!(
            described::<u32>(&delta),
            "delta → zigzag → rle(lengths: fixed(0 bytes), values: varint)"
        );
        let encoding = describe::<u32>(&delta, Describer::new(false));
        assert_eq!(encoding.iter().count(), 5);
        assert_eq!(encoding.bytes, delta.len());
        assert_eq!(
            described::<u8>(&fixed(2)),
            "unreadable (corrupt: fixed width of 2 bytes for 8-bit integers)"
        );
        let mut dictionary = vec![IntTag::Dictionary as u8, 3, 1, 0x7f];
        dictionary.push(IntTag::BitPack as u8);
        assert_eq!(
            described::<u64>(&dictionary),
            "dictionary(values: unreadable (corrupt: unknown integer encoding tag 0x7f), \
             indices: unreadable (truncated: expected another byte))"
        );
    }
}
