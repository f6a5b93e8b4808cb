//! Paths: their text form, and the one walker that `decode_path`, `SchemaNode::find` and the
//! command line share.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde_json::json;
use tree_buf::{
    decode, encode, Decode, DecodeErrorKind, DecodeOptions, Encode, NodeType, Path, Reader,
    Segment, Value,
};

fn segment() -> impl Strategy<Value = Segment> {
    prop_oneof![
        Just(Segment::Items),
        Just(Segment::Keys),
        Just(Segment::Values),
        any::<usize>().prop_map(Segment::Index),
        // Plain names, names made of the characters that need quoting, and anything at all.
        "[a-zA-Z_][a-zA-Z0-9_]{0,8}".prop_map(Segment::Name),
        r#"[a.\[\]{}"\\0-9 é名\t]{0,6}"#.prop_map(Segment::Name),
        any::<String>().prop_map(Segment::Name),
    ]
}

proptest! {
    #[test]
    fn parse_reads_back_what_display_writes(segments in prop::collection::vec(segment(), 0..6)) {
        let path = Path::from(segments);
        let text = path.to_string();
        prop_assert_eq!(Path::parse(&text), Ok(path), "{}", text);
    }

    #[test]
    fn display_writes_back_what_parse_reads(text in r#"[a.\[\]{}"\\0-9 é]{0,12}"#) {
        if let Ok(path) = Path::parse(&text) {
            prop_assert_eq!(path.to_string(), text);
        }
    }
}

/// JSON whose keys need quoting, at several kinds of node: objects (structs), arrays of objects
/// (sequences), unions, and numeric keys.
fn awkward_json() -> Vec<u8> {
    let rows: Vec<serde_json::Value> = (0..6)
        .map(|i| {
            json!({
                "a.b": i,
                "0": format!("zero {i}"),
                "": i % 2 == 0,
                "say \"hi\"": f64::from(i) / 2.0,
                "名前": "名",
                "[]": [i, i + 1],
                "mixed": if i % 3 == 0 { json!("text") } else { json!(i) },
                "years": { "2024": i * 10 },
            })
        })
        .collect();
    encode(&Value::from(json!({ "rows": rows })))
}

