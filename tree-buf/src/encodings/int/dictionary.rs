//! Dictionaries: the distinct values once, in sorted order, and an index per value; both cascaded
//! (sorted values delta-code well, indices bit-pack). The grouped form treats every `group`
//! consecutive words as one value: the 20 bytes of an id in a `[u8; 20]`, say.
//!
//! ```text
//! dictionary := 0x07 distinct:varint values:prefixed indices:int_stream
//!   distinct: at most count, at least one if count > 0
//!   values:   an int_stream of `distinct` words
//!   indices:  an int_stream of count 32-bit indices, each below `distinct`
//! group_dictionary := 0x0c group:varint distinct:varint values:prefixed indices:int_stream
//!   the words form count / group groups (group >= 1, count a multiple of it); `distinct` at
//!   most the groups, at least one if there are any
//!   values:   an int_stream of distinct * group words
//!   indices:  an int_stream of count / group 32-bit indices; group j is the indices[j]-th
//!             group of `values`
//! ```

use rustc_hash::{FxHashMap, FxHashSet};

use super::distinct::Distinct;
use super::select::{encode_nested, encode_nested_prefixed, Chain};
use super::transform::Finish;
use super::{decode_nested, describe, extremes, IntTag, Word};
use crate::encodings::budget::Budget;
use crate::encodings::bytes::{write_varint, ByteReader};
use crate::encodings::describe::{Codec, Describer, Encoding};
use crate::encodings::{Settings, Version};
use crate::error::{corrupt, DecodeError};

fn write_parts<W: Word>(
    values: &[W],
    indices: &[u32],
    settings: &Settings,
    chain: Chain,
    out: &mut Vec<u8>,
) -> Version {
    let chain = chain.with(Chain::DICTIONARY);
    let entries = encode_nested_prefixed(values, settings, chain, out);
    entries.max(encode_nested(indices, settings, chain, out))
}

pub(super) fn encode<W: Word>(
    values: &[W],
    settings: &Settings,
    chain: Chain,
    out: &mut Vec<u8>,
) -> Version {
    let (min, max) = extremes(values);
    let mut distinct = Distinct::count(values, min, max, values.len())
        .expect("a column has no more distinct values than values");
    // Entries in ascending order; each value's slot then holds its index.
    let mut entries = distinct.entries();
    entries.sort_unstable_by_key(|&(_, value, _)| value);
    let slots = distinct.slots_mut();
    for (index, &(slot, ..)) in entries.iter().enumerate() {
        slots[slot] = index as u64;
    }
    let mut indices = Vec::with_capacity(values.len());
    distinct.numbers(values, 0..values.len(), |_, index| {
        indices.push(index as u32)
    });
    let sorted: Vec<W> = entries.into_iter().map(|(_, value, _)| value).collect();
    out.push(IntTag::Dictionary as u8);
    write_varint(out, sorted.len() as u64);
    write_parts(&sorted, &indices, settings, chain, out)
}

/// The number of distinct groups of `group` words, if `values` splits into groups.
pub(super) fn count_groups<W: Word>(values: &[W], group: usize) -> Option<usize> {
    if group < 2 || !values.len().is_multiple_of(group) {
        return None;
    }
    let groups: FxHashSet<&[W]> = values.chunks_exact(group).collect();
    Some(groups.len())
}

pub(super) fn encode_groups<W: Word>(
    values: &[W],
    group: usize,
    settings: &Settings,
    chain: Chain,
    out: &mut Vec<u8>,
) -> Version {
    let mut distinct: Vec<&[W]> = values.chunks_exact(group).collect();
    distinct.sort_unstable();
    distinct.dedup();
    let index: FxHashMap<&[W], u32> = distinct
        .iter()
        .enumerate()
        .map(|(i, &v)| (v, i as u32))
        .collect();
    let indices: Vec<u32> = values
        .chunks_exact(group)
        .map(|g| index.get(g).copied().unwrap_or_default())
        .collect();
    let flat: Vec<W> = distinct.concat();
    out.push(IntTag::GroupDictionary as u8);
    write_varint(out, group as u64);
    write_varint(out, distinct.len() as u64);
    write_parts(&flat, &indices, settings, chain, out)
}

/// A dictionary stream's header, plain or grouped.
pub(crate) struct Dictionary<'a> {
    /// Words per entry; `None` for a plain dictionary (one word per entry).
    group: Option<usize>,
    distinct: usize,
    values: &'a [u8],
    indices: &'a [u8],
}

impl<'a> Dictionary<'a> {
    /// Reads a plain dictionary's header from `body`, the bytes after the tag.
    pub(super) fn parse(body: &'a [u8]) -> Result<Self, DecodeError> {
        Dictionary::parse_rest(None, &mut ByteReader::new(body))
    }

    /// Reads a group dictionary's header from `body`, the bytes after the tag.
    pub(super) fn parse_groups(body: &'a [u8]) -> Result<Self, DecodeError> {
        let mut reader = ByteReader::new(body);
        let group = reader.count(0)?;
        Dictionary::parse_rest(Some(group), &mut reader)
    }

    fn parse_rest(group: Option<usize>, reader: &mut ByteReader<'a>) -> Result<Self, DecodeError> {
        Ok(Dictionary {
            group,
            distinct: reader.count(0)?,
            values: reader.prefixed()?,
            indices: reader.rest(),
        })
    }

