//! Golden files: files of each format version, written once and checked in under
//! `tests/golden/v1/`, `tests/golden/v2/` and so on, that every later tree-buf must keep decoding
//! to the values built here. Version 2 added keyed string streams, version 3 Huffman-coded
//! integers, version 4 archives (chunks, a footer), version 5 Huffman codes in four streams,
//! version 6 recursion nodes (every depth of a recursive type in one set of branches) and
//! version 7 keyed integer streams (a column in parts by a sibling column's values), version 8
//! key-value metadata in an archive's footer, version 9 coded text (a string stream whose bytes
//! are an integer stream);
//! each version's folder holds the cases that use what it added, while the files written before
//! stay as they are.
//!
//! Each case is a name, a value built deterministically in code and the options it was encoded
//! with, and the version folder its file is in. `golden_files_decode_to_their_values` decodes
//! `<version>/<name>.tb` as the case's Rust type and compares it with the value.
//! `golden_files_survive_truncations_and_bit_flips` feeds every file, truncated and with bits
//! flipped, to the decoders: at every length in a release build, a sample in a debug one.
//!
//! Writing them is a separate, ignored test, never a mode of the checks:
//! `cargo test -p tree-buf --test golden -- --ignored write_golden_files` writes the file of every
//! case that has none, and leaves the others alone. `TREE_BUF_GOLDEN_REWRITE=name,name` also
//! rewrites the named cases' files: only when the value of a case had to change (the dataset cases
//! are built by `tree_buf_datasets`' generators over `rand`'s `StdRng`: a change there changes
//! them). Never rewrite a file because the current writer produces other bytes:
//!
//! - The writer may choose other cascades within the v1 grammar of `docs/FORMAT.md` (a better
//!   dictionary, another transform) without a version bump: any v1 reader reads them, and the old
//!   files stay here, still decoding.
//! - Any change to the grammar itself (a new tag, another layout) requires bumping the format
//!   version and adding a directory of golden files for it, while the older ones keep decoding.
//!   Files are never deleted, and every file must have its case (the test checks both).
//!
//! Many of the files have zstd stages, so the checks need the `zstd` feature (a default one).

#![cfg(feature = "zstd")]

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::fmt::Debug;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tree_buf::archive::{Archive, ArchiveOptions, ArchiveWriter};
use tree_buf::{
    decode_with_options, encode_with_options, size_breakdown, size_breakdown_with_options,
    BreakdownOptions, Codec, Decode, DecodeError, DecodeOptions, DecodeOwned, Encode,
    EncodeOptions, Preference, Value,
};
use tree_buf_datasets::{baseball, geojson, graphql, retrosheet, stocks};

/// The folders of the golden files, one for each format version.
const VERSIONS: [&str; 9] = ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9"];

/// The folder of the golden files of a format version.
fn golden_dir(version: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(version)
}

/// One golden file.
struct Case {
    name: &'static str,
    /// The folder of its file: the format version it was written in.
    version: &'static str,
    /// Encodes the case's value with its options.
    encode: Box<dyn Fn() -> Vec<u8>>,
    /// Decodes bytes as the case's type: `None` if the value is the expected one, else the
    /// difference.
    decode: DecodeFn,
}

type DecodeFn = Box<dyn Fn(&[u8], &DecodeOptions) -> Result<Option<Difference>, DecodeError>>;

/// A decoded value that is not the expected one, described only when called: the corruption
/// sweep drops most differences unread (corruptions decoded without checksums may decode to
/// anything), and describing both values each time took a large part of its time.
type Difference = Box<dyn FnOnce() -> String>;

fn case<T: Encode + DecodeOwned + Debug + 'static>(
    name: &'static str,
    options: EncodeOptions,
    expected: T,
    same: fn(&T, &T) -> bool,
) -> Case {
    let expected = Rc::new(expected);
    let to_encode = Rc::clone(&expected);
    Case {
        name,
        version: VERSIONS[0],
        encode: Box::new(move || {
            encode_with_options(&*to_encode, &options).expect("golden values encode")
        }),
        decode: Box::new(move |bytes, options| {
            let value = decode_with_options::<T>(bytes, options)?;
            if same(&value, &expected) {
                return Ok(None);
            }
            let expected = Rc::clone(&expected);
            Ok(Some(Box::new(move || {
                format!(
                    "decoded {}\nexpected {}",
                    shortened(&value),
                    shortened(&*expected)
                )
            })))
        }),
    }
}

fn shortened(value: &impl Debug) -> String {
    let mut text = format!("{value:?}");
    if text.len() > 2_000 {
        let mut end = 2_000;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push_str("...");
    }
    text
}

fn defaults() -> EncodeOptions {
    EncodeOptions::default()
}

/// The tolerance of the lossy cases, as an exponent of two.
const TOLERANCE: i32 = -12;

fn lossy() -> EncodeOptions {
    EncodeOptions::default().lossy_float_tolerance(TOLERANCE)
}

/// A small deterministic generator (splitmix64) for the values built in this file.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A value in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

// ---------------------------------------------------------------------------------------------
// Primitives.

type Unsigned = (u8, u16, u32, u64, u128, usize);
type Signed = (i8, i16, i32, i64, i128, isize);

fn unsigned() -> Vec<Unsigned> {
    let mut rows = vec![
        (0, 0, 0, 0, 0, 0),
        (1, 1, 1, 1, 1, 1),
        (u8::MAX, u16::MAX, u32::MAX, u64::MAX, u128::MAX, usize::MAX),
        (
            u8::MAX - 1,
            u16::MAX - 1,
            u32::MAX - 1,
            u64::MAX - 1,
            u128::MAX - 1,
            usize::MAX - 1,
        ),
        (
            1 << 7,
            1 << 15,
            1 << 31,
            1 << 63,
            1 << 127,
            usize::MAX / 2 + 1,
        ),
        (0, 0, 0, 0, u128::from(u64::MAX) + 1, 0),
    ];
    let mut rng = Rng(1);
    rows.extend((0..40).map(|_| {
        let v = rng.next();
        (
            v as u8,
            (v >> 8) as u16,
            (v >> 16) as u32,
            v,
            u128::from(v) << 64 | u128::from(rng.next()),
            v as usize,
        )
    }));
    rows
}

