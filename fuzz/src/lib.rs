//! The checks behind the fuzz targets. `tree-buf/tests/fuzz_replay.rs` includes this file too and
//! replays the seeds and every regression input through it in a plain `cargo test`.
//!
//! Every check takes arbitrary bytes. Decoding them may fail but must never panic; a check panics
//! only where tree-buf broke a promise (a valid file that does not read back, say).

use std::collections::BTreeMap;

use arbitrary::{Arbitrary, Unstructured};
use tree_buf::{
    decode_with_options, encode_with_options, size_breakdown, size_breakdown_with_options,
    try_encode, BreakdownOptions, Decode, DecodeOptions, Encode, EncodeErrorKind, EncodeOptions,
    Preference, Reader, Value,
};

/// A type with every kind of schema node: integers of every width, floats, strings, chars, bytes,
/// options, sequences, arrays, tuples, maps, enums of every variant shape, recursion and units.
#[derive(Encode, Decode, Arbitrary, Debug, Clone, PartialEq)]
pub struct Record {
    pub id: u64,
    pub name: String,
    pub tags: Vec<String>,
    pub score: Option<f64>,
    pub ratio: f32,
    pub small: (i8, u16, i32),
    pub wide: (u128, i128),
    pub flag: bool,
    pub letter: char,
    pub bytes: Vec<u8>,
    pub hash: [u8; 4],
    pub points: Vec<(f32, f64)>,
    pub kind: Kind,
    pub history: Vec<Option<Kind>>,
    pub index: BTreeMap<String, Vec<i64>>,
    pub tree: Tree,
    pub label: Box<str>,
    pub nothing: (),
}

#[derive(Encode, Decode, Arbitrary, Debug, Clone, PartialEq)]
pub enum Kind {
    Empty,
    Count(u32),
    Pair(String, i16),
    Named { x: f32, y: Option<bool> },
}

#[derive(Encode, Decode, Arbitrary, Debug, Clone, PartialEq)]
pub struct Tree {
    pub value: i16,
    pub children: Vec<Tree>,
}

/// Some fields of [`Record`]: decoding into it reads their branches and skips the others.
#[derive(Decode, Debug)]
pub struct RecordSubset {
    pub name: String,
    pub kind: Kind,
    pub index: BTreeMap<String, Vec<i64>>,
}

/// Options for hostile bytes: checksums off, so that the decoders see the corrupted content, and a
/// cap small enough to keep every run fast (the allocation test checks the cap itself).
fn unchecked() -> DecodeOptions {
    DecodeOptions::default()
        .verify_checksums(false)
        .max_decoded_bytes(1 << 24)
}

/// Decodes `bytes` as several types and as a [`Value`]; a `Value` that decodes must encode, and
/// what it encodes to must decode.
pub fn decode(bytes: &[u8]) {
    for options in [DecodeOptions::default(), unchecked()] {
        let _ = decode_with_options::<Vec<Record>>(bytes, &options);
        let _ = decode_with_options::<Record>(bytes, &options);
        let _ = decode_with_options::<BTreeMap<String, Vec<Kind>>>(bytes, &options);
        let _ = decode_with_options::<Vec<Option<(u8, String)>>>(bytes, &options);
        let _ = decode_with_options::<(Vec<f32>, Vec<char>, [u16; 3])>(bytes, &options);
        if let Ok(value) = decode_with_options::<Value>(bytes, &options) {
            if let Ok(again) = try_encode(&value) {
                if let Err(e) = tree_buf::decode::<Value>(&again) {
                    panic!("a decoded Value encodes to a file that does not decode: {e}");
                }
            }
        }
    }
}

/// Measures and lists `bytes` without decoding values (and with zstd frames decompressed).
pub fn inspect(bytes: &[u8]) {
    if let Ok(breakdown) = size_breakdown(bytes) {
        let parts = breakdown.header_bytes
            + breakdown.schema_bytes
            + breakdown.table_bytes
            + breakdown.branches.iter().map(|b| b.bytes).sum::<usize>();
        assert_eq!(parts, bytes.len(), "the breakdown does not add up");
        let _ = breakdown.to_string();
    }
    let decompressing = BreakdownOptions::default().decompress_zstd(true);
    if let Ok(breakdown) = size_breakdown_with_options(bytes, &decompressing) {
        let _ = breakdown.to_string();
    }
    if let Ok(reader) = Reader::with_options(bytes, unchecked()) {
        let schema = reader.schema();
        let _ = schema.to_string();
        for node in schema.iter() {
            let _ = schema.find(&node.path);
        }
        let _ = reader.verify();
    }
}

/// Partial reads of `bytes`: a type naming a subset of fields, and every path of the schema.
pub fn partial(bytes: &[u8]) {
    let Ok(reader) = Reader::with_options(bytes, unchecked()) else {
        return;
    };
    let _ = reader.decode::<RecordSubset>();
    let _ = reader.decode::<Vec<RecordSubset>>();
    let schema = reader.schema();
    let odd = ["", "[]", "{key}", "{value}.[]", "0.1", "no.such", "[]..[]"];
    let paths = schema
        .iter()
        .take(64)
        .map(|node| node.path.as_str())
        .chain(odd);
    for path in paths {
        let _ = reader.decode_path::<Vec<Value>>(path);
        let _ = reader.decode_path::<Vec<u64>>(path);
        let _ = reader.decode_path::<Vec<Option<String>>>(path);
    }
}

/// Encodes arbitrary records with arbitrary options; they must decode to the same records, whole
/// and in part.
pub fn round_trip(data: &[u8]) {
    let mut input = Unstructured::new(data);
    let Ok((records, preference, parallel)) = <(Vec<Record>, u8, bool)>::arbitrary(&mut input)
    else {
        return;
    };
    let preference = match preference % 3 {
        0 => Preference::Faster,
        1 => Preference::Balanced,
        _ => Preference::Smaller,
    };
    let options = EncodeOptions::default()
        .prefer(preference)
        .parallel(parallel);
    let bytes = match encode_with_options(&records, &options) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == EncodeErrorKind::DepthLimit => return,
        Err(e) => panic!("records do not encode: {e}"),
    };
    let back: Vec<Record> = tree_buf::decode(&bytes).expect("a file just written decodes");
    // Debug tells floats apart by value (NaN aside) where `==` cannot; the second encoding
    // compares NaN payloads too.
    assert_eq!(format!("{back:?}"), format!("{records:?}"));
    assert_eq!(encode_with_options(&back, &options).unwrap(), bytes);

    let reader = Reader::new(&bytes).unwrap();
    let subsets: Vec<RecordSubset> = reader.decode().expect("a subset decodes");
    let expected: Vec<_> = records
        .iter()
        .map(|r| (&r.name, &r.kind, &r.index))
        .collect();
    let got: Vec<_> = subsets
        .iter()
        .map(|s| (&s.name, &s.kind, &s.index))
        .collect();
    assert_eq!(format!("{got:?}"), format!("{expected:?}"));
    // An empty sequence records no item type, so paths below it exist only once it has items.
    if !records.is_empty() {
        let ids: Vec<u64> = reader.decode_path("[].id").expect("a path decodes");
        assert!(ids.iter().eq(records.iter().map(|r| &r.id)));
    }
    let children = records.iter().map(|r| r.tree.children.len()).sum::<usize>();
    if children > 0 {
        let trees: Vec<Value> = reader.decode_path("[].tree.children.[]").unwrap();
        assert_eq!(trees.len(), children);
    }
    tree_buf::decode::<Value>(&bytes).expect("every file decodes as a Value");
}
