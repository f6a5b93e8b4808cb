//! `tree_buf::serde`: serde types encoded in the derive's columnar layout, decoded through
//! `Deserialize`, partially, and from hostile bytes.

use std::collections::{BTreeMap, HashMap};

use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use tree_buf::serde::{from_slice, from_slice_with_options, to_vec, to_vec_with_options};
use tree_buf::{
    decode, encode, DecodeErrorKind, DecodeOptions, EncodeErrorKind, EncodeOptions, Preference,
};
use tree_buf::{Decode, Encode};

/// One type deriving both tree-buf's traits and serde's, with every shape both data models
/// share.
#[derive(Encode, Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Record {
    id: u64,
    small: u8,
    medium: u16,
    wide: u32,
    huge: u128,
    signed: (i8, i16, i32, i64),
    huge_signed: i128,
    lineup: [Point; 9],
    ratio: f32,
    price: f64,
    flag: bool,
    initial: char,
    name: String,
    tags: Vec<String>,
    bid: Option<u32>,
    payload: Vec<u8>,
    hash: [u8; 20],
    shape: Shape,
    point: Point,
    meters: Meters,
    marker: Marker,
    by_year: BTreeMap<u16, String>,
    nested: Vec<Vec<Option<i64>>>,
}

#[derive(Encode, Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
enum Shape {
    Empty,
    Circle(f64),
    Segment(i32, i32),
    Box { width: u16, height: u16 },
}

#[derive(Encode, Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Point(i32, i32);

#[derive(Encode, Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Meters(f64);

#[derive(Encode, Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Marker;

fn records(n: usize) -> Vec<Record> {
    (0..n)
        .map(|i| {
            let i32 = i as i32;
            Record {
                id: 1_000_000 + i as u64 * 3,
                small: (i % 7) as u8,
                medium: (i * 31 % 65_536) as u16,
                wide: (i as u32).wrapping_mul(2_654_435_761),
                huge: (i as u128) << 90,
                signed: (-(i as i8 % 5), -3 * i as i16, -i32, -(i as i64) << 33),
                huge_signed: -(i as i128) << 70,
                lineup: std::array::from_fn(|p| Point(i32 + p as i32, p as i32)),
                ratio: i as f32 / 8.0,
                price: 100.0 + i as f64 * 0.25,
                flag: i % 3 == 0,
                initial: ['a', 'é', '字', '🦀'][i % 4],
                name: format!("player{}", i % 13),
                tags: (0..i % 4).map(|t| format!("tag{t}")).collect(),
                bid: (i % 2 == 0).then_some(i as u32),
                payload: (0..(i % 5) as u8).collect(),
                hash: std::array::from_fn(|b| (i * 7 + b * 13) as u8),
                shape: match i % 4 {
                    0 => Shape::Empty,
                    1 => Shape::Circle(i as f64),
                    2 => Shape::Segment(i32, -i32),
                    _ => Shape::Box {
                        width: i as u16,
                        height: 2,
                    },
                },
                point: Point(i32, i32 * 2),
                meters: Meters(i as f64 * 1.5),
                marker: Marker,
                by_year: (0..i % 3)
                    .map(|y| (1990 + y as u16, format!("y{y}")))
                    .collect(),
                nested: vec![vec![Some(i as i64), None], vec![]],
            }
        })
        .collect()
}

#[test]
fn a_serde_type_writes_the_bytes_of_its_derived_twin_and_each_reads_the_other() {
    let records = records(200);
    let derived = encode(&records);
    let through_serde = to_vec(&records).unwrap();
    let first_difference = derived.iter().zip(&through_serde).position(|(a, b)| a != b);
    assert_eq!(
        (through_serde.len(), first_difference),
        (derived.len(), None),
        "the serde file differs from the derive's"
    );

    assert_eq!(from_slice::<Vec<Record>>(&derived).unwrap(), records);
    assert_eq!(decode::<Vec<Record>>(&through_serde).unwrap(), records);

    // Options apply alike: the faster preference gives the same bytes both ways too.
    let faster = EncodeOptions::default().prefer(Preference::Faster);
    assert_eq!(
        to_vec_with_options(&records, &faster).unwrap(),
        tree_buf::encode_with_options(&records, &faster).unwrap()
    );
}