    /// The `count` values, each made what `finish` makes it as it is looked up.
    pub(super) fn decode<W: Word>(
        self,
        count: usize,
        budget: &mut Budget,
        depth: usize,
        mut finish: impl Finish<W>,
    ) -> Result<Vec<W>, DecodeError> {
        let group = self.group.unwrap_or(1);
        if group == 0 || !count.is_multiple_of(group) {
            return Err(corrupt(format!(
                "groups of {group} cannot make {count} values"
            )));
        }
        let (distinct, lookups) = (self.distinct, count / group);
        if distinct > lookups || (distinct == 0 && lookups > 0) {
            return Err(corrupt(format!(
                "{distinct} dictionary entries for {lookups} values"
            )));
        }
        let words = distinct
            .checked_mul(group)
            .ok_or_else(|| corrupt("dictionary too large"))?;
        budget.charge(words, W::BYTES)?;
        let values = decode_nested::<W>(self.values, words, budget, depth + 1)?;
        budget.charge(lookups, 4)?;
        let indices = decode_nested::<u32>(self.indices, lookups, budget, depth + 1)?;
        if let Some(bad) = indices.iter().find(|&&i| i as usize >= distinct) {
            return Err(corrupt(format!(
                "dictionary index {bad} past the {distinct} entries"
            )));
        }
        if group == 1 {
            let looked_up = indices
                .into_iter()
                .map(|i| finish.apply(values[i as usize]));
            return Ok(looked_up.collect());
        }
        let mut out = Vec::with_capacity(count);
        for index in indices {
            let start = index as usize * group;
            out.extend_from_slice(&values[start..start + group]);
        }
        finish.apply_all(&mut out);
        Ok(out)
    }

    pub(super) fn describe<W: Word>(self, at: Describer) -> (Codec, Vec<Encoding>) {
        let distinct = self.distinct as u64;
        let codec = match self.group {
            None => Codec::Dictionary { distinct },
            Some(group) => Codec::GroupDictionary {
                group: group as u64,
                distinct,
            },
        };
        (
            codec,
            vec![
                describe::<W>(self.values, at.nested()),
                describe::<u32>(self.indices, at.nested()),
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::transform::{AsDecoded, RunningSums};
    use super::*;
    use crate::encodings::bytes::write_prefixed;

    fn decode<W: Word>(body: &[u8], count: usize) -> Result<Vec<W>, DecodeError> {
        Dictionary::parse(body)?.decode(count, &mut Budget::new(u64::MAX), 0, AsDecoded)
    }

    fn decode_groups<W: Word>(body: &[u8], count: usize) -> Result<Vec<W>, DecodeError> {
        Dictionary::parse_groups(body)?.decode(count, &mut Budget::new(u64::MAX), 0, AsDecoded)
    }

    #[test]
    fn a_transform_over_the_values_is_applied_as_they_are_looked_up() {
        let values: Vec<u64> = (0..1000).map(|i| [7, 1 << 50, 3][i % 3]).collect();
        let mut out = Vec::new();
        let _ = encode(&values, &Settings::default(), Chain::default(), &mut out);
        let mut sums = values.clone();
        RunningSums::<u64, false>::new().apply_all(&mut sums);
        let dictionary = Dictionary::parse(&out[1..]).unwrap();
        let finish = RunningSums::<u64, false>::new();
        let summed = dictionary.decode(values.len(), &mut Budget::new(u64::MAX), 0, finish);
        assert_eq!(summed.unwrap(), sums);

        let ids: Vec<u8> = (0..200).flat_map(|i| [(i % 4) as u8; 20]).collect();
        let mut out = Vec::new();
        let _ = encode_groups(&ids, 20, &Settings::default(), Chain::default(), &mut out);
        let mut sums = ids.clone();
        RunningSums::<u8, false>::new().apply_all(&mut sums);
        let groups = Dictionary::parse_groups(&out[1..]).unwrap();
        let finish = RunningSums::<u8, false>::new();
        let summed = groups.decode(ids.len(), &mut Budget::new(u64::MAX), 0, finish);
        assert_eq!(summed.unwrap(), sums);
    }

    #[test]
    fn round_trips_plain_and_grouped() {
        let values: Vec<u64> = (0..1000).map(|i| [7, 1 << 50, 3][i % 3]).collect();
        let mut out = Vec::new();
        let _ = encode(&values, &Settings::default(), Chain::default(), &mut out);
        assert_eq!(decode::<u64>(&out[1..], values.len()).unwrap(), values);

        let ids: Vec<u8> = (0..200).flat_map(|i| [(i % 4) as u8; 20]).collect();
        assert_eq!(count_groups(&ids, 20), Some(4));
        let mut out = Vec::new();
        let _ = encode_groups(&ids, 20, &Settings::default(), Chain::default(), &mut out);
        assert!(out.len() < 200, "{} bytes", out.len());
        assert_eq!(decode_groups::<u8>(&out[1..], ids.len()).unwrap(), ids);
    }

    #[test]
    fn an_index_past_the_end_is_an_error() {
        // One entry (value 5), two indices: 0 and 1.
        let mut body = vec![1];
        write_prefixed(&mut body, &[0x00, 1, 5]);
        body.extend([0x00, 1, 0, 1]);
        assert!(decode::<u64>(&body, 2).is_err());
        // Entries and indices: empty fixed-width streams.
        let parts = [2, 0x00, 0, 0x00, 0];
        let with = |head: &[u8]| [head, &parts].concat();
        assert!(
            decode::<u64>(&with(&[3]), 2).is_err(),
            "more entries than values"
        );
        assert!(
            decode_groups::<u8>(&with(&[0, 1]), 4).is_err(),
            "group of zero"
        );
        assert!(
            decode_groups::<u8>(&with(&[3, 1]), 4).is_err(),
            "count not a multiple"
        );
    }
}
