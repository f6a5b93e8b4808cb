//! Round-trips values of deeply nested types: sequences 32 levels deep, and options, maps,
//! arrays and enums nested within each other. Every level is a node of the schema and a branch
//! of the file, so the bytes grow with the depth, not with the values' count of wrappers.
//!
//! It is also a check on the build: each level of a nested type is a type of its own, and an
//! optimized build once took time exponential in the depth (a type 16 levels deep took many
//! minutes). CI builds this example with `--release` under a time limit.
//!
//! Run with `cargo run --release -p tree-buf --example nested`.

use std::collections::BTreeMap;

use tree_buf::prelude::*;

#[macro_use]
#[path = "../tests/support/nested.rs"]
mod nested_types;

/// 32 levels.
macro_rules! deep {
    ($kind:ident $inner:tt) => {
        nested!($kind $inner; a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a a)
    };
}

/// A level of a tree of mixed containers: each holds the level below in another way.
#[derive(Encode, Decode, Debug, Clone, PartialEq)]
enum Shape<T> {
    Empty,
    One(T),
    Keyed(BTreeMap<String, T>),
    Pair([T; 2]),
}

type Mixed = Option<Shape<Vec<Option<Shape<BTreeMap<u8, Shape<Vec<Option<[u16; 3]>>>>>>>>>;

fn mixed(seed: u16) -> Mixed {
    let leaf = |n: u16| Shape::One(vec![Some([n, n + 1, n + 2]), None]);
    let middle = |n: u16| BTreeMap::from([(1, leaf(n)), (2, Shape::Empty)]);
    Some(Shape::Pair([
        vec![Some(Shape::One(middle(seed))), None],
        vec![Some(Shape::Keyed(BTreeMap::from([(
            String::from("k"),
            middle(seed + 10),
        )])))],
    ]))
}

/// What the 32 levels of `Vec` hold.
type Leaf = Vec<u64>;

fn main() {
    let leaf: Leaf = vec![1, 2, 3];
    let deep: deep!(type Leaf) = deep!(value leaf);
    let bytes = encode(&deep);
    let back: deep!(type Leaf) = decode(&bytes).expect("decodes");
    assert_eq!(back, deep);
    println!("Vec nested 33 levels deep: {} bytes", bytes.len());

    let values: Vec<Mixed> = (0..100).map(|n| mixed(n * 3)).collect();
    let bytes = encode(&values);
    let back: Vec<Mixed> = decode(&bytes).expect("decodes");
    assert_eq!(back, values);
    println!("100 trees of mixed containers: {} bytes", bytes.len());
}
