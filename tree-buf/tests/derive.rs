//! The derive on every shape of type, with generics, lifetimes and attributes. Reading files
//! written by another version of a type is in `evolution.rs`.
//!
//! `forbid(unsafe_code)` shows that crates which forbid `unsafe` can derive: the lint does not
//! reach the derive's `unsafe impl`.
#![forbid(unsafe_code)]

use std::fmt::Debug;
use std::marker::PhantomData;

use tree_buf::{decode, encode, Decode, DecodeOwned, Encode};

#[track_caller]
fn round_trip<T: Encode + DecodeOwned + PartialEq + Debug>(value: T) {
    let back: T = decode(&encode(&value)).unwrap_or_else(|e| panic!("{value:?}: {e}"));
    assert_eq!(back, value);
}

#[derive(Encode, Decode, Debug, PartialEq, Clone, Default)]
struct Named {
    id: u64,
    label: String,
    tags: Vec<String>,
    score: Option<f32>,
}

#[derive(Encode, Decode, Debug, PartialEq)]
struct Pair(i32, String);

#[derive(Encode, Decode, Debug, PartialEq)]
struct Meters(f64);

#[derive(Encode, Decode, Debug, PartialEq)]
struct Marker;

#[derive(Encode, Decode, Debug, PartialEq)]
struct Empty {}

#[derive(Encode, Decode, Debug, PartialEq)]
enum Shape {
    Empty,
    Circle(f64),
    Rect(f64, f64),
    Polygon {
        points: Vec<(i32, i32)>,
        closed: bool,
    },
    Braces {},
    Parens(),
}

#[derive(Encode, Decode, Debug, PartialEq)]
enum Maybe {
    None,
    Some(u8),
}

#[test]
fn every_struct_and_enum_shape() {
    round_trip(Named {
        id: 1,
        label: "one".into(),
        tags: vec!["a".into()],
        score: Some(0.5),
    });
    round_trip(vec![Named::default(); 3]);
    round_trip(Pair(-4, "four".into()));
    round_trip(vec![Meters(1.5), Meters(-0.0)]);
    round_trip(Marker);
    round_trip(vec![Marker, Marker]);
    round_trip(Empty {});
    round_trip(vec![
        Shape::Empty,
        Shape::Circle(2.0),
        Shape::Rect(1.0, 2.0),
        Shape::Polygon {
            points: vec![(0, 0), (1, 1)],
            closed: true,
        },
        Shape::Braces {},
        Shape::Parens(),
        Shape::Circle(3.0),
    ]);
    round_trip(vec![Maybe::None, Maybe::Some(3), Maybe::None]);
    round_trip(Shape::Polygon {
        points: vec![],
        closed: false,
    });
}

#[test]
fn newtypes_are_transparent() {
    assert_eq!(encode(&Meters(2.5)), encode(&2.5f64));
    assert_eq!(decode::<f64>(&encode(&Meters(2.5))).unwrap(), 2.5);
    assert_eq!(decode::<Meters>(&encode(&2.5f64)).unwrap(), Meters(2.5));
}

#[derive(Encode, Decode, Debug, PartialEq)]
struct Wrapper<T> {
    items: Vec<T>,
    first: Option<T>,
}

#[derive(Encode, Decode, Debug, PartialEq)]
struct Tree<T> {
    value: T,
    children: Vec<Tree<T>>,
}

#[derive(Encode, Decode, Debug, PartialEq)]
struct Grid<const N: usize> {
    cells: [[u8; N]; N],
}

#[derive(Encode, Decode, Debug, PartialEq)]
struct Tagged<T, U> {
    value: T,
    #[tree_buf(skip)]
    cache: Option<U>,
    kind: PhantomData<U>,
}

#[derive(Encode, Decode, Debug, PartialEq)]
struct Bounded<T>
where
    T: Clone,
{
    value: T,
}

#[test]
fn generics_and_const_generics() {
    round_trip(Wrapper {
        items: vec![1u8, 2],
        first: Some(1),
    });
    round_trip(Wrapper {
        items: vec!["x".to_string()],
        first: None,
    });
    round_trip(Tree {
        value: "root".to_string(),
        children: vec![
            Tree {
                value: "leaf".into(),
                children: vec![],
            },
            Tree {
                value: "branch".into(),
                children: vec![Tree {
                    value: "deep".into(),
                    children: vec![],
                }],
            },
        ],
    });
    round_trip(Grid {
        cells: [[1, 2], [3, 4]],
    });
    round_trip(Tagged::<u32, String> {
        value: 5,
        cache: None,
        kind: PhantomData,
    });
    round_trip(Bounded { value: 9u16 });
}

#[derive(Encode)]
struct Borrowed<'a> {
    name: &'a str,
    values: &'a [u32],
    nested: Option<&'a Borrowed<'a>>,
}

#[derive(Decode, Debug, PartialEq)]
struct Owned {
    name: String,
    values: Vec<u32>,
    nested: Option<Box<Owned>>,
}

#[test]
fn borrowed_types_encode_and_read_into_owned_twins() {
    let inner = Borrowed {
        name: "inner",
        values: &[1],
        nested: None,
    };
    let outer = Borrowed {
        name: "outer",
        values: &[2, 3],
        nested: Some(&inner),
    };
    let owned: Owned = decode(&encode(&outer)).unwrap();
    assert_eq!(
        owned,
        Owned {
            name: "outer".into(),
            values: vec![2, 3],
            nested: Some(Box::new(Owned {
                name: "inner".into(),
                values: vec![1],
                nested: None
            }))
        }
    );
}

#[derive(Encode, Decode, Debug, PartialEq)]
struct Node {
    label: String,
    children: Vec<Node>,
}