fn signed() -> Vec<Signed> {
    let mut rows = vec![
        (0, 0, 0, 0, 0, 0),
        (-1, -1, -1, -1, -1, -1),
        (1, 1, 1, 1, 1, 1),
        (i8::MIN, i16::MIN, i32::MIN, i64::MIN, i128::MIN, isize::MIN),
        (i8::MAX, i16::MAX, i32::MAX, i64::MAX, i128::MAX, isize::MAX),
        (
            i8::MIN + 1,
            i16::MIN + 1,
            i32::MIN + 1,
            i64::MIN + 1,
            i128::MIN + 1,
            isize::MIN + 1,
        ),
    ];
    let mut rng = Rng(2);
    rows.extend((0..40).map(|_| {
        let v = rng.next() as i64;
        (
            v as i8,
            (v >> 8) as i16,
            (v >> 16) as i32,
            v,
            i128::from(v) << 64 | i128::from(rng.next()),
            v as isize,
        )
    }));
    rows
}

fn bools_chars_units() -> Vec<(bool, char, ())> {
    let chars = [
        '\0',
        'a',
        'Z',
        'é',
        'ß',
        '€',
        '中',
        '🦀',
        '\u{7f}',
        '\u{d7ff}',
        '\u{e000}',
        '\u{10ffff}',
    ];
    (0..60)
        .map(|i| (i % 3 == 0 || i % 7 == 0, chars[i % chars.len()], ()))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Floats.

fn special_f64() -> Vec<f64> {
    vec![
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
        f64::from_bits(0x7ff8_0000_dead_beef), // quiet NaN with a payload
        f64::from_bits(0xfff0_0000_0000_0001), // negative signalling NaN
        f64::from_bits(0x7ff0_0000_0000_0001), // signalling NaN
        f64::MIN_POSITIVE,
        f64::from_bits(1), // the least subnormal
        -f64::from_bits(0x000f_ffff_ffff_ffff),
        f64::MAX,
        f64::MIN,
        f64::EPSILON,
        0.1,
        1.0 / 3.0,
        std::f64::consts::PI,
        1e300,
        -2.5,
        12.34,
        1e-300,
    ]
}

fn special_f32() -> Vec<f32> {
    vec![
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        f32::from_bits(0x7fc0_beef),
        f32::from_bits(0xff80_0001),
        f32::from_bits(0x7f80_0001),
        f32::MIN_POSITIVE,
        f32::from_bits(1),
        f32::MAX,
        f32::MIN,
        f32::EPSILON,
        0.1,
        1.0 / 3.0,
        std::f32::consts::E,
        -2.5,
        12.34,
    ]
}

fn same_f64s(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.to_bits() == b.to_bits())
}

fn same_f32s(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.to_bits() == b.to_bits())
}

type Floats = (Vec<f32>, Vec<f64>, Option<f64>, [f32; 2]);

fn floats() -> Floats {
    (
        special_f32(),
        special_f64(),
        Some(f64::from_bits(0x7ff8_0000_0000_0042)),
        [-0.0, f32::NAN],
    )
}

fn same_floats(a: &Floats, b: &Floats) -> bool {
    same_f32s(&a.0, &b.0)
        && same_f64s(&a.1, &b.1)
        && same_f64s(a.2.as_slice(), b.2.as_slice())
        && same_f32s(&a.3, &b.3)
}

/// Prices with two decimals and measurements with a few: columns for the decimal float codecs.
fn decimal_floats() -> (Vec<f64>, Vec<f32>) {
    let mut rng = Rng(3);
    let prices = (0..300)
        .map(|_| (rng.below(1_000_000) as f64) / 100.0)
        .collect();
    let readings = (0..300)
        .map(|i| ((i as f32) * 0.25 + (rng.below(8) as f32) / 8.0) - 20.0)
        .collect();
    (prices, readings)
}

fn same_decimal_floats(a: &(Vec<f64>, Vec<f32>), b: &(Vec<f64>, Vec<f32>)) -> bool {
    same_f64s(&a.0, &b.0) && same_f32s(&a.1, &b.1)
}

/// Noisy measurements, and the values lossy encoding keeps exactly.
fn lossy_floats() -> (Vec<f64>, Vec<f32>) {
    let mut f64s: Vec<f64> = (0..400)
        .map(|i| (f64::from(i) * 0.01).sin() * 100.0 + f64::from(i) * 1e-9)
        .collect();
    f64s.extend([f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e300, -0.0, 0.0]);
    let mut f32s: Vec<f32> = (0..200).map(|i| ((i as f32) * 0.03).cos() * 20.0).collect();
    f32s.extend([f32::NAN, f32::INFINITY, -1e30]);
    (f64s, f32s)
}

/// Within the lossy tolerance; NaN and infinities exactly.
fn close_f64(a: f64, b: f64) -> bool {
    if a.is_finite() && b.is_finite() {
        (a - b).abs() <= 2f64.powi(TOLERANCE)
    } else {
        a.to_bits() == b.to_bits()
    }
}

fn same_lossy_floats(a: &(Vec<f64>, Vec<f32>), b: &(Vec<f64>, Vec<f32>)) -> bool {
    a.0.len() == b.0.len()
        && a.1.len() == b.1.len()
        && a.0.iter().zip(&b.0).all(|(a, b)| close_f64(*a, *b))
        && (a.1.iter().zip(&b.1)).all(|(a, b)| close_f64(f64::from(*a), f64::from(*b)))
}

// ---------------------------------------------------------------------------------------------
// Strings, containers, maps.

