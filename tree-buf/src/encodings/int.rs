//! Integer streams: columns of unsigned words of 8 to 128 bits.
//!
//! Signed integers travel as their two's-complement bit pattern of the same width, floats as their
//! IEEE 754 bits; the schema says how to read the words. The number of values is never stored
//! here: the parent node knows it.
//!
//! ```text
//! int_stream := 0x00 width:u8 word{count}     Fixed: each word little-endian in `width` bytes
//!                                             (0..=size of the word; 0 means every value is 0)
//!             | 0x01 varint{count}            Varint: each word as unsigned LEB128
//!             | 0x02 int_stream               Zigzag: the inner stream holds zigzag(value), where
//!                                             zigzag(v) = (v << 1) ^ (v >> (bits - 1)) (arithmetic
//!                                             shift), so small magnitudes of either sign are small
//! ```

use std::fmt::Debug;
use std::ops::{BitAnd, BitOr, BitXor, Shl, Shr};

use super::bytes::ByteReader;
use crate::error::{corrupt, DecodeError};

const FIXED: u8 = 0x00;
const VARINT: u8 = 0x01;
const ZIGZAG: u8 = 0x02;

/// An unsigned machine word that integer streams are made of.
pub(crate) trait Word:
    Copy
    + Default
    + Eq
    + Ord
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
    const ZERO: Self;
    const ONE: Self;

    fn leading_zeros(self) -> u32;
    fn wrapping_neg(self) -> Self;
    /// The lowest eight bits.
    fn low_byte(self) -> u8;
    fn from_u8(byte: u8) -> Self;
    fn write_le(self, out: &mut Vec<u8>, width: usize);
    /// Reads a word from up to `size_of::<Self>()` little-endian bytes.
    fn read_le(bytes: &[u8]) -> Self;
}

