//! Boolean streams.
//!
//! ```text
//! bool_stream := 0x00 byte{ceil(count / 8)}   Packed: value i is bit (i mod 8) of byte (i div 8),
//!                                             least significant bit first; unused bits are 0
//!              | 0x01 first:u8 runs:varint lengths:int_stream
//!                                             Rle: runs alternate, starting with `first` (0 or
//!                                             1); `lengths` holds `runs` 64-bit words, each a
//!                                             run's length minus one, adding up to count
//!              | 0x08 size:varint zstd_frame  Zstd around a bool_stream of the same count
//! ```

use super::budget::Budget;
use super::bytes::{write_varint, ByteReader};
use super::int::select::{encode_nested, Chain};
use super::int::{self, MAX_CASCADE};
use super::{zstd, Settings};
use crate::error::{corrupt, DecodeError};

const PACKED: u8 = 0x00;
const RLE: u8 = 0x01;

pub(crate) fn encode(values: &[bool], settings: &Settings, out: &mut Vec<u8>) {
    zstd::best_of(settings, out, |settings, out| {
        let packed_size = 1 + values.len().div_ceil(8);
        let mut runs = Vec::new();
        for (index, &value) in values.iter().enumerate() {
            match runs.last_mut() {
                Some(length) if index > 0 && values[index - 1] == value => *length += 1,
                _ => runs.push(0u64),
            }
        }
        if runs.len() * 4 < values.len() {
            let start = out.len();
            out.push(RLE);
            out.push(u8::from(values.first().copied().unwrap_or(false)));
            write_varint(out, runs.len() as u64);
            encode_nested(&runs, settings, Chain::default(), out);
            if out.len() - start < packed_size {
                return;
            }
            out.truncate(start);
        }
        out.push(PACKED);
        out.extend(values.chunks(8).map(|chunk| {
            chunk
                .iter()
                .rev()
                .fold(0u8, |byte, &bit| (byte << 1) | u8::from(bit))
        }));
    });
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
    if depth > MAX_CASCADE {
        return Err(corrupt(format!(
            "encodings nest deeper than {MAX_CASCADE} levels"
        )));
    }
    let mut reader = ByteReader::new(bytes);
    match reader.u8()? {
        PACKED => {
            let data = reader.rest();
            if data.len() != count.div_ceil(8) {
                return Err(corrupt(format!(
                    "{} bytes of packed bits for {count} booleans",
                    data.len()
                )));
            }
            if count % 8 != 0 && data.last().is_some_and(|&last| last >> (count % 8) != 0) {
                return Err(corrupt("packed booleans have bits set past the last value"));
            }
            Ok((0..count)
                .map(|i| data[i / 8] >> (i % 8) & 1 == 1)
                .collect())
        }
        RLE => {
            let first = match reader.u8()? {
                0 => false,
                1 => true,
                other => return Err(corrupt(format!("a boolean run starts with {other}"))),
            };
            let runs = reader.count(0)?;
            if runs > count || (runs == 0 && count > 0) {
                return Err(corrupt(format!("{runs} runs for {count} booleans")));
            }
            budget.charge(runs, 8)?;
            let lengths = int::decode_nested::<u64>(reader.rest(), runs, budget, depth + 1)?;
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
        zstd::TAG => {
            let inner = zstd::decompress(reader.rest(), count / 4 + 1024, budget)?;
            decode_nested(&inner, count, budget, depth + 1)
        }
        tag => Err(corrupt(format!("unknown boolean encoding tag {tag:#04x}"))),
    }
}

/// Names the cascade of a boolean stream.
pub(crate) fn describe(bytes: &[u8]) -> String {
    let mut reader = ByteReader::new(bytes);
    match reader.u8() {
        Ok(PACKED) => "packed".into(),
        Ok(RLE) => match (reader.u8(), reader.varint()) {
            (Ok(_), Ok(_)) => format!("rle(lengths: {})", int::describe(reader.rest())),
            _ => "rle(corrupt)".into(),
        },
        Ok(zstd::TAG) => format!("zstd({})", zstd::describe_inner(reader.rest(), describe)),
        Ok(tag) => format!("unknown tag {tag:#04x}"),
        Err(_) => "empty".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encodings::test_len;

    fn round_trip(values: &[bool]) -> usize {
        let mut out = Vec::new();
        encode(values, &Settings::default(), &mut out);
        assert_eq!(
            decode(&out, values.len(), &mut Budget::new(u64::MAX)).unwrap(),
            values,
            "{}",
            describe(&out)
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
        assert!(round_trip(&(0..n).map(|i| i / (n / 10) % 2 == 0).collect::<Vec<_>>()) < 40);
    }

    #[test]
    fn hostile_streams_are_errors() {
        let mut budget = Budget::new(u64::MAX);
        assert!(
            decode(&[PACKED, 0b1111], 3, &mut budget).is_err(),
            "stray bits"
        );
        assert!(decode(&[PACKED], 1, &mut budget).is_err(), "too short");
        assert!(
            decode(&[PACKED, 0], usize::MAX, &mut budget).is_err(),
            "count past the bytes"
        );
        assert!(
            decode(&[RLE, 2, 1, 0x00, 0], 1, &mut budget).is_err(),
            "bad first value"
        );
        assert!(
            decode(&[RLE, 0, 1, 0x00, 1, 200], 10, &mut budget).is_err(),
            "a run past the end"
        );
        assert!(decode(&[RLE, 0, 0], 10, &mut budget).is_err(), "no runs");
        assert!(decode(&[9], 0, &mut budget).is_err(), "unknown tag");
    }
}
