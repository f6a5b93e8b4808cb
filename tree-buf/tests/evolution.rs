//! Schema evolution: files written with one version of a type read with another, following the
//! rules of `docs/FORMAT.md` ("Schema evolution"). Every rule is checked at the root and inside a
//! sequence, where the same rule must give the same answer at `[]`.

use std::fmt::Debug;

use tree_buf::{decode, encode, Decode, DecodeErrorKind, DecodeOwned, Encode};

/// Checks that `old` reads as `new`, alone and as the items of a sequence.
#[track_caller]
fn reads_as<Old: Encode, New: DecodeOwned + PartialEq + Debug + Clone>(old: &Old, new: New) {
    let root: New = decode(&encode(old)).unwrap_or_else(|e| panic!("at the root: {e}"));
    assert_eq!(root, new, "at the root");
    let items: Vec<New> =
        decode(&encode(&vec![old, old])).unwrap_or_else(|e| panic!("inside a sequence: {e}"));
    assert_eq!(items, [new.clone(), new], "inside a sequence");
}

/// Checks that reading `old` as `New` is a schema mismatch at `path` (below the root, or below
/// `[]` inside a sequence) whose message names every one of `words`.
#[track_caller]
fn mismatch<Old: Encode, New: DecodeOwned + Debug>(old: &Old, path: &str, words: &[&str]) {
    let in_sequence = if path.is_empty() {
        "[]".to_owned()
    } else {
        format!("[].{path}")
    };
    let errors = [
        (decode::<New>(&encode(old)).map(drop), path.to_owned()),
        (
            decode::<Vec<New>>(&encode(&vec![old, old])).map(drop),
            in_sequence,
        ),
    ];
    for (result, path) in errors {
        let err = result.expect_err("a lossy or foreign read must fail");
        assert_eq!(err.kind(), DecodeErrorKind::SchemaMismatch, "{err}");
        assert_eq!(err.path(), path, "{err}");
        for word in words {
            assert!(err.to_string().contains(word), "`{word}` not in: {err}");
        }
    }
}

#[derive(Encode, Decode, Debug, PartialEq, Clone)]
struct OrderV1 {
    id: u32,
    price: u32,
    dropped: String,
}

#[derive(Encode, Decode, Debug, PartialEq, Clone)]
struct IdOnly {
    id: u32,
}

#[test]
fn a_field_in_the_file_but_not_the_type_is_skipped() {
    let old = OrderV1 {
        id: 7,
        price: 10,
        dropped: "gone".into(),
    };
    reads_as(&old, IdOnly { id: 7 });
}

#[derive(Decode, Debug, PartialEq, Clone)]
struct OrderV2 {
    id: u32,
    note: Option<String>,
    #[tree_buf(default)]
    tags: Vec<String>,
    #[tree_buf(default)]
    discount: u8,
}

#[derive(Decode, Debug, PartialEq, Clone)]
#[allow(dead_code)]
struct Strict {
    id: u32,
    required: u32,
}

#[test]
fn a_field_in_the_type_but_not_the_file_is_none_default_or_an_error() {
    let old = OrderV1 {
        id: 7,
        price: 10,
        dropped: String::new(),
    };
    reads_as(
        &old,
        OrderV2 {
            id: 7,
            note: None,
            tags: vec![],
            discount: 0,
        },
    );
    mismatch::<_, Strict>(&old, "required", &["Option", "default"]);
}

#[derive(Encode, Decode, Debug, PartialEq, Clone)]
struct Renamed {
    #[tree_buf(rename = "id")]
    identifier: u32,
    #[tree_buf(rename = "cost")]
    price: u32,
}

#[test]
fn renamed_fields_read_by_their_written_name() {
    let old = OrderV1 {
        id: 7,
        price: 10,
        dropped: String::new(),
    };
    // `id` was renamed in the type but keeps its written name; `price` was renamed in the file.
    mismatch::<_, Renamed>(&old, "cost", &[]);
    let renamed = Renamed {
        identifier: 3,
        price: 4,
    };
    reads_as(&renamed, IdOnly { id: 3 });
    reads_as(&renamed, renamed.clone());
}

#[derive(Encode, Debug, Clone)]
#[allow(non_snake_case)]
struct CamelCase {
    orderId: u32,
    HTTPStatus: u16,
    #[tree_buf(rename = "unitPrice")]
    price: u32,
}

