//! Schemaless reading and writing with `Value`, and its JSON conversions.

use proptest::prelude::*;
use serde_json::json;
use tree_buf::{
    decode, encode, Decode, Encode, EncodeOptions, NodeType, Reader, Value, ValueWriter,
};

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
    let value = Value::from(json!({
        "features": [
            {"name": "a", "point": [1.5, 2.5], "mixed": 1, "sometimes": true},
            {"name": "b", "point": [3.5, 4.5], "mixed": "one", "nullable": null},
            {"name": "c", "point": [5.5, 6.5], "mixed": 2.5, "sometimes": false, "nullable": 3},
        ]
    }));
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
    let json = json!([
        {"z": 1, "a": null, "m": {"deep": [1, -2, 3.25, "x", null, true, [], {}]}},
        {"a": "now a string", "extra": u64::MAX},
        [],
        "text",
        null,
        {"z": -9_007_199_254_740_993i64}
    ]);
    let back: Value = decode(&encode(&Value::from(json.clone()))).unwrap();
    // Compared as text: `serde_json` maps compare equal whatever their key order.
    assert_eq!(serde_json::Value::from(back).to_string(), json.to_string());
}

#[test]
fn object_fields_keep_every_consistent_key_order() {
    // `a` is first seen after `b`, and only the last object tells which comes first.
    let json = json!([{"b": 1}, {"a": 2}, {"c": 3, "a": 4, "b": 5}, {"c": 6}]);
    let back: Value = decode(&encode(&Value::from(json.clone()))).unwrap();
    assert_eq!(serde_json::Value::from(back).to_string(), json.to_string());
    // Objects that disagree still round-trip their contents, in one order.
    let json = json!([{"x": 1, "y": 2}, {"y": 3, "x": 4}]);
    let back = serde_json::Value::from(decode::<Value>(&encode(&Value::from(json))).unwrap());
    assert_eq!(back.to_string(), r#"[{"x":1,"y":2},{"x":4,"y":3}]"#);
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
    for json in [
        json!([
            {"z": 1, "a": null, "m": {"deep": [1, -2, 3.25, "x", null, true, [], {}]}},
            {"a": "now a string", "extra": u64::MAX},
            [],
            "text",
            null,
            {"z": -9_007_199_254_740_993i64}
        ]),
        // Fields first seen late, and keys in different orders.
        json!([{"a": 1, "c": 3}, {"a": 1, "b": 2}, {"d": 4, "c": 3}, {"e": [[1.5, 2.5]]}]),
        json!([{"a": 1, "b": 2}, {"b": 3, "a": 4}]),
        json!({"rings": [[], [[1.0, 2.0], [3.0, 4.0]], [[5, 6]]], "empty": {}}),
        json!(null),
    ] {
        let text = json.to_string();
        assert_eq!(streamed(&text), encode(&Value::from(json)), "{text}");
    }
}

#[test]
fn objects_keep_their_key_order_when_fields_first_appear_apart() {
    // `b` is first seen after `c`, but the third object puts it before.
    let json = json!([{"c": 1}, {"b": 2}, {"b": 3, "c": 4}, {"a": 0, "c": 5}]);
    let back: Value = decode(&encode(&Value::from(json.clone()))).unwrap();
    assert_eq!(
        serde_json::to_string(&back).unwrap(),
        serde_json::to_string(&json).unwrap()
    );
}

#[test]
fn lossy_json_conversions_are_the_documented_ones() {
    assert_eq!(
        serde_json::Value::from(Value::Unsigned(u128::MAX)),
        json!(u128::MAX.to_string())
    );
    assert_eq!(serde_json::Value::from(Value::Float(f64::NAN)), json!(null));
    assert_eq!(
        serde_json::Value::from(Value::Bytes(vec![1, 2])),
        json!([1, 2])
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

/// `depth` arrays, each holding the next, around an integer.
fn nested(depth: usize) -> Value {
    (0..depth).fold(Value::Unsigned(1), |inner, _| Value::Array(vec![inner]))
}

#[test]
fn values_nested_to_the_limit_round_trip_and_deeper_ones_are_errors() {
    // On a small stack: each level takes kilobytes in a debug build.
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let deepest = nested(tree_buf::MAX_DEPTH - 1);
            assert_eq!(decode::<Value>(&encode(&deepest)).unwrap(), deepest);
            let err = tree_buf::try_encode(&nested(tree_buf::MAX_DEPTH)).unwrap_err();
            assert_eq!(err.kind(), tree_buf::EncodeErrorKind::DepthLimit);
        })
        .unwrap()
        .join()
        .unwrap();
    // Encoding stops at the limit; dropping the value is Rust's own recursion.
    let err = tree_buf::try_encode(&nested(5_000)).unwrap_err();
    assert_eq!(err.kind(), tree_buf::EncodeErrorKind::DepthLimit);
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
        let json = serde_json::Value::from(Value::Array(values));
        prop_assert_eq!(streamed(&json.to_string()), encode(&Value::from(json)));
    }
}
