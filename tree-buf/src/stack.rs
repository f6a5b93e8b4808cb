//! Recursion that cannot overflow the stack.
//!
//! Schemas nest up to [`MAX_DEPTH`](crate::MAX_DEPTH) levels, and parsing, encoding and decoding
//! recurse once per level. A level can take several kilobytes of stack in a debug build, so 256 of
//! them do not fit a 2 MiB thread (a test's, an async runtime's worker). Every recursion point
//! goes through [`deeper`], which moves to a fresh stack segment when the current one runs low.
//!
//! A level can also be wide: the encoder or decoder of a struct holds those of all its fields,
//! so one of a type with a thousand columns takes hundreds of kilobytes, and the frame that builds
//! or finishes it holds a few copies. Such a level runs out of line, so that its frame is entered
//! only once the stack is known to have room for it ([`deeper_holding`], [`boxed`]).

/// Stack that must be left for a level to run where it is: more than any one level takes.
const RED_ZONE: usize = 256 * 1024;

/// The size of a fresh segment.
const SEGMENT: usize = 4 * 1024 * 1024;

/// Values larger than this make a level wide.
const WIDE: usize = 16 * 1024;

/// How many copies of a wide level's value its frames may hold.
const COPIES: usize = 8;

/// Runs `f`, on a fresh stack segment if less than [`RED_ZONE`] is left.
#[inline]
pub(crate) fn deeper<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}

/// [`deeper`] for a level that holds an `H` on the stack (builds one, or takes one apart): when
/// an `H` is wide, out of line and with room for [`COPIES`] of it.
#[inline]
pub(crate) fn deeper_holding<H, R>(f: impl FnOnce() -> R) -> R {
    let held = size_of::<H>();
    if held <= WIDE {
        return deeper(f);
    }
    let red_zone = RED_ZONE + COPIES * held;
    stacker::maybe_grow(red_zone, SEGMENT.max(2 * red_zone), || out_of_line(f))
}

/// Builds a `T` straight into a box, as a level of [`deeper_holding`] it: the frame that
/// builds a wide one is entered only where there is room for it, and its callers hold a pointer.
#[inline]
pub(crate) fn boxed<T, E>(build: impl FnOnce() -> Result<T, E>) -> Result<Box<T>, E> {
    deeper_holding::<T, _>(|| build().map(Box::new))
}

#[inline(never)]
fn out_of_line<R>(f: impl FnOnce() -> R) -> R {
    f()
}
