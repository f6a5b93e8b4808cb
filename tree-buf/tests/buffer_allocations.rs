//! A `Buffer` spares allocations that the free functions make on every call. Its own test
//! binary: the counting allocator serves every test of the binary it is in.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use tree_buf::{Buffer, Decode, Encode};

/// Counts the allocations (reallocations included) of the current thread, so that the test
/// harness's other threads do not disturb the count.
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    /// Those of 64 KiB or more, the temporary columns of large values among them.
    static LARGE_ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

const LARGE: usize = 64 << 10;

fn count(size: usize) {
    // `try_with`: the allocator may run while the thread's locals are being torn down.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
    if size >= LARGE {
        let _ = LARGE_ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
    }
}

// SAFETY: every method forwards to the system allocator with the caller's arguments, so the
// `GlobalAlloc` contract the caller upholds is the one `System` needs; counting allocates nothing.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: forwarded as received (see the impl).
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded as received (see the impl).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        // SAFETY: forwarded as received (see the impl).
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The allocations `f` makes on this thread.
fn allocations(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

/// The allocations of [`LARGE`] bytes or more that `f` makes on this thread.
fn large_allocations(f: impl FnOnce()) -> usize {
    let before = LARGE_ALLOCATIONS.with(Cell::get);
    f();
    LARGE_ALLOCATIONS.with(Cell::get) - before
}

#[derive(Encode, Decode, Debug, PartialEq)]
struct Row {
    id: u32,
    score: f64,
    name: String,
    flag: bool,
}

#[test]
fn repeated_calls_through_a_buffer_allocate_less() {
    let rows: Vec<Row> = (0..100)
        .map(|i| Row {
            id: i * 7,
            score: f64::from(i) * 0.5,
            name: format!("n{}", i % 10),
            flag: i % 3 == 0,
        })
        .collect();
    let bytes = tree_buf::encode(&rows);
    let mut buffer = Buffer::new();
    // The first calls size the buffer.
    buffer.encode(&rows);
    buffer.decode::<Vec<Row>>(&bytes).unwrap();

    let free = allocations(|| drop(tree_buf::encode(&rows)));
    let buffered = allocations(|| assert_eq!(buffer.encode(&rows), bytes));
    assert!(
        buffered < free,
        "{buffered} allocations, {free} without a buffer"
    );

    let free = allocations(|| drop(tree_buf::decode::<Vec<Row>>(&bytes).unwrap()));
    let buffered = allocations(|| drop(buffer.decode::<Vec<Row>>(&bytes).unwrap()));
    assert!(
        buffered < free,
        "{buffered} allocations, {free} without a buffer"
    );
}

/// A large value's temporary columns (its transformed values, the streams tried for it) stay in
/// the buffer: encoding it again makes fewer large allocations than the free function, which
/// allocates them afresh each time.
#[test]
fn a_buffer_keeps_the_temporary_columns_of_large_values() {
    let points: Vec<(f64, u64)> = (0..50_000u64)
        .map(|i| {
            let wobble = (i * 7919) % 113;
            (
                i as f64 * 0.37 + wobble as f64 * 1e-3,
                i * 1000 + wobble * wobble,
            )
        })
        .collect();
    let options = tree_buf::EncodeOptions::default().parallel(false);
    let bytes = tree_buf::encode_with_options(&points, &options).unwrap();
    let mut buffer = Buffer::new();
    buffer.encode_with_options(&points, &options).unwrap();

    let free = large_allocations(|| drop(tree_buf::encode_with_options(&points, &options)));
    let buffered = large_allocations(|| {
        assert_eq!(
            buffer.encode_with_options(&points, &options).unwrap(),
            bytes
        )
    });
    assert!(free > 0, "the value makes no large temporary columns");
    assert!(
        buffered < free,
        "{buffered} large allocations, {free} without a buffer"
    );
}

/// A slice of rows pushed whole makes room in each column once: the columns of numbers, the
/// flags and the strings' ends are allocated once each, not doubled step by step as the rows
/// come, and only the strings' text (whose length is not known ahead) still grows.
#[test]
fn a_slice_of_rows_reserves_each_column_once() {
    use tree_buf::__private::ValueEncoder;
    let rows: Vec<Row> = (0..10_000)
        .map(|i| Row {
            id: i,
            score: f64::from(i),
            name: "n".into(),
            flag: i % 2 == 0,
        })
        .collect();
    let mut encoder = <<Row as Encode>::Encoder as ValueEncoder<Row>>::new(0);
    let made = allocations(|| encoder.push_all(&rows));
    // Four columns and the ends, once each; 10,000 bytes of text in at most 14 doublings.
    assert!(
        made <= 5 + 14,
        "{made} allocations for 4 columns of 10,000 rows"
    );
}
