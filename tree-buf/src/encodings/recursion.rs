//! Recursion streams: where the values of a recursion node stand among its target's values.
//!
//! ```text
//! recursion_stream := count:varint positions:int_stream
//!     (format version 6) `count` values; `positions` an int_stream of `count` 64-bit positions
//!     among the values of the node's target, the ancestor whose values they are
//! ```
//!
//! The count leads the stream because the target needs it before its own branches can be read:
//! the target holds its values of every depth, as many as its parent gives it plus those of each
//! recursion node that returns to it.

use super::budget::Budget;
use super::bytes::{write_varint, ByteReader};
use super::describe::{Describer, Encoding};
use super::{int, Settings, Version};
use crate::error::{corrupt, DecodeError};

/// Writes `positions` (at least one) as a recursion stream.
pub(crate) fn encode(positions: &[u64], settings: &Settings, out: &mut Vec<u8>) -> Version {
    write_varint(out, positions.len() as u64);
    let version = int::encode(positions, settings, out);
    version.max(Version::RECURSION)
}

/// The number of values of a recursion branch: 0 for an empty branch.
pub(crate) fn count(bytes: &[u8]) -> Result<usize, DecodeError> {
    if bytes.is_empty() {
        return Ok(0);
    }
    ByteReader::new(bytes).count(0)
}

/// The positions a recursion branch holds, checked to be below `targets` (the number of values
/// of its target).
pub(crate) fn decode(
    bytes: &[u8],
    targets: usize,
    budget: &mut Budget,
) -> Result<Vec<usize>, DecodeError> {
    if bytes.is_empty() {
        return Ok(Vec::new());
    }
    let mut reader = ByteReader::new(bytes);
    let count = reader.count(0)?;
    budget.charge(count, size_of::<u64>())?;
    let positions = int::decode::<u64>(reader.rest(), count, budget)?;
    (positions.into_iter())
        .map(|position| {
            usize::try_from(position)
                .ok()
                .filter(|&position| position < targets)
                .ok_or_else(|| {
                    corrupt(format!(
                        "a recursion names value {position} of a target that has {targets}"
                    ))
                })
        })
        .collect()
}

/// The encoding of a recursion stream: that of its positions.
pub(crate) fn describe(bytes: &[u8], at: Describer) -> Encoding {
    let mut reader = ByteReader::new(bytes);
    let rest = match reader.varint() {
        Ok(_) => reader.rest(),
        Err(_) => bytes,
    };
    int::describe::<u64>(rest, at)
}
