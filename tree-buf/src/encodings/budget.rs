//! The decoding budget: a cap on the memory decoding may take, charged before every allocation
//! whose size comes from the input.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::error::{limit_exceeded, DecodeError};

/// What is left to decode. Clones share one count, so branches decoded on several threads draw
/// on one cap.
#[derive(Debug, Clone)]
pub(crate) struct Budget {
    remaining: Arc<AtomicU64>,
}

impl Budget {
    pub(crate) fn new(bytes: u64) -> Self {
        Budget {
            remaining: Arc::new(AtomicU64::new(bytes)),
        }
    }

    /// Takes `count` items of `bytes_each` bytes (at least one each, so zero-sized items still
    /// bound the work), failing once the budget runs out.
    pub(crate) fn charge(&mut self, count: usize, bytes_each: usize) -> Result<(), DecodeError> {
        let cost = (count as u64).saturating_mul(bytes_each.max(1) as u64);
        self.remaining
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |remaining| {
                remaining.checked_sub(cost)
            })
            .map(drop)
            .map_err(|remaining| {
                limit_exceeded(format!(
                    "{count} values would exceed the remaining decoding budget of {remaining} \
                     bytes; raise DecodeOptions::max_decoded_bytes to decode it"
                ))
            })
    }
}
