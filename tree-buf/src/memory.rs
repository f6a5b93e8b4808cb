//! Memory for large decoded values, and a hint for reading many columns side by side.
//!
//! Decoding writes every byte of a result it has just allocated, so a large result is paid for
//! once more in page faults: the kernel maps and zeroes each 4 KiB page on first touch. Decoding
//! 218,167 Retrosheet games makes a 459 MB vector of rows, 112,000 faults. Linux can back a
//! region with 2 MiB pages instead when asked (`MADV_HUGEPAGE`; transparent huge pages in their
//! usual `madvise` mode), which takes 512 times fewer faults and zeroes whole pages at once.

/// The size of a huge page on the platforms that have them here (x86-64 and AArch64 with 4 KiB
/// base pages); a region is advised only in whole pages of this size.
#[cfg(all(target_os = "linux", not(miri)))]
const HUGE_PAGE: usize = 2 << 20;

/// A vector with room for `capacity` values. When that room spans at least two whole huge pages,
/// the kernel is asked to back them with huge pages, which a vector that is filled right away
/// (as decoding fills its results) gains from; smaller ones are as `Vec::with_capacity` makes
/// them.
pub(crate) fn vec_with_capacity<T>(capacity: usize) -> Vec<T> {
    let values = Vec::<T>::with_capacity(capacity);
    advise_huge_pages(values.as_ptr().cast(), values.capacity() * size_of::<T>());
    values
}

/// Asks the kernel to back the whole huge pages within the `bytes` bytes at `start`, which an
/// allocation owns, with huge pages. Advice only: contents are unchanged, and a kernel that
/// refuses (huge pages disabled or absent) leaves them as they were.
#[cfg(all(target_os = "linux", not(miri)))]
#[allow(unsafe_code)]
fn advise_huge_pages(start: *const u8, bytes: usize) {
    let start = start as usize;
    // The allocation spans `bytes` from `start`, so their sum is an address and does not wrap.
    let (first, end) = (
        start.next_multiple_of(HUGE_PAGE),
        (start + bytes) & !(HUGE_PAGE - 1),
    );
    if end < first.saturating_add(2 * HUGE_PAGE) {
        return;
    }
    // SAFETY: `[first, end)` lies within the allocation at `start`, which the caller owns and
    // keeps for as long as the advice matters; MADV_HUGEPAGE neither reads, writes nor unmaps
    // memory, it only tells the kernel how to back the pages when they are touched. The result
    // is ignored on purpose: a refusal changes nothing.
    unsafe {
        libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(all(target_os = "linux", not(miri))))]
fn advise_huge_pages(_start: *const u8, _bytes: usize) {}

/// `values` as arrays of `N` of them, in the same memory, when they fill whole arrays and so
/// does the vector's capacity; `values` back otherwise (and for `N = 0` or zero-sized `T`).
pub(crate) fn into_arrays<T, const N: usize>(values: Vec<T>) -> Result<Vec<[T; N]>, Vec<T>> {
    let whole = |count: usize| N > 0 && count.is_multiple_of(N);
    if size_of::<T>() == 0 || !whole(values.len()) || !whole(values.capacity()) {
        return Err(values);
    }
    let mut values = std::mem::ManuallyDrop::new(values);
    let (start, len, capacity) = (values.as_mut_ptr(), values.len(), values.capacity());
    // SAFETY: `[T; N]` has the alignment of `T` and the size of N of them, without padding, so
    // the allocation of `capacity` values of `T` is one of `capacity / N` arrays, in the layout
    // the global allocator was given, and its first `len / N` arrays are the `len` values,
    // initialized. `values` is never dropped: the allocation has one owner, the new vector.
    #[allow(unsafe_code)]
    Ok(unsafe { Vec::from_raw_parts(start.cast::<[T; N]>(), len / N, capacity / N) })
}

