//! Transforms that map a column to one that codes smaller and nest the result: zigzag for signed
//! values, delta for slowly changing ones.
//!
//! ```text
//! zigzag := 0x02 int_stream   holds (v << 1) ^ (v >> (bits - 1)) with an arithmetic shift
//! delta  := 0x03 int_stream   holds v[0], then v[i] - v[i-1] wrapping at the word width
//! ```

use super::select::{encode_nested, Chain};
use super::{decode_nested, IntTag, Word};
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
    let mut values = decode_nested::<W>(body, count, budget, depth + 1)?;
    for value in &mut values {
        *value = unzigzag(*value);
    }
    Ok(values)
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
    // Deltas are mostly zigzagged: that is undone in the pass that sums them, not one of its own.
    if let Some(zigzagged) = body.strip_prefix(&[IntTag::Zigzag as u8]) {
        check_depth(depth + 1)?;
        let deltas = decode_nested::<W>(zigzagged, count, budget, depth + 2)?;
        return Ok(running_sums(deltas, unzigzag));
    }
    let deltas = decode_nested::<W>(body, count, budget, depth + 1)?;
    Ok(running_sums(deltas, |delta| delta))
}

/// Replaces each of `deltas`, as `map` makes it, by the sum of those up to it.
#[inline]
fn running_sums<W: Word>(mut deltas: Vec<W>, map: impl Fn(W) -> W) -> Vec<W> {
    let mut previous = W::ZERO;
    for value in &mut deltas {
        previous = previous.wrapping_add(map(*value));
        *value = previous;
    }
    deltas
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
