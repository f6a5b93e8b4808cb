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

    fn decode(
        self,
        count: usize,
        budget: &mut Budget,
        depth: usize,
    ) -> Result<Vec<bool>, DecodeError> {
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
                Ok((0..count)
                    .map(|i| data[i / 8] >> (i % 8) & 1 == 1)
                    .collect())
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
                let mut values = Vec::with_capacity(count);
                let mut value = first;
                for length in lengths {
                    let length = usize::try_from(length)
                        .ok()
                        .and_then(|l| l.checked_add(1))
                        .filter(|&l| l <= count - values.len());
                    let Some(length) = length else {
                        return Err(corrupt(format!(
                            "runs add up to more than {count} booleans"
                        )));
                    };
                    values.resize(values.len() + length, value);
                    value = !value;
                }
                if values.len() != count {
                    return Err(corrupt(format!(
                        "runs add up to {} booleans, not {count}",
                        values.len()
                    )));
                }
                Ok(values)
            }
            BoolStream::Zstd(frame) => {
                let inner = frame.decompress(count / 4 + 1024, budget)?;
                decode_nested(&inner, count, budget, depth + 1)
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
    let runs = 1 + values.windows(2).filter(|pair| pair[0] != pair[1]).count();
    (runs * 4 < values.len()).then(|| {
        let mut lengths = Vec::with_capacity(runs);
        let mut start = 0;
        for (index, pair) in values.windows(2).enumerate() {
            if pair[0] != pair[1] {
                lengths.push((index - start) as u64);
                start = index + 1;
            }
        }
        lengths.push((values.len() - 1 - start) as u64);
        lengths
    })
}

/// Decodes `count` booleans. The caller has charged the budget for them.
pub(crate) fn decode(
    bytes: &[u8],
    count: usize,
    budget: &mut Budget,
) -> Result<Vec<bool>, DecodeError> {
    decode_nested(bytes, count, budget, 0)
}

fn decode_nested(
    bytes: &[u8],
    count: usize,
    budget: &mut Budget,
    depth: usize,
) -> Result<Vec<bool>, DecodeError> {
    check_depth(depth)?;
    if is_empty_form(bytes, count) {
        return Ok(Vec::new());
    }
    BoolStream::parse(bytes)?.decode(count, budget, depth)
}

/// The encoding of a boolean stream.
pub(crate) fn describe(bytes: &[u8], at: Describer) -> Encoding {
    at.stream(bytes, BoolStream::parse, BoolStream::describe)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encodings::test_len;

    fn round_trip(values: &[bool]) -> usize {
        let mut out = Vec::new();
        let _ = encode(values, &Settings::default(), &mut out);
        assert_eq!(
            decode(&out, values.len(), &mut Budget::new(u64::MAX)).unwrap(),
            values,
            "{}",
            describe(&out, Describer::new(true))
        );
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
