//! Hostile input: truncations, bit flips and crafted files must give an error (or, for flips
//! the checksums cannot see, some valid value), never a panic, an abort or a runaway allocation.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::BTreeMap;

use tree_buf::{
    decode, decode_with_options, encode, Decode, DecodeError, DecodeErrorKind, DecodeOptions,
    DecodeOwned, Reader, Value,
};

/// Counts the heap bytes each thread holds and their peak, so that a test can measure what
/// decoding allocates: the test harness runs every test on a thread of its own, and decoding
/// allocates on the calling thread only.
struct CountingAllocator;

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

/// Accounts for `new` bytes allocated, then `freed` bytes released (a reallocation does both).
fn account(new: usize, freed: usize) {
    // `try_with`: a thread's last frees can come after its locals are gone. Frees of blocks
    // another thread allocated saturate at zero.
    let _ = LIVE.try_with(|live| {
        let grown = live.get() + new;
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(grown)));
        live.set(grown.saturating_sub(freed));
    });
}

// SAFETY: every method forwards its arguments unchanged to `System`, which upholds the
// `GlobalAlloc` contract; the counting around it neither allocates nor touches the blocks.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `alloc`'s contract, which `System.alloc` shares.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            account(layout.size(), 0);
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            account(layout.size(), 0);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller passes a block this allocator (that is, `System`) returned, with
        // its layout.
        unsafe { System.dealloc(ptr, layout) };
        account(0, layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for `dealloc`, and the caller upholds `realloc`'s size requirements.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            account(new_size, layout.size());
        }
        new
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// The most heap `f` holds at once beyond what this thread held before.
fn peak_allocation(f: impl FnOnce()) -> usize {
    let before = LIVE.with(Cell::get);
    PEAK.with(|peak| peak.set(before));
    f();
    PEAK.with(Cell::get) - before
}

type Rich = (
    Vec<Option<String>>,
    BTreeMap<String, Vec<(i64, f64)>>,
    Vec<Vec<u8>>,
    [char; 2],
    Option<Box<(bool, u128)>>,
);

fn rich_value() -> Rich {
    (
        vec![Some("alpha".into()), None, Some("🦀".into())],
        BTreeMap::from([
            ("a".into(), vec![(-1, 0.5), (i64::MAX, f64::NAN)]),
            ("b".into(), vec![]),
        ]),
        vec![vec![1, 2, 3], vec![], vec![255; 40]],
        ['x', '\u{10ffff}'],
        Some(Box::new((true, u128::MAX))),
    )
}

fn samples() -> Vec<Vec<u8>> {
    vec![
        encode(&rich_value()),
        encode(&(0..300u32).map(|i| i * i).collect::<Vec<_>>()),
        encode(&vec![vec!["x".to_string(); 3]; 4]),
        encode(&7u8),
        encode(
            &serde_json::from_str::<Value>(
                r#"[
                    {"id": 1, "tags": ["a", "b"], "at": 1.5},
                    {"id": -2, "tags": [], "note": null, "at": "later"}
                ]"#,
            )
            .unwrap(),
        ),
    ]
}

/// Decodes `bytes` as several types and as a `Value`; a panic fails the test. Returns what each
/// decode gave: nothing, or the kind of its error.
fn decode_everything(bytes: &[u8], options: &DecodeOptions) -> Vec<Result<(), DecodeErrorKind>> {
    fn outcome<T>(result: Result<T, DecodeError>) -> Result<(), DecodeErrorKind> {
        result.map(drop).map_err(|e| e.kind())
    }
    vec![
        outcome(decode_with_options::<Rich>(bytes, options)),
        outcome(decode_with_options::<Vec<u32>>(bytes, options)),
        outcome(decode_with_options::<Vec<Vec<String>>>(bytes, options)),
        outcome(decode_with_options::<u8>(bytes, options)),
        outcome(decode_with_options::<Vec<Option<(u8, String)>>>(
            bytes, options,
        )),
        outcome(decode_with_options::<Value>(bytes, options)),
    ]
}

/// `bytes` with bit `bit` flipped.
fn flipped(bytes: &[u8], bit: usize) -> Vec<u8> {
    let mut corrupted = bytes.to_vec();
    corrupted[bit / 8] ^= 1 << (bit % 8);
    corrupted
}

#[test]
fn every_single_bit_flip_is_caught_or_harmless() {
    let unchecked = DecodeOptions::default().verify_checksums(false);
    for bytes in samples() {
        for bit in 0..bytes.len() * 8 {
            let corrupted = flipped(&bytes, bit);
            // CRC-32 catches every single-bit error in what it covers, and a flip elsewhere
            // breaks the structure that the checksums are found by.
            let result = decode::<Value>(&corrupted);
            assert!(
                result.is_err(),
                "flipping bit {bit} still decodes: {result:?}"
            );
            decode_everything(&corrupted, &unchecked);
        }
    }
}

