//! Vectors for the temporary columns encoders make (a transform's output, a stream nested in
//! another before its length is known), kept for reuse while a column is encoded.
//!
//! A column goes through the same transforms more than once (the plain cascade, then the
//! byte-aligned one a zstd stage is judged on), so the temporaries of one pass are the size of
//! the next one's. Freed to the system allocator, large ones go back to the kernel (glibc trims
//! the heap and unmaps large blocks), and the next pass touches fresh pages: on the GeoJSON
//! coordinates, page faults were a sixth of encoding's time. Inside [`reusing`], a [`Scratch`]
//! that is dropped keeps its memory for the next one on the same thread, until the outermost
//! [`reusing`] returns, or, inside [`holding`], until a [`Buffer`](crate::Buffer) takes them
//! back for its next call.

use std::cell::{Cell, RefCell};
use std::ops::{Deref, DerefMut};
use std::thread::LocalKey;

/// Vectors smaller than this are left to the allocator, which keeps them at hand anyway.
const MIN_KEPT_BYTES: usize = 64 << 10;
/// The most vectors of one type kept at once: the larger stay.
const MAX_KEPT: usize = 8;

thread_local! {
    /// How many [`reusing`] calls this thread is inside.
    static SCOPES: Cell<usize> = const { Cell::new(0) };
}

/// A type whose vectors this thread keeps for reuse.
pub(crate) trait Pooled: Copy + 'static {
    /// The vectors kept, each empty.
    fn kept() -> &'static LocalKey<RefCell<Vec<Vec<Self>>>>;
}

macro_rules! pooled {
    ($($t:ty),*) => {$(
        impl Pooled for $t {
            fn kept() -> &'static LocalKey<RefCell<Vec<Vec<Self>>>> {
                thread_local! {
                    static KEPT: RefCell<Vec<Vec<$t>>> = const { RefCell::new(Vec::new()) };
                }
                &KEPT
            }
        }
    )*};
}
pooled!(u8, u16, u32, u64, u128);

/// Frees what every type keeps on this thread.
fn free_kept() {
    Kept::default().swap_with_thread();
}

/// Vectors of each pooled type, kept outside the thread's pool: what a
/// [`Buffer`](crate::Buffer) holds between its calls.
#[derive(Debug, Default)]
pub(crate) struct Kept {
    u8: Vec<Vec<u8>>,
    u16: Vec<Vec<u16>>,
    u32: Vec<Vec<u32>>,
    u64: Vec<Vec<u64>>,
    u128: Vec<Vec<u128>>,
}

impl Kept {
    /// Exchanges these vectors with those this thread keeps.
    fn swap_with_thread(&mut self) {
        fn swap<T: Pooled>(vectors: &mut Vec<Vec<T>>) {
            // `try_with`: a thread that is ending may have dropped what it kept already.
            let _ = T::kept().try_with(|kept| std::mem::swap(&mut *kept.borrow_mut(), vectors));
        }
        swap(&mut self.u8);
        swap(&mut self.u16);
        swap(&mut self.u32);
        swap(&mut self.u64);
        swap(&mut self.u128);
    }
}

/// Runs `f` as one [`reusing`] scope around all it does on this thread, with the vectors of
/// `kept` as the thread's to start with; what the thread keeps when `f` returns (or unwinds)
/// goes back to `kept` instead of being freed. Inside another scope it only runs `f`, which
/// shares that scope's vectors.
pub(crate) fn holding<R>(kept: &mut Kept, f: impl FnOnce() -> R) -> R {
    if SCOPES.with(Cell::get) > 0 {
        return f();
    }
    struct Hold<'a>(&'a mut Kept);
    impl Drop for Hold<'_> {
        fn drop(&mut self) {
            // Taken back before the scope ends, so that ending it frees nothing of them.
            self.0.swap_with_thread();
        }
    }
    kept.swap_with_thread();
    reusing(|| {
        let _hold = Hold(kept);
        f()
    })
}

