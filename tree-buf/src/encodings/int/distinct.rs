//! The distinct values of a column, counted and then numbered: what dictionaries and Huffman
//! codes are built from. Each distinct value has a slot, which holds its count until the encoder
//! gives it a number (a dictionary index, a Huffman symbol), which then stands for every position
//! where the value occurs. An encoding stage of its own, not a stream: it has no wire grammar.

use std::mem::MaybeUninit;
use std::ops::Range;

use super::{bit_width, Word};
use crate::encodings::numbering::Numbering;
use crate::encodings::scratch::Scratch;

/// The widest range of values kept in an array indexed by value, and its most slots per value of
/// the column: an array is several times faster than hashing.
const DENSE_BITS: u32 = 16;
const DENSE_PER_VALUE: usize = 16;
/// Room for distinct values reserved up front, so that small columns never grow the table.
const RESERVED: usize = 1 << 12;
/// The shortest column whose values near its smallest are numbered through an array.
const NEAR_MIN_VALUES: usize = 1 << 12;

pub(super) enum Distinct<W> {
    /// Values within a small range: the slot of `v` is `v - min`; empty slots have count 0.
    Dense { min: W, slots: Vec<u64> },
    /// Other values, each slot in order of first appearance, with the slot of each position of
    /// the column.
    Hashed {
        values: Vec<W>,
        slots: Vec<u64>,
        at: Scratch<u32>,
    },
}

/// The number of slots an array indexed by value needs for `len` values within `min..=max`, when
/// they are few enough for counting through an array to beat hashing.
pub(super) fn dense_slots<W: Word>(len: usize, min: W, max: W) -> Option<usize> {
    let range = max.wrapping_sub(min);
    (bit_width(range) <= DENSE_BITS && range.low_u64() as usize <= DENSE_PER_VALUE * len)
        .then(|| range.low_u64() as usize + 1)
}

/// Counts the distinct values it is shown, up to a limit: what choosing a dictionary asks, and
/// asks of most columns, several times (each of its candidate transforms). An open-addressing
/// set that keeps the values in its slots and which slots are taken in a bitset, so that a new
/// counter clears a bit a slot, not a word: on short columns clearing the table cost as much as
/// counting.
pub(super) struct DistinctCounter<W> {
    values: Vec<MaybeUninit<W>>,
    /// Bit `s % 64` of word `s / 64` is set once slot `s` holds a value.
    taken: Vec<u64>,
    /// The bits of the table's size.
    bits: u32,
    count: usize,
    /// The most values it counts: past them it stops.
    capacity: usize,
}

impl<W: Word> DistinctCounter<W> {
    /// A counter of up to `capacity` distinct values.
    pub(super) fn new(capacity: usize) -> Self {
        // At most half full, so that a search meets an empty slot soon.
        let slots = (2 * (capacity + 1)).max(64).next_power_of_two();
        let mut values = Vec::with_capacity(slots);
        values.resize_with(slots, MaybeUninit::uninit);
        DistinctCounter {
            values,
            taken: vec![0; slots / 64],
            bits: slots.trailing_zeros(),
            count: 0,
            capacity,
        }
    }

    /// The number of distinct values added.
    pub(super) fn count(&self) -> usize {
        self.count
    }

    /// Adds `values` in turn and says whether at most `limit` distinct values have been added,
    /// stopping at the first past it (and past the capacity, which it takes as the limit when
    /// less). One loop over the values with the table's state in locals, which a closure called
    /// per value kept in memory.
    #[allow(unsafe_code)]
    pub(super) fn add_all(&mut self, values: &[W], limit: usize) -> bool {
        let limit = limit.min(self.capacity);
        if self.count > limit {
            return false;
        }
        let mask = self.values.len() - 1;
        let shift = u64::BITS - self.bits;
        let mut count = self.count;
        let (taken, slots) = (&mut self.taken[..], &mut self.values[..]);
        for &value in values {
            let mut slot = (value.hash() >> shift) as usize;
            loop {
                let (word, bit) = (slot / 64, 1u64 << (slot % 64));
                if taken[word] & bit == 0 {
                    taken[word] |= bit;
                    slots[slot] = MaybeUninit::new(value);
                    count += 1;
                    break;
                }
                // SAFETY: a slot is written when its bit is set, and bits are only ever set.
                if unsafe { slots[slot].assume_init() } == value {
                    break;
                }
                slot = (slot + 1) & mask;
            }
            if count > limit {
                self.count = count;
                return false;
            }
        }
        self.count = count;
        true
    }
}