#[test]
fn every_truncation_is_an_error() {
    for bytes in samples() {
        for len in 0..bytes.len() {
            let prefix = &bytes[..len];
            assert!(decode::<Rich>(prefix).is_err());
            assert!(decode::<Vec<u32>>(prefix).is_err());
            assert!(decode::<u8>(prefix).is_err());
            decode_everything(prefix, &DecodeOptions::default().verify_checksums(false));
        }
    }
}

/// A small deterministic generator, so failures reproduce.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn random_bit_flips_never_panic() {
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let unchecked = DecodeOptions::default()
        .verify_checksums(false)
        .max_decoded_bytes(1 << 24);
    let checked = DecodeOptions::default();
    for bytes in samples() {
        for _ in 0..1500 {
            let mut corrupted = bytes.clone();
            for _ in 0..=(rng.next() % 3) {
                let bit = (rng.next() % (corrupted.len() as u64 * 8)) as usize;
                corrupted[bit / 8] ^= 1 << (bit % 8);
            }
            decode_everything(&corrupted, &unchecked);
            if corrupted != bytes && bytes == samples()[0] {
                let result = decode_with_options::<Rich>(&corrupted, &checked);
                let diff: Vec<usize> = (0..bytes.len())
                    .filter(|&i| bytes[i] != corrupted[i])
                    .collect();
                assert!(
                    result.is_err(),
                    "flipped bytes {diff:?} of {} still decode: {result:?}",
                    bytes.len()
                );
            }
        }
    }
}

#[test]
fn random_bytes_are_errors() {
    let mut rng = XorShift(12345);
    let unchecked = DecodeOptions::default().verify_checksums(false);
    for len in 0..200 {
        let mut bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        // Bytes without the magic number are refused before anything else is read.
        let kind = if b"TBUF".starts_with(&bytes) {
            DecodeErrorKind::Truncated
        } else {
            DecodeErrorKind::NotTreeBuf
        };
        for outcome in decode_everything(&bytes, &DecodeOptions::default()) {
            assert_eq!(outcome, Err(kind), "{len} random bytes");
        }
        // Behind a valid header, with the checksums off, the schema parser sees them.
        if bytes.len() >= 6 {
            bytes[..6].copy_from_slice(&[b'T', b'B', b'U', b'F', 1, 0]);
            for outcome in decode_everything(&bytes, &unchecked) {
                assert!(
                    outcome.is_err(),
                    "{len} random bytes behind a header decode"
                );
            }
        }
    }
}

/// Builds a file around a hand-written schema and branches, with valid checksums, so that the
/// decoders themselves face the crafted content.
fn craft(schema: &[u8], branches: &[&[u8]]) -> Vec<u8> {
    // Version 3: the newest encodings a file of one value may use but recursion nodes.
    craft_version(3, schema, branches)
}

/// [`craft`] for a file that declares `version`.
fn craft_version(version: u8, schema: &[u8], branches: &[&[u8]]) -> Vec<u8> {
    fn varint(out: &mut Vec<u8>, mut value: u64) {
        while value >= 0x80 {
            out.push(value as u8 | 0x80);
            value >>= 7;
        }
        out.push(value as u8);
    }
    let mut out = b"TBUF".to_vec();
    out.extend([version, 0]);
    varint(&mut out, schema.len() as u64);
    out.extend_from_slice(schema);
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    let table = out.len();
    varint(&mut out, 1);
    for branch in branches {
        varint(&mut out, branch.len() as u64);
    }
    let crc = crc32fast::hash(&out[table..]);
    out.extend_from_slice(&crc.to_le_bytes());
    let mut data = Vec::new();
    for branch in branches {
        data.extend_from_slice(branch);
    }
    out.extend_from_slice(&data);
    out.extend_from_slice(&crc32fast::hash(&data).to_le_bytes());
    out
}

// Schema tags, as in docs/FORMAT.md.
const UNIT: u8 = 1;
const U8: u8 = 3;
const U32: u8 = 5;
const U64: u8 = 6;
const CHAR: u8 = 15;
const STR: u8 = 16;
const OPTION: u8 = 17;
const SEQ: u8 = 18;
const ARRAY: u8 = 19;
const MAP: u8 = 20;
const STRUCT: u8 = 22;
const TUPLE: u8 = 21;
const ENUM: u8 = 23;
const RECURSION: u8 = 25;

#[derive(tree_buf::Decode, Debug)]
#[allow(dead_code)]
enum Status {
    Open,
    Sold(u8),
}

fn varint_bytes(value: u64) -> Vec<u8> {
    let mut out = Vec::new();
    let mut v = value;
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
    out
}

#[track_caller]
fn assert_kind<T: DecodeOwned + std::fmt::Debug>(bytes: &[u8], kind: DecodeErrorKind) {
    let err = decode::<T>(bytes).expect_err("crafted input must not decode");
    assert_eq!(err.kind(), kind, "{err}");
}

#[test]
fn the_file_sanity_craft_decodes() {
    let mut lengths = vec![0x01];
    lengths.extend(varint_bytes(2));
    let bytes = craft(&[SEQ, U8], &[&lengths, &[0x00, 1, 7, 9]]);
    assert_eq!(decode::<Vec<u8>>(&bytes).unwrap(), [7, 9]);
}

