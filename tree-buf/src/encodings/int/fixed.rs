//! Fixed width: every word in the fewest whole bytes that hold the largest.
//!
//! ```text
//! fixed := 0x00 width:u8 word{count}   little-endian, `width` bytes each (0 = all zero)
//! ```

use super::{bit_width, Word, FIXED};
use crate::error::{corrupt, DecodeError};

pub(super) fn width_for<W: Word>(max: W) -> usize {
    (bit_width(max) as usize).div_ceil(8)
}

/// The encoded size, given the largest value.
pub(super) fn size<W: Word>(count: usize, max: W) -> usize {
    2 + count * width_for(max)
}

pub(super) fn encode<W: Word>(values: &[W], max: W, out: &mut Vec<u8>) {
    let width = width_for(max);
    out.push(FIXED);
    out.push(width as u8);
    out.reserve(values.len() * width);
    if width == W::BYTES {
        for &value in values {
            value.write_le(out, W::BYTES);
        }
    } else {
        for &value in values {
            value.write_le(out, width);
        }
    }
}

pub(super) fn decode<W: Word>(body: &[u8], count: usize) -> Result<Vec<W>, DecodeError> {
    let (&width, data) = body
        .split_first()
        .ok_or_else(|| corrupt("fixed-width stream without a width"))?;
    let width = usize::from(width);
    if width > W::BYTES {
        return Err(corrupt(format!(
            "fixed width of {width} bytes for {}-bit integers",
            W::BITS
        )));
    }
    if count.checked_mul(width) != Some(data.len()) {
        return Err(corrupt(format!(
            "{} bytes cannot hold {count} values of {width} bytes",
            data.len()
        )));
    }
    if width == 0 {
        return Ok(vec![W::ZERO; count]);
    }
    Ok(data.chunks_exact(width).map(W::read_le).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_at_every_width() {
        for max in [0u64, 1, 255, 256, 65_535, 1 << 40, u64::MAX] {
            let values = vec![max, 0, max / 2];
            let mut out = Vec::new();
            encode(&values, max, &mut out);
            assert_eq!(out.len(), size(values.len(), max));
            assert_eq!(decode::<u64>(&out[1..], values.len()).unwrap(), values);
        }
    }

    #[test]
    fn hostile_streams_are_errors() {
        assert!(
            decode::<u8>(&[2, 0, 0], 1).is_err(),
            "width above the word size"
        );
        assert!(decode::<u32>(&[4, 0, 0, 0], 1).is_err(), "short data");
        assert!(
            decode::<u64>(&[1], usize::MAX).is_err(),
            "count past the bytes"
        );
        assert!(decode::<u64>(&[], 0).is_err(), "no width");
    }
}
