//! Integer streams: columns of unsigned words of 8 to 128 bits.
//!
//! Signed integers travel as their two's-complement bit pattern of the same width, floats as their
//! IEEE 754 bits; the schema says how to read the words. The number of values (`count`) is never
//! stored at the top: the parent node knows it. Transforms nest another stream, so encodings form
//! a cascade such as `delta → zigzag → bitpack`.
//!
//! ```text
//! int_stream := 0x00 width:u8 word{count}        Fixed: each word little-endian in `width` bytes
//!                                                (0..=word size; 0 means every value is 0)
//!             | 0x01 varint{count}               Varint: each word as unsigned LEB128
//!             | 0x02 int_stream                  Zigzag: the inner stream holds
//!                                                (v << 1) ^ (v >> (bits - 1)), arithmetic shift
//!             | 0x03 int_stream                  Delta: the inner stream holds v[0] and then
//!                                                v[i] - v[i-1], wrapping at the word width
//!             | 0x04 min:varint block*           BitPack: frame of reference; the words minus
//!                                                `min` (wrapping) fit 32 bits and are packed in
//!                                                blocks: floor(count / 128) blocks of 128, then
//!                                                ceil((count mod 128) / 32) blocks of 32 (the last
//!                                                padded with zeros).
//!                                                block := bits:u8 (0..=32) packed
//!                                                (bits * 16 bytes for 128, bits * 4 for 32, in the
//!                                                layout of the `bitpacking` crate's BitPacker4x
//!                                                and BitPacker1x)
//!             | 0x05 word32le*                   Simple16: every value below 2^28, packed into
//!                                                32-bit words, see `simple16`
//!             | 0x06 runs:varint lengths:prefixed values:int_stream
//!                                                Rle: `lengths` an int_stream of `runs` 64-bit
//!                                                words, each one less than its run's length (the
//!                                                lengths add up to count); `values` holds `runs`
//!                                                words, one per run
//!             | 0x07 distinct:varint values:prefixed indices:int_stream
//!                                                Dictionary: `values` holds `distinct` words,
//!                                                `indices` count 32-bit indices into them
//!             | 0x08 size:varint zstd_frame      Zstd: the frame decompresses to exactly `size`
//!                                                bytes, an int_stream of the same count
//!             | 0x0c group:varint distinct:varint values:prefixed indices:int_stream
//!                                                GroupDictionary: the words form count / group
//!                                                groups (count must be a multiple of group);
//!                                                `values` holds distinct * group words, `indices`
//!                                                one 32-bit index per group
//!             | 0x0d huffman                     Huffman: a prefix code per repeated value,
//!                                                the others escaped, see `huffman`
//! ```
//!
//! Tags 0x09 to 0x0b are float transforms (see `float`), valid only in float branches. Cascades
//! may nest at most [`MAX_CASCADE`] levels.

pub(crate) mod bitpack;
mod dictionary;
mod fixed;
mod huffman;
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
use crate::error::{corrupt, DecodeError};

pub(crate) use select::encode;

pub(crate) const FIXED: u8 = 0x00;
pub(crate) const VARINT: u8 = 0x01;
pub(crate) const ZIGZAG: u8 = 0x02;
pub(crate) const DELTA: u8 = 0x03;
pub(crate) const BITPACK: u8 = 0x04;
pub(crate) const SIMPLE16: u8 = 0x05;
pub(crate) const RLE: u8 = 0x06;
pub(crate) const DICTIONARY: u8 = 0x07;
pub(crate) const ZSTD: u8 = 0x08;
pub(crate) const GROUP_DICTIONARY: u8 = 0x0c;
pub(crate) const HUFFMAN: u8 = 0x0d;

/// The deepest nesting of encodings a stream may have.
pub(crate) const MAX_CASCADE: usize = 8;