#[test]
fn a_name_written_twice_under_one_node_is_an_error() {
    for container in [STRUCT, ENUM] {
        let schema = [container, 2, 1, b'a', UNIT, 1, b'a', UNIT];
        let bytes = craft(&schema, &[]);
        assert_kind::<Value>(&bytes, DecodeErrorKind::Corrupt);
        assert!(Reader::new(&bytes).is_err());
    }
    // Names the same only in canonical form (JSON's `userId` and `user_id`) are two fields.
    let schema = [STRUCT, 2, 6, b'u', b's', b'e', b'r', b'I', b'd', UNIT, 7];
    let mut schema = schema.to_vec();
    schema.extend_from_slice(b"user_id");
    schema.push(UNIT);
    assert!(Reader::new(&craft(&schema, &[])).is_ok());
}

#[test]
fn a_length_of_two_to_the_sixty_is_an_error() {
    let mut lengths = vec![0x01];
    lengths.extend(varint_bytes(1 << 60));
    let bytes = craft(&[SEQ, U8], &[&lengths, &[0x00, 0]]);
    assert_kind::<Vec<u8>>(&bytes, DecodeErrorKind::LimitExceeded);
    assert_kind::<Vec<()>>(
        &craft(&[SEQ, UNIT], &[&lengths]),
        DecodeErrorKind::LimitExceeded,
    );
    // Two lengths whose sum overflows.
    let mut lengths = vec![0x00, 8];
    lengths.extend(u64::MAX.to_le_bytes());
    lengths.extend(u64::MAX.to_le_bytes());
    let two_inner = craft(&[SEQ, SEQ, UNIT], &[&[0x00, 1, 2][..], &lengths]);
    assert_kind::<Vec<Vec<()>>>(&two_inner, DecodeErrorKind::LimitExceeded);
}

#[test]
fn a_compressed_length_within_budget_still_decodes_but_a_bomb_does_not() {
    // Width-0 fixed integers: any count of zeros in two bytes.
    let mut lengths = vec![0x01];
    lengths.extend(varint_bytes(2_000_000));
    let bytes = craft(&[SEQ, U64], &[&lengths, &[0x00, 0]]);
    assert_eq!(decode::<Vec<u64>>(&bytes).unwrap().len(), 2_000_000);
    let small = DecodeOptions::default().max_decoded_bytes(1 << 20);
    let err = decode_with_options::<Vec<u64>>(&bytes, &small).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::LimitExceeded);
    assert_eq!(err.path(), "");
}

#[test]
fn a_million_nested_levels_is_an_error_not_a_stack_overflow() {
    let mut schema = vec![OPTION; 1_000_000];
    schema.push(U8);
    let bytes = craft(&schema, &[]);
    assert_kind::<Option<u8>>(&bytes, DecodeErrorKind::LimitExceeded);
    let mut schema = vec![SEQ; 1_000_000];
    schema.push(U8);
    assert_kind::<Vec<u8>>(&craft(&schema, &[]), DecodeErrorKind::LimitExceeded);
}