/// Runs `f`, keeping the memory of the [`Scratch`] vectors dropped on this thread for reuse
/// until the outermost call returns (or unwinds).
pub(crate) fn reusing<R>(f: impl FnOnce() -> R) -> R {
    struct Scope;
    impl Drop for Scope {
        fn drop(&mut self) {
            let left = SCOPES.with(|scopes| {
                scopes.set(scopes.get() - 1);
                scopes.get()
            });
            if left == 0 {
                free_kept();
            }
        }
    }
    SCOPES.with(|scopes| scopes.set(scopes.get() + 1));
    let _scope = Scope;
    f()
}

/// The kept vector that `pick` chooses among those this thread keeps, if it is inside
/// [`reusing`] and `pick` chooses one.
fn take_kept<T: Pooled>(pick: impl FnOnce(&[Vec<T>]) -> Option<usize>) -> Option<Vec<T>> {
    if SCOPES.with(Cell::get) == 0 {
        return None;
    }
    T::kept().with(|kept| {
        let mut kept = kept.borrow_mut();
        pick(&kept).map(|at| kept.swap_remove(at))
    })
}

/// A vector whose memory comes from, and goes back to, what this thread keeps (inside
/// [`reusing`]; elsewhere it is an ordinary vector).
#[derive(Debug)]
pub(crate) struct Scratch<T: Pooled>(Vec<T>);

impl<T: Pooled> Scratch<T> {
    /// An empty vector with room for at least `capacity` values: the smallest kept one that
    /// has it, else a new one.
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        let kept = (capacity * size_of::<T>() >= MIN_KEPT_BYTES)
            .then(|| {
                take_kept(|kept| {
                    (kept.iter().enumerate())
                        .filter(|(_, vec)| vec.capacity() >= capacity)
                        .min_by_key(|(_, vec)| vec.capacity())
                        .map(|(at, _)| at)
                })
            })
            .flatten();
        Scratch(kept.unwrap_or_else(|| Vec::with_capacity(capacity)))
    }

    /// An empty vector to grow to a size not known yet: the largest kept one, if any.
    pub(crate) fn growable() -> Self {
        let kept = take_kept(|kept| {
            (kept.iter().enumerate())
                .max_by_key(|(_, vec)| vec.capacity())
                .map(|(at, _)| at)
        });
        Scratch(kept.unwrap_or_default())
    }

    /// `len` default values (zeros), to be overwritten in place: a loop over the slots of a slice
    /// compiles to vector instructions where one that pushes each value may not.
    pub(crate) fn filled(len: usize) -> Self
    where
        T: Default + Copy,
    {
        let mut scratch = Scratch::with_capacity(len);
        scratch.0.resize(len, T::default());
        scratch
    }

    /// The values of `values`, which yields exactly `len`.
    pub(crate) fn collect(len: usize, values: impl Iterator<Item = T>) -> Self {
        let mut scratch = Scratch::with_capacity(len);
        scratch.0.extend(values);
        scratch
    }
}

impl<T: Pooled> Deref for Scratch<T> {
    type Target = Vec<T>;

    fn deref(&self) -> &Vec<T> {
        &self.0
    }
}

impl<T: Pooled> DerefMut for Scratch<T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.0
    }
}

