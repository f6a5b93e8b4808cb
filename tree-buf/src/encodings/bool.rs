//! Boolean streams.
//!
//! ```text
//! bool_stream := 0x00 byte{ceil(count / 8)}   Packed: value i is bit (i mod 8) of byte (i div 8),
//!                                             least significant bit first; unused bits are 0
//!              | 0x01 first:u8 runs:varint lengths:int_stream
//!                                             Rle: runs alternate, starting with `first` (0 or
//!                                             1); `lengths` holds `runs` 64-bit words, each a
//!                                             run's length minus one, adding up to count
//!              | zstd                         tag 0x08, see `zstd`: around a bool_stream
//! ```

use std::borrow::Cow;

use super::budget::Budget;
use super::bytes::{write_varint, ByteReader};
use super::describe::{Codec, Describer, Encoding};
use super::int;
use super::int::select::{encode_nested, Chain};
use super::zstd::{self, Frame};
use super::{check_depth, is_empty_form, tags, Settings, Version};
use crate::error::{corrupt, DecodeError};

tags! {
    /// The first byte of a boolean stream: its codec.
    BoolTag, "boolean" {
        Packed = 0x00,
        Rle = 0x01,
        Zstd = zstd::TAG,
    }
}

/// A boolean stream's header, parsed once by [`BoolStream::parse`].
enum BoolStream<'a> {
    Packed(&'a [u8]),
    Rle {
        first: bool,
        runs: usize,
        lengths: &'a [u8],
    },
    Zstd(Frame<'a>),
}

impl<'a> BoolStream<'a> {
    /// Reads the header of the stream `bytes`.
    fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        let mut reader = ByteReader::new(bytes);
        Ok(match BoolTag::try_from(reader.u8()?)? {
            BoolTag::Packed => BoolStream::Packed(reader.rest()),
            BoolTag::Rle => BoolStream::Rle {
                first: match reader.u8()? {
                    0 => false,
                    1 => true,
                    other => return Err(corrupt(format!("a boolean run starts with {other}"))),
                },
                runs: reader.count(0)?,
                lengths: reader.rest(),
            },
            BoolTag::Zstd => BoolStream::Zstd(Frame::parse(reader.rest())?),
        })
    }

    /// The `count` booleans of the stream, checked whole: the packed bits as they are stored,
    /// or the runs' lengths.
    fn check(
        self,
        count: usize,
        budget: &mut Budget,
        depth: usize,
    ) -> Result<Checked<'a>, DecodeError> {
        match self {
            BoolStream::Packed(data) => {
                if data.len() != count.div_ceil(8) {
                    return Err(corrupt(format!(
                        "{} bytes of packed bits for {count} booleans",
                        data.len()
                    )));
                }
                if !count.is_multiple_of(8)
                    && data.last().is_some_and(|&last| last >> (count % 8) != 0)
                {
                    return Err(corrupt("packed booleans have bits set past the last value"));
                }
                Ok(Checked::Packed(Cow::Borrowed(data)))
            }
            BoolStream::Rle {
                first,
                runs,
                lengths,
            } => {
                if runs > count || (runs == 0 && count > 0) {
                    return Err(corrupt(format!("{runs} runs for {count} booleans")));
                }
                budget.charge(runs, 8)?;
                let lengths = int::decode_nested::<u64>(lengths, runs, budget, depth + 1)?;
                let mut total = 0usize;
                let lengths = (lengths.into_iter())
                    .map(|length| {
                        let length = usize::try_from(length)
                            .ok()
                            .and_then(|l| l.checked_add(1))
                            .filter(|&l| l <= count - total);
                        let Some(length) = length else {
                            return Err(corrupt(format!(
                                "runs add up to more than {count} booleans"
                            )));
                        };
                        total += length;
                        Ok(length)
                    })
                    .collect::<Result<Vec<usize>, _>>()?;
                if total != count {
                    return Err(corrupt(format!(
                        "runs add up to {total} booleans, not {count}"
                    )));
                }
                Ok(Checked::Runs { first, lengths })
            }
            BoolStream::Zstd(frame) => {
                let inner = frame.decompress(count / 4 + 1024, budget)?;
                Ok(check_nested(&inner, count, budget, depth + 1)?.into_owned())
            }
        }
    }

    fn describe(self, at: Describer) -> (Codec, Vec<Encoding>) {
        match self {
            BoolStream::Packed(_) => (Codec::Packed, Vec::new()),
            BoolStream::Rle {
                first,
                runs,
                lengths,
            } => (
                Codec::BoolRle {
                    first,
                    runs: runs as u64,
                },
                vec![int::describe::<u64>(lengths, at.nested())],
            ),
            BoolStream::Zstd(frame) => frame.describe(at, describe),
        }
    }
}

