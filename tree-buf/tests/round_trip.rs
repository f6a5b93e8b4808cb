//! Round trips of every supported std type: alone at the root, inside containers, nested,
//! empty, and at its extremes.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::fmt::Debug;
use std::marker::PhantomData;
use std::rc::Rc;
use std::sync::Arc;

use tree_buf::{decode, encode, Decode, DecodeErrorKind, Encode};

/// An enum holding the value under test in each kind of variant.
#[derive(Encode, Decode, Debug, PartialEq, Clone)]
enum Holder<T> {
    Newtype(T),
    Tuple(u8, T),
    Struct { value: T, more: Vec<T> },
    Unit,
}

#[track_caller]
fn round_trip<T: Encode + Decode + PartialEq + Debug>(value: T) -> Vec<u8> {
    let bytes = encode(&value);
    let back: T = decode(&bytes).unwrap_or_else(|e| panic!("{value:?}: {e}"));
    assert_eq!(back, value);
    bytes
}

/// Round-trips `value` alone and inside every container, nested several levels deep.
#[track_caller]
fn everywhere<T: Encode + Decode + PartialEq + Debug + Clone + Ord>(value: T) {
    round_trip(value.clone());
    round_trip(vec![value.clone(), value.clone()]);
    round_trip(Some(value.clone()));
    round_trip(vec![None, Some(value.clone())]);
    round_trip((value.clone(), 1u8, value.clone()));
    round_trip([value.clone(), value.clone(), value.clone()]);
    round_trip(BTreeMap::from([(1u32, value.clone())]));
    round_trip(BTreeMap::from([(value.clone(), 1u32)]));
    round_trip(vec![
        vec![Some(vec![(value.clone(), vec![value.clone()])])],
        vec![],
    ]);
    round_trip(Box::new(VecDeque::from([Some(Box::new(value.clone()))])));
    round_trip(vec![
        Holder::Newtype(value.clone()),
        Holder::Unit,
        Holder::Tuple(7, value.clone()),
        Holder::Struct {
            value: value.clone(),
            more: vec![value.clone(); 2],
        },
    ]);
    // Five and more levels: sequence, option, enum, map, tuple, array.
    round_trip(vec![Some(Holder::Struct {
        value: BTreeMap::from([(0u8, ([value.clone()], vec![Some(value.clone())]))]),
        more: vec![],
    })]);
}

#[test]
fn integers_at_their_extremes() {
    everywhere(0u8);
    everywhere(u8::MAX);
    everywhere(u16::MAX);
    everywhere(u32::MAX);
    everywhere(u64::MAX);
    everywhere(u128::MAX);
    everywhere(usize::MAX);
    everywhere(i8::MIN);
    everywhere(i16::MIN);
    everywhere(i32::MIN);
    everywhere(i64::MIN);
    everywhere(i128::MIN);
    everywhere(isize::MIN);
    everywhere(i64::MAX);
    everywhere(-1i32);
    round_trip(vec![0u64, 1, u64::MAX, 1 << 40, 7]);
    round_trip(vec![i64::MIN, -1, 0, 1, i64::MAX]);
    round_trip((0..1000).map(|i| i * 7919 % 1013).collect::<Vec<u32>>());
}

#[test]
fn floats_are_bit_exact() {
    let specials = [
        0.0f64,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::EPSILON,
        1.5,
    ];
    let nan = f64::from_bits(0x7ff8_dead_beef_0001);
    let bytes = encode(&(specials, nan, -f64::NAN));
    let (back, nan_back, neg_nan): ([f64; 8], f64, f64) = decode(&bytes).unwrap();
    for (a, b) in back.iter().zip(specials) {
        assert_eq!(a.to_bits(), b.to_bits());
    }
    assert_eq!(nan_back.to_bits(), nan.to_bits());
    assert_eq!(neg_nan.to_bits(), (-f64::NAN).to_bits());

    let f32s = vec![
        0.0f32,
        -0.0,
        f32::NAN,
        f32::from_bits(0xffc0_1234),
        f32::INFINITY,
        3.25,
    ];
    let back: Vec<f32> = decode(&encode(&f32s)).unwrap();
    assert_eq!(
        back.iter().map(|f| f.to_bits()).collect::<Vec<_>>(),
        f32s.iter().map(|f| f.to_bits()).collect::<Vec<_>>()
    );
}

#[test]
fn bools_chars_and_units() {
    everywhere(true);
    everywhere(false);
    everywhere('\u{10FFFF}');
    everywhere('é');
    everywhere(());
    round_trip(vec![(); 1000]);
    round_trip(PhantomData::<String>);
    round_trip(vec![
        true, false, true, true, false, false, false, false, true,
    ]);
}

#[test]
fn strings_of_every_kind() {
    everywhere(String::new());
    everywhere("héllo wörld 🦀".to_string());
    round_trip(Box::<str>::from("boxed"));
    round_trip(Rc::<str>::from("rc"));
    round_trip(Arc::<str>::from("arc"));
    round_trip(Cow::<str>::Borrowed("cow"));
    round_trip(vec![Cow::<str>::Owned("owned".into()), Cow::Borrowed("")]);
    let borrowed: &str = "a str";
    assert_eq!(decode::<String>(&encode(borrowed)).unwrap(), "a str");
    assert_eq!(decode::<String>(&encode(&&borrowed)).unwrap(), "a str");
}

