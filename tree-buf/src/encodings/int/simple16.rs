//! Simple16 (Zhang, Long and Suel, WWW 2008): values below 2^28 packed into 32-bit words. The top
//! four bits of a word select one of sixteen layouts of its low 28 bits; each layout splits them
//! into fields, lowest bits first:
//!
//! | selector | fields (count × bits)  | selector | fields (count × bits) |
//! |----------|------------------------|----------|-----------------------|
//! | 0        | 28 × 1                 | 8        | 4 × 5, 2 × 4          |
//! | 1        | 7 × 2, 14 × 1          | 9        | 2 × 4, 4 × 5          |
//! | 2        | 7 × 1, 7 × 2, 7 × 1    | 10       | 3 × 6, 2 × 5          |
//! | 3        | 14 × 1, 7 × 2          | 11       | 2 × 5, 3 × 6          |
//! | 4        | 14 × 2                 | 12       | 4 × 7                 |
//! | 5        | 1 × 4, 8 × 3           | 13       | 1 × 10, 2 × 9         |
//! | 6        | 1 × 3, 4 × 4, 3 × 3    | 14       | 2 × 14                |
//! | 7        | 7 × 4                  | 15       | 1 × 28                |
//!
//! ```text
//! simple16 := 0x05 word:u32le*   exactly enough words for count values; fields past the last
//!                                value are 0
//! ```
//!
//! The encoder takes, at each step, the first layout (they are ordered by decreasing count) whose
//! fields hold the next values. The decoder unpacks each layout with constant shifts and masks.

use super::transform::Finish;
use super::{bit_width, IntTag, Word};
use crate::encodings::zstd;
use crate::error::{corrupt, DecodeError};

/// The widest value Simple16 can hold, in bits.
pub(super) const MAX_BITS: u32 = 28;

/// The field widths of each layout, lowest field first.
const LAYOUTS: [&[u8]; 16] = [
    &[1; 28],
    &[
        2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    ],
    &[
        1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
    ],
    &[
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2,
    ],
    &[2; 14],
    &[4, 3, 3, 3, 3, 3, 3, 3, 3],
    &[3, 4, 4, 4, 4, 3, 3, 3],
    &[4; 7],
    &[5, 5, 5, 5, 4, 4],
    &[4, 4, 5, 5, 5, 5],
    &[6, 6, 6, 5, 5],
    &[5, 5, 6, 6, 6],
    &[7; 4],
    &[10, 9, 9],
    &[14; 2],
    &[28],
];

/// For each bit width, the first layout whose first field holds a value that wide: the layouts
/// before it cannot start with one, so the search for the next layout skips them.
const FIRST_FIT: [usize; MAX_BITS as usize + 1] = {
    let mut table = [0; MAX_BITS as usize + 1];
    let mut width = 0;
    while width < table.len() {
        let mut selector = 0;
        while (LAYOUTS[selector][0] as usize) < width {
            selector += 1;
        }
        table[width] = selector;
        width += 1;
    }
    table
};

/// For each bit width, the narrowest field of any layout that holds a value that wide.
pub(super) const FIELD_BITS: [u8; MAX_BITS as usize + 1] = {
    let mut table = [MAX_BITS as u8; MAX_BITS as usize + 1];
    let mut selector = 0;
    while selector < 16 {
        let mut field = 0;
        while field < LAYOUTS[selector].len() {
            let bits = LAYOUTS[selector][field];
            let mut width = 0;
            while width <= bits as usize {
                if bits < table[width] {
                    table[width] = bits;
                }
                width += 1;
            }
            field += 1;
        }
        selector += 1;
    }
    table
};

/// The fewest bytes Simple16 takes for values whose [`FIELD_BITS`] add up to `field_bits`:
/// every layout's fields fill exactly 28 bits, so no packing needs fewer words than that.
pub(super) fn lower_bound(field_bits: usize) -> usize {
    1 + 4 * field_bits.div_ceil(MAX_BITS as usize)
}

/// The most fields a layout has, rounded up to a vector's width: the lanes a layout is checked in.
const LANES: usize = 32;

/// Each layout's field widths in [`LANES`] lanes, the lanes past its fields taking any width, so
/// that whether the next values fit is one lane-by-lane comparison of their widths.
const LIMITS: [[u8; LANES]; 16] = {
    let mut table = [[u8::MAX; LANES]; 16];
    let mut selector = 0;
    while selector < 16 {
        let mut field = 0;
        while field < LAYOUTS[selector].len() {
            table[selector][field] = LAYOUTS[selector][field];
            field += 1;
        }
        selector += 1;
    }
    table
};