/// Gives the version the stream needs.
pub(crate) fn encode(values: &[bool], settings: &Settings, out: &mut Vec<u8>) -> Version {
    zstd::best_of(settings, values, 1, out, |values, settings, out| {
        let packed_size = 1 + values.len().div_ceil(8);
        if let Some(lengths) = run_lengths(values) {
            let start = out.len();
            out.push(BoolTag::Rle as u8);
            out.push(u8::from(values[0]));
            write_varint(out, lengths.len() as u64);
            let version = encode_nested(&lengths, settings, Chain::default(), out);
            if out.len() - start < packed_size {
                return version;
            }
            out.truncate(start);
        }
        out.push(BoolTag::Packed as u8);
        out.extend(values.chunks(8).map(|chunk| {
            chunk
                .iter()
                .rev()
                .fold(0u8, |byte, &bit| (byte << 1) | u8::from(bit))
        }));
        Version::FIRST
    })
}

/// The length less one of each run of equal values, when there are fewer than a quarter as many
/// runs as values (else runs cannot pay): they are counted first, and collected only then.
fn run_lengths(values: &[bool]) -> Option<Vec<u64>> {
    let mut changes = 0;
    for_each_run_end(values, |_| changes += 1);
    let runs = 1 + changes;
    (runs * 4 < values.len()).then(|| {
        let mut lengths = Vec::with_capacity(runs);
        let mut start = 0;
        for_each_run_end(values, |index| {
            lengths.push((index - start) as u64);
            start = index + 1;
        });
        lengths.push((values.len() - 1 - start) as u64);
        lengths
    })
}

/// Calls `run_end` with the index of each value that differs from the next, in order: where
/// the runs end. Eight neighbours are compared at once, as words whose bytes are the values, so
/// that a long run costs a compare per eight values.
#[inline]
fn for_each_run_end(values: &[bool], mut run_end: impl FnMut(usize)) {
    let Some(nexts) = values.get(1..) else {
        return;
    };
    // A boolean's byte is 0 or 1: eight make a word in one load.
    let word = |bools: &[bool; 8]| u64::from_le_bytes(bools.map(u8::from));
    let mut index = 0;
    for (these, next) in values
        .as_chunks::<8>()
        .0
        .iter()
        .zip(nexts.as_chunks::<8>().0)
    {
        // A byte is 1 where a value differs from the next.
        let mut differ = word(these) ^ word(next);
        while differ != 0 {
            run_end(index + differ.trailing_zeros() as usize / 8);
            differ &= differ - 1;
        }
        index += 8;
    }
    for (offset, (this, next)) in values[index..].iter().zip(&nexts[index..]).enumerate() {
        if this != next {
            run_end(index + offset);
        }
    }
}

/// The booleans of a stream, checked: as many as asked for, and nothing past them.
enum Checked<'a> {
    /// Bit `i % 8` of byte `i / 8` is value `i`, as stored; the bits past the last are 0.
    Packed(Cow<'a, [u8]>),
    /// Runs of equal values, alternating from `first`; their lengths add up to the count.
    Runs { first: bool, lengths: Vec<usize> },
}