#[test]
fn roots_of_every_kind_round_trip() {
    fn round_trip<T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug>(
        value: T,
    ) {
        let bytes = to_vec(&value).unwrap();
        assert_eq!(from_slice::<T>(&bytes).unwrap(), value);
    }
    round_trip(7u8);
    round_trip(-7i128);
    round_trip(f64::NAN.to_bits());
    round_trip("text".to_owned());
    round_trip(());
    round_trip(Marker);
    round_trip(Some(Point(1, 2)));
    round_trip(None::<u8>);
    round_trip(Vec::<String>::new());
    round_trip((1u8, "two".to_owned(), 3.0f32));
    // Bytes where other sequences held wider integers: their items are a union of both.
    struct Raw(Vec<u8>);
    impl Serialize for Raw {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.serialize_bytes(&self.0)
        }
    }
    #[derive(Serialize)]
    #[serde(untagged)]
    enum Words {
        Wide(Vec<u16>),
        Narrow(Raw),
    }
    let words = vec![Words::Wide(vec![1, 300]), Words::Narrow(Raw(vec![3, 4]))];
    let json: serde_json::Value = from_slice(&to_vec(&words).unwrap()).unwrap();
    assert_eq!(json, serde_json::json!([[1, 300], [3, 4]]));
    // A long tuple is written as an array; one whose elements differ, as an array of a union.
    round_trip((1u8, "two".to_owned(), 3.0f32, true, 'v', Some(6u64)));
    round_trip([[1u16, 2], [3, 4]]);
    round_trip(Shape::Box {
        width: 3,
        height: 4,
    });
    // Floats are bit-exact.
    let bits = to_vec(&vec![
        -0.0f64,
        f64::INFINITY,
        f64::from_bits(0x7ff8_0000_dead_beef),
    ])
    .unwrap();
    let back: Vec<f64> = from_slice(&bits).unwrap();
    assert_eq!(back[0].to_bits(), (-0.0f64).to_bits());
    assert_eq!(back[2].to_bits(), 0x7ff8_0000_dead_beef);
}

#[test]
fn maps_take_keys_of_any_type() {
    let by_pair: BTreeMap<(u32, u32), Vec<String>> = (0..50)
        .map(|i| ((i, i * i), vec![format!("v{i}")]))
        .collect();
    let bytes = to_vec(&by_pair).unwrap();
    assert_eq!(
        from_slice::<BTreeMap<(u32, u32), Vec<String>>>(&bytes).unwrap(),
        by_pair
    );
    // The same map written by the derive reads through serde, and the other way.
    assert_eq!(
        decode::<BTreeMap<(u32, u32), Vec<String>>>(&bytes).unwrap(),
        by_pair
    );

    let by_id: HashMap<u64, Option<bool>> = (0..100)
        .map(|i| (i, (i % 3 != 0).then_some(i % 2 == 0)))
        .collect();
    let bytes = to_vec(&by_id).unwrap();
    assert_eq!(
        from_slice::<HashMap<u64, Option<bool>>>(&bytes).unwrap(),
        by_id
    );
    assert_eq!(decode::<HashMap<u64, Option<bool>>>(&bytes).unwrap(), by_id);
}

/// serde's attributes: names, skipped and defaulted fields, flattening, and the three enum
/// representations other than the external one.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Event {
    #[serde(rename = "eventId")]
    id: u32,
    #[serde(skip)]
    cached: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    note: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    labels: Vec<String>,
    #[serde(flatten)]
    context: Context,
    kind: Kind,
    detail: Detail,
    extra: serde_json::Value,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Context {
    host: String,
    port: u16,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(tag = "type")]
enum Kind {
    Click { x: i32, y: i32 },
    Key { code: u32 },
    Idle,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(untagged)]
enum Detail {
    Count(u64),
    Text(String),
    Pair { a: bool, b: bool },
}

fn events() -> Vec<Event> {
    (0..60u32)
        .map(|i| Event {
            id: i,
            cached: 0,
            note: (i % 4 == 1).then(|| format!("note {i}")),
            labels: (0..i % 3).map(|l| format!("l{l}")).collect(),
            context: Context {
                host: format!("host{}", i % 3),
                port: 8000 + (i % 2) as u16,
            },
            kind: match i % 3 {
                0 => Kind::Click {
                    x: i as i32,
                    y: -(i as i32),
                },
                1 => Kind::Key { code: i * 7 },
                _ => Kind::Idle,
            },
            detail: match i % 3 {
                0 => Detail::Count(i as u64),
                1 => Detail::Text(format!("t{i}")),
                _ => Detail::Pair {
                    a: i % 2 == 0,
                    b: true,
                },
            },
            extra: match i % 5 {
                0 => serde_json::json!(null),
                1 => serde_json::json!({ "ms": i, "ok": true }),
                2 => serde_json::json!([1, "two", 3.5]),
                3 => serde_json::json!(-(i as i64)),
                _ => serde_json::json!("plain"),
            },
        })
        .collect()
}

