//! Property tests: generated values of representative types round-trip exactly, and valid files
//! with random edits never make decoding panic nor decode, with checksums verified, to a value
//! other than the one written.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Debug;

use proptest::prelude::*;
use tree_buf::{decode, encode, Decode, DecodeOwned, Encode};

#[derive(Encode, Decode, Debug, Clone, PartialEq)]
struct Record {
    id: u64,
    name: String,
    score: Option<i32>,
    tags: Vec<String>,
    flags: [bool; 3],
    position: (i16, u8),
}

#[derive(Encode, Decode, Debug, Clone, PartialEq)]
enum Shape {
    Empty,
    Circle(u32),
    Rect(u16, u16),
    Polygon {
        points: Vec<(i32, i32)>,
        closed: bool,
    },
    None,
    Some(Option<Box<Shape>>),
}

#[derive(Encode, Decode, Debug, Clone, PartialEq)]
struct Tree {
    label: String,
    children: Vec<Tree>,
}

#[derive(Encode, Decode, Debug, Clone, PartialEq)]
struct List {
    value: i64,
    next: Option<Box<List>>,
}

fn record() -> impl Strategy<Value = Record> {
    (
        any::<u64>(),
        ".{0,12}",
        any::<Option<i32>>(),
        prop::collection::vec("[a-c]{0,3}", 0..4),
        any::<[bool; 3]>(),
        any::<(i16, u8)>(),
    )
        .prop_map(|(id, name, score, tags, flags, position)| Record {
            id,
            name,
            score,
            tags,
            flags,
            position,
        })
}

fn shape() -> impl Strategy<Value = Shape> {
    let leaf = prop_oneof![
        Just(Shape::Empty),
        Just(Shape::None),
        any::<u32>().prop_map(Shape::Circle),
        any::<(u16, u16)>().prop_map(|(w, h)| Shape::Rect(w, h)),
        (
            prop::collection::vec(any::<(i32, i32)>(), 0..5),
            any::<bool>()
        )
            .prop_map(|(points, closed)| Shape::Polygon { points, closed }),
    ];
    leaf.prop_recursive(4, 16, 1, |inner| {
        prop::option::of(inner.prop_map(Box::new)).prop_map(Shape::Some)
    })
}

fn tree() -> impl Strategy<Value = Tree> {
    let leaf = "[a-z]{0,4}".prop_map(|label| Tree {
        label,
        children: Vec::new(),
    });
    leaf.prop_recursive(5, 40, 4, |inner| {
        ("[a-z]{0,4}", prop::collection::vec(inner, 0..4))
            .prop_map(|(label, children)| Tree { label, children })
    })
}

fn list() -> impl Strategy<Value = List> {
    prop::collection::vec(any::<i64>(), 1..30).prop_map(|values| {
        let mut list: Option<Box<List>> = None;
        for value in values {
            list = Some(Box::new(List { value, next: list }));
        }
        *list.unwrap_or_else(|| {
            Box::new(List {
                value: 0,
                next: None,
            })
        })
    })
}

/// Rows of an id, a name that follows the id but for a few renamed rows, and an optional copy of
/// the name: the writer may store the names keyed by the ids.
fn people() -> impl Strategy<Value = Vec<(String, String, Option<String>)>> {
    (
        1usize..40,
        prop::collection::vec(".{0,8}", 40),
        prop::collection::vec(
            (
                0usize..40,
                any::<bool>(),
                prop::option::weighted(0.05, ".{0,6}"),
            ),
            0..600,
        ),
    )
        .prop_map(|(distinct, names, rows)| {
            (rows.into_iter())
                .map(|(player, present, renamed)| {
                    let player = player % distinct;
                    let name = renamed.unwrap_or_else(|| names[player].clone());
                    (format!("id{player}"), name.clone(), present.then_some(name))
                })
                .collect()
        })
}

fn round_trips<T: Encode + DecodeOwned + PartialEq + Debug>(
    value: &T,
) -> Result<(), TestCaseError> {
    let back: T = decode(&encode(value)).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(&back, value);
    Ok(())
}

