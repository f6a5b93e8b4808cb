//! Transforms that map a column to one that codes smaller and nest the result: zigzag for signed
//! values, delta for slowly changing ones.
//!
//! ```text
//! zigzag := 0x02 int_stream   holds (v << 1) ^ (v >> (bits - 1)) with an arithmetic shift
//! delta  := 0x03 int_stream   holds v[0], then v[i] - v[i-1] wrapping at the word width
//! ```

use super::select::{encode_nested, Chain};
use super::{decode_nested_then, IntTag, Word};
use crate::encodings::budget::Budget;
use crate::encodings::scratch::Scratch;
use crate::encodings::{check_depth, Settings, Version};
use crate::error::DecodeError;

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

pub(super) fn encode_zigzag<W: Word>(
    values: &[W],
    settings: &Settings,
    chain: Chain,
    out: &mut Vec<u8>,
) -> Version {
    out.push(IntTag::Zigzag as u8);
    let mapped = Scratch::collect(values.len(), values.iter().map(|&v| zigzag(v)));
    encode_nested(&mapped, settings, chain.with(Chain::ZIGZAG), out)
}

pub(super) fn decode_zigzag<W: Word>(
    body: &[u8],
    count: usize,
    budget: &mut Budget,
    depth: usize,
) -> Result<Vec<W>, DecodeError> {
    decode_nested_then(body, count, budget, depth + 1, Unzigzagged)
}

/// The differences between neighbours, the first value kept as it is.
pub(super) fn deltas<W: Word>(values: &[W]) -> Scratch<W> {
    let mut previous = W::ZERO;
    let deltas = values.iter().map(|&value| {
        let delta = value.wrapping_sub(previous);
        previous = value;
        delta
    });
    Scratch::collect(values.len(), deltas)
}

pub(super) fn encode_delta<W: Word>(
    values: &[W],
    settings: &Settings,
    chain: Chain,
    out: &mut Vec<u8>,
) -> Version {
    out.push(IntTag::Delta as u8);
    encode_nested(&deltas(values), settings, chain.with(Chain::DELTA), out)
}

pub(super) fn decode_delta<W: Word>(
    body: &[u8],
    count: usize,
    budget: &mut Budget,
    depth: usize,
) -> Result<Vec<W>, DecodeError> {
    // Deltas are mostly zigzagged: that is undone as they are summed, not in a pass of its own.
    if let Some(zigzagged) = body.strip_prefix(&[IntTag::Zigzag as u8]) {
        check_depth(depth + 1)?;
        return decode_nested_then(
            zigzagged,
            count,
            budget,
            depth + 2,
            RunningSums::<W, true>::new(),
        );
    }
    decode_nested_then(
        body,
        count,
        budget,
        depth + 1,
        RunningSums::<W, false>::new(),
    )
}

/// What a transform makes of each word its nested stream decodes to, in order. The codec of the
/// nested stream applies it in the pass that makes the words (reading, unpacking, looking up),
/// while each word is at hand, which spares the transform a pass of its own over the whole
/// column; a nested transform leaves it to [`Self::apply_all`] after its own.
pub(super) trait Finish<W: Word>: Copy {
    fn apply(&mut self, word: W) -> W;

    /// Applies it to each of `words`, in order.
    // Never inlined: inlined into a large caller (the four-stream Huffman decoder), a running
    // sum stayed on the stack through the loop, stored and reloaded every two values.
    #[inline(never)]
    fn apply_all(&mut self, words: &mut [W]) {
        // A copy in a local, so that its state stays in registers through the loop.
        let mut finish = *self;
        for word in words {
            *word = finish.apply(*word);
        }
        *self = finish;
    }
}

/// Words kept as they are decoded: no transform.
#[derive(Clone, Copy)]
pub(super) struct AsDecoded;

impl<W: Word> Finish<W> for AsDecoded {
    #[inline(always)]
    fn apply(&mut self, word: W) -> W {
        word
    }

    #[inline(always)]
    fn apply_all(&mut self, _: &mut [W]) {}
}

/// The inverse of zigzag.
#[derive(Clone, Copy)]
struct Unzigzagged;

impl<W: Word> Finish<W> for Unzigzagged {
    #[inline(always)]
    fn apply(&mut self, word: W) -> W {
        unzigzag(word)
    }
}

/// Each delta (zigzagged when `ZIGZAG`) replaced by the sum of those up to it.
#[derive(Clone, Copy)]
pub(super) struct RunningSums<W, const ZIGZAG: bool> {
    sum: W,
}

impl<W: Word, const ZIGZAG: bool> RunningSums<W, ZIGZAG> {
    pub(super) fn new() -> Self {
        RunningSums { sum: W::ZERO }
    }
}

impl<W: Word, const ZIGZAG: bool> Finish<W> for RunningSums<W, ZIGZAG> {
    #[inline(always)]
    fn apply(&mut self, delta: W) -> W {
        let delta = if ZIGZAG { unzigzag(delta) } else { delta };
        self.sum = self.sum.wrapping_add(delta);
        self.sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zigzag_is_its_own_inverse_and_keeps_small_values_small() {
        for v in [0u32, 1, 2, u32::MAX, u32::MAX - 1, 1 << 31] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
        assert_eq!(zigzag(u32::MAX), 1);
        assert_eq!(zigzag(1u32), 2);
        assert_eq!(zigzag(u8::MAX), 1);
        assert_eq!(zigzag(i128::MIN as u128), u128::MAX);
    }

    #[test]
    fn deltas_wrap() {
        assert_eq!(*deltas(&[5u8, 3, 255, 0]), [5, 254, 252, 1]);
    }
}