#[test]
fn serde_attributes_and_self_described_values_round_trip() {
    let events = events();
    let bytes = to_vec(&events).unwrap();
    let back: Vec<Event> = from_slice(&bytes).unwrap();
    assert_eq!(back, events);
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Sparse {
    id: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    note: Option<String>,
    #[serde(default, skip_serializing_if = "is_zero")]
    bonus: u64,
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

#[test]
fn a_field_left_out_of_some_values_is_a_presence_stream() {
    let rows: Vec<Sparse> = (0..40u32)
        .map(|i| Sparse {
            id: i,
            note: (i % 4 == 1).then(|| format!("note {i}")),
            bonus: u64::from(i % 3),
        })
        .collect();
    let bytes = to_vec(&rows).unwrap();
    assert_eq!(from_slice::<Vec<Sparse>>(&bytes).unwrap(), rows);
    // Written only for some rows: options, not errors, so that the derive reads them too.
    #[derive(Decode, Debug)]
    struct Derived {
        id: u32,
        note: Option<String>,
        bonus: Option<u64>,
    }
    let derived: Vec<Derived> = decode(&bytes).unwrap();
    assert_eq!(
        (derived[1].id, derived[1].note.as_deref(), derived[1].bonus),
        (1, Some("note 1"), Some(1))
    );
    assert_eq!((derived[0].note.as_deref(), derived[0].bonus), (None, None));
    // Read without any type, such a field is left out where absent.
    let json: serde_json::Value = from_slice(&bytes).unwrap();
    assert!(json[0].get("note").is_none() && json[0].get("bonus").is_none());
    assert_eq!(json[1]["note"], "note 1");
}

#[derive(Encode, Serialize, Debug)]
struct Plain {
    name: String,
    tags: Vec<String>,
    bid: Option<u32>,
    point: Point,
    shape: Shape,
}

#[test]
fn files_read_into_serde_json_values() {
    // A file of the derive, read with no type but serde_json's.
    let rows = vec![
        Plain {
            name: "a".into(),
            tags: vec![],
            bid: Some(3),
            point: Point(1, 2),
            shape: Shape::Empty,
        },
        Plain {
            name: "b".into(),
            tags: vec!["x".into()],
            bid: None,
            point: Point(2, 4),
            shape: Shape::Circle(1.0),
        },
        Plain {
            name: "c".into(),
            tags: vec![],
            bid: None,
            point: Point(0, 0),
            shape: Shape::Segment(2, -2),
        },
    ];
    let json: serde_json::Value = from_slice(&encode(&rows)).unwrap();
    assert_eq!(json[1]["name"], "b");
    assert_eq!(json[1]["tags"], serde_json::json!(["x"]));
    assert_eq!(json[1]["point"], serde_json::json!([2, 4]));
    // Enums read as a map of one entry, the variant's name to its content.
    assert_eq!(json[0]["shape"], serde_json::json!({ "empty": null }));
    assert_eq!(json[1]["shape"], serde_json::json!({ "circle": 1.0 }));
    assert_eq!(json[2]["shape"], serde_json::json!({ "segment": [2, -2] }));
    assert!(json[0]["bid"].is_number() && json[1].get("bid").is_none());
    // And the values of a `Value` file.
    let value = tree_buf::Value::from(serde_json::json!({ "a": [1, 2], "b": "x" }));
    let json: serde_json::Value = from_slice(&encode(&value)).unwrap();
    assert_eq!(json, serde_json::json!({ "a": [1, 2], "b": "x" }));
}

/// An incompressible string, so that its bytes stand in the file as they are.
fn noise_string(seed: u64) -> String {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..24)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            char::from(b'a' + (state % 26) as u8)
        })
        .collect()
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Wide {
    id: u32,
    secret: String,
}

#[derive(Deserialize, Debug, PartialEq)]
struct IdOnly {
    id: u32,
}