/// The bit width of each value, then [`LANES`] widths of 0 for the padding past the last.
fn widths<W: Word>(values: &[W]) -> Vec<u8> {
    let mut widths = Vec::with_capacity(values.len() + LANES);
    widths.extend(values.iter().map(|&value| bit_width(value) as u8));
    widths.resize(values.len() + LANES, 0);
    widths
}

/// The layout of the next word: the first (densest) whose fields hold the next values, whose
/// widths (at most [`MAX_BITS`]; 0 past the end of the column) are `widths`.
#[inline]
fn next_layout(widths: &[u8; LANES]) -> usize {
    let first = FIRST_FIT[usize::from(widths[0])];
    (first..15)
        .find(|&selector| {
            // Branch-free over the lanes, so that it compiles to a few vector operations.
            (widths.iter().zip(&LIMITS[selector])).fold(0, |over, (&width, &limit)| {
                over | width.saturating_sub(limit)
            }) == 0
        })
        .unwrap_or(15)
}

/// The layout of each word that holds `values` (of at most [`MAX_BITS`] bits), with the index of
/// the first value it holds.
#[inline]
fn layouts<W: Word>(values: &[W]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let widths = widths(values);
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= values.len() {
            return None;
        }
        // Always LANES widths: the padding after the last value covers a word's lanes.
        let selector = next_layout(widths.get(start..start + LANES)?.try_into().ok()?);
        let word = (selector, start);
        start += LAYOUTS[selector].len();
        Some(word)
    })
}

/// Packs values of at most [`MAX_BITS`] bits into words, handing each to `emit`.
#[inline]
fn pack<W: Word>(values: &[W], mut emit: impl FnMut(u32)) {
    for (selector, start) in layouts(values) {
        let mut word = (selector as u32) << 28;
        let mut shift = 0;
        for (&bits, &value) in LAYOUTS[selector].iter().zip(&values[start..]) {
            word |= (value.low_u64() as u32) << shift;
            shift += u32::from(bits);
        }
        emit(word);
    }
}

/// Whether the encoded size is under `limit` bytes; the values must all have at most
/// [`MAX_BITS`] bits. Exact, but the layouts are only found until the size reaches the limit.
pub(super) fn smaller_than<W: Word>(values: &[W], limit: usize) -> bool {
    // 1 + 4 * words < limit, in words.
    let most_words = limit.saturating_sub(1).div_ceil(4);
    layouts(values).take(most_words).count() < most_words
}

/// Windows of neighbours a long column's sample takes, and their length: a sample of 8,192
/// values, a quarter or less of the columns it stands for.
const SAMPLE_WINDOWS: usize = 32;
const SAMPLE_WINDOW: usize = 256;

/// Whether the encoded size could be under `limit` bytes, judged on a sample of a long column
/// (exact on a short one): false when the sample, scaled up, comes to 5% over the limit or more.
/// Packing a sample costs a fraction of packing the column, and where Simple16 loses on a long
/// column (on the real datasets, almost everywhere a Huffman code or bit-packing is sized first)
/// it loses by more than the sample errs.
pub(super) fn may_be_smaller_than<W: Word>(values: &[W], limit: usize) -> bool {
    let sampled_len = SAMPLE_WINDOWS * SAMPLE_WINDOW;
    if values.len() < 4 * sampled_len {
        return true;
    }
    let sample = zstd::Sampled::windows(values, SAMPLE_WINDOW, SAMPLE_WINDOWS);
    // The limit scaled down to the sample, with the 5% margin.
    let sample_limit = (limit as u128 * 21 * sample.len() as u128)
        .div_ceil(20 * values.len() as u128)
        .min(usize::MAX as u128) as usize;
    smaller_than(&sample, sample_limit)
}

/// The exact encoded size.
#[cfg(test)]
fn size<W: Word>(values: &[W]) -> usize {
    1 + 4 * layouts(values).count()
}

/// Encodes values that all have at most [`MAX_BITS`] bits.
pub(super) fn encode<W: Word>(values: &[W], out: &mut Vec<u8>) {
    out.push(IntTag::Simple16 as u8);
    encode_words(values, out);
}

/// The packed words alone, without the tag.
pub(crate) fn encode_words<W: Word>(values: &[W], out: &mut Vec<u8>) {
    out.reserve(values.len() / 2 + 4);
    pack(values, |word| out.extend_from_slice(&word.to_le_bytes()));
}

/// Unpacks the fields of `word` with the layout `SELECTOR`, all shifts and masks constant.
#[inline(always)]
fn unpack<const SELECTOR: usize>(word: u32, out: &mut [u32; 28]) -> usize {
    let layout = LAYOUTS[SELECTOR];
    let mut shift = 0;
    for (slot, &bits) in out.iter_mut().zip(layout) {
        *slot = (word >> shift) & ((1u32 << bits) - 1);
        shift += u32::from(bits);
    }
    layout.len()
}