impl<'a> Checked<'a> {
    fn into_owned(self) -> Checked<'static> {
        match self {
            Checked::Packed(bits) => Checked::Packed(Cow::Owned(bits.into_owned())),
            Checked::Runs { first, lengths } => Checked::Runs { first, lengths },
        }
    }

    fn into_bools(self, count: usize) -> Vec<bool> {
        match self {
            Checked::Packed(bits) => {
                let mut values = Vec::with_capacity(bits.len() * 8);
                for &byte in bits.iter() {
                    values.extend((0..8).map(|bit| byte >> bit & 1 == 1));
                }
                values.truncate(count);
                values
            }
            Checked::Runs { first, lengths } => {
                let mut values = Vec::with_capacity(count);
                let mut value = first;
                for length in lengths {
                    values.resize(values.len() + length, value);
                    value = !value;
                }
                values
            }
        }
    }

    fn into_bits(self, count: usize) -> Cow<'a, [u8]> {
        match self {
            Checked::Packed(bits) => bits,
            Checked::Runs { first, lengths } => {
                let mut bits = vec![0u8; count.div_ceil(8)];
                let (mut start, mut value) = (0, first);
                for length in lengths {
                    if value {
                        set_bits(&mut bits, start, start + length);
                    }
                    start += length;
                    value = !value;
                }
                Cow::Owned(bits)
            }
        }
    }
}

/// Sets bits `start..end` of `bits` (least significant first), whole bytes at a time.
fn set_bits(bits: &mut [u8], start: usize, end: usize) {
    let mut at = start;
    while at < end && !at.is_multiple_of(8) {
        bits[at / 8] |= 1 << (at % 8);
        at += 1;
    }
    let whole = (end - at) / 8;
    bits[at / 8..at / 8 + whole].fill(u8::MAX);
    at += whole * 8;
    while at < end {
        bits[at / 8] |= 1 << (at % 8);
        at += 1;
    }
}

/// Decodes `count` booleans. The caller has charged the budget for them.
pub(crate) fn decode(
    bytes: &[u8],
    count: usize,
    budget: &mut Budget,
) -> Result<Vec<bool>, DecodeError> {
    Ok(check_nested(bytes, count, budget, 0)?.into_bools(count))
}

/// Decodes `count` booleans as packed bits: bit `i % 8` of byte `i / 8` (least significant
/// first) is value `i`, and the bits past the last are 0, the layout of Arrow's bitmaps. Packed
/// streams are lent as they are. The caller has charged the budget for them.
pub(crate) fn decode_bits<'a>(
    bytes: &'a [u8],
    count: usize,
    budget: &mut Budget,
) -> Result<Cow<'a, [u8]>, DecodeError> {
    Ok(check_nested(bytes, count, budget, 0)?.into_bits(count))
}

fn check_nested<'a>(
    bytes: &'a [u8],
    count: usize,
    budget: &mut Budget,
    depth: usize,
) -> Result<Checked<'a>, DecodeError> {
    check_depth(depth)?;
    if is_empty_form(bytes, count) {
        return Ok(Checked::Packed(Cow::Borrowed(&[])));
    }
    BoolStream::parse(bytes)?.check(count, budget, depth)
}