#[test]
fn sequences_sets_and_maps() {
    round_trip(Vec::<u32>::new());
    round_trip(vec![Vec::<u32>::new(); 5]);
    round_trip(VecDeque::from([1u16, 2, 3]));
    round_trip(vec![1u8, 2, 3].into_boxed_slice());
    round_trip(BTreeSet::from(["b".to_string(), "a".to_string()]));
    round_trip(HashSet::<i64>::from([-5, 0, 9]));
    round_trip(HashMap::from([
        ("x".to_string(), vec![1.5f64]),
        ("y".to_string(), vec![]),
    ]));
    round_trip(BTreeMap::<u8, BTreeMap<String, Option<bool>>>::new());
    round_trip([[0u8; 3]; 2]);
    round_trip([0u32; 0]);
    round_trip(vec![[1u8; 20], [2u8; 20]]);
    let slice: &[u16] = &[1, 2, 3];
    assert_eq!(decode::<Vec<u16>>(&encode(slice)).unwrap(), [1, 2, 3]);
}

#[test]
fn pointers_and_tuples() {
    round_trip(Box::new(5u8));
    round_trip(Rc::new(vec![Arc::new(1i8)]));
    round_trip((1u8,));
    round_trip((
        1u8,
        2u16,
        3u32,
        4u64,
        5u128,
        6i8,
        7i16,
        8i32,
        9i64,
        10i128,
        'x',
        "twelve".to_string(),
    ));
    round_trip(vec![(1u8, Some(2u8)), (3, None)]);
}

#[test]
fn hash_containers_encode_repeatably() {
    let a: HashMap<String, u32> = (0..100).map(|i| (format!("key{i}"), i)).collect();
    let mut b: HashMap<String, u32> = HashMap::new();
    for i in (0..100).rev() {
        b.insert(format!("key{i}"), i);
    }
    assert_eq!(encode(&a), encode(&b));
    let a: HashSet<u64> = (0..1000).collect();
    let b: HashSet<u64> = (0..1000).rev().collect();
    assert_eq!(encode(&a), encode(&b));
}

#[test]
fn byte_vectors_cost_at_most_one_byte_per_byte() {
    let bytes: Vec<u8> = (0..100_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let encoded = round_trip(bytes.clone());
    assert!(
        encoded.len() <= bytes.len() + 64,
        "{} bytes for {}",
        encoded.len(),
        bytes.len()
    );
    let arrays: Vec<[u8; 20]> = bytes
        .chunks_exact(20)
        .map(|c| c.try_into().unwrap())
        .collect();
    let encoded = round_trip(arrays);
    assert!(
        encoded.len() <= bytes.len() + 64,
        "{} bytes for {}",
        encoded.len(),
        bytes.len()
    );
}

#[test]
fn a_lone_root_value_costs_no_array_overhead() {
    let one = encode(&7u32).len();
    let bigger = encode(&70_000u32).len();
    assert!(bigger <= one + 3, "{one} vs {bigger}");
    assert!(one < 40, "a lone u32 takes {one} bytes");
}

#[test]
fn compressible_honest_data_decodes_with_the_default_limits() {
    round_trip(vec![0u8; 2_000_000]);
    round_trip(vec![0u64; 2_000_000]);
    round_trip(vec![Vec::<u8>::new(); 1_000_000]);
    round_trip(vec![String::new(); 1_000_000]);
}

#[test]
fn integers_widen_and_narrow_only_when_values_fit() {
    assert_eq!(
        decode::<Vec<u64>>(&encode(&vec![1u32, u32::MAX])).unwrap(),
        [1, u64::from(u32::MAX)]
    );
    assert_eq!(
        decode::<Vec<i64>>(&encode(&vec![-1i16, 5])).unwrap(),
        [-1, 5]
    );
    assert_eq!(
        decode::<Vec<u8>>(&encode(&vec![1u64, 255])).unwrap(),
        [1, 255]
    );
    assert_eq!(
        decode::<Vec<i64>>(&encode(&vec![u32::MAX])).unwrap(),
        [i64::from(u32::MAX)]
    );
    let err = decode::<Vec<u8>>(&encode(&vec![1u64, 256])).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::SchemaMismatch);
    assert!(
        err.message().contains("256") && err.message().contains("u64"),
        "{err}"
    );
    let err = decode::<u32>(&encode(&-1i64)).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::SchemaMismatch);
    assert_eq!(decode::<f64>(&encode(&1.5f32)).unwrap(), 1.5);
    let err = decode::<f32>(&encode(&1.5f64)).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::SchemaMismatch);
    assert!(
        err.to_string().contains("f64") && err.to_string().contains("f32"),
        "{err}"
    );
}

#[test]
fn other_types_are_schema_mismatches_naming_both_types() {
    let err = decode::<Vec<String>>(&encode(&vec![1u32])).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::SchemaMismatch);
    assert_eq!(err.path(), "[]");
    assert!(
        err.to_string().contains("u32") && err.to_string().contains("string"),
        "{err}"
    );
    let err = decode::<(u8, u8)>(&encode(&(1u8, 2u8, 3u8))).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::SchemaMismatch);
    let err = decode::<[u8; 4]>(&encode(&[1u8; 3])).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::SchemaMismatch);
    assert_eq!(decode::<[u8; 3]>(&encode(&vec![1u8; 3])).unwrap(), [1; 3]);
    assert_eq!(decode::<Option<u8>>(&encode(&4u8)).unwrap(), Some(4));
    assert_eq!(decode::<Vec<u8>>(&encode(&[9u8; 2])).unwrap(), [9, 9]);
}