proptest! {
    #[test]
    fn unsigned_and_signed_integers(a in any::<Vec<u64>>(), b in any::<Vec<i32>>(), c in any::<Vec<(u128, i128, i8)>>()) {
        round_trips(&a)?;
        round_trips(&b)?;
        round_trips(&c)?;
    }

    #[test]
    fn floats_bit_for_bit(values in any::<Vec<(f64, f32)>>()) {
        let back: Vec<(f64, f32)> = decode(&encode(&values)).unwrap();
        let bits = |v: &[(f64, f32)]| v.iter().map(|(a, b)| (a.to_bits(), b.to_bits())).collect::<Vec<_>>();
        prop_assert_eq!(bits(&back), bits(&values));
    }

    #[test]
    fn strings_chars_and_options(a in any::<Vec<Option<String>>>(), b in any::<Vec<char>>(), c in any::<Option<Vec<bool>>>()) {
        round_trips(&a)?;
        round_trips(&b)?;
        round_trips(&c)?;
    }

    #[test]
    fn maps_sets_and_arrays(a in any::<BTreeMap<String, Vec<u16>>>(), b in any::<HashSet<i64>>(), c in any::<Vec<[u8; 4]>>()) {
        round_trips(&a)?;
        round_trips(&b)?;
        round_trips(&c)?;
    }

    #[test]
    fn nested_sequences(a in any::<Vec<Vec<Vec<u8>>>>(), b in any::<Vec<Vec<bool>>>()) {
        round_trips(&a)?;
        round_trips(&b)?;
    }

    #[test]
    fn derived_structs(records in prop::collection::vec(record(), 0..20)) {
        round_trips(&records)?;
    }

    #[test]
    fn derived_enums(shapes in prop::collection::vec(shape(), 0..20)) {
        round_trips(&shapes)?;
    }

    #[test]
    fn recursive_types(trees in prop::collection::vec(tree(), 0..4), list in list()) {
        round_trips(&trees)?;
        round_trips(&list)?;
    }

    #[test]
    fn strings_that_follow_other_strings(rows in people()) {
        round_trips(&rows)?;
    }

    #[test]
    fn edited_files_give_errors_or_their_value(
        records in prop::collection::vec(record(), 1..5),
        shapes in prop::collection::vec(shape(), 1..5),
        edits in prop::collection::vec(edit(), 1..4),
    ) {
        edited_file_gives_an_error_or_its_value(&records, &edits)?;
        edited_file_gives_an_error_or_its_value(&shapes, &edits)?;
    }
}

/// A change to a valid file. Random bytes almost never start with the magic number, so they test
/// little beyond it; edits of valid files reach the schema, the branch table and the codecs.
#[derive(Debug, Clone)]
enum Edit {
    FlipBit(usize),
    SetByte(usize, u8),
    Insert(usize, Vec<u8>),
    Remove(usize, usize),
    Truncate(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => any::<usize>().prop_map(Edit::FlipBit),
        2 => any::<(usize, u8)>().prop_map(|(at, byte)| Edit::SetByte(at, byte)),
        1 => (any::<usize>(), prop::collection::vec(any::<u8>(), 1..8))
            .prop_map(|(at, bytes)| Edit::Insert(at, bytes)),
        1 => (any::<usize>(), 1usize..8).prop_map(|(at, len)| Edit::Remove(at, len)),
        1 => any::<usize>().prop_map(Edit::Truncate),
    ]
}

/// Applies `edit`, its positions taken modulo the file's length.
fn apply(bytes: &mut Vec<u8>, edit: &Edit) {
    let len = bytes.len().max(1);
    match edit {
        Edit::FlipBit(bit) if !bytes.is_empty() => {
            let bit = bit % (len * 8);
            bytes[bit / 8] ^= 1 << (bit % 8);
        }
        Edit::SetByte(at, byte) if !bytes.is_empty() => bytes[at % len] = *byte,
        Edit::Insert(at, inserted) => {
            let at = at % (bytes.len() + 1);
            bytes.splice(at..at, inserted.iter().copied());
        }
        Edit::Remove(at, count) if !bytes.is_empty() => {
            let at = at % len;
            bytes.drain(at..(at + count).min(bytes.len()));
        }
        Edit::Truncate(at) => bytes.truncate(at % len),
        _ => {}
    }
}

/// `value` encoded, then edited: with checksums verified it decodes to an error or to `value`;
/// without them, as several types and as a `Value`, it may decode to anything but must not panic.
fn edited_file_gives_an_error_or_its_value<T: Encode + DecodeOwned + PartialEq + Debug>(
    value: &T,
    edits: &[Edit],
) -> Result<(), TestCaseError> {
    let mut bytes = encode(value);
    for edit in edits {
        apply(&mut bytes, edit);
    }
    if let Ok(back) = decode::<T>(&bytes) {
        prop_assert_eq!(&back, value, "an edited file decodes to another value");
    }
    let unchecked = tree_buf::DecodeOptions::default()
        .verify_checksums(false)
        .max_decoded_bytes(1 << 24);
    let _ = tree_buf::decode_with_options::<T>(&bytes, &unchecked);
    let _ = tree_buf::decode_with_options::<Vec<Record>>(&bytes, &unchecked);
    let _ = tree_buf::decode_with_options::<Vec<Shape>>(&bytes, &unchecked);
    let _ = tree_buf::decode_with_options::<Tree>(&bytes, &unchecked);
    let _ = tree_buf::decode_with_options::<BTreeMap<String, Vec<u16>>>(&bytes, &unchecked);
    let _ = tree_buf::decode_with_options::<tree_buf::Value>(&bytes, &unchecked);
    Ok(())
}
