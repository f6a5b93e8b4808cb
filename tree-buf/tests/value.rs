//! Schemaless reading and writing with `Value`, and its JSON conversions.
//!
//! JSON is read into `Value`s through serde, from text: objects then keep their key order
//! whether or not serde_json's `preserve_order` feature is on (this crate does not turn it on).

use proptest::prelude::*;
use tree_buf::{
    decode, encode, ArrayWriter, Decode, DecodeOwned, Encode, EncodeOptions, NodeType, Reader,
    Value, ValueWriter,
};

/// JSON text as a `Value`, keys in order.
fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

/// A `Value` as compact JSON text, keys in order.
fn text(value: &Value) -> String {
    serde_json::to_string(value).unwrap()
}

#[derive(Encode, Decode, Debug, PartialEq)]
struct Order {
    id: u32,
    price: Option<i64>,
    tags: Vec<String>,
    status: Status,
    hash: [u8; 4],
}

#[derive(Encode, Decode, Debug, PartialEq)]
enum Status {
    Open,
    Sold { at: u64 },
}

#[test]
fn any_typed_file_decodes_into_a_value() {
    let orders = vec![
        Order {
            id: 1,
            price: Some(-5),
            tags: vec!["a".into()],
            status: Status::Open,
            hash: [1, 2, 3, 4],
        },
        Order {
            id: 2,
            price: None,
            tags: vec![],
            status: Status::Sold { at: 9 },
            hash: [0; 4],
        },
    ];
    let value: Value = decode(&encode(&orders)).unwrap();
    let expected = Value::Array(vec![
        Value::Object(vec![
            ("id".into(), Value::Unsigned(1)),
            ("price".into(), Value::Signed(-5)),
            ("tags".into(), Value::Array(vec![Value::String("a".into())])),
            (
                "status".into(),
                Value::Variant("open".into(), Box::new(Value::Null)),
            ),
            ("hash".into(), Value::Bytes(vec![1, 2, 3, 4])),
        ]),
        Value::Object(vec![
            ("id".into(), Value::Unsigned(2)),
            ("tags".into(), Value::Array(vec![])),
            (
                "status".into(),
                Value::Variant(
                    "sold".into(),
                    Box::new(Value::Object(vec![("at".into(), Value::Unsigned(9))])),
                ),
            ),
            ("hash".into(), Value::Bytes(vec![0; 4])),
        ]),
    ]);
    assert_eq!(value, expected);
    // The value re-encodes, and reads back the same.
    assert_eq!(decode::<Value>(&encode(&value)).unwrap(), value);
}

#[test]
fn the_inferred_schema_is_columnar() {
    let value = json(
        r#"{
            "features": [
                {"name": "a", "point": [1.5, 2.5], "mixed": 1, "sometimes": true},
                {"name": "b", "point": [3.5, 4.5], "mixed": "one", "nullable": null},
                {"name": "c", "point": [5.5, 6.5], "mixed": 2.5, "sometimes": false, "nullable": 3}
            ]
        }"#,
    );
    let bytes = encode(&value);
    let schema = Reader::new(&bytes).unwrap().schema();
    assert_eq!(
        schema.find("features.[]").unwrap().node_type,
        NodeType::Struct
    );
    assert_eq!(
        schema.find("features.[].name").unwrap().node_type,
        NodeType::Str
    );
    // Pairs of numbers become a tuple: one column per position.
    assert_eq!(
        schema.find("features.[].point").unwrap().node_type,
        NodeType::Tuple
    );
    assert_eq!(
        schema.find("features.[].point.1").unwrap().node_type,
        NodeType::F64
    );
    assert_eq!(
        schema.find("features.[].mixed").unwrap().node_type,
        NodeType::Union
    );
    assert_eq!(
        schema.find("features.[].sometimes").unwrap().node_type,
        NodeType::Option
    );
    assert_eq!(decode::<Value>(&bytes).unwrap(), value);
    let names: Vec<String> = Reader::new(&bytes)
        .unwrap()
        .decode_path("features.[].name")
        .unwrap();
    assert_eq!(names, ["a", "b", "c"]);
}