#[test]
fn the_deepest_legal_schema_decodes_without_overflowing_a_small_stack() {
    // Options nested to the last level below MAX_DEPTH, every one present, around one u8; read
    // on a thread with a small stack, as deep recursion in a debug build needs megabytes.
    let depth = tree_buf::MAX_DEPTH - 1;
    let mut schema = vec![OPTION; depth];
    schema.push(U8);
    let present: &[u8] = &[0x00, 1];
    let mut branches = vec![present; depth];
    branches.push(&[0x00, 1, 7]);
    let bytes = craft(&schema, &branches);
    let mut deeper = vec![OPTION; depth + 1];
    deeper.push(U8);
    let mut deeper_branches = branches.clone();
    deeper_branches.push(present);
    let too_deep = craft(&deeper, &deeper_branches);
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let value = decode::<Value>(&bytes).unwrap();
            assert_eq!(value, Value::Unsigned(7));
            assert_kind::<Value>(&too_deep, DecodeErrorKind::LimitExceeded);
            // serde's visitors add their own frames to every level.
            #[cfg(feature = "serde")]
            {
                let value: serde_json::Value = tree_buf::serde::from_slice(&bytes).unwrap();
                assert_eq!(value, serde_json::json!(7));
            }
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn crafted_schemas_are_errors() {
    assert_kind::<u8>(&craft(&[99], &[]), DecodeErrorKind::Corrupt);
    assert_kind::<u8>(&craft(&[U8, U8], &[&[0, 1, 5]]), DecodeErrorKind::Corrupt);
    // A struct claiming 2^60 fields.
    let mut schema = vec![STRUCT];
    schema.extend(varint_bytes(1 << 60));
    assert_kind::<()>(&craft(&schema, &[]), DecodeErrorKind::Truncated);
    // A field name that is not UTF-8.
    assert_kind::<()>(
        &craft(&[STRUCT, 1, 1, 0xff, U8], &[&[0, 1, 1]]),
        DecodeErrorKind::Corrupt,
    );
    // An array of 2^62 items per value.
    let mut schema = vec![ARRAY];
    schema.extend(varint_bytes(1 << 62));
    schema.push(UNIT);
    assert_kind::<Vec<()>>(&craft(&schema, &[]), DecodeErrorKind::LimitExceeded);
    // A map whose lengths claim more entries than its keys have.
    let bytes = craft(
        &[MAP, U8, U8],
        &[&[0x00, 1, 3], &[0x00, 1, 1], &[0x00, 1, 1]],
    );
    assert_kind::<BTreeMap<u8, u8>>(&bytes, DecodeErrorKind::Corrupt);
}

#[test]
fn crafted_values_are_errors() {
    // Invalid UTF-8 and a surrogate char.
    assert_kind::<String>(
        &craft(&[STR], &[&[0x00, 2, 0x00, 1, 0xff]]),
        DecodeErrorKind::Corrupt,
    );
    assert_kind::<char>(
        &craft(&[CHAR], &[&[0x00, 2, 0x00, 0xd8]]),
        DecodeErrorKind::Corrupt,
    );
    // Unknown encoding tags, widths past the word, short data.
    assert_kind::<u32>(&craft(&[U32], &[&[0x7f]]), DecodeErrorKind::Corrupt);
    assert_kind::<u32>(
        &craft(&[U32], &[&[0x00, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0]]),
        DecodeErrorKind::Corrupt,
    );
    assert_kind::<u32>(&craft(&[U32], &[&[0x00, 4, 1]]), DecodeErrorKind::Corrupt);
    // A presence stream with stray bits.
    assert_kind::<Option<u8>>(
        &craft(&[OPTION, U8], &[&[0x00, 0xff], &[]]),
        DecodeErrorKind::Corrupt,
    );
    // A branch table that claims more bytes than the file has.
    let mut bytes = craft(&[U8], &[&[0x00, 1, 5]]);
    let table = bytes.len() - 3 - 4 - 4 - 1;
    bytes[table] = 0x7f;
    assert!(decode::<u8>(&bytes).is_err());
}

/// `bytes` as a `prefixed` field: its length, then itself.
fn prefixed(bytes: &[u8]) -> Vec<u8> {
    let mut out = varint_bytes(bytes.len() as u64);
    out.extend_from_slice(bytes);
    out
}

#[test]
fn crafted_runs_and_dictionaries_are_errors() {
    let two = [0x00, 1, 2];
    // Three u64s as one run of 2^40.
    let mut run_lengths = vec![0x01];
    run_lengths.extend(varint_bytes((1 << 40) - 1));
    let mut runs = vec![0x06, 1];
    runs.extend(prefixed(&run_lengths));
    runs.extend([0x00, 1, 5]);
    let bytes = craft(&[SEQ, U64], &[&[0x00, 1, 3], &runs]);
    assert_kind::<Vec<u64>>(&bytes, DecodeErrorKind::Corrupt);
    // A run of one length of 2^40 units: a valid stream, over the budget.
    let mut one_run = vec![0x06, 1];
    one_run.extend(prefixed(&[0x00, 0]));
    one_run.extend([0x00, 8]);
    one_run.extend((1u64 << 40).to_le_bytes());
    let bytes = craft(&[SEQ, SEQ, UNIT], &[&[0x00, 1, 1], &one_run]);
    assert_kind::<Vec<Vec<()>>>(&bytes, DecodeErrorKind::LimitExceeded);
    // Two u32s from a dictionary of one entry, the second index past its end.
    let mut dictionary = vec![0x07, 1];
    dictionary.extend(prefixed(&[0x00, 4, 5, 0, 0, 0]));
    dictionary.extend([0x00, 1, 0, 1]);
    let bytes = craft(&[SEQ, U32], &[&two, &dictionary]);
    assert_kind::<Vec<u32>>(&bytes, DecodeErrorKind::Corrupt);
    // Two strings from a dictionary of one ("a"), the second index past its end.
    let mut strings = vec![0x00];
    strings.extend(prefixed(&[0x00, 1, 1]));
    strings.push(b'a');
    let mut dictionary = vec![0x01, 1];
    dictionary.extend(prefixed(&strings));
    dictionary.extend([0x00, 1, 0, 1]);
    let bytes = craft(&[SEQ, STR], &[&two, &dictionary]);
    assert_kind::<Vec<String>>(&bytes, DecodeErrorKind::Corrupt);
    // The same with a valid index decodes: the crafting is right.
    let last = dictionary.len() - 1;
    dictionary[last] = 0;
    let bytes = craft(&[SEQ, STR], &[&two, &dictionary]);
    assert_eq!(decode::<Vec<String>>(&bytes).unwrap(), ["a", "a"]);
}

#[test]
fn an_out_of_range_discriminant_is_an_error() {
    // Two variants, `open` (unit) and `sold` (u8); the discriminant says 2.
    let schema = [
        ENUM, 2, 4, b'o', b'p', b'e', b'n', UNIT, 4, b's', b'o', b'l', b'd', U8,
    ];
    let bytes = craft(&schema, &[&[0x00, 1, 2], &[]]);
    assert_kind::<Status>(&bytes, DecodeErrorKind::Corrupt);
    let bytes = craft(&schema, &[&[0x00, 1, 1], &[0x00, 1, 42]]);
    assert!(matches!(decode::<Status>(&bytes), Ok(Status::Sold(42))));
    // A variant with values but no data for them.
    let bytes = craft(&schema, &[&[0x00, 1, 1], &[]]);
    assert!(decode::<Status>(&bytes).is_err());
}

#[test]
fn headers_are_checked() {
    assert_kind::<u8>(b"", DecodeErrorKind::Truncated);
    assert_kind::<u8>(b"TB", DecodeErrorKind::Truncated);
    assert_kind::<u8>(b"{\"json\": true}", DecodeErrorKind::NotTreeBuf);
    let mut bytes = encode(&1u8);
    bytes[4] = 10;
    assert_kind::<u8>(&bytes, DecodeErrorKind::UnsupportedVersion);
    bytes[4] = 0;
    assert_kind::<u8>(&bytes, DecodeErrorKind::UnsupportedVersion);
    // A file that uses nothing added since version 1 reads under any number up to the current.
    for version in 1..=9 {
        bytes[4] = version;
        assert_eq!(
            decode_with_options::<u8>(&bytes, &DecodeOptions::default().verify_checksums(false))
                .unwrap(),
            1
        );
    }
    let mut bytes = encode(&1u8);
    bytes[5] = 1;
    assert_kind::<u8>(&bytes, DecodeErrorKind::UnsupportedVersion);
    let mut bytes = encode(&1u8);
    bytes.push(0);
    assert_kind::<u8>(&bytes, DecodeErrorKind::Corrupt);
    let mut bytes = encode(&"text");
    let last = bytes.len() - 6;
    bytes[last] ^= 1;
    assert_kind::<String>(&bytes, DecodeErrorKind::Corrupt);
}

#[test]
fn zero_sized_values_are_bounded_too() {
    let mut lengths = vec![0x01];
    lengths.extend(varint_bytes(1 << 40));
    let bytes = craft(&[SEQ, UNIT], &[&lengths]);
    assert_kind::<Vec<()>>(&bytes, DecodeErrorKind::LimitExceeded);
    let options = DecodeOptions::default().max_decoded_bytes(1000);
    let mut lengths = vec![0x01];
    lengths.extend(varint_bytes(1001));
    let bytes = craft(&[SEQ, UNIT], &[&lengths]);
    let err = decode_with_options::<Vec<()>>(&bytes, &options).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::LimitExceeded);
}