#[test]
fn a_type_with_fewer_fields_reads_only_their_branches() {
    let rows: Vec<Wide> = (0..500)
        .map(|i| Wide {
            id: i,
            secret: noise_string(i as u64),
        })
        .collect();
    let faster = EncodeOptions::default().prefer(Preference::Faster);
    let mut bytes = to_vec_with_options(&rows, &faster).unwrap();
    // Break the `secret` branch: a byte that is not UTF-8 in the middle of a stored string.
    let needle = rows[250].secret.as_bytes();
    let at = bytes
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("strings stored as they are");
    bytes[at + 3] = 0xff;
    let unchecked = DecodeOptions::default().verify_checksums(false);
    let full = from_slice_with_options::<Vec<Wide>>(&bytes, &unchecked).unwrap_err();
    assert_eq!(full.path(), "[].secret", "{full}");
    let ids: Vec<IdOnly> = from_slice_with_options(&bytes, &unchecked).unwrap();
    assert_eq!(ids.len(), 500);
    assert_eq!(ids[499].id, 499);
}

#[test]
fn decode_errors_name_the_path() {
    #[derive(Serialize)]
    struct Wide {
        items: Vec<Item>,
    }
    #[derive(Serialize)]
    struct Item {
        count: u32,
    }
    #[derive(Deserialize, Debug)]
    struct Narrow {
        #[allow(dead_code)]
        items: Vec<NarrowItem>,
    }
    #[derive(Deserialize, Debug)]
    struct NarrowItem {
        #[allow(dead_code)]
        count: u8,
    }
    let bytes = to_vec(&Wide {
        items: vec![Item { count: 3 }, Item { count: 300 }],
    })
    .unwrap();
    let error = from_slice::<Narrow>(&bytes).unwrap_err();
    assert_eq!(error.kind(), DecodeErrorKind::SchemaMismatch);
    assert_eq!(error.path(), "items.[].count", "{error}");
    assert!(error.message().contains("300"), "{error}");

    // A field the type needs and the file lacks.
    #[derive(Deserialize, Debug)]
    struct Needs {
        #[allow(dead_code)]
        missing: u32,
    }
    let error = from_slice::<Needs>(&to_vec(&Item { count: 1 }).unwrap()).unwrap_err();
    assert_eq!(error.kind(), DecodeErrorKind::SchemaMismatch);
    assert!(error.message().contains("missing"), "{error}");
}

#[test]
fn encode_errors_name_the_path() {
    struct Failing;
    impl Serialize for Failing {
        fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("no value today"))
        }
    }
    #[derive(Serialize)]
    struct Outer {
        rows: Vec<BTreeMap<String, Inner>>,
    }
    #[derive(Serialize)]
    struct Inner {
        value: Failing,
    }
    let value = Outer {
        rows: vec![BTreeMap::from([("k".to_owned(), Inner { value: Failing })])],
    };
    let error = to_vec(&value).unwrap_err();
    assert_eq!(error.kind(), EncodeErrorKind::Custom);
    assert_eq!(error.path(), "rows.[].{value}.value");
    assert_eq!(error.message(), "no value today");

    // Tuples of one place keep one length.
    struct Ragged(usize);
    impl Serialize for Ragged {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            use serde::ser::SerializeTuple;
            let mut tuple = serializer.serialize_tuple(self.0)?;
            for i in 0..self.0 {
                tuple.serialize_element(&i)?;
            }
            tuple.end()
        }
    }
    // Two lengths at one place are a union of two tuple shapes, which reads back as sequences.
    let bytes = to_vec(&vec![Ragged(2), Ragged(3)]).unwrap();
    assert_eq!(
        from_slice::<Vec<Vec<usize>>>(&bytes).unwrap(),
        [vec![0, 1], vec![0, 1, 2]]
    );
}

/// 128-bit integers that fit 64 bits read as the derive reads them into a 64-bit type: those
/// above `i64::MAX` as unsigned (found by the fuzzer).
#[test]
fn wide_integers_narrow_as_the_derive_narrows_them() {
    let signed: Vec<i128> = vec![-1, 0, i64::MAX as i128 + 1, u64::MAX as i128];
    let bytes = encode(&signed[1..]);
    let derived: Vec<u64> = decode(&bytes).unwrap();
    assert_eq!(from_slice::<Vec<u64>>(&bytes).unwrap(), derived);
    let bytes = encode(&signed);
    assert_eq!(from_slice::<Vec<i128>>(&bytes).unwrap(), signed);
    assert!(from_slice::<Vec<u64>>(&bytes).is_err());
    let unsigned: Vec<u128> = vec![0, u64::MAX as u128];
    let bytes = encode(&unsigned);
    assert_eq!(from_slice::<Vec<u64>>(&bytes).unwrap(), [0, u64::MAX]);
}

