//! The decoding budget: a cap on the memory decoding may take, charged before every allocation
//! whose size comes from the input.

use crate::error::{limit_exceeded, DecodeError};

#[derive(Debug, Clone)]
pub(crate) struct Budget {
    remaining: u64,
}

impl Budget {
    pub(crate) fn new(bytes: u64) -> Self {
        Budget { remaining: bytes }
    }

    /// Takes `count` items of `bytes_each` bytes (at least one each, so zero-sized items still
    /// bound the work), failing once the budget runs out.
    pub(crate) fn charge(&mut self, count: usize, bytes_each: usize) -> Result<(), DecodeError> {
        let cost = (count as u64).saturating_mul(bytes_each.max(1) as u64);
        if cost > self.remaining {
            return Err(limit_exceeded(format!(
                "{count} values would exceed the remaining decoding budget of {} bytes; raise \
                 DecodeOptions::max_decoded_bytes to decode it",
                self.remaining
            )));
        }
        self.remaining -= cost;
        Ok(())
    }
}
