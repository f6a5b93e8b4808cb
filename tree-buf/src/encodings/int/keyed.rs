//! Keyed integer streams: a column whose values follow the size of another column's values at
//! the same positions (a batter's hits given his at-bats) is split into parts by the other
//! column's values, and each part is encoded on its own. The parts hold narrower ranges of
//! values than the column, so their codes are shorter; the other column is read anyway.
//!
//! ```text
//! keyed_int := 0x0f source:varint parts:varint part:prefixed{parts - 1} part:int_stream
//!   (version 7; only the stream of a branch, never nested)
//!   source: the index in the branch table of an integer leaf's branch, whose stream is not
//!           keyed, with as many values (or, where the keyed node is an option's child, as many
//!           as the option: then the values where the option holds one are taken)
//!   parts:  1..=256; the part of every source value taken (see `part_of`) is below it
//!   part i: an int_stream of the values at the positions whose source value is in part i, in
//!           order; the last part runs to the end of the stream
//! ```
//!
//! The part of a source word is taken from its value as an unsigned number (signed sources
//! zigzagged first): 0 to 3 are parts of their own, and each larger power of two is split in
//! two halves, so that the parts grow with the values as their spread does.

use super::select::{encode_nested, prefixed, Chain};
use super::{decode_nested, describe, Word};
use crate::encodings::budget::Budget;
use crate::encodings::bytes::{write_varint, ByteReader};
use crate::encodings::describe::{Codec, Describer, Encoding};
use crate::encodings::{Settings, Version};
use crate::error::{corrupt, DecodeError};

/// The tag of a keyed integer stream, the next free in the integer and float tag space.
pub(crate) const TAG: u8 = 0x0f;

/// The most parts a stream may have: one for each value [`part_of`] gives.
pub(crate) const MAX_PARTS: usize = 256;

/// The part of a source value `z` (unsigned, or zigzagged when signed): `z` itself below 4,
/// else `2 * floor(log2 z)` plus the bit below the highest.
pub(crate) fn part_of(z: u128) -> u8 {
    if z < 4 {
        return z as u8;
    }
    let top = 127 - z.leading_zeros();
    (2 * top + ((z >> (top - 1)) & 1) as u32) as u8
}

/// The part of a source word; `signed` zigzags it first.
pub(crate) fn part_of_word<W: Word>(word: W, signed: bool) -> u8 {
    if W::BYTES <= 8 {
        let bits = 8 * W::BYTES as u32;
        let unsigned = word.low_u64();
        let z = if signed {
            // Sign-extended to 64 bits, then zigzagged.
            let value = ((unsigned << (64 - bits)) as i64) >> (64 - bits);
            ((value << 1) ^ (value >> 63)) as u64
        } else {
            unsigned
        };
        return part_of(u128::from(z));
    }
    let unsigned = u128::from_le_bytes(word.to_le_padded());
    let z = if signed {
        let value = unsigned as i128;
        ((value << 1) ^ (value >> 127)) as u128
    } else {
        unsigned
    };
    part_of(z)
}

/// The part of each of a source column's words; `signed` zigzags them first.
pub(crate) fn parts_of<W: Word>(words: &[W], signed: bool) -> Vec<u8> {
    words
        .iter()
        .map(|&word| part_of_word(word, signed))
        .collect()
}

/// Writes `values` as a keyed stream over the branch `source`, whose words fall in `parts`
/// (one per value, from [`parts_of`]); gives the version it needs.
pub(crate) fn encode<W: Word>(
    source: usize,
    parts: &[u8],
    values: &[W],
    settings: &Settings,
    out: &mut Vec<u8>,
) -> Version {
    let part_count = parts.iter().max().map_or(1, |&max| usize::from(max) + 1);
    let mut split: Vec<Vec<W>> = vec![Vec::new(); part_count];
    for (&part, &value) in parts.iter().zip(values) {
        split[usize::from(part)].push(value);
    }
    out.push(TAG);
    write_varint(out, source as u64);
    write_varint(out, part_count as u64);
    let mut version = Version::KEYED_INTS;
    for (index, part) in split.iter().enumerate() {
        let encode_part = |out: &mut Vec<u8>| encode_nested(part, settings, Chain::default(), out);
        version = version.max(if index + 1 < part_count {
            prefixed(out, encode_part)
        } else {
            encode_part(out)
        });
    }
    version
}

/// The source branch of a keyed stream; `None` for a stream of any other kind.
pub(crate) fn source(bytes: &[u8]) -> Option<Result<usize, DecodeError>> {
    let body = bytes.strip_prefix(&[TAG])?;
    Some(ByteReader::new(body).count(0))
}

/// A keyed stream's header: its source branch and its parts, still encoded.
struct Keyed<'a> {
    source: usize,
    parts: Vec<&'a [u8]>,
}