#[test]
fn a_value_nested_past_the_limit_is_an_error_not_an_overflow() {
    #[derive(Serialize)]
    struct List {
        next: Option<Box<List>>,
    }
    let mut list = List { next: None };
    for _ in 0..5_000 {
        list = List {
            next: Some(Box::new(list)),
        };
    }
    let error = to_vec(&list).unwrap_err();
    assert_eq!(error.kind(), EncodeErrorKind::DepthLimit);
    // Dropping the list recurses once per level; the test thread's stack holds 5,000.
    std::mem::forget(list);
}

#[test]
fn archives_read_as_the_sequence_of_their_rows() {
    let rows = records(25);
    let options = tree_buf::archive::ArchiveOptions::default().chunk_rows(10);
    let mut writer =
        tree_buf::archive::ArchiveWriter::<Record, _>::with_options(Vec::new(), options).unwrap();
    for row in &rows {
        writer.push(row).unwrap();
    }
    let bytes = writer.finish().unwrap();
    assert_eq!(
        tree_buf::archive::Archive::from_bytes(&bytes)
            .unwrap()
            .chunks()
            .len(),
        3
    );
    assert_eq!(from_slice::<Vec<Record>>(&bytes).unwrap(), rows);
    // Some fields of every row, and rows read with no type.
    #[derive(Deserialize)]
    struct Names {
        name: String,
    }
    let names: Vec<Names> = from_slice(&bytes).unwrap();
    assert_eq!(names[24].name, rows[24].name);
    let error = from_slice::<Record>(&bytes).unwrap_err();
    assert_eq!(error.kind(), DecodeErrorKind::SchemaMismatch, "{error}");
    // An append that did not finish is an error here, as for the derive.
    let mut cut = bytes.clone();
    cut.extend_from_slice(b"TBUF junk");
    assert!(from_slice::<Vec<Record>>(&cut).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    /// Bytes of a real file with some changed, cut or added never make decoding panic, whatever
    /// type reads them.
    #[test]
    fn hostile_bytes_give_errors_not_panics(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in any::<prop::sample::Index>(),
        rows in 1usize..20,
    ) {
        let bytes = to_vec(&records(rows)).unwrap();
        let mut broken = bytes.clone();
        for (at, byte) in &edits {
            let at = at.index(broken.len());
            broken[at] = *byte;
        }
        let unchecked = DecodeOptions::default().verify_checksums(false);
        let _ = from_slice_with_options::<Vec<Record>>(&broken, &unchecked);
        let _ = from_slice_with_options::<serde_json::Value>(&broken, &unchecked);
        let _ = from_slice_with_options::<Vec<Event>>(&broken, &unchecked);
        let short = &bytes[..cut.index(bytes.len())];
        prop_assert!(from_slice::<Vec<Record>>(short).is_err());
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Borrowed<'a> {
    id: u32,
    name: &'a str,
    #[serde(borrow)]
    note: std::borrow::Cow<'a, str>,
}

#[test]
fn strings_stored_as_they_are_are_lent_from_the_file() {
    let rows: Vec<Wide> = (0..300)
        .map(|i| Wide {
            id: i,
            secret: noise_string(u64::from(i)),
        })
        .collect();
    let faster = EncodeOptions::default().prefer(Preference::Faster);
    #[derive(Serialize, Encode)]
    struct Written {
        id: u32,
        name: String,
        note: String,
    }
    let written: Vec<Written> = rows
        .iter()
        .map(|r| Written {
            id: r.id,
            name: r.secret.clone(),
            note: r.secret.to_uppercase(),
        })
        .collect();
    let bytes = to_vec_with_options(&written, &faster).unwrap();
    let read: Vec<Borrowed<'_>> = from_slice(&bytes).unwrap();
    let file = bytes.as_ptr_range();
    for (row, original) in read.iter().zip(&written) {
        assert_eq!(
            (row.id, row.name, &*row.note),
            (original.id, &*original.name, &*original.note)
        );
        assert!(
            file.contains(&row.name.as_ptr()),
            "the name is lent from the file"
        );
        assert!(matches!(row.note, std::borrow::Cow::Borrowed(_)));
    }
    // From an archive too.
    let options = tree_buf::archive::ArchiveOptions::default()
        .encode_options(faster)
        .chunk_rows(100);
    let mut writer =
        tree_buf::archive::ArchiveWriter::<Written, _>::with_options(Vec::new(), options).unwrap();
    for row in &written {
        writer.push(row).unwrap();
    }
    let archive = writer.finish().unwrap();
    let read: Vec<Borrowed<'_>> = from_slice(&archive).unwrap();
    assert!(archive.as_ptr_range().contains(&read[207].name.as_ptr()));
}

#[test]
fn compressed_strings_are_copied_where_a_type_allows_it() {
    // Names of many words that repeat: compressed, not the strings as they are. Few distinct
    // notes, many times each: a dictionary, whose strings are as they are.
    #[derive(Serialize)]
    struct Written {
        id: u32,
        name: String,
        note: &'static str,
    }
    let written: Vec<Written> = (0..500)
        .map(|i| Written {
            id: i,
            name: format!("the quick brown fox jumps over the lazy dog {i}"),
            note: ["x", "y", "z"][i as usize % 3],
        })
        .collect();
    let bytes = to_vec(&written).unwrap();
    let schema = tree_buf::Reader::new(&bytes).unwrap().schema();
    let encoding = |path| schema.find(path).unwrap().encoding.clone().unwrap();
    assert!(
        encoding("[].name").starts_with("zstd"),
        "{}",
        encoding("[].name")
    );
    assert!(
        encoding("[].note").starts_with("dictionary"),
        "{}",
        encoding("[].note")
    );
    // A `Cow` holds its own copy of what it cannot borrow.
    #[derive(Deserialize)]
    struct Notes<'a> {
        #[serde(borrow)]
        name: std::borrow::Cow<'a, str>,
        #[serde(borrow)]
        note: std::borrow::Cow<'a, str>,
    }
    let notes: Vec<Notes<'_>> = from_slice(&bytes).unwrap();
    assert_eq!(
        &*notes[4].name,
        "the quick brown fox jumps over the lazy dog 4"
    );
    assert!(matches!(notes[4].name, std::borrow::Cow::Owned(_)));
    assert_eq!(&*notes[4].note, "y");
    assert!(matches!(notes[4].note, std::borrow::Cow::Borrowed(_)));
    // A `&str` cannot, and says so at its path.
    let error = from_slice::<Vec<Borrowed<'_>>>(&bytes).unwrap_err();
    assert_eq!(error.kind(), DecodeErrorKind::SchemaMismatch);
    assert_eq!(error.path(), "[].name", "{error}");
}

#[test]
fn a_reader_reads_through_serde_a_type_or_one_path() {
    let records = records(40);
    let bytes = encode(&records);
    let reader = tree_buf::Reader::new(&bytes).unwrap();
    let all: Vec<Record> = reader.deserialize().unwrap();
    assert_eq!(all, records);
    let tags: Vec<String> = reader.deserialize_path("[].tags.[]").unwrap();
    let expected: Vec<String> = records.iter().flat_map(|r| r.tags.clone()).collect();
    assert_eq!(tags, expected);
    let shapes: Vec<Shape> = reader.deserialize_path("[].shape").unwrap();
    assert_eq!(shapes[3], records[3].shape);
    let error = reader
        .deserialize_path::<Vec<u8>>("[].nowhere")
        .unwrap_err();
    assert_eq!(error.kind(), DecodeErrorKind::PathNotFound);
}

#[test]
fn wide_integers_read_into_narrower_types_where_they_fit() {
    // The derive narrows a column it has checked; serde's visitors of small integers take
    // values of at most 64 bits.
    let bytes = to_vec(&vec![(1u128, -2i128), (249, i128::from(i64::MIN))]).unwrap();
    let narrow: Vec<(u8, i64)> = from_slice(&bytes).unwrap();
    assert_eq!(narrow, [(1, -2), (249, i64::MIN)]);
    assert_eq!(decode::<Vec<(u8, i64)>>(&bytes).unwrap(), narrow);
    let too_wide = to_vec(&vec![u128::MAX]).unwrap();
    assert!(from_slice::<Vec<u64>>(&too_wide).is_err());
    assert_eq!(from_slice::<Vec<u128>>(&too_wide).unwrap(), [u128::MAX]);
}

#[test]
fn structs_whose_fields_are_all_there_read_in_order() {
    // Every field of the type in the file, none optional: handed over as a sequence, as
    // serde's non-self-describing formats do. Fields the type skips, or defaults when the file
    // lacks them, keep working.
    #[derive(Serialize)]
    struct Written {
        b: u32,
        a: String,
        c: Vec<u8>,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct Read {
        a: String,
        #[serde(skip_deserializing)]
        cached: u64,
        #[serde(rename = "b")]
        count: u32,
        #[serde(default)]
        extra: Option<bool>,
    }
    let bytes = to_vec(&vec![Written {
        b: 7,
        a: "x".into(),
        c: vec![1],
    }])
    .unwrap();
    let read: Vec<Read> = from_slice(&bytes).unwrap();
    assert_eq!(
        read,
        [Read {
            a: "x".into(),
            cached: 0,
            count: 7,
            extra: None
        }]
    );
    #[derive(Deserialize, Debug, PartialEq)]
    struct InOrder {
        a: String,
        b: u32,
    }
    let read: Vec<InOrder> = from_slice(&bytes).unwrap();
    assert_eq!(
        read,
        [InOrder {
            a: "x".into(),
            b: 7
        }]
    );
}

/// A recursive type: the derive writes every depth in one set of branches (recursion nodes),
/// which serde reads too.
#[derive(Encode, Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Tree {
    label: String,
    weight: Option<u32>,
    children: Vec<Tree>,
}

#[derive(Encode, Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
enum Expr {
    Number(i64),
    Add(Box<Expr>, Box<Expr>),
    Let { name: String, value: Box<Expr> },
    Block(Vec<Expr>),
    Unit,
}

fn tree(seed: u64, depth: u32) -> Tree {
    Tree {
        label: format!("node {seed}"),
        weight: (!seed.is_multiple_of(3)).then_some(seed as u32),
        children: match depth {
            0 => Vec::new(),
            _ => (0..seed % 3)
                .map(|i| tree(seed * 3 + i, depth - 1))
                .collect(),
        },
    }
}

fn expr(seed: u64, depth: u32) -> Expr {
    match (seed % 5, depth) {
        (_, 0) | (0, _) => Expr::Number(seed as i64 - 7),
        (1, _) => Expr::Add(
            Box::new(expr(seed * 7 + 1, depth - 1)),
            Box::new(expr(seed * 7 + 2, depth - 1)),
        ),
        (2, _) => Expr::Let {
            name: format!("x{seed}"),
            value: Box::new(expr(seed * 5 + 3, depth - 1)),
        },
        (3, _) => Expr::Block((0..3).map(|i| expr(seed * 11 + i, depth - 1)).collect()),
        _ => Expr::Unit,
    }
}

#[test]
fn recursive_types_written_by_the_derive_read_through_serde() {
    let trees: Vec<Tree> = (1..40).map(|seed| tree(seed, 6)).collect();
    let bytes = encode(&trees);
    let schema = tree_buf::Reader::new(&bytes).unwrap().schema();
    assert!(format!("{schema:?}").contains("Recursion"), "{schema:?}");
    assert_eq!(from_slice::<Vec<Tree>>(&bytes).unwrap(), trees);
    let exprs: Vec<Expr> = (0..60).map(|seed| expr(seed, 5)).collect();
    let bytes = encode(&exprs);
    assert_eq!(from_slice::<Vec<Expr>>(&bytes).unwrap(), exprs);
    // Without the type, as serde_json reads it: enums as maps of one entry, by the file's
    // (canonical) names.
    let json: serde_json::Value = from_slice(&bytes).unwrap();
    assert_eq!(json[0], serde_json::json!({ "number": -7 }));
    assert_eq!(json[4], serde_json::json!({ "unit": null }));
    assert_eq!(json[2]["let"]["name"], "x2");
    // A recursive field among others, and archives of recursive rows.
    #[derive(Encode, Serialize, Deserialize, Debug, PartialEq)]
    struct Forest {
        name: String,
        trees: Vec<Tree>,
    }
    let forest = Forest {
        name: "forest".into(),
        trees: trees.clone(),
    };
    let back: Forest = from_slice(&encode(&forest)).unwrap();
    assert_eq!(back, forest);
    // Names match in canonical form, as the derive's: the file says `children`.
    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(rename_all = "PascalCase")]
    struct Pascal {
        label: String,
        children: Vec<Pascal>,
    }
    let pascal: Vec<Pascal> = from_slice(&encode(&trees)).unwrap();
    assert_eq!(pascal[1].children[0].label, trees[1].children[0].label);
    let mut archive = Vec::new();
    let options = tree_buf::archive::ArchiveOptions::default().chunk_rows(8);
    let mut writer = tree_buf::archive::ArchiveWriter::with_options(&mut archive, options).unwrap();
    for row in &exprs {
        writer.push(row).unwrap();
    }
    writer.finish().unwrap();
    assert_eq!(from_slice::<Vec<Expr>>(&archive).unwrap(), exprs);
}