/// A sequence of `count` strings that all point at one dictionary entry of `len` bytes.
fn dictionary_bomb(count: u64, len: u64) -> Vec<u8> {
    fn prefixed(out: &mut Vec<u8>, bytes: &[u8]) {
        out.extend(varint_bytes(bytes.len() as u64));
        out.extend_from_slice(bytes);
    }
    let mut lengths = vec![0x01];
    lengths.extend(varint_bytes(count));
    let mut entry_length = vec![0x01];
    entry_length.extend(varint_bytes(len));
    let mut entry = vec![0x00];
    prefixed(&mut entry, &entry_length);
    entry.resize(entry.len() + len as usize, b'a');
    // A dictionary of one entry, then `count` indices of zero in zero bits each.
    let mut strings = vec![0x01, 1];
    prefixed(&mut strings, &entry);
    strings.extend([0x00, 0]);
    craft(&[SEQ, STR], &[&lengths, &strings])
}

/// A sequence of `count` structs (or enum values) with one unit field (or variant) named with `len`
/// bytes.
fn name_bomb(container: u8, count: u64, len: u64) -> Vec<u8> {
    let mut lengths = vec![0x01];
    lengths.extend(varint_bytes(count));
    let mut schema = vec![SEQ, container, 1];
    schema.extend(varint_bytes(len));
    schema.resize(schema.len() + len as usize, b'f');
    schema.push(UNIT);
    // Enum values all of variant 0, in zero bits each.
    let discriminants: &[u8] = &[0x00, 0];
    match container {
        ENUM => craft(&schema, &[&lengths, discriminants]),
        _ => craft(&schema, &[&lengths]),
    }
}

/// Every truncation and single-bit flip of the samples.
fn damaged_samples() -> Vec<Vec<u8>> {
    let mut inputs = Vec::new();
    for bytes in samples() {
        inputs.extend((0..bytes.len()).map(|len| bytes[..len].to_vec()));
        inputs.extend((0..bytes.len() * 8).map(|bit| flipped(&bytes, bit)));
    }
    inputs
}

/// Crafted files that expand a lot: far more values, or far longer ones, than bytes.
fn bombs() -> Vec<Vec<u8>> {
    let mut lengths = vec![0x01];
    lengths.extend(varint_bytes(2_000_000));
    vec![
        craft(&[SEQ, U64], &[&lengths, &[0x00, 0]]),
        craft(&[SEQ, UNIT], &[&lengths]),
        dictionary_bomb(100_000, 4_000),
        name_bomb(STRUCT, 100_000, 4_000),
        name_bomb(ENUM, 100_000, 4_000),
    ]
}