/// The encoding of a boolean stream.
pub(crate) fn describe(bytes: &[u8], at: Describer) -> Encoding {
    at.stream(bytes, BoolStream::parse, BoolStream::describe)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encodings::test_len;

    #[test]
    fn run_ends_are_found_as_neighbours_compared_one_by_one_find_them() {
        let mut next = crate::encodings::xorshift(0x0b0b_1e5e_ed00_0001);
        for len in [0, 1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000] {
            for flips_per_1024 in [0, 3, 100, 512, 1024] {
                let mut value = false;
                let values: Vec<bool> = (0..len)
                    .map(|_| {
                        value ^= next() % 1024 < flips_per_1024;
                        value
                    })
                    .collect();
                let reference: Vec<usize> = (values.windows(2).enumerate())
                    .filter(|(_, pair)| pair[0] != pair[1])
                    .map(|(index, _)| index)
                    .collect();
                let mut found = Vec::new();
                for_each_run_end(&values, |index| found.push(index));
                assert_eq!(
                    found, reference,
                    "{len} values, {flips_per_1024} flips per 1024"
                );
            }
        }
    }

    fn round_trip(values: &[bool]) -> usize {
        let mut out = Vec::new();
        let _ = encode(values, &Settings::default(), &mut out);
        assert_eq!(
            decode(&out, values.len(), &mut Budget::new(u64::MAX)).unwrap(),
            values,
            "{}",
            describe(&out, Describer::new(true))
        );
        // As packed bits, whatever the stream's codec: the same values, least significant first.
        let bits = decode_bits(&out, values.len(), &mut Budget::new(u64::MAX)).unwrap();
        let mut packed = vec![0u8; values.len().div_ceil(8)];
        for (i, _) in values.iter().enumerate().filter(|(_, &value)| value) {
            packed[i / 8] |= 1 << (i % 8);
        }
        assert_eq!(*bits, packed, "{}", describe(&out, Describer::new(true)));
        out.len()
    }

    #[test]
    fn round_trips_every_length_and_shape() {
        for len in 0..40usize {
            round_trip(&(0..len).map(|i| i % 3 == 0).collect::<Vec<_>>());
            round_trip(&vec![true; len]);
        }
        let n = test_len(100_000);
        assert!(round_trip(&vec![false; n]) < 20);
        assert!(
            round_trip(
                &(0..n)
                    .map(|i| (i / (n / 10)).is_multiple_of(2))
                    .collect::<Vec<_>>()
            ) < 40
        );
    }

    #[test]
    fn descriptions_name_the_codec() {
        let described = |bytes: &[u8]| describe(bytes, Describer::new(false)).to_string();
        assert_eq!(described(&[BoolTag::Packed as u8, 0b101]), "packed");
        let rle = [BoolTag::Rle as u8, 1, 2, int::IntTag::Fixed as u8, 1, 4, 9];
        assert_eq!(described(&rle), "rle(lengths: fixed(1 bytes))");
        assert_eq!(
            describe(&rle, Describer::new(false)).codec,
            Codec::BoolRle {
                first: true,
                runs: 2
            }
        );
        assert_eq!(
            described(&[0x7f]),
            "unreadable (corrupt: unknown boolean encoding tag 0x7f)"
        );
        assert_eq!(
            described(&[BoolTag::Rle as u8, 2, 1]),
            "unreadable (corrupt: a boolean run starts with 2)"
        );
    }

    #[test]
    fn hostile_streams_are_errors() {
        let mut budget = Budget::new(u64::MAX);
        assert!(
            decode(&[BoolTag::Packed as u8, 0b1111], 3, &mut budget).is_err(),
            "stray bits"
        );
        assert!(
            decode(&[BoolTag::Packed as u8], 1, &mut budget).is_err(),
            "too short"
        );
        assert!(
            decode(&[BoolTag::Packed as u8, 0], usize::MAX, &mut budget).is_err(),
            "count past the bytes"
        );
        assert!(
            decode(&[BoolTag::Rle as u8, 2, 1, 0x00, 0], 1, &mut budget).is_err(),
            "bad first value"
        );
        assert!(
            decode(&[BoolTag::Rle as u8, 0, 1, 0x00, 1, 200], 10, &mut budget).is_err(),
            "a run past the end"
        );
        assert!(
            decode(&[BoolTag::Rle as u8, 0, 0], 10, &mut budget).is_err(),
            "no runs"
        );
        assert!(decode(&[9], 0, &mut budget).is_err(), "unknown tag");
    }
}