/// Unpacks any word into `out`, returning how many fields it has.
#[inline]
fn unpack_word(word: u32, out: &mut [u32; 28]) -> usize {
    match word >> 28 {
        0 => unpack::<0>(word, out),
        1 => unpack::<1>(word, out),
        2 => unpack::<2>(word, out),
        3 => unpack::<3>(word, out),
        4 => unpack::<4>(word, out),
        5 => unpack::<5>(word, out),
        6 => unpack::<6>(word, out),
        7 => unpack::<7>(word, out),
        8 => unpack::<8>(word, out),
        9 => unpack::<9>(word, out),
        10 => unpack::<10>(word, out),
        11 => unpack::<11>(word, out),
        12 => unpack::<12>(word, out),
        13 => unpack::<13>(word, out),
        14 => unpack::<14>(word, out),
        _ => unpack::<15>(word, out),
    }
}

/// Decodes `count` values into 32-bit integers.
pub(crate) fn decode_u32(body: &[u8], count: usize) -> Result<Vec<u32>, DecodeError> {
    if !body.len().is_multiple_of(4) {
        return Err(corrupt(
            "Simple16 data is not a whole number of 32-bit words",
        ));
    }
    if count > (body.len() / 4).saturating_mul(28) {
        return Err(corrupt(format!(
            "{} Simple16 words cannot hold {count} values",
            body.len() / 4
        )));
    }
    let mut values = Vec::with_capacity(count);
    let mut fields = [0u32; 28];
    for chunk in body.chunks_exact(4) {
        if values.len() == count {
            return Err(corrupt("Simple16 words after the last value"));
        }
        let word = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        let len = unpack_word(word, &mut fields);
        let take = len.min(count - values.len());
        if fields[take..len].iter().any(|&padding| padding != 0) {
            return Err(corrupt("Simple16 padding past the last value is not zero"));
        }
        values.extend_from_slice(&fields[..take]);
    }
    if values.len() != count {
        return Err(corrupt(format!(
            "Simple16 words hold {} values, not {count}",
            values.len()
        )));
    }
    Ok(values)
}

