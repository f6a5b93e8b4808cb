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
    let mut reader = ByteReader::new(body);
    for _ in 0..count {
        values.push(finish.apply(read(&mut reader)?));
    }
    reader.finish("varints")?;
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::super::transform::{AsDecoded, RunningSums};
    use super::*;

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
