//! Choosing the cascade of an integer column: the fewest bytes wins.
//!
//! Leaf codecs (fixed, varint, bitpack, Simple16) have exact sizes computed in one pass. Transforms
//! (zigzag, delta, RLE, dictionaries) are tried by encoding: the whole column when it is small, a
//! sample of evenly spaced windows of neighbours when it is large (as BtrBlocks does), and the
//! winner then encodes the whole column. Nested streams choose their own cascade the same way.
//! A choice made on a sample that loses to the best leaf on the whole column is replaced by it.

use std::borrow::Cow;

use super::{bitpack, dictionary, fixed, rle, simple16, transform, varint, Word};
use crate::encodings::{zstd, Settings};

/// The transforms a cascade has applied so far, and how deep it is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Chain {
    used: u8,
    depth: u8,
}

impl Chain {
    pub(crate) const ZIGZAG: u8 = 1;
    pub(crate) const DELTA: u8 = 2;
    pub(crate) const RLE: u8 = 4;
    pub(crate) const DICTIONARY: u8 = 8;

    pub(crate) fn with(self, step: u8) -> Chain {
        Chain {
            used: self.used | step,
            depth: self.depth + 1,
        }
    }

    fn has(self, step: u8) -> bool {
        self.used & step != 0
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Choice {
    Fixed,
    Varint,
    BitPack,
    Simple16,
    Zigzag,
    Delta,
    Rle,
    Dictionary,
    Groups(usize),
}

/// Columns up to this many values are tried whole; larger ones on a sample.
const EXACT_LIMIT: usize = 1024;
/// The sample: this many windows of neighbours, each of this many values.
const WINDOWS: usize = 8;
const WINDOW: usize = 128;
/// The most transforms one cascade stacks.
const MAX_TRANSFORMS: u8 = 3;

struct Stats<W> {
    len: usize,
    min: W,
    max: W,
    runs: usize,
}

impl<W: Word> Stats<W> {
    fn of(values: &[W]) -> Self {
        let (min, max) = values.iter().fold(
            (values.first().copied().unwrap_or_default(), W::ZERO),
            |(min, max), &v| (min.min(v), max.max(v)),
        );
        Stats {
            len: values.len(),
            min,
            max,
            runs: rle::count_runs(values),
        }
    }
}

/// Encodes a column with the cascade that gives the fewest bytes.
pub(crate) fn encode<W: Word>(values: &[W], settings: &Settings, out: &mut Vec<u8>) {
    encode_top(values, None, settings, out);
}

/// [`encode`] for a column whose values come in groups of `group` words (the items of fixed-size
/// arrays), which may then share a dictionary of whole groups.
pub(crate) fn encode_grouped<W: Word>(
    values: &[W],
    group: usize,
    settings: &Settings,
    out: &mut Vec<u8>,
) {
    encode_top(values, Some(group), settings, out);
}

fn encode_top<W: Word>(values: &[W], group: Option<usize>, settings: &Settings, out: &mut Vec<u8>) {
    zstd::best_of(settings, out, |settings, out| {
        encode_choice(values, group, settings, Chain::default(), out)
    });
}

/// Encodes a stream nested in another encoding.
pub(crate) fn encode_nested<W: Word>(
    values: &[W],
    settings: &Settings,
    chain: Chain,
    out: &mut Vec<u8>,
) {
    encode_choice(values, None, settings, chain, out);
}

fn encode_choice<W: Word>(
    values: &[W],
    group: Option<usize>,
    settings: &Settings,
    chain: Chain,
    out: &mut Vec<u8>,
) {
    let choice = choose(values, group, settings, chain);
    let start = out.len();
    encode_as(values, choice, settings, chain, out);
    if values.len() > EXACT_LIMIT && is_transform(choice) {
        let (leaf, leaf_size) = best_leaf(values, &Stats::of(values), settings);
        if out.len() - start > leaf_size {
            out.truncate(start);
            encode_as(values, leaf, settings, chain, out);
        }
    }
}

fn is_transform(choice: Choice) -> bool {
    !matches!(
        choice,
        Choice::Fixed | Choice::Varint | Choice::BitPack | Choice::Simple16
    )
}

/// Evenly spaced windows of neighbours, each a multiple of `align` values long.
pub(crate) fn sample<W: Word>(values: &[W], align: usize) -> Cow<'_, [W]> {
    if values.len() <= EXACT_LIMIT {
        return Cow::Borrowed(values);
    }
    let window = WINDOW.div_ceil(align) * align;
    let windows = (values.len() / window).min(WINDOWS);
    let stride = values.len() / window / windows * window;
    let mut sample = Vec::with_capacity(window * windows);
    for w in 0..windows {
        sample.extend_from_slice(&values[w * stride..w * stride + window]);
    }
    Cow::Owned(sample)
}

fn choose<W: Word>(
    values: &[W],
    group: Option<usize>,
    settings: &Settings,
    chain: Chain,
) -> Choice {
    let sample = sample(values, group.unwrap_or(1));
    let stats = Stats::of(&sample);
    let (mut best, leaf_size) = best_leaf(&sample, &stats, settings);
    if stats.len < 8 || chain.depth >= MAX_TRANSFORMS {
        return best;
    }
    let mut best_size = if settings.byte_aligned && settings.zstd_level.is_some() {
        let mut leaf = Vec::new();
        encode_as(&sample, best, settings, chain, &mut leaf);
        settings.trial_size(&leaf)
    } else {
        leaf_size
    };
    for candidate in transforms(&sample, &stats, group, chain) {
        let mut trial = Vec::new();
        encode_as(&sample, candidate, settings, chain, &mut trial);
        let size = settings.trial_size(&trial);
        if size < best_size {
            best = candidate;
            best_size = size;
        }
    }
    best
}

/// The leaf codec with the fewest bytes, and that size.
fn best_leaf<W: Word>(values: &[W], stats: &Stats<W>, settings: &Settings) -> (Choice, usize) {
    let mut best = (Choice::Fixed, fixed::size(stats.len, stats.max));
    if settings.byte_aligned {
        // For a zstd stage: it finds repeats in aligned fixed-width values far better than in
        // varints, so the size before it is no guide.
        return best;
    }
    let mut consider = |choice, size: usize| {
        if size < best.1 {
            best = (choice, size);
        }
    };
    consider(Choice::Varint, varint::size(values));
    if stats.len >= 16 {
        if bitpack::fits(stats.min, stats.max) {
            consider(Choice::BitPack, bitpack::size(values, stats.min));
        }
        if stats.max.low_u64() < simple16::LIMIT && super::bit_width(stats.max) <= 28 {
            consider(Choice::Simple16, simple16::size(values));
        }
    }
    best
}

fn transforms<W: Word>(
    sample: &[W],
    stats: &Stats<W>,
    group: Option<usize>,
    chain: Chain,
) -> Vec<Choice> {
    let mut candidates = Vec::new();
    if let Some(group) = group {
        if chain.depth == 0
            && dictionary::count_groups(sample, group)
                .is_some_and(|d| d * 2 <= sample.len() / group)
        {
            candidates.push(Choice::Groups(group));
        }
    }
    if !chain.has(Chain::DELTA) && !chain.has(Chain::RLE) {
        candidates.push(Choice::Delta);
    }
    if !chain.has(Chain::ZIGZAG) && super::bit_width(stats.max) == W::BITS {
        candidates.push(Choice::Zigzag);
    }
    if !chain.has(Chain::RLE) && stats.runs * 2 <= stats.len {
        candidates.push(Choice::Rle);
    }
    if !chain.has(Chain::DICTIONARY) && !chain.has(Chain::RLE) {
        let mut distinct = sample.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        if distinct.len() * 2 <= sample.len() {
            candidates.push(Choice::Dictionary);
        }
    }
    candidates
}

fn encode_as<W: Word>(
    values: &[W],
    choice: Choice,
    settings: &Settings,
    chain: Chain,
    out: &mut Vec<u8>,
) {
    let stats = || Stats::of(values);
    match choice {
        Choice::Fixed => fixed::encode(values, stats().max, out),
        Choice::Varint => varint::encode(values, out),
        Choice::BitPack => {
            let stats = stats();
            if bitpack::fits(stats.min, stats.max) {
                bitpack::encode(values, stats.min, out);
            } else {
                fixed::encode(values, stats.max, out);
            }
        }
        Choice::Simple16 => {
            let stats = stats();
            if super::bit_width(stats.max) <= 28 {
                simple16::encode(values, out);
            } else {
                varint::encode(values, out);
            }
        }
        Choice::Zigzag => transform::encode_zigzag(values, settings, chain, out),
        Choice::Delta => transform::encode_delta(values, settings, chain, out),
        Choice::Rle => rle::encode(values, settings, chain, out),
        Choice::Dictionary => dictionary::encode(values, settings, chain, out),
        Choice::Groups(group) => {
            if dictionary::count_groups(values, group).is_some() {
                dictionary::encode_groups(values, group, settings, chain, out);
            } else {
                encode_nested(values, settings, chain, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{decode, describe, DELTA, FIXED, RLE};
    use super::*;
    use crate::encodings::budget::Budget;

    fn encoded(values: &[u64]) -> Vec<u8> {
        let mut out = Vec::new();
        encode(values, &Settings::fast(), &mut out);
        assert_eq!(
            decode::<u64>(&out, values.len(), &mut Budget::new(u64::MAX)).unwrap(),
            values
        );
        out
    }

    #[test]
    fn constant_columns_cost_almost_nothing() {
        assert_eq!(encoded(&[0; 10_000]), [FIXED, 0]);
        assert!(encoded(&[7; 10_000]).len() < 16);
    }

    #[test]
    fn sorted_columns_use_delta() {
        let values: Vec<u64> = (0..10_000).map(|i| 1_600_000_000 + i * 60).collect();
        let out = encoded(&values);
        assert_eq!(out[0], DELTA, "{}", describe(&out));
        assert!(out.len() < 100, "{} bytes as {}", out.len(), describe(&out));
    }

    #[test]
    fn long_runs_use_rle() {
        let values: Vec<u64> = (0..10_000).map(|i| (i / 1000) * 12_345_678).collect();
        let out = encoded(&values);
        assert!(out[0] == RLE || out[0] == DELTA, "{}", describe(&out));
        assert!(out.len() < 100, "{} bytes as {}", out.len(), describe(&out));
    }

    #[test]
    fn small_random_values_pack_into_their_bits() {
        let values: Vec<u64> = (0..10_000u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 59)
            .collect();
        let out = encoded(&values);
        assert!(
            out.len() <= 10_000 * 5 / 8 + 200,
            "{} bytes as {}",
            out.len(),
            describe(&out)
        );
    }

    #[test]
    fn signed_values_near_zero_use_zigzag() {
        let values: Vec<u64> = (0..5000i64).map(|i| ((i % 7) - 3) as u64).collect();
        let out = encoded(&values);
        assert!(
            out.len() < 5000 / 2,
            "{} bytes as {}",
            out.len(),
            describe(&out)
        );
    }

    #[test]
    fn repeated_groups_use_a_group_dictionary() {
        let ids: Vec<u8> = (0..5000u32)
            .flat_map(|i| [(i % 7) as u8 * 31; 20])
            .collect();
        let mut out = Vec::new();
        encode_grouped(&ids, 20, &Settings::fast(), &mut out);
        assert!(
            out.len() < 5000,
            "{} bytes as {}",
            out.len(),
            describe(&out)
        );
        assert_eq!(
            decode::<u8>(&out, ids.len(), &mut Budget::new(u64::MAX)).unwrap(),
            ids
        );
    }

    #[test]
    // zstd is C code, which Miri cannot run.
    #[cfg_attr(miri, ignore)]
    fn zstd_wins_on_repetitive_byte_patterns() {
        let values: Vec<u64> = (0..20_000u64)
            .map(|i| [1_000_003, 77_777_777, 5, 123_456_789_012][(i * i % 4) as usize])
            .collect();
        let mut out = Vec::new();
        encode(&values, &Settings::default(), &mut out);
        assert_eq!(
            decode::<u64>(&out, values.len(), &mut Budget::new(u64::MAX)).unwrap(),
            values
        );
        assert!(
            out.len() < 20_000 / 3,
            "{} bytes as {}",
            out.len(),
            describe(&out)
        );
    }
}