/// Asks the processor to start loading the cache line that holds `items[index]`, so that reading
/// it a little later does not wait on memory. A hint only: it changes nothing, and an index past
/// the end is harmless.
#[inline(always)]
pub(crate) fn prefetch<T>(items: &[T], index: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let address = items.as_ptr().wrapping_add(index).cast::<i8>();
        // SAFETY: a prefetch reads nothing into the program and never faults, whatever the
        // address; `wrapping_add` makes one without assuming it is in bounds.
        #[allow(unsafe_code)]
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(address)
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (items, index);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_keep_the_memory_of_whole_vectors_and_the_values_of_every_vector() {
        fn arrays_as_copied<T: Clone, const N: usize>(values: &[T]) -> Vec<[T; N]> {
            let arrays = values.chunks_exact(N.max(1));
            arrays
                .map(|chunk| std::array::from_fn(|i| chunk[i].clone()))
                .collect()
        }
        // Strings, so that a value dropped twice or never would show (under Miri, or as a
        // double free).
        let strings = |count: usize| (0..count).map(|i| i.to_string()).collect::<Vec<_>>();
        let shapes = [
            (0, 0),
            (0, 6),
            (6, 6),
            (6, 9),
            (12, 12),
            (4, 6),
            (6, 8),
            (5, 5),
        ];
        for (len, capacity) in shapes {
            let mut values = Vec::with_capacity(capacity);
            values.extend(strings(len));
            let whole = len.is_multiple_of(3) && capacity.is_multiple_of(3);
            let start = values.as_ptr() as usize;
            match into_arrays::<String, 3>(values) {
                Ok(mut arrays) => {
                    assert!(whole, "{len} of {capacity}");
                    assert_eq!(arrays.as_ptr() as usize, start);
                    assert_eq!(arrays, arrays_as_copied::<String, 3>(&strings(len)));
                    // The vector grows and frees as one of arrays.
                    arrays.extend(arrays_as_copied::<String, 3>(&strings(30)));
                    assert_eq!(arrays.len(), len / 3 + 10);
                }
                Err(values) => {
                    assert!(!whole, "{len} of {capacity}");
                    assert_eq!(values, strings(len));
                }
            }
        }
        assert_eq!(into_arrays::<u32, 0>(vec![1, 2]), Err(vec![1, 2]));
        assert_eq!(into_arrays::<(), 2>(vec![(); 4]), Err(vec![(); 4]));
        let floats: Vec<f32> = (0..300).map(|i| i as f32 / 7.0).collect();
        let arrays = into_arrays::<f32, 3>(floats.clone()).unwrap();
        assert_eq!(arrays, arrays_as_copied::<f32, 3>(&floats));
    }

    #[test]
    fn prefetching_past_the_end_or_from_nothing_is_harmless() {
        let values = [1u64, 2, 3];
        prefetch(&values, 0);
        prefetch(&values, 1 << 20);
        prefetch::<u64>(&[], usize::MAX);
        assert_eq!(values, [1, 2, 3]);
    }

    #[test]
    fn vectors_of_any_size_hold_what_is_written() {
        for capacity in [0, 1, 1000, (5 << 20) / 8, (9 << 20) / 8 + 3] {
            let mut values: Vec<u64> = vec_with_capacity(capacity);
            assert!(values.capacity() >= capacity);
            values.extend((0..capacity as u64).map(|value| value * 3));
            assert!(values.iter().enumerate().all(|(i, &v)| v == i as u64 * 3));
        }
        let units: Vec<()> = vec_with_capacity(1 << 30);
        assert!(units.capacity() >= 1 << 30);
    }

    /// The flags of the mapping that holds `address`, as `/proc/self/smaps` gives them.
    #[cfg(all(target_os = "linux", not(miri)))]
    fn mapping_flags(address: usize) -> String {
        let smaps = std::fs::read_to_string("/proc/self/smaps").expect("smaps is readable");
        let mut inside = false;
        for line in smaps.lines() {
            let range = line
                .split_once(' ')
                .and_then(|(range, _)| range.split_once('-'));
            let bounds = range.and_then(|(start, end)| {
                Some((
                    usize::from_str_radix(start, 16).ok()?,
                    usize::from_str_radix(end, 16).ok()?,
                ))
            });
            if let Some((start, end)) = bounds {
                inside = (start..end).contains(&address);
            } else if let Some(flags) = line.strip_prefix("VmFlags:").filter(|_| inside) {
                return flags.to_owned();
            }
        }
        panic!("no mapping holds {address:#x}");
    }

    #[cfg(all(target_os = "linux", not(miri)))]
    #[test]
    fn large_vectors_are_advised_to_take_huge_pages() {
        // The kernel records the advice as the mapping's `hg` flag, whether or not huge pages
        // are free to back it.
        let large: Vec<u64> = vec_with_capacity(64 << 17);
        let middle = large.as_ptr() as usize + (32 << 20);
        assert!(mapping_flags(middle)
            .split_whitespace()
            .any(|flag| flag == "hg"));
    }
}