#[derive(Encode, Decode, Debug, PartialEq)]
struct List {
    value: u32,
    next: Option<Box<List>>,
}

fn list(len: u32) -> List {
    let mut list = List {
        value: 0,
        next: None,
    };
    for value in 1..len {
        list = List {
            value,
            next: Some(Box::new(list)),
        };
    }
    list
}

#[test]
fn recursive_types_share_their_paths_at_every_depth() {
    let tree = Node {
        label: "a".into(),
        children: vec![Node {
            label: "b".into(),
            children: vec![Node {
                label: "c".into(),
                children: vec![],
            }],
        }],
    };
    round_trip(tree);
    round_trip(list(100));
    let paths = |len: u32| {
        let bytes = encode(&list(len));
        let schema = tree_buf::Reader::new(&bytes).unwrap().schema();
        schema
            .iter()
            .map(|node| node.path.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(paths(3), ["", "value", "next", "next"]);
    assert_eq!(paths(3), paths(100));
}

#[test]
fn deep_recursive_values_round_trip() {
    // Far past the schema's depth limit: the depth is the data's, not the schema's.
    let deep = list(10_000);
    let bytes = encode(&deep);
    let back: List = decode(&bytes).unwrap();
    let (mut expected, mut got) = (Some(Box::new(deep)), Some(Box::new(back)));
    // Compared and dropped a level at a time: the derived ones recurse.
    while let (Some(mut a), Some(mut b)) = (expected, got) {
        assert_eq!(a.value, b.value);
        (expected, got) = (a.next.take(), b.next.take());
        assert_eq!(expected.is_some(), got.is_some());
    }
}

#[derive(Encode, Decode, Debug, PartialEq, Default)]
struct Attributes {
    #[tree_buf(rename = "identifier")]
    id: u32,
    #[tree_buf(skip)]
    scratch: Vec<u8>,
    #[tree_buf(default)]
    added_later: String,
    r#type: u8,
}

#[test]
fn rename_skip_and_default() {
    let value = Attributes {
        id: 7,
        scratch: vec![1, 2, 3],
        added_later: "x".into(),
        r#type: 2,
    };
    let bytes = encode(&value);
    let back: Attributes = decode(&bytes).unwrap();
    assert_eq!(
        back,
        Attributes {
            scratch: vec![],
            ..value
        }
    );
    let schema = tree_buf::Reader::new(&bytes).unwrap().schema();
    assert!(schema.find("identifier").is_some());
    assert!(schema.find("type").is_some());
    assert!(schema.find("scratch").is_none());
}

#[derive(Encode, Decode, Debug, PartialEq)]
#[allow(non_camel_case_types)]
enum Keyword {
    r#type,
    r#struct(u8),
}

#[derive(Encode, Decode, Debug, PartialEq)]
struct Token {
    r#kind: Keyword,
}

#[test]
fn raw_identifiers_are_written_without_their_prefix() {
    let tokens = vec![
        Token {
            kind: Keyword::r#type,
        },
        Token {
            kind: Keyword::r#struct(1),
        },
    ];
    let bytes = encode(&tokens);
    assert_eq!(decode::<Vec<Token>>(&bytes).unwrap(), tokens);
    let schema = tree_buf::Reader::new(&bytes).unwrap().schema();
    assert!(schema.find("[].kind.type").is_some());
    assert!(schema.find("[].kind.struct").is_some());
}

#[derive(Encode, Decode, Debug, PartialEq, Clone)]
struct Reading {
    at: u64,
    label: String,
    value: f64,
    #[tree_buf(skip)]
    cache: u8,
    flag: bool,
    spare: Option<u16>,
    pair: (i8, u32),
}

/// What a later version of `Reading` reads: a field the file lacks, and one of its own order.
#[derive(Decode, Debug, PartialEq)]
struct ReadingLater {
    #[tree_buf(default)]
    unit: String,
    value: f64,
    at: u64,
}

#[derive(Encode, Decode, Debug, PartialEq)]
struct Sample(u32, Meters, String);

/// Sequences of structs are built a sequence at a time: every sequence, empty ones too, takes its
/// own values of each field, and a field the file lacks reads as its default in each.
#[test]
fn sequences_of_structs_take_their_own_fields() {
    let lengths = [2usize, 0, 5, 1, 0, 130, 3];
    let groups: Vec<Vec<Reading>> = (lengths.iter().enumerate())
        .map(|(group, &len)| {
            (0..len)
                .map(|i| {
                    let n = (group * 1000 + i) as u64;
                    Reading {
                        at: n * 7,
                        label: format!("r{n}"),
                        value: n as f64 / 3.0,
                        cache: 0,
                        flag: n.is_multiple_of(2),
                        spare: n.is_multiple_of(3).then_some(n as u16),
                        pair: (n as i8, n as u32 * 3),
                    }
                })
                .collect()
        })
        .collect();
    let bytes = encode(&groups);
    assert_eq!(decode::<Vec<Vec<Reading>>>(&bytes).unwrap(), groups);
    let later: Vec<Vec<ReadingLater>> = decode(&bytes).unwrap();
    let expected: Vec<Vec<ReadingLater>> = (groups.iter())
        .map(|group| {
            (group.iter())
                .map(|r| ReadingLater {
                    unit: String::new(),
                    value: r.value,
                    at: r.at,
                })
                .collect()
        })
        .collect();
    assert_eq!(later, expected);
    let samples: Vec<Vec<Sample>> = (lengths.iter())
        .map(|&len| {
            (0..len as u32)
                .map(|i| Sample(i, Meters(f64::from(i) / 2.0), i.to_string()))
                .collect()
        })
        .collect();
    let bytes = encode(&samples);
    assert_eq!(decode::<Vec<Vec<Sample>>>(&bytes).unwrap(), samples);
}
