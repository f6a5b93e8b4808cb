//! `Buffer` writes exactly the bytes of the free functions, whatever it encoded before, and
//! decodes what they decode.

// `nested!` (in `support/nested.rs`) nests a type and a value once per token it is given.
#![recursion_limit = "1024"]

use std::collections::HashMap;
use std::fmt::Debug;

use tree_buf::{
    decode, encode_with_options, Buffer, Decode, DecodeErrorKind, DecodeOptions, DecodeOwned,
    Encode, EncodeErrorKind, EncodeOptions, Preference, Value,
};

#[macro_use]
#[path = "support/nested.rs"]
mod nested_types;

#[derive(Encode, Decode, Debug, PartialEq, Clone)]
struct Reading {
    station: String,
    at: u64,
    celsius: f64,
    wind: Option<f32>,
    tags: Vec<String>,
    kind: Kind,
}

#[derive(Encode, Decode, Debug, PartialEq, Clone)]
enum Kind {
    Manual,
    Automatic { sensor: u16 },
    Relayed(String, i8),
}

fn readings(n: usize) -> Vec<Reading> {
    (0..n)
        .map(|i| Reading {
            station: format!("ST{:03}", i % 17),
            at: 1_700_000_000 + 60 * i as u64,
            celsius: -5.0 + (i % 40) as f64 * 0.25,
            wind: (i % 3 != 0).then_some(i as f32 / 7.0),
            tags: (0..i % 4).map(|t| format!("t{t}")).collect(),
            kind: match i % 3 {
                0 => Kind::Manual,
                1 => Kind::Automatic { sensor: i as u16 },
                _ => Kind::Relayed(format!("via{}", i % 5), -(i as i8 % 100)),
            },
        })
        .collect()
}

fn options() -> [EncodeOptions; 4] {
    let default = EncodeOptions::default();
    [
        default.clone(),
        default.clone().prefer(Preference::Faster),
        default.clone().prefer(Preference::Smaller),
        default.lossy_float_tolerance(-12),
    ]
}

/// Encodes `value` through `buffer` under every option set, checking the bytes against the free
/// function's and the round trip.
#[track_caller]
fn same_bytes<T: Encode + DecodeOwned + PartialEq + Debug>(buffer: &mut Buffer, value: &T) {
    for options in options() {
        let expected = encode_with_options(value, &options).unwrap();
        let bytes = buffer
            .encode_with_options(value, &options)
            .unwrap()
            .to_vec();
        assert_eq!(bytes, expected, "{options:?}");
    }
    let bytes = buffer.encode(value).to_vec();
    assert_eq!(buffer.decode::<T>(&bytes).unwrap(), *value);
}

#[test]
fn writes_the_bytes_of_encode_for_every_kind_of_value() {
    let mut buffer = Buffer::new();
    same_bytes(&mut buffer, &readings(300));
    same_bytes(&mut buffer, &"a string".to_owned());
    same_bytes(
        &mut buffer,
        &vec![1.5f64, -0.0, f64::INFINITY, 1e300, f64::MIN_POSITIVE],
    );
    same_bytes(
        &mut buffer,
        &vec![vec![vec![1u8, 2], vec![]], vec![vec![3]]],
    );
    same_bytes(
        &mut buffer,
        &HashMap::from([("b".to_owned(), 2u32), ("a".to_owned(), 1)]),
    );
    same_bytes(&mut buffer, &Kind::Relayed("x".into(), 3));
    same_bytes(&mut buffer, &());
    same_bytes(&mut buffer, &Vec::<Reading>::new());
    let value = Value::Array(vec![
        Value::Unsigned(1),
        Value::Object(vec![("two".into(), Value::Float(2.5))]),
    ]);
    same_bytes(&mut buffer, &value);
}

#[test]
fn a_value_after_a_larger_one_gets_its_own_bytes() {
    let mut buffer = Buffer::new();
    // Large enough for its branches to be encoded on several threads.
    same_bytes(
        &mut buffer,
        &(0..300_000u32)
            .map(|i| i.wrapping_mul(i))
            .collect::<Vec<_>>(),
    );
    for n in [2_000, 3, 0, 500, 1, 2_000, 40] {
        same_bytes(&mut buffer, &readings(n));
        // A value of another shape, with fewer branches than the buffer has kept.
        same_bytes(&mut buffer, &vec![n as u32; n % 7]);
    }
}

/// A type whose schema nests past [`tree_buf::MAX_DEPTH`]: 260 levels of `Vec`.
macro_rules! too_deep {
    ($kind:ident $inner:tt) => {
        nested!($kind $inner;
            a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a
            a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a
            a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a
            a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a
            a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a
            a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a
            a a a a a a a a a a a a a a a a a a a a)
    };
}

#[test]
fn a_failed_call_leaves_the_buffer_usable() {
    let deep: too_deep!(type u8) = too_deep!(value 7u8);
    let mut buffer = Buffer::new();
    same_bytes(&mut buffer, &readings(50));
    let error = buffer
        .encode_with_options(&deep, &EncodeOptions::default())
        .unwrap_err();
    assert_eq!(error.kind(), EncodeErrorKind::DepthLimit);
    same_bytes(&mut buffer, &readings(20));

    let mut bytes = buffer.encode(&readings(20)).to_vec();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    let error = buffer.decode::<Vec<Reading>>(&bytes).unwrap_err();
    assert_eq!(error.kind(), DecodeErrorKind::Corrupt);
    bytes[last] ^= 1;
    assert_eq!(buffer.decode::<Vec<Reading>>(&bytes).unwrap(), readings(20));
}

#[test]
fn decodes_files_of_changing_schemas() {
    let mut buffer = Buffer::new();
    let readings_file = tree_buf::encode(&readings(30));
    let numbers_file = tree_buf::encode(&vec![1u64, 2, 3]);
    for _ in 0..2 {
        assert_eq!(
            buffer.decode::<Vec<Reading>>(&readings_file).unwrap(),
            readings(30)
        );
        assert_eq!(buffer.decode::<Vec<u64>>(&numbers_file).unwrap(), [1, 2, 3]);
        // The same schema read as another type: the type's own checks still apply.
        let error = buffer.decode::<Vec<bool>>(&numbers_file).unwrap_err();
        assert_eq!(error.kind(), DecodeErrorKind::SchemaMismatch);
        let options = DecodeOptions::default().verify_checksums(false);
        assert_eq!(
            buffer
                .decode_with_options::<Vec<u32>>(&numbers_file, &options)
                .unwrap(),
            decode::<Vec<u32>>(&numbers_file).unwrap()
        );
    }
}

#[test]
fn is_send() {
    fn send<T: Send>(_: T) {}
    send(Buffer::new());
}