/// An unsigned machine word that integer streams are made of.
pub(crate) trait Word:
    Copy
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
    fn write_le(self, out: &mut Vec<u8>, width: usize);
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
            fn write_le(self, out: &mut Vec<u8>, width: usize) {
                out.extend_from_slice(&self.to_le_bytes()[..width]);
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

/// Decodes `count` words. The caller has charged the budget for the words themselves; nested
/// allocations are charged here.
pub(crate) fn decode<W: Word>(
    bytes: &[u8],
    count: usize,
    budget: &mut Budget,
) -> Result<Vec<W>, DecodeError> {
    decode_nested(bytes, count, budget, 0)
}

/// [`decode`] for a stream nested `depth` levels inside others.
pub(crate) fn decode_nested<W: Word>(
    bytes: &[u8],
    count: usize,
    budget: &mut Budget,
    depth: usize,
) -> Result<Vec<W>, DecodeError> {
    if depth > MAX_CASCADE {
        return Err(corrupt(format!(
            "encodings nest deeper than {MAX_CASCADE} levels"
        )));
    }
    let mut reader = ByteReader::new(bytes);
    let tag = reader.u8()?;
    let body = reader.rest();
    match tag {
        FIXED => fixed::decode(body, count),
        VARINT => varint::decode(body, count),
        ZIGZAG => transform::decode_zigzag(body, count, budget, depth),
        DELTA => transform::decode_delta(body, count, budget, depth),
        BITPACK => bitpack::decode(body, count),
        SIMPLE16 => simple16::decode(body, count),
        RLE => rle::decode(body, count, budget, depth),
        DICTIONARY => dictionary::decode(body, count, budget, depth),
        GROUP_DICTIONARY => dictionary::decode_groups(body, count, budget, depth),
        HUFFMAN => huffman::decode(body, count, budget, depth),
        ZSTD => {
            let inner = super::zstd::decompress(body, max_stream_size::<W>(count), budget)?;
            decode_nested(&inner, count, budget, depth + 1)
        }
        tag => Err(corrupt(format!("unknown integer encoding tag {tag:#04x}"))),
    }
}

/// The most bytes an honest stream of `count` words can take, nested encodings included; bounds
/// what a zstd frame may claim to expand to.
pub(crate) fn max_stream_size<W: Word>(count: usize) -> usize {
    count
        .saturating_mul(3 * (W::BYTES + 3))
        .saturating_add(1024)
}

/// Names the cascade of an encoded stream, such as `delta → zigzag → bitpack`, for size listings.
pub(crate) fn describe(bytes: &[u8]) -> String {
    let mut reader = ByteReader::new(bytes);
    let Ok(tag) = reader.u8() else {
        return "empty".into();
    };
    let body = reader.rest();
    let nested = |bytes: &[u8]| describe(bytes);
    match tag {
        FIXED => format!("fixed({} bytes)", body.first().copied().unwrap_or(0)),
        VARINT => "varint".into(),
        ZIGZAG => format!("zigzag → {}", nested(body)),
        DELTA => format!("delta → {}", nested(body)),
        BITPACK => "bitpack".into(),
        SIMPLE16 => "simple16".into(),
        RLE => rle::describe(body),
        DICTIONARY => dictionary::describe(body),
        GROUP_DICTIONARY => dictionary::describe_groups(body),
        HUFFMAN => huffman::describe(body),
        ZSTD => format!("zstd({})", super::zstd::describe_inner(body, describe)),
        _ => super::float::describe(bytes),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::encodings::test_len;
    use crate::encodings::Settings;

    /// Inputs every integer codec must round-trip: random, sorted, constant, alternating, extreme.
    pub(crate) fn shapes() -> Vec<Vec<u64>> {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut random = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
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
        encode(values, settings, &mut out);
        let back =
            decode::<W>(&out, values.len(), &mut Budget::new(u64::MAX)).unwrap_or_else(|e| {
                panic!(
                    "{e} for {} values encoded as {}",
                    values.len(),
                    describe(&out)
                )
            });
        assert_eq!(back, values, "encoded as {}", describe(&out));
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
        let mut bytes = vec![ZIGZAG; 100_000];
        bytes.extend([FIXED, 0]);
        assert!(decode::<u64>(&bytes, 1, &mut Budget::new(u64::MAX)).is_err());
    }

    #[test]
    fn unknown_tags_and_empty_streams_are_errors() {
        assert!(decode::<u64>(&[0x7f], 0, &mut Budget::new(u64::MAX)).is_err());
        assert!(decode::<u64>(&[], 0, &mut Budget::new(u64::MAX)).is_err());
        assert!(decode::<u64>(
            &[super::super::float::DECIMAL, 0],
            1,
            &mut Budget::new(u64::MAX)
        )
        .is_err());
    }
}
