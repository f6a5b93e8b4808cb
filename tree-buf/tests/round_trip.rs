//! Round trips of every supported std type: alone at the root, inside containers, nested,
//! empty, and at its extremes.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::fmt::Debug;
use std::hash::Hash;
use std::marker::PhantomData;
use std::rc::Rc;
use std::sync::Arc;

use tree_buf::{decode, encode, Decode, DecodeErrorKind, DecodeOwned, Encode};

/// An enum holding the value under test in each kind of variant.
#[derive(Encode, Decode, Debug, PartialEq, Clone)]
enum Holder<T> {
    Newtype(T),
    Tuple(u8, T),
    Struct { value: T, more: Vec<T> },
    Unit,
}

#[track_caller]
fn round_trip<T: Encode + DecodeOwned + PartialEq + Debug>(value: T) -> Vec<u8> {
    let bytes = encode(&value);
    let back: T = decode(&bytes).unwrap_or_else(|e| panic!("{value:?}: {e}"));
    assert_eq!(back, value);
    bytes
}

/// Round-trips `value` alone and inside every container but map keys, nested several levels deep.
#[track_caller]
fn everywhere<T: Encode + DecodeOwned + PartialEq + Debug + Clone>(value: T) {
    round_trip(value.clone());
    round_trip(vec![value.clone(), value.clone()]);
    round_trip(Some(value.clone()));
    round_trip(vec![None, Some(value.clone())]);
    round_trip((value.clone(), 1u8, value.clone()));
    round_trip([value.clone(), value.clone(), value.clone()]);
    round_trip(BTreeMap::from([(1u32, value.clone())]));
    round_trip(HashMap::from([(1u32, value.clone()), (2, value.clone())]));
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

/// Round-trips `value` everywhere, and as the key of maps and sets.
#[track_caller]
fn everywhere_and_as_key<T: Encode + DecodeOwned + PartialEq + Debug + Clone + Ord + Hash>(
    value: T,
) {
    everywhere(value.clone());
    round_trip(BTreeMap::from([(value.clone(), 1u32)]));
    round_trip(HashMap::from([(value.clone(), vec![value.clone()])]));
    round_trip(vec![BTreeSet::from([value.clone()]), BTreeSet::new()]);
    round_trip(Some(HashSet::from([value])));
}

#[test]
fn integers_at_their_extremes() {
    everywhere_and_as_key(0u8);
    everywhere_and_as_key(u8::MAX);
    everywhere_and_as_key(u16::MAX);
    everywhere_and_as_key(u32::MAX);
    everywhere_and_as_key(u64::MAX);
    everywhere_and_as_key(u128::MAX);
    everywhere_and_as_key(usize::MAX);
    everywhere_and_as_key(i8::MIN);
    everywhere_and_as_key(i16::MIN);
    everywhere_and_as_key(i32::MIN);
    everywhere_and_as_key(i64::MIN);
    everywhere_and_as_key(i128::MIN);
    everywhere_and_as_key(isize::MIN);
    everywhere_and_as_key(i64::MAX);
    everywhere_and_as_key(-1i32);
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
    everywhere_and_as_key(true);
    everywhere_and_as_key(false);
    everywhere_and_as_key('\u{10FFFF}');
    everywhere_and_as_key('é');
    everywhere_and_as_key(());
    round_trip(vec![(); 1000]);
    round_trip(PhantomData::<String>);
    round_trip(vec![
        true, false, true, true, false, false, false, false, true,
    ]);
}

#[test]
fn strings_of_every_kind() {
    everywhere_and_as_key(String::new());
    everywhere_and_as_key("héllo wörld 🦀".to_string());
    round_trip(Box::<str>::from("boxed"));
    round_trip(Rc::<str>::from("rc"));
    round_trip(Arc::<str>::from("arc"));
    // A `Cow<str>` borrows from the file where its strings are as they are (here, plainly).
    let cows = vec![
        Cow::<str>::Owned("owned".into()),
        Cow::Borrowed(""),
        "cow".into(),
    ];
    let bytes = encode(&cows);
    let back: Vec<Cow<'_, str>> = decode(&bytes).unwrap();
    assert_eq!(back, cows);
    assert!(back.iter().all(|cow| matches!(cow, Cow::Borrowed(_))));
    let borrowed: &str = "a str";
    assert_eq!(decode::<String>(&encode(borrowed)).unwrap(), "a str");
    assert_eq!(decode::<String>(&encode(&&borrowed)).unwrap(), "a str");
}

/// `CompactString` shares the string column: inline (short) and heap (long) values round-trip,
/// and files written with `String` read as `CompactString` and back.
#[cfg(feature = "compact_str")]
#[test]
fn compact_strings_are_strings() {
    use compact_str::CompactString;
    let long = "a name much longer than the twenty-four bytes kept inline";
    everywhere_and_as_key(CompactString::from("ABW"));
    everywhere_and_as_key(CompactString::from(long));
    round_trip(Some(CompactString::default()));
    let names = vec!["Aruba".to_string(), long.to_string(), String::new()];
    let compact: Vec<CompactString> = names.iter().map(CompactString::from).collect();
    assert_eq!(
        decode::<Vec<CompactString>>(&encode(&names)).unwrap(),
        compact
    );
    assert_eq!(decode::<Vec<String>>(&encode(&compact)).unwrap(), names);
    assert_eq!(encode(&compact), encode(&names));
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
fn types_that_cannot_be_keys_everywhere() {
    everywhere(-0.0f64);
    everywhere(f64::MAX);
    everywhere(f32::MIN_POSITIVE);
    everywhere(f64::NEG_INFINITY);
    everywhere(Vec::<u32>::new());
    everywhere(vec![vec![1u16], vec![]]);
    everywhere(VecDeque::from([Some(1i8), None]));
    everywhere(HashMap::<String, Vec<f32>>::new());
    everywhere(HashMap::from([("k".to_string(), vec![1.5f32])]));
    everywhere(BTreeMap::from([(u128::MAX, (i128::MIN, 'x'))]));
    everywhere(HashSet::from([u64::MAX, 0]));
    everywhere(Box::<str>::from("boxed"));
    everywhere(Rc::new(Arc::new(7u8)));
    everywhere(PhantomData::<f64>);
    everywhere(Some(None::<u8>));
    everywhere([0u8; 0]);
    everywhere([[1.5f64; 2]; 2]);
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

/// Tuples and arrays whose items are plain leaves are built from runs of their decoded columns,
/// a sequence at a time; any other item (a string, an option, a tuple in an array) is read one
/// value at a time. Sequences of every length, empty ones between, must each take their own.
#[test]
fn tuples_and_arrays_of_leaves_take_their_own_items() {
    let lengths = [3usize, 0, 1, 17, 0, 250, 2];
    let mut counter = 0u32;
    let mut next = move || {
        counter = counter
            .wrapping_mul(747_796_405)
            .wrapping_add(2_891_336_453);
        counter
    };
    let mut rings = Vec::new();
    for &len in &lengths {
        let ring: Vec<(f64, i32, bool, char)> = (0..len)
            .map(|_| {
                let n = next();
                (f64::from(n) / 7.0, n as i32, n % 3 == 0, 'a')
            })
            .collect();
        rings.push(ring);
    }
    round_trip(rings.clone());
    let arrays: Vec<Vec<[u16; 3]>> = (rings.iter())
        .map(|ring| {
            (ring.iter())
                .map(|&(_, n, _, _)| [n as u16, (n >> 8) as u16, 7])
                .collect()
        })
        .collect();
    round_trip(arrays);
    let mixed: Vec<Vec<(u8, String, Option<u8>)>> = (rings.iter())
        .map(|ring| {
            (ring.iter())
                .map(|&(_, n, flag, _)| (n as u8, n.to_string(), flag.then_some(n as u8)))
                .collect()
        })
        .collect();
    round_trip(mixed);
    let arrays_of_tuples: Vec<Vec<[(u8, f32); 2]>> = (rings.iter())
        .map(|ring| {
            (ring.iter())
                .map(|&(x, n, _, _)| [(n as u8, x as f32), (1, 2.5)])
                .collect()
        })
        .collect();
    round_trip(arrays_of_tuples);
    // Sequences of tuples that are arrays inside tuples.
    round_trip(vec![(vec![[1u8, 2]], vec![(3u64, 4i8)]); 5]);
    // Arrays built one at a time, beside other values: of plain values, from the run of their
    // items; of arrays and of strings, item by item.
    type Record = (u32, [u8; 20], Option<[i16; 2]>, [[u8; 2]; 3], [String; 2]);
    let records: Vec<Record> = (rings.iter())
        .flatten()
        .enumerate()
        .map(|(i, &(_, n, flag, _))| {
            let bytes = n.to_le_bytes();
            (
                n as u32,
                std::array::from_fn(|k| bytes[k % 4] ^ k as u8),
                flag.then_some([n as i16, -(i as i16)]),
                [[bytes[0], 1], [bytes[1], 2], [bytes[2], 3]],
                [n.to_string(), i.to_string()],
            )
        })
        .collect();
    round_trip(records);
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

/// A key that hashes but has no order.
#[derive(Encode, Decode, Debug, PartialEq, Eq, Hash, Clone)]
enum Key {
    Id(i64),
    Name { name: String, alias: Option<String> },
    Pair(u8, [u8; 2]),
}

#[test]
fn hash_containers_take_any_encodable_key() {
    let keys: Vec<Key> = (0..300)
        .map(|i| match i % 3 {
            0 => Key::Id(i - 150),
            1 => Key::Name {
                name: format!("n{i}"),
                alias: (i % 2 == 0).then(|| format!("a{i}")),
            },
            _ => Key::Pair(i as u8, [i as u8, 7]),
        })
        .collect();
    let forward: HashMap<Key, f64> = keys.iter().cloned().map(|k| (k, 0.5)).collect();
    let backward: HashMap<Key, f64> = keys.iter().rev().cloned().map(|k| (k, 0.5)).collect();
    assert_eq!(encode(&forward), encode(&backward));
    round_trip(forward);
    let forward: HashSet<Key> = keys.iter().cloned().collect();
    let backward: HashSet<Key> = keys.iter().rev().cloned().collect();
    assert_eq!(encode(&forward), encode(&backward));
    everywhere(forward);
    // Keys of integers and strings are written in their natural order.
    let map: HashMap<u32, ()> = (0..100).rev().map(|i| (i * 3, ())).collect();
    let keys: Vec<u32> = tree_buf::Reader::new(&encode(&map))
        .unwrap()
        .decode_path("{key}")
        .unwrap();
    assert!(keys.windows(2).all(|pair| pair[0] < pair[1]), "{keys:?}");
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
    assert_eq!(decode::<f32>(&encode(&1.5f64)).unwrap(), 1.5);
    let err = decode::<f32>(&encode(&1.1f64)).unwrap_err();
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

mod marketplace {
    use tree_buf::{Decode, Encode};

    #[derive(Encode, Decode, Debug)]
    pub struct Response<Status> {
        pub data: Data<Status>,
    }

    #[derive(Encode, Decode, Debug)]
    pub struct Data<Status> {
        pub orders: Vec<Order<Status>>,
    }

    #[derive(Encode, Decode, Debug)]
    pub struct Order<Status> {
        pub nft: Option<Nft<Status>>,
    }

    #[derive(Encode, Decode, Debug)]
    pub struct Nft<Status> {
        pub bids: Vec<Bid<Status>>,
    }

    #[derive(Encode, Decode, Debug)]
    pub struct Bid<Status> {
        pub status: Status,
    }
}

#[test]
fn errors_are_thread_safe_values_naming_the_full_path() {
    fn assert_error<E: std::error::Error + std::fmt::Display + Send + Sync + 'static>() {}
    assert_error::<tree_buf::DecodeError>();
    assert_error::<tree_buf::EncodeError>();

    use marketplace::*;
    let response = Response {
        data: Data {
            orders: vec![Order {
                nft: Some(Nft {
                    bids: vec![Bid {
                        status: "open".to_string(),
                    }],
                }),
            }],
        },
    };
    let err = decode::<Response<u8>>(&encode(&response)).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::SchemaMismatch);
    assert_eq!(err.path(), "data.orders.[].nft.bids.[].status");
    assert_eq!(
        err.to_string(),
        "schema mismatch at `data.orders.[].nft.bids.[].status`: the file has string here, the \
         type expects u8"
    );
    let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(err);
    assert!(boxed.to_string().contains("string"));
}

/// A type with 1,728 columns (tuples of 12 tuples of 12 tuples of 12 numbers, each inline in the
/// one above) round-trips on a thread of 768 KiB: its encoder and decoder hold those of all their
/// elements, about a hundred kilobytes, which the frames building and finishing them copy.
#[test]
fn a_wide_type_round_trips_on_a_small_stack() {
    type Twelve<T> = (T, T, T, T, T, T, T, T, T, T, T, T);
    type Wide = Twelve<Twelve<Twelve<u64>>>;
    std::thread::Builder::new()
        .stack_size(768 * 1024)
        .spawn(|| {
            let values: Vec<Wide> = vec![Default::default(); 3];
            round_trip(values);
            round_trip(Some(Box::<Wide>::default()));
        })
        .unwrap()
        .join()
        .unwrap();
}
