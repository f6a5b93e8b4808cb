//! Work spread over rayon's threads when the `parallel` feature is on (the default), and done in
//! order on the calling thread when it is off or when the caller judges the work too small.

/// `f` applied to every item, results in the items' order; on rayon's threads if `parallel`.
///
/// Every item is a task of its own, which any idle thread may take: the items here are large
/// (branches, chunks), and rayon by default hands out runs of several items, so that a thread
/// out of work may wait while another works through its last run alone.
pub(crate) fn map<T: Send, R: Send>(
    items: Vec<T>,
    parallel: bool,
    f: impl Fn(T) -> R + Send + Sync,
) -> Vec<R> {
    #[cfg(feature = "parallel")]
    if parallel {
        use rayon::prelude::*;
        return items.into_par_iter().with_max_len(1).map(f).collect();
    }
    let _ = parallel;
    items.into_iter().map(f).collect()
}

/// A vector made of parts of known lengths, each written in place by `fill(index, slots)`, on
/// rayon's threads if `parallel`: no part is built as a vector of its own and then copied, so
/// the copying and the page faults of a large result are spread over the threads too.
///
/// `fill` either fails or fills part `index` whole, through [`Slots::fill_with`]; a part it
/// leaves short is a bug, and panics. On any error every value written is dropped and the
/// first error in part order is returned.
pub(crate) fn fill_parts<T: Send, E: Send>(
    lens: &[usize],
    parallel: bool,
    fill: impl Fn(usize, &mut Slots<'_, T>) -> Result<(), E> + Send + Sync,
) -> Result<Vec<T>, E> {
    let total = lens.iter().sum();
    let mut all = crate::memory::vec_with_capacity(total);
    let mut free = &mut all.spare_capacity_mut()[..total];
    let mut parts = Vec::with_capacity(lens.len());
    for (index, &len) in lens.iter().enumerate() {
        let (slots, rest) = free.split_at_mut(len);
        free = rest;
        parts.push((index, Slots { slots, written: 0 }));
    }
    let filled = map(parts, parallel, |(index, mut slots)| {
        fill(index, &mut slots)?;
        assert_eq!(slots.written, slots.len(), "part {index} was left short");
        Ok(slots)
    });
    // Dropping the parts on the way out drops the values of those that were written.
    let filled = filled.into_iter().collect::<Result<Vec<_>, E>>()?;
    // Every part is whole: its values now belong to `all`.
    filled.into_iter().for_each(std::mem::forget);
    set_len_filled(&mut all, total);
    Ok(all)
}

/// Counts `total` values as `all`'s own.
#[allow(unsafe_code)]
fn set_len_filled<T>(all: &mut Vec<T>, total: usize) {
    // SAFETY: `all` had capacity for `total` values and was empty; `fill_parts` split its first
    // `total` slots into parts covering them exactly, and only calls this once every part has
    // written all of its slots (each part's `Slots` checked `written == len`), with the `Slots`
    // forgotten so that no one else drops those values.
    unsafe { all.set_len(total) }
}

/// Part of a vector being filled in place, written from its start: see [`fill_parts`].
#[derive(Debug)]
pub(crate) struct Slots<'s, T> {
    slots: &'s mut [std::mem::MaybeUninit<T>],
    written: usize,
}

impl<T> Slots<'_, T> {
    /// How many values the part holds in all.
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    /// Writes every slot not yet written with the values `next` makes, in order.
    #[inline]
    pub(crate) fn fill_with(&mut self, mut next: impl FnMut() -> T) {
        for slot in &mut self.slots[self.written..] {
            slot.write(next());
            self.written += 1;
        }
    }
}

impl<T> Drop for Slots<'_, T> {
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        let written: *mut [std::mem::MaybeUninit<T>] = &mut self.slots[..self.written];
        // SAFETY: the first `written` slots were each written once by `push` and nothing has
        // taken their values out (a part whose values `fill_parts` keeps is forgotten, not
        // dropped), so they are initialised `T`s that this drops exactly once.
        unsafe { std::ptr::drop_in_place(written as *mut [T]) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// Counts how many of its kind are alive, to show each value written is dropped once.
    struct Counted(Arc<AtomicUsize>);

    impl Counted {
        fn new(alive: &Arc<AtomicUsize>) -> Self {
            alive.fetch_add(1, Ordering::SeqCst);
            Counted(alive.clone())
        }
    }

    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_sub(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn parts_filled_in_place_are_the_parts_one_after_another() {
        let lens = [3, 0, 5, 1, 0, 4];
        let parts: Vec<Vec<String>> = (lens.iter().enumerate())
            .map(|(part, &len)| (0..len).map(|i| format!("{part}.{i}")).collect())
            .collect();
        for parallel in [false, true] {
            let filled = fill_parts(&lens, parallel, |index, slots| {
                let mut items = parts[index].iter().cloned();
                slots.fill_with(|| items.next().unwrap());
                Ok::<_, ()>(())
            });
            assert_eq!(filled.unwrap(), parts.concat());
        }
        assert!(fill_parts::<u8, ()>(&[], true, |_, _| unreachable!())
            .unwrap()
            .is_empty());
    }

    #[test]
    fn a_failed_part_drops_every_value_written_and_gives_the_first_error() {
        let alive = Arc::new(AtomicUsize::new(0));
        for parallel in [false, true] {
            let result = fill_parts(&[2, 3, 2, 4], parallel, |index, slots| {
                if index % 2 == 1 {
                    return Err(index);
                }
                slots.fill_with(|| Counted::new(&alive));
                Ok(())
            });
            assert_eq!(result.err(), Some(1));
            assert_eq!(alive.load(Ordering::SeqCst), 0);
        }
        let kept = fill_parts(&[2, 3], true, |_, slots| {
            slots.fill_with(|| Counted::new(&alive));
            Ok::<_, ()>(())
        });
        assert_eq!(alive.load(Ordering::SeqCst), 5);
        drop(kept);
        assert_eq!(alive.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn a_part_left_short_or_a_panicking_fill_drops_what_was_written() {
        let alive = Arc::new(AtomicUsize::new(0));
        let short = std::panic::catch_unwind(|| {
            fill_parts(&[2, 3], false, |index, slots| {
                if index == 0 {
                    slots.fill_with(|| Counted::new(&alive));
                }
                // Part 1 writes nothing and claims success.
                Ok::<_, ()>(())
            })
        });
        assert!(short.is_err());
        assert_eq!(alive.load(Ordering::SeqCst), 0);
        let panicked = std::panic::catch_unwind(|| {
            fill_parts(&[2, 3], false, |index, slots| {
                let mut made = 0;
                slots.fill_with(|| {
                    made += 1;
                    assert!(index == 0 || made < 3, "the third value of part 1");
                    Counted::new(&alive)
                });
                Ok::<_, ()>(())
            })
        });
        assert!(panicked.is_err());
        assert_eq!(alive.load(Ordering::SeqCst), 0);
    }
}