#[test]
fn deep_recursive_values_read_through_serde_on_a_small_stack_within_the_depth_limit() {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let mut deep = Expr::Number(1);
            for level in 0..10_000 {
                deep = Expr::Let {
                    name: format!("level {level}"),
                    value: Box::new(deep),
                };
            }
            let bytes = encode(&deep);
            let options = DecodeOptions::default().depth_limit(100);
            let err = from_slice_with_options::<Expr>(&bytes, &options).unwrap_err();
            assert_eq!(err.kind(), DecodeErrorKind::LimitExceeded, "{err}");
            // A derived `Drop` recurses once per level: each list is taken apart level by level.
            let unwind = |mut at: Expr| {
                let mut levels = 0;
                while let Expr::Let { value, .. } = at {
                    (at, levels) = (*value, levels + 1);
                }
                (levels, at)
            };
            let back: Expr = from_slice(&bytes).unwrap();
            assert_eq!(unwind(back), (10_000, Expr::Number(1)));
            // A type that does not fit fails at the bottom, its levels read and taken apart.
            #[derive(Deserialize, Debug)]
            #[allow(dead_code)]
            enum Strict {
                Number(u8),
                Let { name: String, value: Box<Strict> },
            }
            let mut wrong = Expr::Number(-1);
            for _ in 0..10_000 {
                wrong = Expr::Let {
                    name: String::new(),
                    value: Box::new(wrong),
                };
            }
            let err = from_slice::<Strict>(&encode(&wrong)).unwrap_err();
            assert_eq!(err.kind(), DecodeErrorKind::SchemaMismatch, "{err}");
            unwind(wrong);
            unwind(deep);
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn values_read_into_any_deserialize_type() {
    use tree_buf::Value;
    // Every shape of `Record`, through the `Value` a file decodes into.
    let records = records(20);
    let value: Value = decode(&encode(&records)).unwrap();
    assert_eq!(Vec::<Record>::deserialize(value).unwrap(), records);
    let trees: Vec<Tree> = (1..10).map(|seed| tree(seed, 4)).collect();
    let value: Value = decode(&encode(&trees)).unwrap();
    assert_eq!(Vec::<Tree>::deserialize(value).unwrap(), trees);
    // Unit variants by their names, options from nulls, and errors for values that do not fit.
    let value = Value::Array(vec![Value::String("Unit".into()), Value::Null]);
    let (unit, none): (Expr, Option<u8>) = Deserialize::deserialize(value).unwrap();
    assert_eq!((unit, none), (Expr::Unit, None));
    let err = u8::deserialize(Value::Unsigned(300)).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::SchemaMismatch);
    let err = <(u8, u8)>::deserialize(Value::Array(vec![Value::Unsigned(1)])).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::SchemaMismatch);
}

#[test]
fn items_and_elements_of_numbers_read_as_options_and_newtypes() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct Meters(u32);
    let bytes = encode(&(vec![1u32, 2, 3], [7u8; 6], (true, -2i16, 0.5f32)));
    type Wider = (Vec<Option<u64>>, Vec<Meters>, (Option<bool>, i64, f64));
    let (options, meters, (flag, small, half)): Wider = from_slice(&bytes).unwrap();
    assert_eq!(options, [Some(1), Some(2), Some(3)]);
    assert_eq!(meters, [7; 6].map(Meters));
    assert_eq!((flag, small, half), (Some(true), -2, 0.5));
    // A value that does not fit is an error at the items' path.
    let err = from_slice::<(Vec<u8>, [u8; 6], (bool, i16, f32))>(&encode(&(
        vec![300u32],
        [7u8; 6],
        (true, -2i16, 0.5f32),
    )))
    .unwrap_err();
    assert_eq!(
        (err.kind(), err.path()),
        (DecodeErrorKind::SchemaMismatch, "0.[]")
    );
}
