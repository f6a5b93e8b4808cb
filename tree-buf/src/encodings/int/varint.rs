//! LEB128 varints: seven bits a byte, low bits first.
//!
//! ```text
//! varint_stream := 0x01 varint{count}   each must fit the word width
//! ```

use super::transform::Finish;
use super::{bit_width, IntTag, Word};
use crate::encodings::bytes::ByteReader;
use crate::error::{corrupt, DecodeError};

#[inline]
pub(super) fn len<W: Word>(value: W) -> usize {
    (bit_width(value | W::ONE) as usize).div_ceil(7)
}

#[inline]
pub(super) fn write<W: Word>(out: &mut Vec<u8>, mut value: W) {
    let threshold = W::from_u8(0x80);
    while value >= threshold {
        out.push(value.low_byte() | 0x80);
        value = value >> 7;
    }
    out.push(value.low_byte());
}

pub(super) fn encode<W: Word>(values: &[W], out: &mut Vec<u8>) {
    out.push(IntTag::Varint as u8);
    for &value in values {
        write(out, value);
    }
}

pub(super) fn read<W: Word>(reader: &mut ByteReader<'_>) -> Result<W, DecodeError> {
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

/// The `count` values, each made what `finish` makes it as it is read.
pub(super) fn decode<W: Word>(
    body: &[u8],
    count: usize,
    mut finish: impl Finish<W>,
) -> Result<Vec<W>, DecodeError> {
    if count > body.len() {
        return Err(corrupt(format!(
            "{} bytes cannot hold {count} varints",
            body.len()
        )));
    }
    let mut values = Vec::with_capacity(count);
    let mut rest = body;
    for _ in 0..count {
        let value = match read_within_word::<W>(rest) {
            Some((value, len)) => {
                rest = rest.get(len..).unwrap_or_default();
                value
            }
            None => {
                let mut reader = ByteReader::new(rest);
                let value = read(&mut reader)?;
                rest = reader.rest();
                value
            }
        };
        values.push(finish.apply(value));
    }
    ByteReader::new(rest).finish("varints")?;
    Ok(values)
}

/// The varint at the start of `bytes` and its length in bytes, from one read of eight bytes and
/// without a loop over them, if there are eight and it ends within them too short to overflow
/// `W`; `None` leaves it to [`read`]. Lengths vary from value to value, and a loop that stops at
/// the last byte mispredicts where they do.
#[inline(always)]
fn read_within_word<W: Word>(bytes: &[u8]) -> Option<(W, usize)> {
    let eight: [u8; 8] = bytes.get(..8)?.try_into().ok()?;
    let word = u64::from_le_bytes(eight);
    // The high bit of each byte but the last is set.
    let ends = !word & 0x8080_8080_8080_8080;
    let len = (ends.trailing_zeros() / 8 + 1) as usize;
    // Seven bits a byte: `len` bytes overflow no word of `7 * len` bits or more.
    if len > (W::BITS / 7).min(8) as usize {
        return None;
    }
    let bits = word & 0x7f7f_7f7f_7f7f_7f7f & (u64::MAX >> (64 - 8 * len));
    // The seven bits of each byte side by side: pairs of bytes, then of pairs, then of those.
    let bits = (bits & 0x007f_007f_007f_007f) | ((bits >> 1) & 0x3f80_3f80_3f80_3f80);
    let bits = (bits & 0x0000_3fff_0000_3fff) | ((bits >> 2) & 0x0fff_c000_0fff_c000);
    let bits = (bits & 0x0000_0000_0fff_ffff) | ((bits >> 4) & 0x00ff_ffff_f000_0000);
    Some((W::from_u64(bits), len))
}

#[cfg(test)]
mod tests {
    use super::super::transform::{AsDecoded, RunningSums};
    use super::*;
    use crate::encodings::xorshift;

    fn decoded<W: Word>(body: &[u8], count: usize) -> Result<Vec<W>, DecodeError> {
        decode(body, count, AsDecoded)
    }

    #[test]
    fn a_transform_over_the_values_is_applied_as_they_are_read() {
        let values: Vec<u64> = (0..300u64).map(|i| (i * 7919) % 1000).collect();
        let mut out = Vec::new();
        encode(&values, &mut out);
        let mut sums = values.clone();
        RunningSums::<u64, true>::new().apply_all(&mut sums);
        let summed = decode(&out[1..], values.len(), RunningSums::<u64, true>::new());
        assert_eq!(summed.unwrap(), sums);
    }

    #[test]
    fn round_trips_the_extremes_of_each_width() {
        let mut out = Vec::new();
        encode(&[0u8, 127, 128, u8::MAX], &mut out);
        assert_eq!(decoded::<u8>(&out[1..], 4).unwrap(), [0, 127, 128, u8::MAX]);
        let mut out = Vec::new();
        encode(&[u128::MAX, 0], &mut out);
        assert_eq!(out.len(), 1 + 19 + 1);
        assert_eq!(decoded::<u128>(&out[1..], 2).unwrap(), [u128::MAX, 0]);
    }

    /// Decodes `count` varints a byte at a time through [`read`]: the plain reference.
    fn read_one_by_one<W: Word>(body: &[u8], count: usize) -> Result<Vec<W>, DecodeError> {
        let mut reader = ByteReader::new(body);
        let values = (0..count)
            .map(|_| read(&mut reader))
            .collect::<Result<_, _>>()?;
        reader.finish("varints")?;
        Ok(values)
    }

    /// Varints read from one word at a time agree with those read a byte at a time, for every
    /// length of every width, near the end of the bytes too, for varints with needless zero
    /// groups and for those that overflow the width.
    #[test]
    fn reading_a_word_at_a_time_agrees_with_a_byte_at_a_time() {
        fn agree<W: Word + std::fmt::Debug>(body: &[u8], count: usize) {
            let fast = decoded::<W>(body, count).map_err(|e| e.to_string());
            let plain = read_one_by_one::<W>(body, count).map_err(|e| e.to_string());
            assert_eq!(fast, plain, "{} bits: {body:02x?}", W::BITS);
        }
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        for _ in 0..2000 {
            // Varints of 1 to 11 bytes, some ending in needless zero groups or in bits past
            // the narrower widths.
            let mut body = Vec::new();
            let count = (next() % 6 + 1) as usize;
            for _ in 0..count {
                let len = (next() % 11 + 1) as usize;
                for at in 0..len {
                    let byte = (next() as u8) & 0x7f;
                    let byte = if next().is_multiple_of(4) { 0 } else { byte };
                    body.push(if at + 1 < len { byte | 0x80 } else { byte });
                }
            }
            agree::<u8>(&body, count);
            agree::<u16>(&body, count);
            agree::<u32>(&body, count);
            agree::<u64>(&body, count);
            agree::<u128>(&body, count);
        }
        for value in [0u64, 1, 127, 128, 1 << 21, (1 << 56) - 1, 1 << 56, u64::MAX] {
            let mut body = Vec::new();
            write(&mut body, value);
            body.extend([5; 9]);
            assert_eq!(decoded::<u64>(&body, 10).unwrap()[0], value);
        }
    }

    #[test]
    fn hostile_streams_are_errors() {
        assert!(decoded::<u32>(&[0x80], 1).is_err(), "unterminated");
        assert!(decoded::<u8>(&[0x80, 0x02], 1).is_err(), "over 8 bits");
        assert!(decoded::<u64>(&[1, 2], 1).is_err(), "trailing bytes");
        assert!(
            decoded::<u64>(&[], usize::MAX).is_err(),
            "count past the bytes"
        );
        assert!(decoded::<u64>(&[0xff; 11], 1).is_err(), "too long");
    }
}