#[test]
fn json_round_trips_keep_key_order_missing_fields_and_nulls() {
    let original = concat!(
        r#"[{"z":1,"a":null,"m":{"deep":[1,-2,3.25,"x",null,true,[],{}]}},"#,
        r#"{"a":"now a string","extra":18446744073709551615},[],"text",null,"#,
        r#"{"z":-9007199254740993}]"#,
    );
    let back: Value = decode(&encode(&json(original))).unwrap();
    assert_eq!(text(&back), original);
}

#[test]
fn object_fields_keep_every_consistent_key_order() {
    // `a` is first seen after `b`, and only the last object tells which comes first.
    let original = r#"[{"b":1},{"a":2},{"c":3,"a":4,"b":5},{"c":6}]"#;
    let back: Value = decode(&encode(&json(original))).unwrap();
    assert_eq!(text(&back), original);
    // Objects that disagree still round-trip their contents, in one order.
    let back: Value = decode(&encode(&json(r#"[{"x":1,"y":2},{"y":3,"x":4}]"#))).unwrap();
    assert_eq!(text(&back), r#"[{"x":1,"y":2},{"x":4,"y":3}]"#);
}

/// JSON text written by [`ValueWriter`], without building a `Value`.
fn streamed(text: &str) -> Vec<u8> {
    ValueWriter::read(&mut serde_json::Deserializer::from_str(text))
        .unwrap()
        .finish(&EncodeOptions::default())
        .unwrap()
}

#[test]
fn streamed_json_encodes_like_the_value() {
    for text in [
        r#"[
            {"z": 1, "a": null, "m": {"deep": [1, -2, 3.25, "x", null, true, [], {}]}},
            {"a": "now a string", "extra": 18446744073709551615},
            [],
            "text",
            null,
            {"z": -9007199254740993}
        ]"#,
        // Fields first seen late, and keys in different orders.
        r#"[{"a": 1, "c": 3}, {"a": 1, "b": 2}, {"d": 4, "c": 3}, {"e": [[1.5, 2.5]]}]"#,
        r#"[{"a": 1, "b": 2}, {"b": 3, "a": 4}]"#,
        r#"{"rings": [[], [[1.0, 2.0], [3.0, 4.0]], [[5, 6]]], "empty": {}}"#,
        // A repeated key: its first value counts, both ways.
        r#"[{"a": 1, "b": 2, "a": "again"}]"#,
        "null",
    ] {
        assert_eq!(streamed(text), encode(&json(text)), "{text}");
    }
}

#[test]
fn objects_keep_their_key_order_when_fields_first_appear_apart() {
    // `b` is first seen after `c`, but the third object puts it before.
    let original = r#"[{"c":1},{"b":2},{"b":3,"c":4},{"a":0,"c":5}]"#;
    let back: Value = decode(&encode(&json(original))).unwrap();
    assert_eq!(text(&back), original);
}

#[test]
fn maps_deserialize_as_objects_when_every_key_is_a_string() {
    use serde::de::value::MapDeserializer;
    use serde::Deserialize;
    use serde_json::Value as Json;

    let map = |entries: Vec<(Json, Json)>| {
        Value::deserialize(MapDeserializer::<_, serde_json::Error>::new(
            entries.into_iter(),
        ))
        .unwrap()
    };
    let string = |s: &str| Json::String(s.into());
    assert_eq!(
        map(vec![
            (string("b"), Json::from(1)),
            (string("a"), Json::Null)
        ]),
        Value::Object(vec![
            ("b".into(), Value::Unsigned(1)),
            ("a".into(), Value::Null)
        ])
    );
    // A key of another kind, even after string keys, makes a `Value::Map`.
    assert_eq!(
        map(vec![
            (string("b"), Json::from(1)),
            (Json::from(-2), Json::Bool(true))
        ]),
        Value::Map(vec![
            (Value::String("b".into()), Value::Unsigned(1)),
            (Value::Signed(-2), Value::Bool(true)),
        ])
    );
}

#[cfg(feature = "json")]
#[test]
fn lossy_json_conversions_are_the_documented_ones() {
    use serde_json::json;

    assert_eq!(
        serde_json::Value::from(Value::Unsigned(u128::MAX)),
        json!(u128::MAX.to_string())
    );
    assert_eq!(serde_json::Value::from(Value::Float(f64::NAN)), json!(null));
    assert_eq!(
        serde_json::Value::from(Value::Bytes(vec![1, 2])),
        json!({"$bytes": "AQI="})
    );
    // Bytes stay apart from arrays of small integers, and read back as an object.
    assert_eq!(
        serde_json::Value::from(Value::Array(vec![Value::Unsigned(1), Value::Unsigned(2)])),
        json!([1, 2])
    );
    assert_eq!(
        Value::from(json!({"$bytes": "AQI="})),
        Value::Object(vec![("$bytes".into(), Value::String("AQI=".into()))])
    );
    assert_eq!(
        serde_json::Value::from(Value::Variant("open".into(), Box::new(Value::Null))),
        json!("open")
    );
    assert_eq!(
        serde_json::Value::from(Value::Variant("sold".into(), Box::new(Value::Unsigned(3)))),
        json!({"sold": 3})
    );
    let map = Value::Map(vec![(Value::Unsigned(1), Value::Bool(true))]);
    assert_eq!(serde_json::Value::from(map), json!([[1, true]]));
}

#[cfg(feature = "json")]
#[test]
fn the_json_bridge_converts_as_serde_does() {
    let json: serde_json::Value = serde_json::from_str(
        r#"[{"z": 1, "a": [-2, 3.5, "x", null, true, {}]}, 18446744073709551615, -1]"#,
    )
    .unwrap();
    let value = Value::from(json.clone());
    assert_eq!(
        value,
        serde_json::from_value::<Value>(json.clone()).unwrap()
    );
    assert_eq!(serde_json::to_value(&value).unwrap(), json);
    assert_eq!(serde_json::Value::from(value), json);
}

/// `depth` arrays, each holding the next, around an integer.
fn nested(depth: usize) -> Value {
    (0..depth).fold(Value::Unsigned(1), |inner, _| Value::Array(vec![inner]))
}

#[test]
fn values_nested_past_the_schemas_limit_round_trip() {
    for depth in [tree_buf::MAX_DEPTH - 1, tree_buf::MAX_DEPTH, 5_000] {
        // Encoded and decoded on a small stack, since each level of the first 48 takes
        // kilobytes in a debug build; compared as JSON text (written without recursion) and
        // dropped on the test's larger stack, since those are Rust's own recursion.
        let (value, back) = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                let value = nested(depth);
                let back = decode::<Value>(&encode(&value)).unwrap();
                (value, back)
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(text(&back), text(&value), "{depth} levels");
    }
}

/// JSON arrays nested `depth` deep around an integer, as a `serde_json::Value` (which, unlike
/// serde_json's parser, has no nesting limit of its own).
fn nested_json(depth: usize) -> serde_json::Value {
    (0..depth).fold(serde_json::Value::from(1), |inner, _| {
        serde_json::Value::Array(vec![inner])
    })
}

#[test]
fn json_nested_300_deep_encodes_whole_and_streamed() {
    let deep = nested_json(300);
    let options = EncodeOptions::default();

    // Into a `Value`, through serde; back out as JSON text.
    let value: Value = serde_json::from_value(deep.clone()).unwrap();
    let text = text(&value);
    assert_eq!(text.matches('[').count(), 300);
    // serde_json's own parser stops at 128 levels, with an error.
    assert!(serde_json::from_str::<Value>(&text).is_err());

    // Whole, it encodes: the levels below the 48th share one recursive place.
    let round_trip = |bytes: Vec<u8>| decode::<Value>(&bytes).unwrap();
    assert_eq!(round_trip(tree_buf::try_encode(&value).unwrap()), value);
    assert_eq!(
        round_trip(tree_buf::encode_with_options(&value, &options).unwrap()),
        value
    );
    // So does an array written item by item, and an object's field.
    let mut writer = ArrayWriter::new();
    writer.push(&Value::Unsigned(1));
    writer.push(&value);
    let items = round_trip(writer.finish(&options).unwrap());
    assert_eq!(items, Value::Array(vec![Value::Unsigned(1), value.clone()]));
    let mut writer = ArrayWriter::with_fields(["deep"]);
    writer.push(&Value::Object(vec![("deep".into(), value.clone())]));
    assert!(writer.finish(&options).is_ok());

    // Streamed from a deserializer, a level at a time down to the 48th, and whole below: the
    // same bytes.
    let writer = ValueWriter::read(deep.clone()).unwrap();
    assert_eq!(writer.finish(&options).unwrap(), encode(&value));
    // serde_json's parser still stops at its own limit.
    assert!(ValueWriter::read(&mut serde_json::Deserializer::from_str(&text)).is_err());
    // Objects, arrays of several items and fields missing from some objects, nested as deep.
    let object = (0..200).fold(serde_json::json!({"leaf": true}), |inner, level| {
        serde_json::json!({"level": level, "next": inner, "items": [level, {"x": level}]})
    });
    let as_value: Value = serde_json::from_value(object.clone()).unwrap();
    let bytes = ValueWriter::read(object).unwrap().finish(&options).unwrap();
    assert_eq!(bytes, encode(&as_value));
    assert_eq!(decode::<Value>(&bytes).unwrap(), as_value);

    #[cfg(feature = "json")]
    {
        assert_eq!(Value::from(deep.clone()), value);
        assert_eq!(serde_json::Value::from(value), deep);
    }
}

#[test]
fn conversions_of_values_far_deeper_than_any_file_do_not_overflow_the_stack() {
    const DEPTH: usize = 5_000;
    // On a small stack, so that a conversion that recursed on it would overflow. The values are
    // never cloned, compared or dropped (nor given to a conversion that consumes them): that is
    // Rust's own recursion.
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let value: Value = serde_json::from_value(nested_json(DEPTH)).unwrap();
            let text = text(&value);
            assert_eq!(text.matches('[').count(), DEPTH);
            // Encoding and decoding do not recurse on the data either.
            let bytes = tree_buf::try_encode(&value).unwrap();
            std::mem::forget(decode::<Value>(&bytes).unwrap());
            let mut writer = ArrayWriter::new();
            writer.push(&value);
            assert!(writer.finish(&EncodeOptions::default()).is_ok());
            std::mem::forget(serde_json::to_value(&value).unwrap());
            #[cfg(feature = "json")]
            std::mem::forget(Value::from(nested_json(DEPTH)));
            std::mem::forget(value);
        })
        .unwrap()
        .join()
        .unwrap();
}

fn value_strategy() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<u128>().prop_map(Value::Unsigned),
        (i128::MIN..0).prop_map(Value::Signed),
        any::<f64>()
            .prop_filter("NaN is not equal to itself", |f| !f.is_nan())
            .prop_map(Value::Float),
        ".{0,8}".prop_map(Value::String),
        prop::collection::vec(any::<u8>(), 0..6).prop_map(Value::Bytes),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            // Objects with distinct keys in a consistent order, as JSON objects of one kind have.
            prop::collection::btree_map("[a-d]", inner.clone(), 0..5)
                .prop_map(|fields| Value::Object(fields.into_iter().collect())),
            ("[a-c]", inner.clone())
                .prop_map(|(name, content)| Value::Variant(name, Box::new(content))),
            prop::collection::vec((inner.clone(), inner), 0..4).prop_map(Value::Map),
        ]
    })
}