#[derive(Decode, Debug, PartialEq, Clone)]
struct SnakeCase {
    order_id: u32,
    http_status: u16,
    unit_price: u32,
}

#[test]
fn names_match_in_canonical_case() {
    let old = CamelCase {
        orderId: 1,
        HTTPStatus: 404,
        price: 9,
    };
    reads_as(
        &old,
        SnakeCase {
            order_id: 1,
            http_status: 404,
            unit_price: 9,
        },
    );
}

#[derive(Encode, Decode, Debug, PartialEq, Clone)]
enum StatusV1 {
    Open,
    Sold(u32),
}

#[derive(Encode, Decode, Debug, PartialEq, Clone)]
enum StatusV2 {
    Cancelled { reason: String },
    Sold(u64),
    Open,
}

#[test]
fn a_type_with_more_variants_reads_older_files() {
    reads_as(&StatusV1::Open, StatusV2::Open);
    reads_as(&StatusV1::Sold(5), StatusV2::Sold(5));
    // A value of a variant the reading type lacks is an error naming it.
    let newer = StatusV2::Cancelled {
        reason: "late".into(),
    };
    mismatch::<_, StatusV1>(&newer, "", &["cancelled", "StatusV1"]);
    // Files whose values use only shared variants read either way.
    reads_as(&StatusV2::Open, StatusV1::Open);
    // Many values, each counted for its own variant: in another order...
    let old: Vec<StatusV1> = (0..50)
        .map(|i| match i % 3 {
            0 => StatusV1::Sold(i),
            _ => StatusV1::Open,
        })
        .collect();
    let as_v2 = |status: &StatusV1| match *status {
        StatusV1::Open => StatusV2::Open,
        StatusV1::Sold(n) => StatusV2::Sold(u64::from(n)),
    };
    reads_as(&old, old.iter().map(as_v2).collect::<Vec<_>>());
    // ...and in the same order, with a variant more at the end.
    let as_v3 = |status: &StatusV1| match *status {
        StatusV1::Open => StatusV3::Open,
        StatusV1::Sold(n) => StatusV3::Sold(u64::from(n)),
    };
    reads_as(&old, old.iter().map(as_v3).collect::<Vec<_>>());
    mismatch::<_, StatusV1>(&StatusV3::Refunded, "", &["refunded", "StatusV1"]);
}

#[derive(Encode, Decode, Debug, PartialEq, Clone)]
enum StatusV3 {
    Open,
    Sold(u64),
    Refunded,
}

#[test]
fn numbers_widen() {
    reads_as(&u32::MAX, u64::from(u32::MAX));
    reads_as(&i16::MIN, i64::from(i16::MIN));
    reads_as(&u8::MAX, i128::from(u8::MAX));
    reads_as(&u64::MAX, u128::from(u64::MAX));
    reads_as(&-2i32, -2i64);
    reads_as(&1.25f32, 1.25f64);
    let widened: f64 = decode(&encode(&f32::NEG_INFINITY)).unwrap();
    assert_eq!(widened, f64::NEG_INFINITY);
    // Narrower types read values that fit; an f64 reads as f32 when it is exactly one.
    reads_as(&200u64, 200u8);
    reads_as(&-5i64, -5i8);
    reads_as(&0.5f64, 0.5f32);
    reads_as(&f64::from(f32::MAX), f32::MAX);
    reads_as(&f64::NEG_INFINITY, f32::NEG_INFINITY);
    let subnormal = f32::from_bits(1);
    reads_as(&f64::from(subnormal), subnormal);
    let negative_zero: f32 = decode(&encode(&-0.0f64)).unwrap();
    assert_eq!(negative_zero.to_bits(), (-0.0f32).to_bits());
    let nan: Vec<f32> = decode(&encode(&vec![f64::from(f32::NAN), 1.5])).unwrap();
    assert!(nan[0].is_nan() && nan[1] == 1.5, "{nan:?}");
}

/// Fields of both float widths, and a narrow integer.
#[derive(Encode, Decode, Debug, PartialEq, Clone)]
struct Reading {
    at: u32,
    level: f32,
    total: f64,
    scale: Option<f32>,
}