macro_rules! impl_word {
    ($($t:ty),*) => {$(
        impl Word for $t {
            const BITS: u32 = <$t>::BITS;
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
            fn low_byte(self) -> u8 {
                self as u8
            }
            #[inline]
            fn from_u8(byte: u8) -> Self {
                byte as $t
            }
            #[inline]
            fn write_le(self, out: &mut Vec<u8>, width: usize) {
                out.extend_from_slice(&self.to_le_bytes()[..width]);
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

/// Maps a two's-complement pattern so that small magnitudes of either sign become small.
#[inline]
pub(crate) fn zigzag<W: Word>(value: W) -> W {
    (value << 1) ^ (value >> (W::BITS - 1)).wrapping_neg()
}

/// The inverse of [`zigzag`].
#[inline]
pub(crate) fn unzigzag<W: Word>(value: W) -> W {
    (value >> 1) ^ (value & W::ONE).wrapping_neg()
}

fn bytes_needed<W: Word>(max: W) -> usize {
    ((W::BITS - max.leading_zeros()) as usize).div_ceil(8)
}

fn word_varint_len<W: Word>(value: W) -> usize {
    let bits = (W::BITS - (value | W::ONE).leading_zeros()) as usize;
    bits.div_ceil(7)
}

/// Appends the smallest of the fixed-width and varint encodings of `values`.
pub(crate) fn encode_unsigned<W: Word>(values: &[W], out: &mut Vec<u8>) {
    let max = values.iter().copied().max().unwrap_or(W::ZERO);
    let width = bytes_needed(max);
    let fixed_size = width * values.len();
    let varint_size: usize = values.iter().map(|&v| word_varint_len(v)).sum();
    if varint_size < fixed_size {
        out.push(VARINT);
        for &value in values {
            write_word_varint(out, value);
        }
    } else {
        out.push(FIXED);
        out.push(width as u8);
        out.reserve(fixed_size);
        for &value in values {
            value.write_le(out, width);
        }
    }
}

/// Appends two's-complement patterns, zigzag-mapped so negative values stay small.
pub(crate) fn encode_signed<W: Word>(values: &[W], out: &mut Vec<u8>) {
    out.push(ZIGZAG);
    let mapped: Vec<W> = values.iter().map(|&v| zigzag(v)).collect();
    encode_unsigned(&mapped, out);
}

fn write_word_varint<W: Word>(out: &mut Vec<u8>, mut value: W) {
    let threshold = W::from_u8(0x80);
    while value >= threshold {
        out.push(value.low_byte() | 0x80);
        value = value >> 7;
    }
    out.push(value.low_byte());
}

/// Decodes `count` words. The caller has charged the decoding budget for them.
pub(crate) fn decode<W: Word>(bytes: &[u8], count: usize) -> Result<Vec<W>, DecodeError> {
    let mut reader = ByteReader::new(bytes);
    match reader.u8()? {
        FIXED => {
            let width = usize::from(reader.u8()?);
            if width > size_of::<W>() {
                return Err(corrupt(format!("fixed width of {width} bytes for {}-bit integers", W::BITS)));
            }
            let data = reader.rest();
            if count.checked_mul(width) != Some(data.len()) {
                return Err(corrupt(format!("{} bytes cannot hold {count} values of {width} bytes", data.len())));
            }
            if width == 0 {
                return Ok(vec![W::ZERO; count]);
            }
            Ok(data.chunks_exact(width).map(W::read_le).collect())
        }
        VARINT => {
            let data = reader.rest();
            if count > data.len() {
                return Err(corrupt(format!("{} bytes cannot hold {count} varints", data.len())));
            }
            let mut values = Vec::with_capacity(count);
            let mut reader = ByteReader::new(data);
            for _ in 0..count {
                values.push(read_word_varint(&mut reader)?);
            }
            reader.finish("varints")?;
            Ok(values)
        }
        ZIGZAG => {
            let mut values = decode::<W>(reader.rest(), count)?;
            for value in &mut values {
                *value = unzigzag(*value);
            }
            Ok(values)
        }
        tag => Err(corrupt(format!("unknown integer encoding tag {tag:#04x}"))),
    }
}

fn read_word_varint<W: Word>(reader: &mut ByteReader<'_>) -> Result<W, DecodeError> {
    let max_bytes = W::BITS.div_ceil(7);
    let mut value = W::ZERO;
    for index in 0..max_bytes {
        let byte = reader.u8()?;
        let shift = 7 * index;
        let bits = W::from_u8(byte & 0x7f);
        let room = W::BITS - shift;
        if room < 7 && (bits >> room) != W::ZERO {
            return Err(corrupt(format!("varint overflows {} bits", W::BITS)));
        }
        value = value | (bits << shift);
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(corrupt(format!("varint too long for {} bits", W::BITS)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<W: Word>(values: &[W]) {
        let mut out = Vec::new();
        encode_unsigned(values, &mut out);
        assert_eq!(decode::<W>(&out, values.len()).unwrap(), values);
        let mut out = Vec::new();
        encode_signed(values, &mut out);
        assert_eq!(decode::<W>(&out, values.len()).unwrap(), values);
    }

    #[test]
    fn every_width_round_trips_extremes() {
        round_trip::<u8>(&[0, 1, 127, 128, 255]);
        round_trip::<u16>(&[0, 1, 300, u16::MAX]);
        round_trip::<u32>(&[7, 7, 7]);
        round_trip::<u64>(&[0, u64::MAX, 1 << 63, 12345]);
        round_trip::<u128>(&[0, u128::MAX, 1 << 127, 1 << 64]);
        round_trip::<u64>(&[]);
    }

    #[test]
    fn zigzag_is_its_own_inverse_and_keeps_small_values_small() {
        for v in [0u32, 1, 2, u32::MAX, u32::MAX - 1, 1 << 31] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
        assert_eq!(zigzag(u32::MAX), 1); // -1
        assert_eq!(zigzag(1u32), 2);
    }

    #[test]
    fn picks_the_smaller_encoding() {
        let mut out = Vec::new();
        encode_unsigned(&[0u64; 1000], &mut out);
        assert_eq!(out, [FIXED, 0]);
        let mut out = Vec::new();
        let mut values = vec![1u64; 100];
        values.push(1 << 40);
        encode_unsigned(&values, &mut out);
        assert_eq!(out[0], VARINT);
    }

    #[test]
    fn hostile_streams_are_errors() {
        assert!(decode::<u8>(&[FIXED, 2, 0, 0], 1).is_err(), "width above the word size");
        assert!(decode::<u32>(&[FIXED, 4, 0, 0, 0], 1).is_err(), "short data");
        assert!(decode::<u32>(&[VARINT, 0x80], 1).is_err(), "unterminated varint");
        assert!(decode::<u8>(&[VARINT, 0x80, 0x02], 1).is_err(), "varint over 8 bits");
        assert!(decode::<u64>(&[VARINT, 1, 2], 1).is_err(), "trailing bytes");
        assert!(decode::<u64>(&[VARINT], usize::MAX).is_err(), "count past the bytes");
        assert!(decode::<u64>(&[FIXED, 1], usize::MAX).is_err(), "count past the bytes");
        assert!(decode::<u64>(&[0x7f], 0).is_err(), "unknown tag");
        assert!(decode::<u64>(&[], 0).is_err(), "empty");
    }

    #[test]
    fn varint_accepts_the_largest_value_of_each_width() {
        let mut out = vec![VARINT];
        write_word_varint(&mut out, u8::MAX);
        assert_eq!(decode::<u8>(&out, 1).unwrap(), [u8::MAX]);
        let mut out = vec![VARINT];
        write_word_varint(&mut out, u128::MAX);
        assert_eq!(decode::<u128>(&out, 1).unwrap(), [u128::MAX]);
    }
}