#[test]
fn decoding_allocates_within_the_cap_and_in_step_with_the_decoded_size() {
    // Under a cap, decoding an input of n bytes may hold a small multiple of the cap (decoded
    // columns, then the values built from them) plus a small multiple of n (the schema, the branch
    // table): never memory reserved from a count that was not charged.
    let bound = |cap: u64, n: usize| 4 * cap as usize + 16 * n + (64 << 10);
    let default_cap = DecodeOptions::DEFAULT_MAX_DECODED_BYTES;
    let caps = [1 << 12, 1 << 16, 1 << 24, default_cap];
    let damaged = damaged_samples().into_iter().map(|b| (b, &caps[..]));
    // Bombs would really decode to the default cap's gigabyte.
    let bombs = bombs().into_iter().map(|b| (b, &caps[..3]));
    let mut worst = [(0, 0); 4];
    for (bytes, caps) in damaged.chain(bombs) {
        for (i, &cap) in caps.iter().enumerate() {
            let options = DecodeOptions::default()
                .verify_checksums(false)
                .max_decoded_bytes(cap);
            let peak = peak_allocation(|| {
                decode_everything(&bytes, &options);
            });
            assert!(
                peak <= bound(cap, bytes.len()),
                "{peak} bytes allocated decoding {} bytes under a cap of {cap}",
                bytes.len()
            );
            worst[i] = worst[i].max((peak, bytes.len()));
        }
    }
    for (cap, (peak, n)) in caps.iter().zip(worst) {
        eprintln!("cap {cap}: at most {peak} bytes allocated, for an input of {n} bytes");
    }
    // Damaged small files decode to about their own size, whatever the cap.
    let (peak, n) = worst[3];
    assert!(peak <= 16 * n + (64 << 10), "{peak} bytes for {n}");
}

#[test]
fn keyed_strings_name_only_earlier_unkeyed_branches() {
    #[derive(Decode, Debug, PartialEq)]
    struct Three {
        a: String,
        b: String,
        c: String,
    }
    let schema = [STRUCT, 3, 1, b'a', STR, 1, b'b', STR, 1, b'c', STR];
    // "k", plainly; and "v" keyed by branch `source`.
    let plain: &[u8] = &[0x00, 3, 0x00, 1, 1, b'k'];
    let keyed = |source: u8| vec![0x02, source, 1, 6, 0x00, 3, 0x00, 1, 1, b'v', 0];
    let bytes = craft(&schema, &[plain, &keyed(0), &keyed(0)]);
    let three = || Three {
        a: "k".into(),
        b: "v".into(),
        c: "v".into(),
    };
    assert_eq!(decode::<Three>(&bytes).unwrap(), three());
    for (what, branches) in [
        ("itself", [plain, &keyed(1), plain]),
        ("a later branch", [plain, &keyed(2), plain]),
        ("no branch", [plain, &keyed(9), plain]),
        ("a keyed branch", [plain, &keyed(0), &keyed(1)]),
        ("an earlier branch, first", [&keyed(0), plain, plain]),
    ] {
        let bytes = craft(&schema, &branches);
        let err = decode::<Three>(&bytes).expect_err(what);
        assert_eq!(err.kind(), DecodeErrorKind::Corrupt, "{what}: {err}");
        assert!(decode::<Value>(&bytes).is_err(), "{what} as a Value");
    }
}

/// A keyed stream's source is a string branch with as many values as the keyed one: the source's
/// bytes alone may decode as any number of strings (width-0 lengths: all empty), so the reader
/// checks the count the schema gives it.
#[test]
fn keyed_strings_name_a_string_branch_of_as_many_values() {
    #[derive(Decode, Debug, PartialEq)]
    struct Keyed {
        a: Vec<String>,
        b: String,
    }
    let schema = [STRUCT, 2, 1, b'a', SEQ, STR, 1, b'b', STR];
    let lengths = |n: u8| vec![0x00, 1, n];
    // Empty strings, as many as asked for.
    let empty_strings: &[u8] = &[0x00, 2, 0x00, 0];
    let keyed = |source: u8| vec![0x02, source, 1, 6, 0x00, 3, 0x00, 1, 1, b'v', 0];
    let good = craft(&schema, &[&lengths(1), empty_strings, &keyed(1)]);
    assert_eq!(
        decode::<Keyed>(&good).unwrap(),
        Keyed {
            a: vec![String::new()],
            b: "v".into()
        }
    );
    let reader = Reader::new(&good).unwrap();
    assert_eq!(reader.decode_path::<Vec<String>>("b").unwrap(), ["v"]);
    for (what, branches, message) in [
        (
            "a source of 3 strings",
            [&lengths(3)[..], empty_strings, &keyed(1)],
            "which holds 3",
        ),
        (
            "a source of lengths",
            [&lengths(1)[..], empty_strings, &keyed(0)],
            "not strings",
        ),
    ] {
        let bytes = craft(&schema, &branches);
        let err = decode::<Keyed>(&bytes).expect_err(what);
        assert_eq!(err.kind(), DecodeErrorKind::Corrupt, "{what}: {err}");
        assert!(err.message().contains(message), "{what}: {err}");
        assert_eq!(err.path(), "b", "{what}");
        assert!(decode::<Value>(&bytes).is_err(), "{what} as a Value");
        let reader = Reader::new(&bytes).unwrap();
        assert!(
            reader.decode_path::<Vec<String>>("b").is_err(),
            "{what} by path"
        );
    }
}