impl<'a> Keyed<'a> {
    fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        let body = bytes
            .strip_prefix(&[TAG])
            .ok_or_else(|| corrupt("not a keyed integer stream"))?;
        let mut reader = ByteReader::new(body);
        let source = reader.count(0)?;
        let part_count = reader.count(0)?;
        if !(1..=MAX_PARTS).contains(&part_count) {
            return Err(corrupt(format!(
                "a keyed integer stream of {part_count} parts (1 to {MAX_PARTS})"
            )));
        }
        let mut parts = Vec::with_capacity(part_count);
        for _ in 1..part_count {
            parts.push(reader.prefixed()?);
        }
        parts.push(reader.rest());
        Ok(Keyed { source, parts })
    }
}

/// Decodes a keyed stream of `count` words, given the part of each of its source's values.
pub(crate) fn decode<W: Word>(
    bytes: &[u8],
    source_parts: &[u8],
    count: usize,
    budget: &mut Budget,
) -> Result<Vec<W>, DecodeError> {
    let keyed = Keyed::parse(bytes)?;
    if source_parts.len() != count {
        return Err(corrupt(format!(
            "{count} values keyed by {} source values",
            source_parts.len()
        )));
    }
    let mut counts = vec![0usize; keyed.parts.len()];
    for &part in source_parts {
        *counts.get_mut(usize::from(part)).ok_or_else(|| {
            corrupt(format!(
                "a source value falls in part {part} of a keyed stream of {} parts",
                keyed.parts.len()
            ))
        })? += 1;
    }
    // The parts are alive while the column is made from them.
    budget.charge(count, W::BYTES)?;
    let mut parts = Vec::with_capacity(counts.len());
    for (bytes, &count) in keyed.parts.iter().zip(&counts) {
        parts.push(decode_nested::<W>(bytes, count, budget, 1)?.into_iter());
    }
    // Each part holds exactly as many values as positions take from it (checked by its decoding),
    // so no position finds its part empty.
    Ok(source_parts
        .iter()
        .map(|&part| parts[usize::from(part)].next().unwrap_or_default())
        .collect())
}

/// The encoding of a keyed stream: its source and the encoding of its largest part.
pub(crate) fn describe_stream<W: Word>(bytes: &[u8], at: Describer) -> Encoding {
    at.stream(bytes, Keyed::parse, |keyed, at| {
        let largest = (keyed.parts.iter())
            .max_by_key(|part| part.len())
            .map_or(&[][..], |part| *part);
        let codec = Codec::KeyedInts {
            source_branch: keyed.source,
            source_path: None,
            parts: keyed.parts.len(),
        };
        (codec, vec![describe::<W>(largest, at.nested())])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_grow_by_halves_of_powers_of_two() {
        let parts: Vec<u8> = [0u128, 1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 15, 16]
            .into_iter()
            .map(part_of)
            .collect();
        assert_eq!(parts, [0, 1, 2, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8]);
        assert_eq!(part_of(u128::MAX), 255);
        assert_eq!(parts_of(&[0u8, 255], false), [0, 15]);
        // -1 zigzags to 1, 1 to 2, -128 to 255.
        assert_eq!(parts_of(&[255u8, 1, 128], true), [1, 2, 15]);
        assert_eq!(parts_of(&[u128::MAX], true), [1]);
    }

    #[test]
    fn keyed_streams_round_trip_and_check_their_source() {
        let source: Vec<u16> = (0..5000u32).map(|i| (i * 7919 % 1000) as u16).collect();
        let values: Vec<u16> = source.iter().map(|&s| s / 3 + s % 5).collect();
        let parts = parts_of(&source, false);
        let mut bytes = Vec::new();
        let version = encode(3, &parts, &values, &Settings::default(), &mut bytes);
        assert_eq!(version, Version::KEYED_INTS);
        assert_eq!(source_of(&bytes), Some(3));
        let mut budget = Budget::new(u64::MAX);
        assert_eq!(
            decode::<u16>(&bytes, &parts, 5000, &mut budget).unwrap(),
            values
        );
        // Other parts than the stream's, or another count, are errors, not panics.
        let mut wrong = parts.clone();
        wrong[0] = 200;
        assert!(decode::<u16>(&bytes, &wrong, 5000, &mut budget).is_err());
        wrong[0] = parts[1].wrapping_add(1) % 20;
        let _ = decode::<u16>(&bytes, &wrong, 5000, &mut budget);
        // A part one value short may still decode (a bit-packed block's padding is zeros), but
        // never panics; a count that is not the source's is an error.
        let _ = decode::<u16>(&bytes, &parts[1..], 4999, &mut budget);
        assert!(decode::<u16>(&bytes, &parts, 4999, &mut budget).is_err());
        for len in 0..bytes.len() {
            let _ = decode::<u16>(&bytes[..len], &parts, 5000, &mut budget);
        }
    }

    fn source_of(bytes: &[u8]) -> Option<usize> {
        source(bytes).map(Result::unwrap)
    }
}
