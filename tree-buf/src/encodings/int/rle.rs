//! Run-length encoding: each run of equal values as its length and its value, both cascaded.
//!
//! ```text
//! rle := 0x06 runs:varint lengths:prefixed values:int_stream
//!   runs:    at least one if count > 0, at most count
//!   lengths: an int_stream of `runs` 64-bit words, each a run's length minus one; they add up
//!            to count
//!   values:  `runs` words, the value of each run
//! ```

use super::select::{encode_nested, encode_nested_prefixed, Chain};
use super::transform::Finish;
use super::{decode_nested, describe, IntTag, Word};
use crate::encodings::budget::Budget;
use crate::encodings::bytes::{write_varint, ByteReader};
use crate::encodings::describe::{Codec, Describer, Encoding};
use crate::encodings::{Settings, Version};
use crate::error::{corrupt, DecodeError};

pub(super) fn encode<W: Word>(
    values: &[W],
    settings: &Settings,
    chain: Chain,
    out: &mut Vec<u8>,
) -> Version {
    let mut lengths = Vec::new();
    let mut run_values = Vec::new();
    for (index, &value) in values.iter().enumerate() {
        if index > 0 && run_values.last() == Some(&value) {
            if let Some(length) = lengths.last_mut() {
                *length += 1;
            }
        } else {
            run_values.push(value);
            lengths.push(0u64);
        }
    }
    out.push(IntTag::Rle as u8);
    write_varint(out, run_values.len() as u64);
    let chain = chain.with(Chain::RLE);
    let lengths = encode_nested_prefixed(&lengths, settings, chain, out);
    lengths.max(encode_nested(&run_values, settings, chain, out))
}

/// A run-length stream's header.
pub(crate) struct Runs<'a> {
    runs: usize,
    lengths: &'a [u8],
    values: &'a [u8],
}

impl<'a> Runs<'a> {
    /// Reads the header from `body`, the bytes after the tag.
    pub(super) fn parse(body: &'a [u8]) -> Result<Self, DecodeError> {
        let mut reader = ByteReader::new(body);
        Ok(Runs {
            runs: reader.count(0)?,
            lengths: reader.prefixed()?,
            values: reader.rest(),
        })
    }

    /// The `count` values, each made what `finish` makes it as its run is laid out.
    pub(super) fn decode<W: Word>(
        self,
        count: usize,
        budget: &mut Budget,
        depth: usize,
        mut finish: impl Finish<W>,
    ) -> Result<Vec<W>, DecodeError> {
        let runs = self.runs;
        if runs > count || (runs == 0 && count > 0) {
            return Err(corrupt(format!("{runs} runs for {count} values")));
        }
        budget.charge(runs, 8 + W::BYTES)?;
        let lengths = decode_nested::<u64>(self.lengths, runs, budget, depth + 1)?;
        let run_values = decode_nested::<W>(self.values, runs, budget, depth + 1)?;
        let mut values = Vec::with_capacity(count);
        for (length, value) in lengths.into_iter().zip(run_values) {
            let length = usize::try_from(length)
                .ok()
                .and_then(|l| l.checked_add(1))
                .filter(|&l| l <= count - values.len());
            let Some(length) = length else {
                return Err(corrupt(format!("runs add up to more than {count} values")));
            };
            let start = values.len();
            values.resize(start + length, value);
            finish.apply_all(&mut values[start..]);
        }
        if values.len() != count {
            return Err(corrupt(format!(
                "runs add up to {} values, not {count}",
                values.len()
            )));
        }
        Ok(values)
    }

    pub(super) fn describe<W: Word>(self, at: Describer) -> (Codec, Vec<Encoding>) {
        (
            Codec::Rle {
                runs: self.runs as u64,
            },
            vec![
                describe::<u64>(self.lengths, at.nested()),
                describe::<W>(self.values, at.nested()),
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::transform::{AsDecoded, RunningSums};
    use super::*;
    use crate::encodings::bytes::write_prefixed;
    use crate::encodings::test_len;

    fn decode<W: Word>(
        body: &[u8],
        count: usize,
        budget: &mut Budget,
    ) -> Result<Vec<W>, DecodeError> {
        Runs::parse(body)?.decode(count, budget, 0, AsDecoded)
    }

    /// Round trips `values`, and checks that a transform over them is applied across runs.
    fn round_trip(values: &[u32]) {
        let mut out = Vec::new();
        let _ = encode(values, &Settings::default(), Chain::default(), &mut out);
        assert_eq!(
            decode::<u32>(&out[1..], values.len(), &mut Budget::new(u64::MAX)).unwrap(),
            values
        );
        let mut sums = values.to_vec();
        RunningSums::<u32, true>::new().apply_all(&mut sums);
        let runs = Runs::parse(&out[1..]).unwrap();
        let finish = RunningSums::<u32, true>::new();
        let summed = runs.decode(values.len(), &mut Budget::new(u64::MAX), 0, finish);
        assert_eq!(summed.unwrap(), sums);
    }

    #[test]
    fn round_trips_runs() {
        round_trip(&[]);
        round_trip(&[7]);
        round_trip(&[1, 1, 1, 2, 2, 3, 1, 1]);
        round_trip(&vec![9; test_len(100_000)]);
    }

    #[test]
    fn a_run_of_two_to_the_forty_is_an_error() {
        // One run of length 2^40 claimed for 10 values.
        let mut lengths = vec![0x01];
        write_varint(&mut lengths, (1 << 40) - 1);
        let mut body = vec![1];
        write_prefixed(&mut body, &lengths);
        body.extend([0x00, 1, 5]);
        assert!(decode::<u32>(&body, 10, &mut Budget::new(u64::MAX)).is_err());
        assert!(
            decode::<u32>(&[5, 2, 0x00, 0, 0x00, 0], 2, &mut Budget::new(u64::MAX)).is_err(),
            "more runs than values"
        );
        assert!(
            decode::<u32>(&[0, 2, 0x00, 0, 0x00, 0], 2, &mut Budget::new(u64::MAX)).is_err(),
            "no runs"
        );
    }
}