/// The branch of a node with no values is never read (FORMAT.md, "Streams of no values"):
/// writers leave it empty, and readers ignore whatever it holds.
#[test]
fn the_branch_of_a_node_with_no_values_is_not_read() {
    let schema = [SEQ, U32];
    let no_items = [0x00, 1, 0];
    for items in [&[][..], &[0x01], &[0x00, 0], &[0x01, 5], &[0x7f]] {
        let bytes = craft(&schema, &[&no_items, items]);
        assert_eq!(decode::<Vec<u32>>(&bytes).unwrap(), Vec::<u32>::new());
        assert_eq!(decode::<Value>(&bytes).unwrap(), Value::Array(vec![]));
    }
}

#[test]
fn a_file_may_use_no_encoding_newer_than_its_version() {
    let golden = |path: &str| {
        std::fs::read(format!(
            "{}/tests/golden/{path}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    };
    let unchecked = DecodeOptions::default().verify_checksums(false);
    // Huffman codes in four streams came in version 5, Huffman codes in version 3, keyed string
    // streams in version 2.
    let mut streams = golden("v5/huffman_streams.tb");
    assert!(decode_with_options::<(Vec<i64>, Vec<u16>)>(&streams, &unchecked).is_ok());
    streams[4] = 4;
    let error = decode_with_options::<(Vec<i64>, Vec<u16>)>(&streams, &unchecked).unwrap_err();
    assert_eq!(error.kind(), DecodeErrorKind::Corrupt);
    assert!(error.message().contains("format version 5"), "{error}");
    type Huffman = (Vec<i64>, Vec<u32>, Vec<u8>);
    type Keyed = Vec<(String, Option<String>, Option<String>, String)>;
    let mut huffman = golden("v3/huffman_columns.tb");
    assert!(decode_with_options::<Huffman>(&huffman, &unchecked).is_ok());
    huffman[4] = 2;
    let error = decode_with_options::<Huffman>(&huffman, &unchecked).unwrap_err();
    assert_eq!(error.kind(), DecodeErrorKind::Corrupt);
    assert!(error.message().contains("Huffman"), "{error}");
    let mut keyed = golden("v2/keyed_people.tb");
    assert!(decode_with_options::<Keyed>(&keyed, &unchecked).is_ok());
    keyed[4] = 1;
    let error = decode_with_options::<Keyed>(&keyed, &unchecked).unwrap_err();
    assert!(error.message().contains("keyed"), "{error}");
    // Recursion nodes came in version 6.
    let mut chain = encode(&Chain(1, Some(Box::new(Chain(2, None)))));
    assert_eq!(chain[4], 6);
    chain[4] = 5;
    let error = decode_with_options::<Chain>(&chain, &unchecked).unwrap_err();
    assert_eq!(error.kind(), DecodeErrorKind::Corrupt);
    assert!(error.message().contains("format version 6"), "{error}");
}

/// `struct Chain(u8, Option<Box<Chain>>)` as written: the root is the recursion's target.
#[derive(tree_buf::Encode, Decode, Debug, PartialEq)]
struct Chain(u8, Option<Box<Chain>>);

/// A file of two chains' links (values 2 then 1, as written), with `presence` for their options
/// and the recursion branch `positions`.
fn chain(version: u8, presence: u8, positions: &[u8]) -> Vec<u8> {
    let schema = [TUPLE, 2, U8, OPTION, RECURSION, 2];
    craft_version(
        version,
        &schema,
        &[&[0x00, 1, 2, 1], &[0x00, presence], positions],
    )
}

#[test]
fn recursion_layouts_are_checked() {
    // Link 1 holds link 2, which comes first: `Chain(1, Some(Chain(2, None)))`.
    let good = chain(6, 0b10, &[1, 0x00, 1, 0]);
    assert_eq!(
        decode::<Chain>(&good).unwrap(),
        Chain(1, Some(Box::new(Chain(2, None))))
    );
    // The same as a `Value`.
    assert!(decode::<Value>(&good).is_ok());
    let corrupt = [
        // A position past the values.
        chain(6, 0b10, &[1, 0x00, 1, 5]),
        // A value holding itself.
        chain(6, 0b10, &[1, 0x00, 1, 1]),
        // A value held by one before it.
        chain(6, 0b01, &[1, 0x00, 1, 1]),
        // More recursion values than the options hold.
        chain(6, 0b10, &[2, 0x00, 1, 0, 0]),
        // Recursion nodes came in version 6.
        chain(5, 0b10, &[1, 0x00, 1, 0]),
    ];
    for bytes in &corrupt {
        for options in [
            DecodeOptions::default(),
            DecodeOptions::default().verify_checksums(false),
        ] {
            let typed = decode_with_options::<Chain>(bytes, &options).unwrap_err();
            assert_eq!(typed.kind(), DecodeErrorKind::Corrupt, "{typed}");
            let dynamic = decode_with_options::<Value>(bytes, &options).unwrap_err();
            assert_eq!(dynamic.kind(), DecodeErrorKind::Corrupt, "{dynamic}");
        }
    }
    // A count past the budget, charged before anything is built.
    let huge = chain(6, 0b10, &[0xff, 0xff, 0xff, 0xff, 0x0f]);
    assert_kind::<Chain>(&huge, DecodeErrorKind::LimitExceeded);
    assert_kind::<Value>(&huge, DecodeErrorKind::LimitExceeded);
    // A recursion node whose target is not an ancestor's distance away.
    let schema = [TUPLE, 2, U8, OPTION, RECURSION, 3];
    assert_kind::<Chain>(&craft_version(6, &schema, &[]), DecodeErrorKind::Corrupt);
    // A type that does not recur where the file does.
    assert_eq!(
        decode::<(u8, Option<u8>)>(&good).unwrap_err().kind(),
        DecodeErrorKind::SchemaMismatch
    );
}

/// A keyed integer stream's source is another integer leaf's branch, not keyed itself, with as
/// many values; each of its values falls in one of the stream's parts.
#[test]
fn keyed_ints_name_another_unkeyed_integer_branch_of_as_many_values() {
    #[derive(Decode, Debug, PartialEq)]
    struct Four {
        a: u8,
        b: u8,
        s: String,
        v: Vec<u8>,
    }
    let schema = [
        STRUCT, 4, 1, b'a', U8, 1, b'b', U8, 1, b's', STR, 1, b'v', SEQ, U8,
    ];
    // a = 1 (part 1); b = 7, keyed by branch `source` in two parts, the first empty.
    let a: &[u8] = &[0x00, 1, 1];
    let keyed = |source: u8| vec![0x0f, source, 2, 0, 0x00, 1, 7];
    let s: &[u8] = &[0x00, 3, 0x00, 1, 1, b'k'];
    let lengths = |n: u8| vec![0x00, 1, n];
    let items = |n: u8| [vec![0x00, 1], vec![9; n.into()]].concat();
    let good = craft_version(7, &schema, &[a, &keyed(0), s, &lengths(1), &items(1)]);
    let four = Four {
        a: 1,
        b: 7,
        s: "k".into(),
        v: vec![9],
    };
    assert_eq!(decode::<Four>(&good).unwrap(), four);
    let reader = Reader::new(&good).unwrap();
    assert_eq!(reader.decode_path::<Vec<u8>>("b").unwrap(), [7]);
    assert!(decode::<Value>(&good).is_ok());

    let older = craft_version(6, &schema, &[a, &keyed(0), s, &lengths(1), &items(1)]);
    let err = decode::<Four>(&older).unwrap_err();
    assert!(err.message().contains("format version 7"), "{err}");
    let outside: &[u8] = &[0x00, 1, 200];
    for (what, branches, message) in [
        (
            "itself",
            [a, &keyed(1), s, &lengths(1), &items(1)],
            "not another branch",
        ),
        (
            "no branch",
            [a, &keyed(9), s, &lengths(1), &items(1)],
            "not another branch",
        ),
        (
            "a keyed branch",
            [&keyed(1), &keyed(0), s, &lengths(1), &items(1)],
            "keyed too",
        ),
        (
            "a string branch",
            [a, &keyed(2), s, &lengths(1), &items(1)],
            "not integers",
        ),
        (
            "lengths",
            [a, &keyed(3), s, &lengths(1), &items(1)],
            "not integers",
        ),
        (
            "a source of 3 values",
            [a, &keyed(4), s, &lengths(3), &items(3)],
            "that holds 3",
        ),
        (
            "a source value in no part",
            [outside, &keyed(0), s, &lengths(1), &items(1)],
            "part 15",
        ),
    ] {
        let bytes = craft_version(7, &schema, &branches);
        let err = decode::<Four>(&bytes).expect_err(what);
        assert_eq!(err.kind(), DecodeErrorKind::Corrupt, "{what}: {err}");
        assert!(err.message().contains(message), "{what}: {err}");
        assert!(decode::<Value>(&bytes).is_err(), "{what} as a Value");
        let reader = Reader::new(&bytes).unwrap();
        assert!(
            reader.decode_path::<Vec<u8>>("b").is_err(),
            "{what} by path"
        );
    }
    // Not in a string, a length or a float branch.
    let bytes = craft_version(7, &[SEQ, U8], &[&keyed(1), &[0x00, 1, 7]]);
    assert_kind::<Vec<u8>>(&bytes, DecodeErrorKind::Corrupt);
}
