//! Recursion that cannot overflow the stack.
//!
//! Schemas nest up to [`MAX_DEPTH`](crate::MAX_DEPTH) levels, and parsing, encoding and decoding
//! recurse once per level. A level can take several kilobytes of stack in a debug build, so 256 of
//! them do not fit a 2 MiB thread (a test's, an async runtime's worker). Every recursion point
//! goes through [`deeper`], which moves to a fresh stack segment when the current one runs low.

/// Stack that must be left for a level to run where it is: more than any one level takes.
const RED_ZONE: usize = 256 * 1024;

/// The size of a fresh segment.
const SEGMENT: usize = 4 * 1024 * 1024;

/// Runs `f`, on a fresh stack segment if less than [`RED_ZONE`] is left.
#[inline]
pub(crate) fn deeper<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}
