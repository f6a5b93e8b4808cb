//! Fixed width: every word in the fewest whole bytes that hold the largest.
//!
//! ```text
//! fixed := 0x00 width:u8 word{count}   little-endian, `width` bytes each, at most the word's
//!                                      size; width 0 means every word is 0 and no bytes follow
//! ```

use super::transform::Finish;
use super::{bit_width, IntTag, Word};
use crate::encodings::describe::Codec;
use crate::error::{corrupt, DecodeError};

pub(super) fn width_for<W: Word>(max: W) -> usize {
    (bit_width(max) as usize).div_ceil(8)
}

/// The encoded size, given the largest value.
pub(crate) fn size<W: Word>(count: usize, max: W) -> usize {
    2 + count * width_for(max)
}

/// Writes `values`, whose largest is `max`.
pub(crate) fn encode<W: Word>(values: &[W], max: W, out: &mut Vec<u8>) {
    let width = width_for(max);
    out.push(IntTag::Fixed as u8);
    out.push(width as u8);
    let start = out.len();
    out.resize(start + values.len() * width, 0);
    let words = &mut out[start..];
    // As in decoding, a width known at compile time makes each write a few moves.
    match width {
        0 => {}
        1 => write::<W, 1>(values, words),
        2 => write::<W, 2>(values, words),
        3 => write::<W, 3>(values, words),
        4 => write::<W, 4>(values, words),
        5 => write::<W, 5>(values, words),
        6 => write::<W, 6>(values, words),
        7 => write::<W, 7>(values, words),
        8 => write::<W, 8>(values, words),
        _ => (words.chunks_exact_mut(width).zip(values))
            .for_each(|(word, value)| word.copy_from_slice(&value.to_le_padded()[..width])),
    }
}

/// Writes the low `WIDTH` bytes of each word into `words`, which has room for exactly those.
fn write<W: Word, const WIDTH: usize>(values: &[W], words: &mut [u8]) {
    for (word, value) in words.chunks_exact_mut(WIDTH).zip(values) {
        word.copy_from_slice(&value.to_le_padded()[..WIDTH]);
    }
}

/// A fixed-width stream's header: the width, and the words.
pub(crate) struct Fixed<'a> {
    width: u8,
    words: &'a [u8],
}

impl<'a> Fixed<'a> {
    /// Reads the header from `body`, the bytes after the tag, for words `W`.
    pub(super) fn parse<W: Word>(body: &'a [u8]) -> Result<Self, DecodeError> {
        let (&width, words) = body
            .split_first()
            .ok_or_else(|| corrupt("fixed-width stream without a width"))?;
        if usize::from(width) > W::BYTES {
            return Err(corrupt(format!(
                "fixed width of {width} bytes for {}-bit integers",
                W::BITS
            )));
        }
        Ok(Fixed { width, words })
    }

    pub(super) fn codec(&self) -> Codec {
        Codec::Fixed { width: self.width }
    }

    /// The `count` words if each is one byte wide: their bytes as they are.
    pub(super) fn bytes_as_they_are(self, count: usize) -> Option<&'a [u8]> {
        (self.width == 1 && self.words.len() == count).then_some(self.words)
    }

    /// The `count` words, each made what `finish` makes it as it is read.
    pub(super) fn decode<W: Word>(
        self,
        count: usize,
        mut finish: impl Finish<W>,
    ) -> Result<Vec<W>, DecodeError> {
        let (width, data) = (usize::from(self.width), self.words);
        if count.checked_mul(width) != Some(data.len()) {
            return Err(corrupt(format!(
                "{} bytes cannot hold {count} values of {width} bytes",
                data.len()
            )));
        }
        // A width known at compile time turns each read into a few moves instead of a memcpy
        // call.
        Ok(match width {
            0 => {
                let mut words = vec![W::ZERO; count];
                finish.apply_all(&mut words);
                words
            }
            1 => read::<W, 1>(data, finish),
            2 => read::<W, 2>(data, finish),
            3 => read::<W, 3>(data, finish),
            4 => read::<W, 4>(data, finish),
            5 => read::<W, 5>(data, finish),
            6 => read::<W, 6>(data, finish),
            7 => read::<W, 7>(data, finish),
            8 => read::<W, 8>(data, finish),
            _ => (data.chunks_exact(width))
                .map(|chunk| finish.apply(W::read_le(chunk)))
                .collect(),
        })
    }
}

/// The words of `WIDTH` bytes each in `data`, each made what `finish` makes it.
fn read<W: Word, const WIDTH: usize>(data: &[u8], mut finish: impl Finish<W>) -> Vec<W> {
    data.chunks_exact(WIDTH)
        .map(|chunk| {
            let mut bytes = [0u8; 16];
            bytes[..WIDTH].copy_from_slice(chunk);
            finish.apply(W::from_le_padded(bytes))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::transform::{AsDecoded, RunningSums};
    use super::*;

    fn decode<W: Word>(body: &[u8], count: usize) -> Result<Vec<W>, DecodeError> {
        Fixed::parse::<W>(body)?.decode(count, AsDecoded)
    }

    #[test]
    fn round_trips_at_every_width() {
        for max in [0u64, 1, 255, 256, 65_535, 1 << 40, u64::MAX] {
            let values = vec![max, 0, max / 2];
            let mut out = Vec::new();
            encode(&values, max, &mut out);
            assert_eq!(out.len(), size(values.len(), max));
            assert_eq!(decode::<u64>(&out[1..], values.len()).unwrap(), values);
            let mut sums = values.clone();
            RunningSums::<u64, false>::new().apply_all(&mut sums);
            let fixed = Fixed::parse::<u64>(&out[1..]).unwrap();
            let summed = fixed.decode(values.len(), RunningSums::<u64, false>::new());
            assert_eq!(
                summed.unwrap(),
                sums,
                "a transform applied as the words are read"
            );
        }
        let wide = [u128::MAX, 1, 1 << 100];
        let mut out = Vec::new();
        encode(&wide, u128::MAX, &mut out);
        let fixed = Fixed::parse::<u128>(&out[1..]).unwrap();
        let summed = fixed.decode(wide.len(), RunningSums::<u128, false>::new());
        assert_eq!(summed.unwrap(), [u128::MAX, 0, 1 << 100]);
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