impl<T: Pooled> Drop for Scratch<T> {
    fn drop(&mut self) {
        let mut vec = std::mem::take(&mut self.0);
        if vec.capacity() * size_of::<T>() < MIN_KEPT_BYTES || SCOPES.with(Cell::get) == 0 {
            return;
        }
        vec.clear();
        // `try_with`: a thread that is ending may have dropped what it kept already.
        let _ = T::kept().try_with(|kept| {
            let mut kept = kept.borrow_mut();
            kept.push(vec);
            if kept.len() > MAX_KEPT {
                let smallest = (kept.iter().enumerate())
                    .min_by_key(|(_, vec)| vec.capacity())
                    .map_or(0, |(at, _)| at);
                kept.swap_remove(smallest);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept_u64() -> Vec<usize> {
        u64::kept().with(|kept| kept.borrow().iter().map(Vec::capacity).collect())
    }

    #[test]
    fn vectors_are_reused_inside_and_freed_after() {
        let big = 2 * MIN_KEPT_BYTES / 8;
        reusing(|| {
            let first = Scratch::<u64>::collect(big, 0..big as u64);
            let address = first.as_ptr();
            drop(first);
            assert_eq!(kept_u64(), [big]);
            // A smaller one fits in it; a larger one does not.
            let again = Scratch::<u64>::with_capacity(big / 2);
            assert_eq!(again.as_ptr(), address);
            assert!(again.is_empty());
            let larger = Scratch::<u64>::with_capacity(big * 2);
            assert_ne!(larger.as_ptr(), address);
            // Nested calls share what the outer one keeps.
            reusing(|| drop(again));
            assert_eq!(kept_u64(), [big]);
            drop(larger);
            let growable = Scratch::<u64>::growable();
            assert_eq!(growable.capacity(), big * 2);
            assert_eq!(kept_u64(), [big]);
        });
        assert!(kept_u64().is_empty());
        // Outside, nothing is kept.
        drop(Scratch::<u64>::with_capacity(big));
        assert!(kept_u64().is_empty());
    }

    #[test]
    fn small_vectors_are_not_kept_and_the_largest_stay() {
        reusing(|| {
            drop(Scratch::<u64>::with_capacity(4));
            assert!(kept_u64().is_empty());
            let each = MIN_KEPT_BYTES / 8;
            let vectors: Vec<_> = (1..=MAX_KEPT + 2)
                .map(|n| Scratch::<u64>::with_capacity(n * each))
                .collect();
            drop(vectors);
            let mut kept = kept_u64();
            kept.sort_unstable();
            let largest: Vec<usize> = (3..=MAX_KEPT + 2).map(|n| n * each).collect();
            assert_eq!(kept, largest);
        });
    }

    #[test]
    fn vectors_held_outlive_the_scope_and_are_used_again() {
        let big = 2 * MIN_KEPT_BYTES / 8;
        let mut held = Kept::default();
        let first = holding(&mut held, || {
            let first = Scratch::<u64>::collect(big, 0..big as u64);
            let address = first.as_ptr();
            // Scopes inside end without freeing it.
            reusing(|| drop(first));
            assert_eq!(kept_u64(), [big]);
            address
        });
        assert!(kept_u64().is_empty(), "the thread keeps nothing after");
        assert_eq!(
            held.u64.iter().map(Vec::capacity).collect::<Vec<_>>(),
            [big]
        );
        holding(&mut held, || {
            assert_eq!(kept_u64(), [big], "the thread has the vectors held");
            assert_eq!(Scratch::<u64>::with_capacity(big).as_ptr(), first);
        });
        // Inside another scope, holding shares it and takes nothing.
        reusing(|| {
            holding(&mut Kept::default(), || {
                drop(Scratch::<u64>::with_capacity(big))
            });
            assert_eq!(kept_u64().len(), 1);
        });
    }

    #[test]
    fn a_panic_while_held_gives_the_vectors_back() {
        let mut held = Kept::default();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            holding(&mut held, || {
                drop(Scratch::<u64>::with_capacity(MIN_KEPT_BYTES));
                panic!("inside");
            })
        }));
        assert!(result.is_err());
        assert_eq!(held.u64.len(), 1);
        assert!(kept_u64().is_empty());
        assert_eq!(SCOPES.with(Cell::get), 0);
    }

    #[test]
    fn a_panic_inside_still_frees_what_was_kept() {
        let result = std::panic::catch_unwind(|| {
            reusing(|| {
                drop(Scratch::<u64>::with_capacity(MIN_KEPT_BYTES));
                panic!("inside");
            })
        });
        assert!(result.is_err());
        assert!(kept_u64().is_empty());
        assert_eq!(SCOPES.with(Cell::get), 0);
    }
}