proptest! {
    #[test]
    fn generated_values_round_trip(values in prop::collection::vec(value_strategy(), 0..8)) {
        let value = Value::Array(values);
        let back: Value = decode(&encode(&value)).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(back, value);
    }

    #[test]
    fn generated_json_streams_like_the_value(values in prop::collection::vec(value_strategy(), 0..8)) {
        let text = text(&Value::Array(values));
        prop_assert_eq!(streamed(&text), encode(&json(&text)));
    }
}

#[derive(Encode, Decode, Debug, PartialEq, Clone)]
enum Shape {
    Empty,
    Circle(f32),
    Rect { w: u16, h: u16 },
}

#[derive(Encode, Decode, Debug, PartialEq, Clone)]
struct Everything {
    small: f32,
    pair: (u8, String),
    triple: (i8, char, bool),
    shape: Shape,
    letter: char,
    nothing: (),
    maybe: Option<f32>,
    array: [u16; 3],
    fixed_length_vec: Vec<f64>,
    bytes: Vec<u8>,
    map: std::collections::BTreeMap<u8, char>,
    lists: Vec<Vec<u32>>,
}

/// Reads `value`'s file as a `Value`, writes that, and reads the result as `T` again.
fn through_value<T: Encode + DecodeOwned + PartialEq + std::fmt::Debug>(value: &T) {
    let schemaless: Value = decode(&encode(value)).unwrap();
    let back: T = decode(&encode(&schemaless)).unwrap_or_else(|e| panic!("{value:?}: {e}"));
    assert_eq!(&back, value);
}