impl<W: Word> Distinct<W> {
    /// The distinct values of `values` (all within `min..=max`) and their counts, or `None` once
    /// more than `limit` are distinct.
    pub(super) fn count(values: &[W], min: W, max: W, limit: usize) -> Option<Self> {
        if let Some(dense) = dense_slots(values.len(), min, max) {
            let mut slots = vec![0u64; dense];
            for &value in values {
                slots[value.wrapping_sub(min).low_u64() as usize] += 1;
            }
            let within = limit >= slots.len() || slots.iter().filter(|&&n| n > 0).count() <= limit;
            return within.then_some(Distinct::Dense { min, slots });
        }
        let (at, distinct) = match values.len() >= NEAR_MIN_VALUES {
            true => Self::number_near_and_far(values, min, limit)?,
            // A short column is hashed whole: clearing an array for the values near the
            // smallest would cost more than it spares.
            false => Self::number(values, limit)?,
        };
        let mut slots = vec![0u64; distinct.len()];
        for &slot in at.iter() {
            slots[slot as usize] += 1;
        }
        Some(Distinct::Hashed {
            values: distinct,
            slots,
            at,
        })
    }

    /// The number of each of `values` in order of first appearance, and the values so numbered,
    /// unless more than `limit` are distinct.
    fn number(values: &[W], limit: usize) -> Option<(Scratch<u32>, Vec<W>)> {
        let mut numbering = Numbering::with_capacity(values.len().min(RESERVED));
        let mut at = Scratch::with_capacity(values.len());
        for &value in values {
            let number = numbering.number(value);
            // Numbers are given in turn: the first past the limit is new.
            if number as usize >= limit {
                return None;
            }
            at.push(number);
        }
        Some((at, numbering.into_values()))
    }

    /// [`Self::number`] for a long column: values near the smallest (the narrow bulk of a column
    /// with a few wide values, such as the residuals of noisy decimals) are numbered through an
    /// array indexed by value, the rest by hash; both in one order of first appearance, as one
    /// numbering would.
    fn number_near_and_far(values: &[W], min: W, limit: usize) -> Option<(Scratch<u32>, Vec<W>)> {
        let near = (DENSE_PER_VALUE * values.len()).min(1 << DENSE_BITS);
        let near_limit = W::from_u64(near as u64);
        let mut near_slots = vec![u32::MAX; near];
        let reserved = values.len().min(RESERVED);
        let mut far = Numbering::with_capacity(reserved);
        let mut far_slots: Vec<u32> = Vec::with_capacity(reserved);
        let mut distinct = Vec::with_capacity(reserved);
        let mut at = Scratch::with_capacity(values.len());
        for &value in values {
            let offset = value.wrapping_sub(min);
            let slot = if offset < near_limit {
                let slot = &mut near_slots[offset.low_u64() as usize];
                if *slot == u32::MAX {
                    *slot = distinct.len() as u32;
                    distinct.push(value);
                }
                *slot
            } else {
                // The numbering keeps the value: its place is filled in at the end.
                let number = far.number(value) as usize;
                if number == far_slots.len() {
                    far_slots.push(distinct.len() as u32);
                    distinct.push(W::ZERO);
                }
                far_slots[number]
            };
            at.push(slot);
            if distinct.len() > limit {
                return None;
            }
        }
        for (value, &slot) in far.into_values().into_iter().zip(&far_slots) {
            distinct[slot as usize] = value;
        }
        Some((at, distinct))
    }

    /// Each distinct value as (slot, value, count), ascending by value for a dense set and in
    /// order of first appearance otherwise.
    pub(super) fn entries(&self) -> Vec<(usize, W, u64)> {
        match self {
            Distinct::Dense { min, slots } => (slots.iter().enumerate())
                .filter(|&(_, &count)| count > 0)
                .map(|(slot, &count)| (slot, min.wrapping_add(W::from_u64(slot as u64)), count))
                .collect(),
            Distinct::Hashed { values, slots, .. } => (values.iter().zip(slots).enumerate())
                .map(|(slot, (&value, &count))| (slot, value, count))
                .collect(),
        }
    }

    /// The slots, to number.
    pub(super) fn slots_mut(&mut self) -> &mut [u64] {
        match self {
            Distinct::Dense { slots, .. } | Distinct::Hashed { slots, .. } => slots,
        }
    }