/// The `count` values, each made what `finish` makes it in the pass that widens them to `W`.
pub(super) fn decode<W: Word>(
    body: &[u8],
    count: usize,
    mut finish: impl Finish<W>,
) -> Result<Vec<W>, DecodeError> {
    let wide = decode_u32(body, count)?;
    if W::BITS < 28 {
        // Narrow words could not hold every field: each is checked.
        let limit = 1u64 << W::BITS;
        return (wide.into_iter())
            .map(|v| match u64::from(v) < limit {
                true => Ok(finish.apply(W::from_u64(u64::from(v)))),
                false => Err(corrupt("a Simple16 value overflows its word")),
            })
            .collect();
    }
    Ok((wide.into_iter())
        .map(|v| finish.apply(W::from_u64(u64::from(v))))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::super::transform::{AsDecoded, RunningSums};
    use super::*;

    fn decoded<W: Word>(body: &[u8], count: usize) -> Result<Vec<W>, DecodeError> {
        decode(body, count, AsDecoded)
    }

    /// A plain reference decoder: reads each field bit by bit.
    fn reference_decode(words: &[u32], count: usize) -> Vec<u64> {
        let mut out = Vec::new();
        for &word in words {
            let mut shift = 0;
            for &bits in LAYOUTS[(word >> 28) as usize] {
                let mut value = 0u64;
                for bit in 0..bits {
                    value |= u64::from((word >> (shift + u32::from(bit))) & 1) << bit;
                }
                shift += u32::from(bits);
                out.push(value);
            }
        }
        out.truncate(count);
        out
    }

    /// The plain search for the next layout: the first whose fields hold the next values.
    fn reference_layout(values: &[u64]) -> usize {
        (0..16)
            .find(|&s| {
                (LAYOUTS[s].iter())
                    .zip(values)
                    .all(|(&bits, &value)| value >> bits == 0)
            })
            .unwrap_or(15)
    }

    #[test]
    fn layouts_are_those_the_plain_search_finds() {
        let mut next = crate::encodings::xorshift(0x9e37_79b9);
        for round in 0..2_000 {
            // Runs of similar widths, with now and then a wider or narrower value; one column
            // in ten hundreds of values long, many words' worth.
            let len = match round % 10 {
                0 => 200 + round,
                _ => 1 + round % 90,
            };
            let base = (round % 29) as u32;
            let values: Vec<u64> = (0..len)
                .map(|_| {
                    let roll = next();
                    let width = match roll % 8 {
                        0 => (roll >> 8) as u32 % (MAX_BITS + 1),
                        _ => base,
                    };
                    (roll >> 16) & ((1u64 << width) - 1)
                })
                .collect();
            let mut start = 0;
            for (selector, at) in layouts(&values) {
                assert_eq!(at, start);
                assert_eq!(selector, reference_layout(&values[start..]), "{values:?}");
                start += LAYOUTS[selector].len();
            }
            assert!(start >= values.len());
        }
    }

    #[test]
    fn a_sample_rules_out_only_sizes_far_over_the_limit() {
        // A short column is sized exactly, by `smaller_than`.
        let short: Vec<u64> = (0..1_000).map(|i| i % 7).collect();
        assert!(may_be_smaller_than(&short, 1));
        // A long one of mixed widths, judged on its sample: in the running just over its size,
        // out well under it.
        let mut next = crate::encodings::xorshift(7);
        let long: Vec<u64> = (0..40_000)
            .map(|_| {
                let roll = next();
                (roll >> 20) & ((1 << (roll % 20)) - 1)
            })
            .collect();
        let exact = size(&long);
        assert!(may_be_smaller_than(&long, exact + 1));
        assert!(!may_be_smaller_than(&long, exact * 4 / 5));
    }

    #[test]
    fn every_layout_fills_28_bits() {
        for layout in LAYOUTS {
            assert_eq!(layout.iter().map(|&b| u32::from(b)).sum::<u32>(), 28);
        }
    }

    #[test]
    fn the_lower_bound_never_exceeds_the_packing() {
        assert_eq!(
            FIELD_BITS,
            [
                1, 1, 2, 3, 4, 5, 6, 7, 9, 9, 10, 14, 14, 14, 14, 28, 28, 28, 28, 28, 28, 28, 28,
                28, 28, 28, 28, 28, 28
            ]
        );
        let bound = |values: &[u64]| {
            let bits = values
                .iter()
                .map(|&v| usize::from(FIELD_BITS[bit_width(v) as usize]));
            lower_bound(bits.sum())
        };
        let mut next = crate::encodings::xorshift(11);
        for shape in super::super::tests::shapes() {
            let values: Vec<u64> = shape.iter().map(|v| v % (1 << MAX_BITS)).collect();
            assert!(bound(&values) <= size(&values), "{values:?}");
            // Mixed widths, which leave fields wider than their values.
            let mixed: Vec<u64> = (values.iter())
                .map(|&v| v & ((1 << (next() % 29)) - 1))
                .collect();
            assert!(bound(&mixed) <= size(&mixed), "{mixed:?}");
        }
        // Where every word's fields are as narrow as its values allow, the bound is the size.
        let uniform: Vec<u64> = (0..28 * 100).map(|i| i % 2).collect();
        assert_eq!(bound(&uniform), size(&uniform));
    }

    #[test]
    fn matches_the_reference_on_many_shapes() {
        for shape in super::super::tests::shapes() {
            let values: Vec<u64> = shape.iter().map(|v| v % (1 << MAX_BITS)).collect();
            let mut words = Vec::new();
            pack(&values, |word| words.push(word));
            assert_eq!(reference_decode(&words, values.len()), values);
            let mut out = Vec::new();
            encode(&values, &mut out);
            assert_eq!(out.len(), size(&values));
            for limit in out.len().saturating_sub(2)..out.len() + 3 {
                assert_eq!(smaller_than(&values, limit), out.len() < limit);
            }
            assert_eq!(decoded::<u64>(&out[1..], values.len()).unwrap(), values);
            let mut sums = values.clone();
            RunningSums::<u64, true>::new().apply_all(&mut sums);
            let summed = decode(&out[1..], values.len(), RunningSums::<u64, true>::new());
            assert_eq!(
                summed.unwrap(),
                sums,
                "a transform applied as the words widen"
            );
            let small: Vec<u64> = values.iter().map(|v| v % 5).collect();
            let mut out = Vec::new();
            encode(&small, &mut out);
            assert_eq!(
                decoded::<u8>(&out[1..], small.len()).unwrap(),
                small.iter().map(|&v| v as u8).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn hostile_streams_are_errors() {
        assert!(decoded::<u32>(&[0, 0, 0], 1).is_err(), "not whole words");
        assert!(
            decoded::<u32>(&[0, 0, 0, 0], 29).is_err(),
            "count past the words"
        );
        assert!(
            decoded::<u32>(&[2, 0, 0, 0], 1).is_err(),
            "non-zero padding"
        );
        assert!(
            decoded::<u32>(&[0, 0, 0, 0, 0, 0, 0, 0], 1).is_err(),
            "extra word"
        );
        assert!(
            decoded::<u8>(&0xf000_0fffu32.to_le_bytes(), 1).is_err(),
            "overflows u8"
        );
    }
}