#[test]
fn json_keys_with_special_characters_are_reachable() {
    let bytes = awkward_json();
    let reader = Reader::new(&bytes).unwrap();
    let schema = reader.schema();
    let cases: [(&str, &str, Value); 6] = [
        ("a.b", r#"rows.[]."a.b""#, Value::Unsigned(5)),
        ("0", r#"rows.[]."0""#, Value::String("zero 5".into())),
        ("", r#"rows.[]."""#, Value::Bool(false)),
        ("say \"hi\"", r#"rows.[]."say \"hi\"""#, Value::Float(2.5)),
        ("名前", "rows.[].名前", Value::String("名".into())),
        (
            "[]",
            r#"rows.[]."[]""#,
            Value::Array(vec![Value::Unsigned(5), Value::Unsigned(6)]),
        ),
    ];
    for (key, text, last) in cases {
        let path: Path = [
            Segment::Name("rows".into()),
            Segment::Items,
            Segment::Name(key.into()),
        ]
        .into_iter()
        .collect();
        assert_eq!(path.to_string(), text);
        let node = schema.find(&path).unwrap();
        assert_eq!(node.path, path);
        assert_eq!(node.name.as_deref(), Some(key));
        assert_eq!(schema.find(text).unwrap().path, path);
        let values: Vec<Value> = reader.decode_path(&path).unwrap();
        assert_eq!(values.len(), 6, "{text}");
        assert_eq!(values[5], last, "{text}");
        assert_eq!(reader.decode_path::<Vec<Value>>(text).unwrap(), values);
    }
    // The size breakdown writes the same paths, so they can be copied into a read.
    let breakdown = tree_buf::size_breakdown(&bytes).unwrap();
    assert!(breakdown
        .branches
        .iter()
        .any(|b| b.path == r#"rows.[]."a.b""#));
}

#[test]
fn an_index_at_a_struct_names_the_field_called_by_that_number() {
    let bytes = awkward_json();
    let reader = Reader::new(&bytes).unwrap();
    let schema = reader.schema();
    let bare = schema.find("rows.[].years.2024").unwrap();
    assert_eq!(bare.path.to_string(), r#"rows.[].years."2024""#);
    let quoted: Vec<u64> = reader.decode_path(r#"rows.[].years."2024""#).unwrap();
    assert_eq!(
        reader
            .decode_path::<Vec<u64>>("rows.[].years.2024")
            .unwrap(),
        quoted
    );
    assert_eq!(quoted, [0, 10, 20, 30, 40, 50]);
}

#[test]
fn union_members_are_named_by_their_kind() {
    let bytes = awkward_json();
    let reader = Reader::new(&bytes).unwrap();
    let schema = reader.schema();
    assert_eq!(
        schema.find("rows.[].mixed").unwrap().node_type,
        NodeType::Union
    );
    let texts: Vec<String> = reader.decode_path("rows.[].mixed.string").unwrap();
    assert_eq!(texts, ["text", "text"]);
    let numbers: Vec<u64> = reader.decode_path("rows.[].mixed.integer").unwrap();
    assert_eq!(numbers, [1, 2, 4, 5]);
    let err = reader
        .decode_path::<Vec<Value>>("rows.[].mixed.float")
        .unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::PathNotFound);
    assert!(err.message().contains("`string`, `integer`"), "{err}");
}

#[derive(Encode, Decode, Debug, PartialEq)]
enum Shape {
    Circle { radius: f64 },
    Square(f32),
    Dot,
}

#[test]
fn enum_variants_lead_to_their_own_values_only() {
    let shapes: Vec<Option<Shape>> = (0..9)
        .map(|i| match i % 4 {
            0 => Some(Shape::Circle {
                radius: f64::from(i),
            }),
            1 => Some(Shape::Square(i as f32)),
            2 => Some(Shape::Dot),
            _ => None,
        })
        .collect();
    let bytes = encode(&shapes);
    let reader = Reader::new(&bytes).unwrap();
    let radii: Vec<f64> = reader.decode_path("[].circle.radius").unwrap();
    assert_eq!(radii, [0.0, 4.0, 8.0]);
    // A newtype variant holds its value itself; names match in canonical case.
    let sides: Vec<f32> = reader.decode_path("[].Square").unwrap();
    assert_eq!(sides, [1.0, 5.0]);
    // A path that ends at an option names the option.
    let all: Vec<Option<Shape>> = reader.decode_path("[]").unwrap();
    assert_eq!(all, shapes);
    assert_eq!(
        reader.schema().find("[]").unwrap().node_type,
        NodeType::Option
    );
    assert_eq!(
        reader.schema().find("[].Dot").unwrap().node_type,
        NodeType::Unit
    );
}

#[test]
fn maps_are_entered_only_by_key_or_value() {
    let map = BTreeMap::from([("a".to_string(), vec![1u8]), ("b".to_string(), vec![2, 3])]);
    let bytes = encode(&map);
    let reader = Reader::new(&bytes).unwrap();
    let schema = reader.schema();
    for wrong in ["anything", "[]", "0", "{key}.[]"] {
        assert!(schema.find(wrong).is_none(), "{wrong}");
        let err = reader.decode_path::<Vec<Value>>(wrong).unwrap_err();
        assert_eq!(err.kind(), DecodeErrorKind::PathNotFound, "{wrong}: {err}");
        assert_eq!(err.path(), wrong);
    }
    assert_eq!(schema.find("{key}").unwrap().node_type, NodeType::Str);
    assert_eq!(schema.find("{value}.[]").unwrap().node_type, NodeType::U8);
    assert_eq!(
        reader.decode_path::<Vec<String>>("{key}").unwrap(),
        ["a", "b"]
    );
}

#[derive(Encode, Decode, Debug, PartialEq)]
struct Library {
    shelves: Vec<Shelf>,
    index: BTreeMap<u32, (String, Option<[u16; 2]>)>,
}

#[derive(Encode, Decode, Debug, PartialEq)]
struct Shelf {
    label: Option<String>,
    books: Vec<Option<Book>>,
}

#[derive(Encode, Decode, Debug, PartialEq)]
struct Book {
    title: String,
    shape: Shape,
}

fn library() -> Library {
    Library {
        shelves: (0..4)
            .map(|i| Shelf {
                label: (i % 2 == 0).then(|| format!("shelf {i}")),
                books: (0..i)
                    .map(|j| {
                        (j != 1).then(|| Book {
                            title: format!("book {i}.{j}"),
                            shape: Shape::Circle {
                                radius: f64::from(j),
                            },
                        })
                    })
                    .collect(),
            })
            .collect(),
        index: (0..5)
            .map(|k| (k, (format!("k{k}"), (k % 2 == 0).then_some([1, 2]))))
            .collect(),
    }
}

#[test]
fn every_node_is_found_and_read_by_its_path() {
    let files = [
        encode(&library()),
        awkward_json(),
        encode(&(1u8, vec![Some(2u16)], BTreeMap::from([(3i8, ())]))),
    ];
    for bytes in &files {
        let reader = Reader::new(bytes).unwrap();
        let schema = reader.schema();
        for node in schema.iter() {
            let found = schema.find(&node.path).unwrap();
            assert_eq!(found.path, node.path);
            assert_eq!(schema.find(node.path.to_string()).unwrap(), found);
            let values: Result<Vec<Value>, _> = reader.decode_path(&node.path);
            assert!(values.is_ok(), "{}: {:?}", node.path, values);
        }
    }
    let bytes = encode(&library());
    let reader = Reader::new(&bytes).unwrap();
    let titles: Vec<String> = reader.decode_path("shelves.[].books.[].title").unwrap();
    assert_eq!(titles, ["book 1.0", "book 2.0", "book 3.0", "book 3.2"]);
    let corners: Vec<u16> = reader.decode_path("index.{value}.1.[]").unwrap();
    assert_eq!(corners, [1, 2, 1, 2, 1, 2]);
}

#[test]
fn a_missing_path_names_the_longest_prefix_that_exists() {
    let bytes = encode(&library());
    let reader = Reader::new(&bytes).unwrap();
    let schema = reader.schema();
    for (path, message) in [
        (
            "shelves.[].books.[].author",
            "up to `shelves.[].books.[]` (struct), which has no `author`",
        ),
        (
            "shelves.0",
            "up to `shelves` (sequence), which has no `0`: its items are `[]`",
        ),
        (
            "index.{value}.2",
            "up to `index.{value}` (tuple), which has no `2`: its elements are `0` to `1`",
        ),
        (
            "index.{key}.x",
            "up to `index.{key}` (u32), which has no `x`",
        ),
        (
            "shelves.[].books.[].shape.Triangle",
            "its variants are `circle`, `square`, `dot`",
        ),
        ("library", "the root (struct) has no `library`"),
    ] {
        assert!(schema.find(path).is_none(), "{path}");
        let err = reader.decode_path::<Vec<Value>>(path).unwrap_err();
        assert_eq!(err.kind(), DecodeErrorKind::PathNotFound, "{err}");
        assert_eq!(err.path(), path);
        assert!(err.message().contains(message), "{err}");
    }
    let err = reader
        .decode_path::<Vec<Value>>("shelves..label")
        .unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::PathNotFound);
    assert!(err.message().contains("not a valid path"), "{err}");
    assert!(schema.find("shelves..label").is_none());
}

#[test]
fn exact_names_win_and_canonical_twins_are_named() {
    let bytes = encode(&Value::from(
        json!([{ "userId": 1, "user_id": 2, "Name": "n" }]),
    ));
    let reader = Reader::new(&bytes).unwrap();
    assert_eq!(reader.decode_path::<Vec<u8>>("[].userId").unwrap(), [1]);
    assert_eq!(reader.decode_path::<Vec<u8>>("[].user_id").unwrap(), [2]);
    assert_eq!(reader.decode_path::<Vec<String>>("[].name").unwrap(), ["n"]);
    let err = reader.decode_path::<Vec<u8>>("[].UserID").unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::PathNotFound);
    assert!(err.message().contains("`userId` and `user_id`"), "{err}");
    assert!(reader.schema().find("[].UserID").is_none());
}

/// The smallest decoding budget under which `read` succeeds.
fn smallest_budget(
    bytes: &[u8],
    read: impl Fn(&Reader<'_>) -> Result<(), tree_buf::DecodeError>,
) -> u64 {
    let reads = |cap: u64| {
        let reader = Reader::with_options(bytes, DecodeOptions::default().max_decoded_bytes(cap));
        match reader.and_then(|reader| read(&reader)) {
            Ok(()) => true,
            Err(e) if e.kind() == DecodeErrorKind::LimitExceeded => false,
            Err(e) => panic!("{e}"),
        }
    };
    let (mut low, mut high) = (0u64, 1u64 << 34);
    while low + 1 < high {
        let middle = low + (high - low) / 2;
        if reads(middle) {
            high = middle;
        } else {
            low = middle;
        }
    }
    high
}

#[test]
fn decode_path_walks_and_decodes_under_one_budget() {
    // 400 lists of 3 numbers: walking to the numbers reads 400 lengths, which must count against
    // the same budget as the numbers themselves.
    let nested: Vec<(Vec<u64>, u8)> = (0..400).map(|i| (vec![i, i + 1, i + 2], 0)).collect();
    let flat: Vec<u64> = nested.iter().flat_map(|(items, _)| items.clone()).collect();
    let nested_bytes = encode(&nested);
    let flat_bytes = encode(&flat);
    let through_path = smallest_budget(&nested_bytes, |reader| {
        let items: Vec<u64> = reader.decode_path("[].0.[]")?;
        assert_eq!(items, flat);
        Ok(())
    });
    let alone = smallest_budget(&flat_bytes, |reader| reader.decode::<Vec<u64>>().map(drop));
    assert!(through_path > alone, "{through_path} <= {alone}");
    assert_eq!(
        decode::<Vec<(Vec<u64>, u8)>>(&nested_bytes).unwrap(),
        nested
    );
}