#[test]
fn a_file_read_as_a_value_and_written_again_reads_as_its_type() {
    let row = Everything {
        small: 0.1,
        pair: (3, "x".into()),
        triple: (-4, 'é', true),
        shape: Shape::Empty,
        letter: 'z',
        nothing: (),
        maybe: Some(2.5),
        array: [1, 2, 3],
        fixed_length_vec: vec![0.5, 1e300],
        bytes: vec![1, 2],
        map: [(1, 'a')].into(),
        // Empty lists first: the `Value` writer gives them the kind of the lists that follow.
        lists: vec![vec![], vec![7, 8]],
    };
    let rows = vec![
        row.clone(),
        Everything {
            shape: Shape::Circle(1.5),
            maybe: None,
            ..row.clone()
        },
        Everything {
            shape: Shape::Rect { w: 3, h: 4 },
            ..row
        },
    ];
    through_value(&rows);
    through_value(&());
    through_value(&'c');
    through_value(&Shape::Empty);
    through_value(&(1u8, 'c', ()));
    through_value(&vec![0.1f32, 1e30]);
    through_value(&[[1u8, 2], [3, 4]]);
    // Unsigned values above `i128::MAX` and below it, in one column.
    through_value(&vec![5u128, u128::MAX]);
    through_value(&vec![(u128::MAX, -1i128), (u128::MAX - 1, i128::MIN)]);
}

