//! The decoding budget: a cap on the memory decoding may take, charged before every allocation
//! whose size comes from the input.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::Version;
use crate::error::{corrupt, limit_exceeded, DecodeError};

/// What is left to decode, and what the file may use. Clones share one count, so branches
/// decoded on several threads draw on one cap.
#[derive(Debug, Clone)]
pub(crate) struct Budget {
    remaining: Arc<AtomicU64>,
    /// The format version the file declares: its streams may use no encoding added later.
    version: u8,
}

impl Budget {
    /// A budget of `bytes` for streams of any version.
    pub(crate) fn new(bytes: u64) -> Self {
        Budget::for_version(bytes, u8::MAX)
    }

    /// A budget of `bytes` for the streams of a file of format `version`.
    pub(crate) fn for_version(bytes: u64, version: u8) -> Self {
        Budget {
            remaining: Arc::new(AtomicU64::new(bytes)),
            version,
        }
    }

    /// Fails unless the file's version has `what`, added in format version `added`.
    pub(crate) fn require(&self, added: Version, what: &str) -> Result<(), DecodeError> {
        if self.version < added.0 {
            return Err(corrupt(format!(
                "{what} (format version {}) in a file of version {}",
                added.0, self.version
            )));
        }
        Ok(())
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