    /// Calls `f` with each of `values[positions]` (`values` the column counted) and what its
    /// slot holds, in order.
    #[inline(always)]
    pub(super) fn numbers(&self, values: &[W], positions: Range<usize>, mut f: impl FnMut(W, u64)) {
        // Plain loops, so that `f` and what it captures are inlined into the caller's loop
        // (through an iterator's `for_each` they were not, and `f`'s state went through memory).
        match self {
            Distinct::Dense { min, slots } => {
                for &value in &values[positions] {
                    f(value, slots[value.wrapping_sub(*min).low_u64() as usize]);
                }
            }
            Distinct::Hashed { slots, at, .. } => {
                for (&value, &slot) in values[positions.clone()].iter().zip(&at[positions]) {
                    f(value, slots[slot as usize]);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The counts of `values`, widened, in value order, and whether an array held them.
    fn counted<W: Word>(values: &[W]) -> (Vec<(u64, u64)>, bool) {
        let (min, max) = (values.iter().min().unwrap(), values.iter().max().unwrap());
        let distinct = Distinct::count(values, *min, *max, usize::MAX).unwrap();
        let mut counts: Vec<(u64, u64)> = (distinct.entries().into_iter())
            .map(|(_, value, count)| (value.low_u64(), count))
            .collect();
        counts.sort_unstable();
        (counts, matches!(distinct, Distinct::Dense { .. }))
    }

    #[test]
    fn counting_in_an_array_agrees_with_counting_by_hash() {
        let mut next = crate::encodings::xorshift(0x1234_5678_9abc_def1);
        let wide: Vec<u64> = (0..5000)
            .map(|i| {
                let state = next();
                if i % 2 == 0 {
                    state % 9000
                } else {
                    state
                }
            })
            .collect();
        let narrow: Vec<u64> = wide.iter().map(|v| v % 3000 + 1_000_000).collect();
        let extremes: Vec<u8> = (0..300).map(|i| [0, 255, 7][i % 3]).collect();
        let check = |(counted, dense): (Vec<(u64, u64)>, bool), values: &[u64], in_array| {
            let mut reference = std::collections::BTreeMap::new();
            for &v in values {
                *reference.entry(v).or_insert(0u64) += 1;
            }
            assert_eq!(counted, reference.into_iter().collect::<Vec<_>>());
            assert_eq!(dense, in_array);
        };
        check(counted(&narrow), &narrow, true);
        check(counted(&wide), &wide, false);
        let widened: Vec<u64> = extremes.iter().map(|&v| u64::from(v)).collect();
        check(counted(&extremes), &widened, true);
    }

    #[test]
    fn the_counter_agrees_with_a_hash_set_up_to_its_limit() {
        let mut next = crate::encodings::xorshift(0x9e37_79b9_7f4a_7c15);
        for (len, spread, limit) in [
            (0, 9, 0),
            (300, 7, 0),
            (300, 50, 49),
            (300, 50, 50),
            (5000, 1 << 40, 700),
            (5000, 3000, 10_000),
        ] {
            let values: Vec<u64> = (0..len).map(|_| next() % spread).collect();
            let distinct = values
                .iter()
                .collect::<std::collections::HashSet<_>>()
                .len();
            // Whole, and in two parts with a smaller limit for the first, as columns are counted.
            let mut counter = DistinctCounter::new(limit);
            assert_eq!(counter.add_all(&values, limit), distinct <= limit);
            assert_eq!(counter.count(), distinct.min(limit + 1));
            let (first, rest) = values.split_at(len / 3);
            let first_distinct = first.iter().collect::<std::collections::HashSet<_>>().len();
            let mut counter = DistinctCounter::new(limit);
            let within = counter.add_all(first, limit / 2) && counter.add_all(rest, limit);
            assert_eq!(within, first_distinct <= limit / 2 && distinct <= limit);
        }
        // Words of every width, and a capacity below the limit asked.
        let mut counter = DistinctCounter::new(3);
        assert!(counter.add_all(&[1u128 << 100, 3, 1 << 100, u128::MAX, 3], 10));
        assert_eq!(counter.count(), 3);
        assert!(!counter.add_all(&[0], 10));
    }

    #[test]
    fn numbers_stand_for_every_position_of_their_value() {
        for values in [
            vec![5u64, 9, 5, 7, 9, 5],
            vec![5, 1 << 40, 5, 7, 1 << 40, 5],
        ] {
            let (min, max) = (values[0].min(7), *values.iter().max().unwrap());
            let mut distinct = Distinct::count(&values, min, max, 3).unwrap();
            let entries = distinct.entries();
            assert_eq!(entries.len(), 3);
            for (slot, value, _) in entries {
                distinct.slots_mut()[slot] = value * 10;
            }
            let mut seen = 0;
            distinct.numbers(&values, 0..values.len(), |value, number| {
                assert_eq!(number, value * 10);
                seen += 1;
            });
            assert_eq!(seen, values.len());
            assert!(
                Distinct::count(&values, min, max, 2).is_none(),
                "over the limit"
            );
        }
    }
}