#[test]
fn rewritten_values_that_do_not_fit_the_type_are_errors() {
    // Strings of other lengths than one are not chars, and non-null values not units.
    let error = decode::<Vec<char>>(&encode(&vec!["a", "bc"])).unwrap_err();
    assert!(error.to_string().contains("\"bc\""), "{error}");
    let error = decode::<Vec<()>>(&encode(&vec![None, Some(1u8)])).unwrap_err();
    assert!(error.to_string().contains("value 1 is not null"), "{error}");
    // A tuple reads as a sequence only if its elements read as the items.
    assert!(decode::<Vec<u8>>(&encode(&(1u8, "a"))).is_err());
    assert_eq!(decode::<Vec<u8>>(&encode(&(1u8, 2u16))).unwrap(), [1, 2]);
}

#[test]
fn values_print_as_a_derived_debug_would() {
    let value = Value::Array(vec![
        Value::Null,
        Value::Bool(true),
        Value::Unsigned(1),
        Value::Signed(-2),
        Value::Float(1.5),
        Value::String("s".into()),
        Value::Bytes(vec![7]),
        Value::Object(vec![("a".into(), Value::Null)]),
        Value::Variant("V".into(), Box::new(Value::Null)),
        Value::Map(vec![(Value::Unsigned(3), Value::Null)]),
    ]);
    assert_eq!(
        format!("{value:?}"),
        "Array([Null, Bool(true), Unsigned(1), Signed(-2), Float(1.5), String(\"s\"), \
         Bytes([7]), Object([(\"a\", Null)]), Variant(\"V\", Null), Map([(Unsigned(3), Null)])])"
    );
    assert_eq!(
        format!(
            "{:#?}",
            Value::Variant("V".into(), Box::new(Value::Bool(false)))
        ),
        "Variant(\n    \"V\",\n    Bool(\n        false,\n    ),\n)"
    );
    // Equality is by variant, then content; floats as f64s.
    assert_ne!(Value::Unsigned(1), Value::Signed(1));
    assert_ne!(Value::Float(f64::NAN), Value::Float(f64::NAN));
    assert_eq!(value.clone(), value);
}