#[test]
fn a_file_read_as_a_value_and_written_again_reads_back_into_its_type() {
    // A `Value` keeps no widths: its floats are f64 and its integers u64 or i64, which narrow
    // back because every value fits exactly.
    let readings: Vec<Reading> = (0..100u32)
        .map(|i| Reading {
            at: i * 60,
            level: i as f32 * 0.1,
            total: f64::from(i) / 3.0,
            scale: (i % 3 == 0).then_some(1.0 / (i as f32 + 1.0)),
        })
        .collect();
    let value: tree_buf::Value = decode(&encode(&readings)).unwrap();
    let again: Vec<Reading> = decode(&encode(&value)).unwrap();
    assert_eq!(again, readings);
}

#[test]
fn a_value_reads_as_an_option_of_it() {
    reads_as(&5u32, Some(5u32));
    reads_as(&5u32, Some(5u64));
    reads_as(&"x", Some("x".to_string()));
    reads_as(&StatusV1::Sold(1), Some(StatusV2::Sold(1)));
}

#[derive(Encode, Debug, Clone)]
struct Wide {
    id: u64,
    ratio: f64,
}

#[derive(Decode, Debug, PartialEq, Clone)]
struct Narrow {
    id: u8,
    ratio: f32,
}

#[derive(Decode, Debug, PartialEq, Clone)]
struct NarrowId {
    id: u8,
}

#[test]
fn lossy_reads_are_errors_naming_the_path_and_both_types() {
    mismatch::<_, f32>(&0.1f64, "", &["f64", "f32", "0.1"]);
    mismatch::<_, u8>(&300u64, "", &["u64", "u8", "300"]);
    mismatch::<_, u32>(&-1i32, "", &["i32", "u32", "-1"]);
    mismatch::<_, i8>(&u128::MAX, "", &["u128", "i8"]);
    let wide = Wide { id: 1, ratio: 0.1 };
    mismatch::<_, Narrow>(&wide, "ratio", &["f64", "f32", "0.1"]);
    let wide = Wide {
        id: 256,
        ratio: 0.1,
    };
    mismatch::<_, NarrowId>(&wide, "id", &["u64", "u8", "256"]);
    // An optional value does not read as a required one.
    mismatch::<_, u32>(&Some(1u32), "", &["option", "u32"]);
}

#[test]
fn a_value_does_not_read_as_a_sequence_of_it_or_another_type() {
    mismatch::<_, Vec<u32>>(&5u32, "", &["u32", "sequence"]);
    mismatch::<_, u32>(&vec![5u32], "", &["sequence", "u32"]);
    mismatch::<_, String>(&5u32, "", &["u32", "string"]);
    mismatch::<_, IdOnly>(&5u32, "", &["u32", "struct IdOnly"]);
    mismatch::<_, StatusV1>(&IdOnly { id: 1 }, "", &["struct", "enum StatusV1"]);
    let old = OrderV1 {
        id: 1,
        price: 2,
        dropped: "x".into(),
    };
    mismatch::<_, DroppedAsNumber>(&old, "dropped", &["string", "u32"]);
}

#[derive(Decode, Debug, Clone)]
#[allow(dead_code)]
struct DroppedAsNumber {
    dropped: u32,
}

mod v1 {
    use super::*;

    #[derive(Encode, Debug, PartialEq)]
    #[allow(non_snake_case)]
    pub struct Order {
        pub orderId: u32,
        pub price: u32,
        pub status: StatusV1,
        pub dropped: String,
    }
}

mod v2 {
    use super::*;

    #[derive(Decode, Debug, PartialEq)]
    pub struct Order {
        pub order_id: u64,
        pub price: Option<u32>,
        pub status: StatusV2,
        pub note: Option<String>,
        #[tree_buf(default)]
        pub tags: Vec<String>,
    }
}

#[test]
fn the_rules_combine_on_nested_data() {
    let old = vec![
        v1::Order {
            orderId: 1,
            price: 10,
            status: StatusV1::Open,
            dropped: "gone".into(),
        },
        v1::Order {
            orderId: 2,
            price: 20,
            status: StatusV1::Sold(3),
            dropped: String::new(),
        },
    ];
    let new: Vec<v2::Order> = decode(&encode(&old)).unwrap();
    assert_eq!(
        new,
        [
            v2::Order {
                order_id: 1,
                price: Some(10),
                status: StatusV2::Open,
                note: None,
                tags: vec![]
            },
            v2::Order {
                order_id: 2,
                price: Some(20),
                status: StatusV2::Sold(3),
                note: None,
                tags: vec![]
            }
        ]
    );
}