fn strings() -> Vec<String> {
    let mut strings: Vec<String> = [
        "",
        "a",
        "héllo wörld",
        "🦀 crab",
        "中文字符",
        "\0 nul inside",
        "tab\tand\nnewline",
        "\u{10ffff}",
        "",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    strings.push("long ".repeat(60));
    let words = ["open", "sold", "cancelled", "open", "open"];
    strings.extend((0..80).map(|i| words[i % words.len()].to_owned()));
    strings
}

type Containers = (
    Vec<u8>,
    VecDeque<i32>,
    [u16; 3],
    Box<[u32]>,
    Option<Box<u8>>,
    Option<Option<String>>,
    Rc<String>,
    Arc<Vec<bool>>,
    Box<(char, i8)>,
);

fn containers() -> Vec<Containers> {
    let mut rng = Rng(4);
    (0..30)
        .map(|i| {
            let n = rng.below(6) as usize;
            (
                (0..n).map(|k| (k * 37 + i) as u8).collect(),
                (0..n as i32).map(|k| k - 2).collect(),
                [i as u16, 0, u16::MAX],
                (0..rng.below(4) as u32).collect(),
                (i % 3 != 0).then(|| Box::new(i as u8)),
                match i % 3 {
                    0 => None,
                    1 => Some(None),
                    _ => Some(Some(format!("s{i}"))),
                },
                Rc::new(format!("rc {}", i % 4)),
                Arc::new(vec![i % 2 == 0; n]),
                Box::new((char::from(b'a' + i as u8 % 26), -(i as i8))),
            )
        })
        .collect()
}

type Maps = (
    HashMap<String, u32>,
    BTreeMap<u8, Vec<String>>,
    HashSet<i64>,
    BTreeSet<char>,
    BTreeMap<(u16, bool), Option<i32>>,
);

fn maps() -> Vec<Maps> {
    let mut rng = Rng(5);
    (0..20)
        .map(|i| {
            let n = rng.below(5);
            (
                (0..n)
                    .map(|k| (format!("key{k}"), rng.below(1_000) as u32))
                    .collect(),
                (0..n as u8)
                    .map(|k| (k * 3, vec![format!("v{k}"); k as usize]))
                    .collect(),
                (0..n as i64).map(|k| k * k - 4 + i).collect(),
                "tree-buf".chars().take(n as usize + 1).collect(),
                (0..n as u16)
                    .map(|k| ((k, k % 2 == 0), (k % 3 != 0).then_some(-(k as i32))))
                    .collect(),
            )
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Derived types.

#[derive(Encode, Decode, Debug, Clone, PartialEq)]
struct Order {
    id: u64,
    customer: String,
    status: Status,
    lines: Vec<Line>,
    note: Option<String>,
    hash: [u8; 20],
    #[tree_buf(rename = "placed")]
    placed_at: i64,
    discount: Option<f32>,
    priority: Priority,
    #[tree_buf(skip)]
    cached_total: Option<u64>,
}

#[derive(Encode, Decode, Debug, Clone, PartialEq)]
struct Line {
    sku: u32,
    quantity: u16,
    price: f64,
}

#[derive(Encode, Decode, Debug, Clone, PartialEq)]
enum Status {
    Pending,
    Shipped(u32, String),
    Refunded {
        amount: i64,
        reason: Option<String>,
    },
    #[tree_buf(rename = "lost_in_transit")]
    Lost,
}

/// A newtype struct, a tuple struct and a unit struct.
#[derive(Encode, Decode, Debug, Clone, PartialEq)]
struct Priority(Level, Marker);

#[derive(Encode, Decode, Debug, Clone, PartialEq)]
struct Level(u8);

#[derive(Encode, Decode, Debug, Clone, PartialEq)]
struct Marker;

/// Orders that give each encoding a column it wins on: sorted ids (delta), few customers
/// (dictionary), a few hashes repeated (group dictionary), timestamps (delta), small quantities
/// (bitpack), prices with two decimals (decimal floats), runs of one status (RLE).
fn orders() -> Vec<Order> {
    let mut rng = Rng(6);
    let customers = ["alice", "bob", "carol", "dave", "eve", "zoë"];
    let hashes: Vec<[u8; 20]> = (0..5)
        .map(|_| std::array::from_fn(|_| rng.next() as u8))
        .collect();
    (0..150)
        .map(|i| {
            let status = match (i / 10) % 4 {
                0 => Status::Pending,
                1 => Status::Shipped(i as u32 * 3, format!("TRACK{:04}", i % 17)),
                2 => Status::Refunded {
                    amount: -(rng.below(10_000) as i64),
                    reason: (i % 3 == 0).then(|| "damaged".to_owned()),
                },
                _ => Status::Lost,
            };
            Order {
                id: 1_000_000 + i * 3 + rng.below(3),
                customer: customers[rng.below(customers.len() as u64) as usize].to_owned(),
                status,
                lines: (0..rng.below(4))
                    .map(|_| Line {
                        sku: 40_000 + rng.below(50) as u32,
                        quantity: 1 + rng.below(5) as u16,
                        price: rng.below(100_000) as f64 / 100.0,
                    })
                    .collect(),
                note: (i % 5 == 0).then(|| format!("note {i}")),
                hash: hashes[rng.below(hashes.len() as u64) as usize],
                placed_at: 1_600_000_000 + i as i64 * 60 + rng.below(60) as i64,
                discount: (i % 4 == 1).then_some(0.5 / (1 + i % 3) as f32),
                priority: Priority(Level((i % 3) as u8), Marker),
                cached_total: None,
            }
        })
        .collect()
}

/// Log lines: a string column large enough for a zstd stage, which the preferences treat
/// differently (none when faster, level 3 by default, level 19 when smaller).
fn logs() -> Vec<(u32, String)> {
    let mut rng = Rng(8);
    let paths = ["/api/items", "/api/users", "/static/app.js", "/health"];
    (0..120)
        .map(|i| {
            let status = [200, 200, 200, 404, 500][rng.below(5) as usize];
            let line = format!(
                "GET {}/{} HTTP/1.1 {status} {}ms agent=curl/8.{}",
                paths[rng.below(4) as usize],
                rng.below(10_000),
                rng.below(900),
                rng.below(3)
            );
            (1_700_000_000 + i * 2, line)
        })
        .collect()
}

#[derive(Encode, Decode, Debug, Clone, PartialEq)]
struct Tree<T> {
    value: T,
    children: Vec<Tree<T>>,
}

#[derive(Encode, Decode, Debug, Clone, PartialEq)]
struct List {
    value: u32,
    next: Option<Box<List>>,
}

/// Mutually recursive types: folders hold entries, which may be folders.
#[derive(Encode, Decode, Debug, Clone, PartialEq)]
struct Folder {
    name: String,
    entries: Vec<Entry>,
}

#[derive(Encode, Decode, Debug, Clone, PartialEq)]
enum Entry {
    File { name: String, bytes: u64 },
    Folder(Box<Folder>),
}

fn folder(depth: u32) -> Folder {
    Folder {
        name: format!("folder {depth}"),
        entries: (0..depth % 2 + 2)
            .map(|index| match (depth, index) {
                (0, _) | (_, 0) => Entry::File {
                    name: format!("file {depth}.{index}"),
                    bytes: u64::from(depth * 1000 + index),
                },
                _ => Entry::Folder(Box::new(folder(depth - 1))),
            })
            .collect(),
    }
}

fn tree(depth: u32, index: u32) -> Tree<String> {
    Tree {
        value: format!("node {depth}.{index}"),
        children: if depth == 0 {
            vec![]
        } else {
            (0..(depth + index) % 3 + 1)
                .map(|k| tree(depth - 1, k))
                .collect()
        },
    }
}

fn list(len: u32) -> List {
    let mut list = List {
        value: 0,
        next: None,
    };
    for value in 1..len {
        list = List {
            value: value * value,
            next: Some(Box::new(list)),
        };
    }
    list
}

// ---------------------------------------------------------------------------------------------
// Values.

fn string(s: &str) -> Value {
    Value::String(s.to_owned())
}

fn object(fields: Vec<(&str, Value)>) -> Value {
    Value::Object(
        fields
            .into_iter()
            .map(|(name, value)| (name.to_owned(), value))
            .collect(),
    )
}

fn dynamic_value() -> Value {
    let item = |i: u32| {
        object(vec![
            ("id", Value::Unsigned(u128::from(i))),
            ("name", string(&format!("item {i}"))),
            ("delta", Value::integer(i128::from(i) - 3)),
            ("ratio", Value::Float(f64::from(i) / 4.0)),
            ("ok", Value::Bool(i.is_multiple_of(2))),
            (
                "tags",
                Value::Array((0..i % 3).map(|k| string(&format!("t{k}"))).collect()),
            ),
            ("blob", Value::Bytes((0..i as u8).collect())),
            (
                "shape",
                if i.is_multiple_of(2) {
                    Value::Variant("circle".into(), Box::new(Value::Float(1.5)))
                } else {
                    Value::Variant("point".into(), Box::new(Value::Null))
                },
            ),
            (
                "attrs",
                Value::Map(vec![
                    (string("k"), Value::Signed(-3)),
                    (string("size"), Value::Unsigned(u128::from(i * 10))),
                ]),
            ),
            (
                "at",
                Value::Array(vec![Value::Float(-1.25), Value::Float(2.5)]),
            ),
        ])
    };
    object(vec![
        ("items", Value::Array((0..12).map(item).collect())),
        ("empty", Value::Array(vec![])),
        ("nothing", Value::Null),
        ("huge", Value::Unsigned(u128::MAX)),
        ("tiny", Value::Signed(i128::MIN)),
        (
            "mixed",
            Value::Array(vec![
                Value::Unsigned(1),
                string("two"),
                Value::Null,
                Value::Bool(false),
                Value::Array(vec![Value::Float(3.0)]),
            ]),
        ),
    ])
}

fn json_value() -> Value {
    // Read from text, so that objects keep their key order whatever serde_json's features.
    serde_json::from_str(
        r#"[
            {"id": 1, "tags": ["a", "b"], "at": 1.5, "where": [10.5, -3.25]},
            {"id": -2, "tags": [], "note": null, "at": "later", "where": [0.0, 0.0]},
            {"id": 3, "tags": ["c"], "note": "ünïcode 🦀", "at": 2, "where": [1.0, 2.0]},
            {"nested": {"deeper": {"deepest": [true, false, null]}}}
        ]"#,
    )
    .expect("valid JSON")
}

// ---------------------------------------------------------------------------------------------
// Dataset-shaped values from the seeded generators of `tree_buf_datasets`.

fn same_days_lossy(a: &[stocks::Day], b: &[stocks::Day]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(a, b)| {
            a.date == b.date
                && a.volume == b.volume
                && [
                    (a.open, b.open),
                    (a.high, b.high),
                    (a.low, b.low),
                    (a.close, b.close),
                    (a.adj_close, b.adj_close),
                ]
                .iter()
                .all(|&(a, b)| close_f64(a, b))
        })
}

/// Integer columns shaped for each integer codec.
#[derive(Encode, Decode, Debug, Clone, PartialEq)]
struct IntColumns {
    sorted: Vec<u64>,
    runs: Vec<u32>,
    small: Vec<u8>,
    near_zero: Vec<i32>,
    few_large: Vec<u64>,
    varied: Vec<u32>,
    constant: Vec<i16>,
}

fn int_columns() -> IntColumns {
    let mut rng = Rng(7);
    let large = [u64::MAX - 7, 1 << 50, 123_456_789_012, 99];
    IntColumns {
        sorted: (0..400)
            .map(|i| 1_500_000_000 + i * 17 + rng.below(5))
            .collect(),
        runs: (0..400).map(|i| (i / 50) as u32 * 1_000).collect(),
        small: (0..400).map(|_| rng.below(13) as u8).collect(),
        near_zero: (0..400).map(|_| rng.below(41) as i32 - 20).collect(),
        few_large: (0..400).map(|_| large[rng.below(4) as usize]).collect(),
        varied: (0..400)
            .map(|_| {
                let bits = rng.below(28);
                rng.below(1 << bits) as u32
            })
            .collect(),
        constant: vec![-7; 300],
    }
}

/// Counts of a season that grow with playing time, as in a batting table: enough rows for the
/// writer to key the counts by a sibling (version 7) when it prefers smaller files.
type Season = (u16, u16, u16, u8, i16);

fn keyed_counts() -> Vec<Season> {
    let mut rng = Rng(11);
    (0..4500)
        .map(|_| {
            let scale = [0, 2, 8, 40, 200, 600][rng.below(6) as usize];
            let at_bats = rng.below(scale + 1) as u16;
            let share = |rng: &mut Rng, per_mille: u64| {
                (u64::from(at_bats) * rng.below(per_mille) / 1000) as u16
            };
            let games = (at_bats / 4 + rng.below(4) as u16).min(162);
            let hits = share(&mut rng, 350);
            let walks = share(&mut rng, 150) as u8;
            let plus_minus = share(&mut rng, 60) as i16 * if rng.below(2) == 0 { 1 } else { -1 };
            (games, at_bats, hits, walks, plus_minus)
        })
        .collect()
}

/// Text that coded text (version 9) stores: line scores of games, a digit (or `x`) an inning and
/// mostly zeros, and short codes of a four-letter alphabet; with a dictionary of strings whose
/// text is coded as well. Written preferring smaller files, which code text this short.
type CodedText = (Vec<String>, Vec<String>, Vec<String>);

fn coded_text() -> CodedText {
    let mut rng = Rng(12);
    let scores = (0..1200)
        .map(|_| {
            let innings = 9 + rng.below(3) * rng.below(2);
            (0..innings)
                .map(|_| match rng.below(16) {
                    0..=9 => '0',
                    10..=12 => '1',
                    13 | 14 => '2',
                    _ => char::from(b'3' + rng.below(7) as u8),
                })
                .collect()
        })
        .collect();
    let code = |rng: &mut Rng| -> String {
        (0..8)
            .map(|_| char::from(b"ACGT"[rng.below(4) as usize]))
            .collect()
    };
    let codes = (0..800).map(|_| code(&mut rng)).collect();
    let common: Vec<String> = (0..300).map(|_| code(&mut rng)).collect();
    let repeated = (0..1500)
        .map(|_| common[rng.below(300) as usize].clone())
        .collect();
    (scores, codes, repeated)
}

/// A case whose file was written in a later format version (its folder in [`VERSIONS`]).
fn written_in(version: &'static str, case: Case) -> Case {
    Case { version, ..case }
}

/// A version 4 case: an archive of the `rows`, written by `write`, which reads back as a `Vec` of
/// them.
fn archive_case<T: Encode + DecodeOwned + Debug + PartialEq + 'static>(
    name: &'static str,
    rows: fn() -> Vec<T>,
    write: fn(&[T]) -> Vec<u8>,
) -> Case {
    Case {
        encode: Box::new(move || write(&rows())),
        ..written_in("v4", case(name, defaults(), rows(), PartialEq::eq))
    }
}

/// Writes `rows` as an archive of chunks of `chunk_rows` rows.
fn archive_of<T: Encode>(rows: &[T], chunk_rows: usize) -> Vec<u8> {
    let options = ArchiveOptions::default().chunk_rows(chunk_rows);
    let mut writer = ArchiveWriter::with_options(Vec::new(), options).expect("a writer");
    for row in rows {
        writer.push(row).expect("golden rows encode");
    }
    writer.finish().expect("an archive in memory is written")
}

/// Rows of JSON-like values, the first nested deeper than the schema's levels of whole values
/// reach (so the archive declares version 6, its first chunk holding recursion nodes), the later
/// ones shallow and deep again.
fn deep_value_rows() -> Vec<Value> {
    let nested = |depth: usize| {
        (0..depth).fold(Value::String("bottom".into()), |inner, level| {
            match level % 3 {
                0 => Value::Array(vec![Value::Unsigned(level as u128), inner]),
                1 => Value::Object(vec![
                    ("level".into(), Value::Signed(-(level as i128))),
                    ("next".into(), inner),
                ]),
                _ => Value::Variant("wrapped".into(), Box::new(inner)),
            }
        })
    };
    vec![nested(60), nested(2), Value::Null, nested(100)]
}

/// Values in chunks of two rows.
fn values_in_pairs(rows: &[Value]) -> Vec<u8> {
    archive_of(rows, 2)
}

/// Game logs in chunks of 5, with statistics in the footer.
fn chunked_games(rows: &[retrosheet::Game]) -> Vec<u8> {
    archive_of(rows, 5)
}

/// Rows of JSON objects whose schema widens part way: an integer field that later holds floats,
/// fields that appear late, one that goes missing. Read from text, so that objects keep their
/// key order whatever serde_json's features.
fn widening_rows() -> Vec<Value> {
    (0..12i64)
        .map(|i| {
            let row = match i {
                0..=3 => format!(r#"{{"id": {i}, "name": "row {i}"}}"#),
                4..=7 => format!(
                    r#"{{"id": {}, "name": "x", "tags": [{i}]}}"#,
                    i as f64 + 0.25
                ),
                _ => format!(
                    r#"{{"extra": {{"on": {}}}, "id": {i}, "tags": []}}"#,
                    i % 2 == 0
                ),
            };
            serde_json::from_str(&row).expect("valid JSON")
        })
        .collect()
}

/// The widening rows in chunks of 4, so that each chunk's schema differs.
fn widened(rows: &[Value]) -> Vec<u8> {
    archive_of(rows, 4)
}

/// The rows of the appended archive.
fn appended_rows() -> Vec<(u32, String)> {
    (0..30u32)
        .map(|i| (i * i, format!("entry {}", i % 7)))
        .collect()
}

/// An archive of its first third of `rows`, appended to twice with the rest.
fn appended_twice(rows: &[(u32, String)]) -> Vec<u8> {
    let path = std::env::temp_dir().join(format!("tree-buf-golden-{}.tb", std::process::id()));
    let thirds: Vec<&[(u32, String)]> = rows.chunks(rows.len().div_ceil(3)).collect();
    let options = ArchiveOptions::default().chunk_rows(5);
    let mut writer = ArchiveWriter::create_with_options(&path, options.clone()).expect("create");
    for row in thirds[0] {
        writer.push(row).expect("rows encode");
    }
    writer.finish().expect("finish");
    for third in &thirds[1..] {
        let mut writer =
            ArchiveWriter::append_with_options(&path, options.clone()).expect("append");
        for row in *third {
            writer.push(row).expect("rows encode");
        }
        writer.finish().expect("finish");
    }
    let bytes = std::fs::read(&path).expect("read the archive back");
    std::fs::remove_file(&path).expect("remove the archive");
    bytes
}

/// The metadata of the version 8 archive: keys and values of any UTF-8, empty ones too.
fn golden_metadata() -> Vec<(String, String)> {
    [
        ("source", "appended_rows, in chunks of 5"),
        ("ARROW:schema", ""),
        ("unité", "°C ✓"),
    ]
    .map(|(key, value)| (key.to_owned(), value.to_owned()))
    .to_vec()
}

/// Writes `rows` in chunks of 5 with [`golden_metadata`] in the footer.
fn with_metadata(rows: &[(u32, String)]) -> Vec<u8> {
    let options = (golden_metadata().into_iter()).fold(
        ArchiveOptions::default().chunk_rows(5),
        |options, (key, value)| options.metadata(key, value),
    );
    let mut writer = ArchiveWriter::with_options(Vec::new(), options).expect("a writer");
    for row in rows {
        writer.push(row).expect("golden rows encode");
    }
    writer.finish().expect("an archive in memory is written")
}

/// The version 8 case: an archive whose rows read back as any archive's, and its metadata too.
fn archive_metadata_case() -> Case {
    let Case {
        name,
        encode,
        decode: decode_rows,
        ..
    } = archive_case("archive_metadata", appended_rows, with_metadata);
    Case {
        name,
        version: "v8",
        encode,
        decode: Box::new(move |bytes, options| {
            if let Some(difference) = decode_rows(bytes, options)? {
                return Ok(Some(difference));
            }
            let archive = Archive::from_bytes_with_options(bytes, options.clone())?;
            let expected = golden_metadata();
            if archive.metadata() == expected {
                return Ok(None);
            }
            let metadata = archive.metadata().to_vec();
            Ok(Some(Box::new(move || {
                format!("metadata {metadata:?}\nexpected {expected:?}")
            })))
        }),
    }
}

/// A xorshift generator of 32-bit words from `state`.
fn xorshift32(mut state: u32) -> impl FnMut() -> u32 {
    move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state
    }
}

/// `len` positions of a walk whose steps `step` makes from words of `next`.
fn walk(next: &mut impl FnMut() -> u32, len: usize, step: impl Fn(u32) -> i64) -> Vec<i64> {
    let mut position = 0i64;
    (0..len)
        .map(|_| {
            position += step(next());
            position
        })
        .collect()
}

/// Columns whose values repeat unevenly, which version 3 writes as Huffman codes: steps of a walk
/// drawn mostly from a few sizes (some never repeating, so escaped), short codes, and bytes.
#[allow(clippy::type_complexity)]
fn huffman_columns() -> (Vec<i64>, Vec<u32>, Vec<u8>) {
    let mut next = xorshift32(0x9e37_79b9);
    let walk = walk(&mut next, 3000, |r| match r % 100 {
        0..=39 => 1,
        40..=64 => -3,
        65..=79 => 17,
        80..=94 => -250,
        _ => i64::from(r >> 8),
    });
    let codes = (0..2000)
        .map(|_| [7, 7, 7, 7, 90, 90, 4000][next() as usize % 7])
        .collect();
    let bytes = (0..1000).map(|_| (next() % 5) as u8 * 50).collect();
    (walk, codes, bytes)
}

/// Columns long enough for their Huffman codes to be in four streams (version 5): a walk of
/// 10,001 positions whose rare long jumps are escaped, and 5,003 codes of which more than one in
/// sixteen is escaped; neither a multiple of four values.
fn huffman_stream_columns() -> (Vec<i64>, Vec<u16>) {
    let mut next = xorshift32(0x2545_f491);
    let walk = walk(&mut next, 10_001, |r| match r % 100 {
        0..=44 => 2,
        45..=69 => -5,
        70..=84 => 31,
        85..=97 => -400,
        _ => i64::from(r >> 12),
    });
    let codes = (0..5_003)
        .map(|_| match next() {
            r if r % 10 <= 5 => 12,
            r if r % 10 <= 7 => 345,
            r => (r >> 16) as u16,
        })
        .collect();
    (walk, codes)
}

/// Sibling strings that follow one another (names given ids, with a few exceptions, some of them
/// optional), which version 2 writes as keyed streams.
fn keyed_people() -> Vec<(String, Option<String>, Option<String>, String)> {
    let mut next = xorshift32(0x2545_f491);
    (0..1500u32)
        .map(|i| {
            let state = next();
            let player = state % 45;
            let name = match i % 97 {
                3 => "Renamed".to_owned(),
                _ => format!("Player {player}"),
            };
            let id = format!("id{player:03}");
            let pair = (i % 9 != 0).then(|| (id.clone(), name.clone()));
            let (optional_id, optional_name) = pair.unzip();
            (id, optional_id, optional_name, name)
        })
        .collect()
}

/// Ids and the names they stand for, too few and too short for anything but keying (version 2) to
/// pay: the other keyed cases came to hold Huffman codes and coded text as the writer improved.
fn keyed_pairs() -> Vec<(String, String)> {
    (0..120u32)
        .map(|i| (format!("p{}", i * 7 % 12), format!("Name {}", i * 7 % 12)))
        .collect()
}

/// Every case; the names are the file names and must never change.
fn cases() -> Vec<Case> {
    vec![
        case("unsigned", defaults(), unsigned(), PartialEq::eq),
        case("signed", defaults(), signed(), PartialEq::eq),
        case(
            "bools_chars_units",
            defaults(),
            bools_chars_units(),
            PartialEq::eq,
        ),
        case("floats", defaults(), floats(), same_floats),
        case(
            "decimal_floats",
            defaults(),
            decimal_floats(),
            same_decimal_floats,
        ),
        case("lossy_floats", lossy(), lossy_floats(), same_lossy_floats),
        case("strings", defaults(), strings(), PartialEq::eq),
        case("containers", defaults(), containers(), PartialEq::eq),
        case("maps", defaults(), maps(), PartialEq::eq),
        case("int_columns", defaults(), int_columns(), PartialEq::eq),
        case("orders", defaults(), orders(), PartialEq::eq),
        case("logs", defaults(), logs(), PartialEq::eq),
        case(
            "logs_faster",
            defaults().prefer(Preference::Faster),
            logs(),
            PartialEq::eq,
        ),
        case(
            "logs_smaller",
            defaults().prefer(Preference::Smaller),
            logs(),
            PartialEq::eq,
        ),
        case(
            "recursive",
            defaults(),
            (tree(4, 0), list(40)),
            PartialEq::eq,
        ),
        case("value", defaults(), dynamic_value(), PartialEq::eq),
        case("value_json", defaults(), json_value(), PartialEq::eq),
        case("root_u64", defaults(), u64::MAX - 1, PartialEq::eq),
        case("root_i128", defaults(), i128::MIN, PartialEq::eq),
        case(
            "root_string",
            defaults(),
            "héllo 🦀".to_owned(),
            PartialEq::eq,
        ),
        case("root_unit", defaults(), (), PartialEq::eq),
        case("root_none", defaults(), None::<u8>, PartialEq::eq),
        case("empty_vec", defaults(), Vec::<String>::new(), PartialEq::eq),
        case(
            "graphql",
            defaults(),
            graphql::generate(40, 1),
            PartialEq::eq,
        ),
        case(
            "geojson",
            defaults(),
            geojson::generate(3, 40, 2),
            PartialEq::eq,
        ),
        case("stocks", defaults(), stocks::generate(60, 3), PartialEq::eq),
        case("stocks_lossy", lossy(), stocks::generate(60, 3), |a, b| {
            same_days_lossy(a, b)
        }),
        case(
            "baseball",
            defaults(),
            baseball::generate(8, 4),
            PartialEq::eq,
        ),
        case(
            "retrosheet",
            defaults(),
            retrosheet::generate(6, 5),
            PartialEq::eq,
        ),
        written_in(
            "v2",
            case("keyed_people", defaults(), keyed_people(), PartialEq::eq),
        ),
        written_in(
            "v2",
            case("keyed_pairs", defaults(), keyed_pairs(), PartialEq::eq),
        ),
        written_in(
            "v2",
            case(
                "retrosheet_keyed",
                defaults(),
                retrosheet::generate(60, 7),
                PartialEq::eq,
            ),
        ),
        written_in(
            "v3",
            case(
                "huffman_columns",
                defaults(),
                huffman_columns(),
                PartialEq::eq,
            ),
        ),
        written_in(
            "v5",
            case(
                "huffman_streams",
                defaults(),
                huffman_stream_columns(),
                PartialEq::eq,
            ),
        ),
        written_in(
            "v6",
            case(
                "recursion",
                defaults(),
                (tree(5, 1), list(300), folder(6)),
                PartialEq::eq,
            ),
        ),
        archive_case(
            "archive_games",
            || retrosheet::generate(12, 8),
            chunked_games,
        ),
        archive_case("archive_widened", widening_rows, widened),
        archive_case("archive_appended", appended_rows, appended_twice),
        written_in(
            "v6",
            archive_case("archive_deep_values", deep_value_rows, values_in_pairs),
        ),
        written_in(
            "v7",
            case(
                "keyed_counts",
                EncodeOptions::default().prefer(Preference::Smaller),
                keyed_counts(),
                PartialEq::eq,
            ),
        ),
        archive_metadata_case(),
        written_in(
            "v9",
            case(
                "coded_text",
                EncodeOptions::default().prefer(Preference::Smaller),
                coded_text(),
                PartialEq::eq,
            ),
        ),
    ]
}

/// Writes the file of every case that has none, and rewrites those `TREE_BUF_GOLDEN_REWRITE`
/// names; prints what each holds.
#[test]
#[ignore = "writes golden files: cargo test -p tree-buf --test golden -- --ignored write_golden_files"]
fn write_golden_files() {
    let rewrite = std::env::var("TREE_BUF_GOLDEN_REWRITE").unwrap_or_default();
    let rewrite: Vec<&str> = rewrite.split(',').map(str::trim).collect();
    for case in cases() {
        let dir = golden_dir(case.version);
        let path = dir.join(format!("{}.tb", case.name));
        if path.exists() && !rewrite.contains(&case.name) {
            continue;
        }
        let bytes = (case.encode)();
        std::fs::create_dir_all(&dir).expect("create the golden directory");
        std::fs::write(&path, &bytes).expect("write a golden file");
        let breakdown = size_breakdown(&bytes).expect("a fresh file has a breakdown");
        let mut encodings: Vec<String> = (breakdown.branches.iter())
            .map(|branch| branch.encoding.to_string())
            .collect();
        encodings.sort_unstable();
        encodings.dedup();
        println!(
            "wrote {} ({} bytes): {}",
            path.display(),
            bytes.len(),
            encodings.join("; ")
        );
    }
}

/// The bytes of a golden file, or a message saying how to create it.
fn read_golden(case: &Case) -> Result<Vec<u8>, String> {
    let path = golden_dir(case.version).join(format!("{}.tb", case.name));
    std::fs::read(&path).map_err(|e| {
        format!(
            "{}: {e}; create it with `cargo test -p tree-buf --test golden -- --ignored \
             write_golden_files`",
            path.display()
        )
    })
}

#[test]
fn golden_files_decode_to_their_values() {
    let cases = cases();
    let mut failures = Vec::new();
    for case in &cases {
        let bytes = match read_golden(case) {
            Ok(bytes) => bytes,
            Err(message) => {
                failures.push(message);
                continue;
            }
        };
        match (case.decode)(&bytes, &DecodeOptions::default()) {
            Ok(None) => {}
            Ok(Some(difference)) => failures.push(format!("{}: {}", case.name, difference())),
            Err(error) => failures.push(format!("{}: {error}", case.name)),
        }
        // Every file reads as a `Value` too, and has a size breakdown that adds up.
        if let Err(error) = decode_with_options::<Value>(&bytes, &DecodeOptions::default()) {
            failures.push(format!("{} as a Value: {error}", case.name));
        }
        match size_breakdown(&bytes) {
            Ok(breakdown) => {
                let sum = breakdown.header_bytes
                    + breakdown.schema_bytes
                    + breakdown.table_bytes
                    + breakdown.branches.iter().map(|b| b.bytes).sum::<usize>();
                if sum != bytes.len() {
                    failures.push(format!(
                        "{}: the breakdown adds up to {sum} of {} bytes",
                        case.name,
                        bytes.len()
                    ));
                }
            }
            Err(error) => failures.push(format!("{}: size_breakdown: {error}", case.name)),
        }
    }
    // A golden file is never deleted, nor left without its case.
    for version in VERSIONS {
        for entry in std::fs::read_dir(golden_dir(version)).expect("the golden directory exists") {
            let path = entry.expect("a directory entry").path();
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            if !(cases.iter()).any(|case| case.name == stem && case.version == version) {
                failures.push(format!("{} has no case in golden.rs", path.display()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Whether a recursion node of `reader`'s schema holds values.
fn holds_recursion(reader: &tree_buf::Reader<'_>) -> bool {
    (reader.schema().iter())
        .any(|node| node.node_type == tree_buf::NodeType::Recursion && node.bytes > 0)
}

/// The version a file needs, found from what it holds: coded text (9), metadata in an archive's
/// footer (8), a keyed integer stream (7), recursion nodes that hold values (6), the archive layout (4),
/// Huffman codes in four streams (5) or one (3) anywhere, a keyed string stream (2), else 1.
fn version_needed(bytes: &[u8]) -> u8 {
    let layout = if bytes[5] & 0x01 != 0 {
        let archive = Archive::from_bytes(bytes).expect("an archive just written opens");
        let recursive = (0..archive.chunks().len())
            .any(|index| holds_recursion(&archive.chunk_reader(index).expect("a chunk opens")));
        if !archive.metadata().is_empty() {
            8
        } else if recursive {
            6
        } else {
            4
        }
    } else if holds_recursion(&tree_buf::Reader::new(bytes).expect("a file just written opens")) {
        6
    } else {
        1
    };
    let breakdown =
        size_breakdown_with_options(bytes, &BreakdownOptions::default().decompress_zstd(true))
            .expect("a file just written has a breakdown");
    let encodings = (breakdown.branches.iter()).flat_map(|branch| branch.encoding.iter());
    (encodings.map(|encoding| match encoding.codec {
        Codec::CodedText => 9,
        Codec::KeyedInts { .. } => 7,
        Codec::Huffman { streams: 4, .. } => 5,
        Codec::Huffman { .. } => 3,
        Codec::Keyed { .. } => 2,
        _ => 1,
    }))
    .fold(layout, u8::max)
}

#[test]
fn files_written_now_declare_the_lowest_version_that_holds_them() {
    let mut declared = BTreeSet::new();
    let mut failures = Vec::new();
    for case in &cases() {
        let bytes = (case.encode)();
        let needed = version_needed(&bytes);
        if bytes[4] != needed {
            failures.push(format!(
                "{}: declares version {} but needs {needed}",
                case.name, bytes[4]
            ));
        }
        declared.insert(bytes[4]);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The cases hold something of every version, so each is declared by some file.
    assert_eq!(declared, BTreeSet::from([1, 2, 3, 4, 5, 6, 7, 8, 9]));
}

/// How many truncations and bit flips of each file the corruption test decodes at most, each
/// decoded six ways (as its type and as a `Value`, with and without checksums, and through
/// `size_breakdown`, with and without decompressing zstd frames). A release build takes every
/// truncation and up to 6,000 flips, every bit of the files up to 750 bytes, in under a minute;
/// CI runs it so, with overflow checks (see `.ci/run`). A debug build decodes many times slower
/// (all of that took 6 minutes on two shared cores), so it takes a sample of 400 of each per file.
const MAX_TRUNCATIONS_PER_FILE: usize = if cfg!(debug_assertions) {
    400
} else {
    usize::MAX
};
const MAX_FLIPS_PER_FILE: usize = if cfg!(debug_assertions) { 400 } else { 6_000 };

/// At most `max` of the positions below `count`, evenly spread (all of them if there are no more
/// than `max`). The stride is odd, so that sampled bit positions reach every bit of a byte.
fn sampled(count: usize, max: usize) -> impl Iterator<Item = usize> {
    (0..count).step_by(count.div_ceil(max) | 1)
}

/// Decodes `bytes`, a corruption of the golden file of `case` whose `Value` is `value`, in every
/// way; returns what went wrong. A corruption may decode only to the original value while the
/// checksums are verified; without them, to anything.
fn decode_corrupted(case: &Case, value: &Value, bytes: &[u8], what: &str) -> Option<String> {
    let checked = DecodeOptions::default();
    let unchecked = DecodeOptions::default()
        .verify_checksums(false)
        .max_decoded_bytes(1 << 24);
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let mut problems = Vec::new();
        if let Ok(Some(difference)) = (case.decode)(bytes, &checked) {
            problems.push(format!("decodes to another value: {}", difference()));
        }
        match decode_with_options::<Value>(bytes, &checked) {
            Ok(other) if other != *value => {
                problems.push(format!("decodes to another Value: {}", shortened(&other)))
            }
            _ => {}
        }
        let _ = size_breakdown(bytes);
        let _ =
            size_breakdown_with_options(bytes, &BreakdownOptions::default().decompress_zstd(true));
        let _ = (case.decode)(bytes, &unchecked);
        let _ = decode_with_options::<Value>(bytes, &unchecked);
        problems
    }));
    let problems = match outcome {
        Ok(problems) => problems,
        Err(_) => vec!["panics".to_owned()],
    };
    (!problems.is_empty()).then(|| format!("{}, {what}: {}", case.name, problems.join("; ")))
}

/// Truncates and flips bits of the golden file of `case`; returns what went wrong.
fn corrupt_golden_file(case: &Case) -> Vec<String> {
    let bytes = match read_golden(case) {
        Ok(bytes) => bytes,
        Err(message) => return vec![message],
    };
    let value: Value = match decode_with_options(&bytes, &DecodeOptions::default()) {
        Ok(value) => value,
        Err(error) => return vec![format!("{}: {error}", case.name)],
    };
    let mut failures = Vec::new();
    for len in sampled(bytes.len(), MAX_TRUNCATIONS_PER_FILE) {
        let prefix = &bytes[..len];
        let problems = decode_corrupted(case, &value, prefix, &format!("the first {len} bytes"));
        // An archive appended to ends, before each append, where the footer of the archive as
        // it was ends: cut there, it is that archive, and reads as its fewer rows.
        let earlier = Archive::from_bytes(prefix).is_ok_and(|a| a.unfinished_bytes() == 0);
        if earlier {
            failures.extend(problems.filter(|problem| problem.contains("panics")));
            continue;
        }
        if let Ok(Ok(_)) = catch_unwind(AssertUnwindSafe(|| {
            (case.decode)(prefix, &DecodeOptions::default())
        })) {
            failures.push(format!("{}: the first {len} bytes decode", case.name));
        }
        failures.extend(problems);
    }
    for bit in sampled(bytes.len() * 8, MAX_FLIPS_PER_FILE) {
        let mut corrupted = bytes.clone();
        corrupted[bit / 8] ^= 1 << (bit % 8);
        failures.extend(decode_corrupted(
            case,
            &value,
            &corrupted,
            &format!("bit {bit} flipped"),
        ));
    }
    failures
}

#[test]
fn golden_files_survive_truncations_and_bit_flips() {
    // The files are shared out among threads, each taking the next one not yet taken; every
    // thread builds its own cases, as their values need not be `Send`.
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    let failures: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let cases = cases();
                    let mut failures = Vec::new();
                    while let Some(case) = cases.get(next.fetch_add(1, Ordering::Relaxed)) {
                        failures.extend(corrupt_golden_file(case));
                    }
                    failures
                })
            })
            .collect();
        (workers.into_iter())
            .flat_map(|worker| worker.join().expect("a worker thread panicked"))
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures[..failures.len().min(50)].join("\n")
    );
}
