//! `#[tree_buf(crate = "...")]` in a crate that knows tree-buf only as `tb` (renamed in
//! `Cargo.toml`) and reaches it through a re-export, as a crate wrapping tree-buf would. Here
//! `::tree_buf` does not resolve, so any generated path that ignored the attribute would not
//! compile.

use std::marker::PhantomData;

mod reexport {
    pub use tb as runtime;
}

use reexport::runtime::{decode, encode, Decode, DecodeOwned, Encode};

#[derive(Encode, Decode, Debug, PartialEq)]
#[tree_buf(crate = "reexport::runtime")]
struct Order<T> {
    id: u64,
    #[tree_buf(rename = "lines")]
    items: Vec<T>,
    #[tree_buf(default)]
    note: String,
    #[tree_buf(skip)]
    cache: Option<u32>,
}

#[derive(Encode, Decode, Debug, PartialEq)]
#[tree_buf(crate = "crate::reexport::runtime")]
struct Pair(u8, String);

#[derive(Encode, Decode, Debug, PartialEq)]
#[tree_buf(crate = "reexport::runtime")]
struct Meters(f64);

#[derive(Encode, Decode, Debug, PartialEq)]
#[tree_buf(crate = "reexport::runtime")]
struct Marker;

#[derive(Encode, Decode, Debug, PartialEq)]
#[tree_buf(crate = "reexport::runtime", bound = "T: Encode + DecodeOwned")]
enum Event<T> {
    Start,
    Value(T),
    Moved { from: (i32, i32), to: (i32, i32) },
    Tagged(#[tree_buf(skip)] PhantomData<T>, Marker),
}

mod nested {
    use super::reexport::runtime::{Decode, Encode};

    /// Relative paths resolve where the type is defined.
    #[derive(Encode, Decode, Debug, PartialEq)]
    #[tree_buf(crate = "super::reexport::runtime")]
    pub struct Inner {
        pub meters: super::Meters,
    }
}

#[track_caller]
fn round_trip<T: Encode + DecodeOwned + PartialEq + std::fmt::Debug>(value: T) {
    let back: T = decode(&encode(&value)).unwrap();
    assert_eq!(back, value);
}

#[test]
fn derives_reach_tree_buf_through_the_crate_path() {
    round_trip(vec![
        Order {
            id: 1,
            items: vec!["a".to_owned()],
            note: "n".into(),
            cache: None,
        },
        Order {
            id: 2,
            items: vec![],
            note: String::new(),
            cache: None,
        },
    ]);
    round_trip(vec![Pair(1, "one".into()), Pair(2, "two".into())]);
    round_trip(Meters(1.5));
    round_trip(vec![Marker, Marker]);
    round_trip(vec![
        Event::Start,
        Event::Value(3u8),
        Event::Moved {
            from: (0, 0),
            to: (1, -1),
        },
        Event::Tagged(PhantomData, Marker),
    ]);
    round_trip(nested::Inner {
        meters: Meters(2.0),
    });
}
