//! Dictionaries: the distinct values once, in sorted order, and an index per value; both cascaded
//! (sorted values delta-code well, indices bit-pack). The grouped form treats every `group`
//! consecutive words as one value: the 20 bytes of an id in a `[u8; 20]`, say.
//!
//! ```text
//! dictionary := 0x07 distinct:varint values:prefixed indices:int_stream
//!   values: `distinct` words; indices: count 32-bit indices, each below `distinct`
//! group_dictionary := 0x0c group:varint distinct:varint values:prefixed indices:int_stream
//!   count is a multiple of `group`; values: distinct * group words; indices: count / group
//! ```

use rustc_hash::{FxHashMap, FxHashSet};

use super::select::{encode_nested, encode_nested_prefixed, Chain};
use super::{decode_nested, describe as describe_stream, Word, DICTIONARY, GROUP_DICTIONARY};
use crate::encodings::budget::Budget;
use crate::encodings::bytes::{write_varint, ByteReader};
use crate::encodings::Settings;
use crate::error::{corrupt, DecodeError};

fn write_parts<W: Word>(
    values: &[W],
    indices: &[u32],
    settings: &Settings,
    chain: Chain,
    out: &mut Vec<u8>,
) {
    let chain = chain.with(Chain::DICTIONARY);
    encode_nested_prefixed(values, settings, chain, out);
    encode_nested(indices, settings, chain, out);
}

pub(super) fn encode<W: Word>(values: &[W], settings: &Settings, chain: Chain, out: &mut Vec<u8>) {
    let mut distinct = values.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    let index: FxHashMap<W, u32> = distinct
        .iter()
        .enumerate()
        .map(|(i, &v)| (v, i as u32))
        .collect();
    let indices: Vec<u32> = values
        .iter()
        .map(|v| index.get(v).copied().unwrap_or_default())
        .collect();
    out.push(DICTIONARY);
    write_varint(out, distinct.len() as u64);
    write_parts(&distinct, &indices, settings, chain, out);
}

/// The number of distinct groups of `group` words, if `values` splits into groups.
pub(super) fn count_groups<W: Word>(values: &[W], group: usize) -> Option<usize> {
    if group < 2 || values.len() % group != 0 {
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
) {
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
    out.push(GROUP_DICTIONARY);
    write_varint(out, group as u64);
    write_varint(out, distinct.len() as u64);
    write_parts(&flat, &indices, settings, chain, out);
}

/// Reads `distinct` dictionary entries of `group` words and `lookups` indices into them.
fn read_parts<W: Word>(
    reader: &mut ByteReader<'_>,
    distinct: usize,
    group: usize,
    lookups: usize,
    budget: &mut Budget,
    depth: usize,
) -> Result<(Vec<W>, Vec<u32>), DecodeError> {
    if distinct > lookups || (distinct == 0 && lookups > 0) {
        return Err(corrupt(format!(
            "{distinct} dictionary entries for {lookups} values"
        )));
    }
    let words = distinct
        .checked_mul(group)
        .ok_or_else(|| corrupt("dictionary too large"))?;
    budget.charge(words, W::BYTES)?;
    let values = decode_nested::<W>(reader.prefixed()?, words, budget, depth + 1)?;
    budget.charge(lookups, 4)?;
    let indices = decode_nested::<u32>(reader.rest(), lookups, budget, depth + 1)?;
    if let Some(bad) = indices.iter().find(|&&i| i as usize >= distinct) {
        return Err(corrupt(format!(
            "dictionary index {bad} past the {distinct} entries"
        )));
    }
    Ok((values, indices))
}

pub(super) fn decode<W: Word>(
    body: &[u8],
    count: usize,
    budget: &mut Budget,
    depth: usize,
) -> Result<Vec<W>, DecodeError> {
    let mut reader = ByteReader::new(body);
    let distinct = reader.count(0)?;
    let (values, indices) = read_parts::<W>(&mut reader, distinct, 1, count, budget, depth)?;
    Ok(indices.into_iter().map(|i| values[i as usize]).collect())
}

pub(super) fn decode_groups<W: Word>(
    body: &[u8],
    count: usize,
    budget: &mut Budget,
    depth: usize,
) -> Result<Vec<W>, DecodeError> {
    let mut reader = ByteReader::new(body);
    let group = reader.count(0)?;
    if group == 0 || count % group != 0 {
        return Err(corrupt(format!(
            "groups of {group} cannot make {count} values"
        )));
    }
    let distinct = reader.count(0)?;
    let (values, indices) =
        read_parts::<W>(&mut reader, distinct, group, count / group, budget, depth)?;
    let mut out = Vec::with_capacity(count);
    for index in indices {
        let start = index as usize * group;
        out.extend_from_slice(&values[start..start + group]);
    }
    Ok(out)
}

pub(super) fn describe(body: &[u8]) -> String {
    let mut reader = ByteReader::new(body);
    let (Ok(_), Ok(values)) = (reader.varint(), reader.prefixed()) else {
        return "dictionary(corrupt)".into();
    };
    format!(
        "dictionary(values: {}, indices: {})",
        describe_stream(values),
        describe_stream(reader.rest())
    )
}

pub(super) fn describe_groups(body: &[u8]) -> String {
    let mut reader = ByteReader::new(body);
    let (Ok(group), Ok(_), Ok(values)) = (reader.varint(), reader.varint(), reader.prefixed())
    else {
        return "group dictionary(corrupt)".into();
    };
    format!(
        "dictionary of {group}-word groups(values: {}, indices: {})",
        describe_stream(values),
        describe_stream(reader.rest())
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encodings::bytes::write_prefixed;

    #[test]
    fn round_trips_plain_and_grouped() {
        let values: Vec<u64> = (0..1000).map(|i| [7, 1 << 50, 3][i % 3]).collect();
        let mut out = Vec::new();
        encode(&values, &Settings::default(), Chain::default(), &mut out);
        assert_eq!(
            decode::<u64>(&out[1..], values.len(), &mut Budget::new(u64::MAX), 0).unwrap(),
            values
        );

        let ids: Vec<u8> = (0..200).flat_map(|i| [(i % 4) as u8; 20]).collect();
        assert_eq!(count_groups(&ids, 20), Some(4));
        let mut out = Vec::new();
        encode_groups(&ids, 20, &Settings::default(), Chain::default(), &mut out);
        assert!(out.len() < 200, "{} bytes", out.len());
        assert_eq!(
            decode_groups::<u8>(&out[1..], ids.len(), &mut Budget::new(u64::MAX), 0).unwrap(),
            ids
        );
    }

    #[test]
    fn an_index_past_the_end_is_an_error() {
        // One entry (value 5), two indices: 0 and 1.
        let mut body = vec![1];
        write_prefixed(&mut body, &[0x00, 1, 5]);
        body.extend([0x00, 1, 0, 1]);
        assert!(decode::<u64>(&body, 2, &mut Budget::new(u64::MAX), 0).is_err());
        assert!(
            decode::<u64>(&[3], 2, &mut Budget::new(u64::MAX), 0).is_err(),
            "more entries than values"
        );
        assert!(
            decode_groups::<u8>(&[0, 1], 4, &mut Budget::new(u64::MAX), 0).is_err(),
            "group of zero"
        );
        assert!(
            decode_groups::<u8>(&[3, 1], 4, &mut Budget::new(u64::MAX), 0).is_err(),
            "count not a multiple"
        );
    }
}
