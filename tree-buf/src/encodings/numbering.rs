//! Numbering the distinct values of a column in order of first appearance: what dictionaries,
//! Huffman codes, string ranks and the choice between them are built on. An encoding aid with no
//! wire grammar.
//!
//! An open-addressing table: a value is looked for from a slot its hash picks, then in the slots
//! after. Each slot keeps the top bits of its value's hash beside the number, so that most
//! mismatches are told without reading the value, and growing the table hashes nothing again.
//! A word is kept in its slot as well, so that a lookup reads one place in memory (with the
//! number alone it read the value's place next, a second cache miss that waited on the first);
//! a byte string is not, as a slot three times as wide costs more cache than it spares.
//! It does less per value than a general hash map (nothing is ever removed, keys are copied
//! words or byte slices), and the numbers need no second map.

use std::hash::BuildHasher;

use rustc_hash::FxBuildHasher;

/// A value that can be numbered: compared, copied and hashed.
pub(crate) trait Key: Copy + Eq {
    /// What a slot keeps of the value: the value itself, or nothing (`()`).
    type Kept: Copy + Default + Eq;
    /// Whether [`Self::Kept`] tells values apart, so that the list of values is not read.
    const KEPT_WHOLE: bool;
    /// A hash whose top bits are well mixed.
    fn hash(self) -> u64;
    fn kept(self) -> Self::Kept;
}

macro_rules! word_keys {
    ($($t:ty),*) => {$(
        impl Key for $t {
            type Kept = $t;
            const KEPT_WHOLE: bool = true;
            #[inline]
            fn hash(self) -> u64 {
                // Fibonacci hashing: the top bits of the product depend on every bit of the value.
                let folded = (self as u128 >> 64) as u64 ^ self as u64;
                folded.wrapping_mul(0x9e37_79b9_7f4a_7c15)
            }
            #[inline(always)]
            fn kept(self) -> $t {
                self
            }
        }
    )*};
}
word_keys!(u8, u16, u32, u64, u128);

impl Key for &[u8] {
    type Kept = ();
    const KEPT_WHOLE: bool = false;
    #[inline]
    fn hash(self) -> u64 {
        FxBuildHasher.hash_one(self)
    }
    #[inline(always)]
    fn kept(self) {}
}

/// Numbers the distinct values it is shown, in order of first appearance.
pub(crate) struct Numbering<K: Key> {
    /// The values in order of first appearance: value `n` has number `n`.
    values: Vec<K>,
    /// The slots, a power of two of them, at most half taken.
    table: Vec<Slot<K::Kept>>,
    /// The bits of the table's size.
    bits: u32,
}

/// A slot of a numbering's table.
#[derive(Clone, Copy, Default)]
struct Slot<Kept> {
    /// 0 when empty, else the top 32 bits of the value's hash above its number plus one.
    entry: u64,
    kept: Kept,
}

impl<K: Key> Numbering<K> {
    /// A numbering with room for `capacity` values before its table grows.
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        let bits = (2 * capacity.max(8)).next_power_of_two().trailing_zeros();
        Numbering {
            values: Vec::with_capacity(capacity),
            table: vec![Slot::default(); 1 << bits],
            bits,
        }
    }

    /// The number of `value`, a new one if it has not been seen.
    #[inline(always)]
    pub(crate) fn number(&mut self, value: K) -> u32 {
        let tag = value.hash() >> 32;
        let mask = self.table.len() - 1;
        let mut slot = (tag >> (32 - self.bits)) as usize;
        loop {
            let Slot { entry, kept } = self.table[slot];
            if entry == 0 {
                break;
            }
            let number = (entry as u32).wrapping_sub(1);
            if entry >> 32 == tag
                && kept == value.kept()
                && (K::KEPT_WHOLE || self.values[number as usize] == value)
            {
                return number;
            }
            slot = (slot + 1) & mask;
        }
        let number = self.values.len() as u32;
        self.values.push(value);
        self.table[slot] = Slot {
            entry: tag << 32 | u64::from(number + 1),
            kept: value.kept(),
        };
        // At most half full, so that a search meets an empty slot soon.
        if 2 * self.values.len() > self.table.len() {
            self.grow();
        }
        number
    }

    /// Doubles the table and puts every entry back where its hash now points.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let old = std::mem::replace(&mut self.table, vec![Slot::default(); 2 << self.bits]);
        self.bits += 1;
        let mask = self.table.len() - 1;
        for taken in old.into_iter().filter(|taken| taken.entry != 0) {
            let mut slot = ((taken.entry >> 32) >> (32 - self.bits)) as usize;
            while self.table[slot].entry != 0 {
                slot = (slot + 1) & mask;
            }
            self.table[slot] = taken;
        }
    }

    /// The values, in order of first appearance.
    pub(crate) fn into_values(self) -> Vec<K> {
        self.values
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Numbers `values` and checks every number against a reference map.
    fn check<K: Key + std::hash::Hash>(values: &[K], capacity: usize) {
        let mut numbering = Numbering::with_capacity(capacity);
        let mut reference = std::collections::HashMap::new();
        for &value in values {
            let next = reference.len() as u32;
            let expected = *reference.entry(value).or_insert(next);
            assert_eq!(numbering.number(value), expected);
        }
        assert_eq!(numbering.into_values().len(), reference.len());
    }

    #[test]
    fn numbers_follow_first_appearance_as_the_table_grows() {
        let words: Vec<u128> = (0..20_000u128)
            .map(|i| ((i * i % 7919) << 70) | (i % 3))
            .collect();
        check(&words, 4);
        let bytes: Vec<u8> = (0..=255).collect();
        check(&bytes.repeat(3), 1000);
        let text: Vec<String> = (0..5000).map(|i| format!("p{}", i * 7 % 1201)).collect();
        let slices: Vec<&[u8]> = text.iter().map(|s| s.as_bytes()).collect();
        check(&slices, 16);
    }
}
