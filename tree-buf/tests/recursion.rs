//! Recursive types at any depth: every depth in one set of branches, a schema the size of the
//! type, and neither encoding nor decoding recursing on the data.

use std::collections::BTreeMap;

use tree_buf::prelude::*;
use tree_buf::{decode_with_options, DecodeErrorKind, DecodeOptions, NodeType, Reader, SchemaNode};

#[derive(Encode, Decode, Debug, PartialEq, Clone)]
enum List {
    Nil,
    Cons(i64, Box<List>),
}

impl List {
    fn of(values: impl DoubleEndedIterator<Item = i64>) -> List {
        values
            .rev()
            .fold(List::Nil, |tail, value| List::Cons(value, Box::new(tail)))
    }

    /// The values, read without recursion.
    fn values(&self) -> Vec<i64> {
        let mut values = Vec::new();
        let mut at = self;
        while let List::Cons(value, next) = at {
            values.push(*value);
            at = next;
        }
        values
    }
}

impl Drop for List {
    // Unlinks the tail first, so that dropping a long list does not recurse.
    fn drop(&mut self) {
        let mut next = match self {
            List::Cons(_, next) => std::mem::replace(&mut **next, List::Nil),
            List::Nil => return,
        };
        while let List::Cons(_, tail) = &mut next {
            let tail = std::mem::replace(&mut **tail, List::Nil);
            next = tail;
        }
    }
}

#[derive(Encode, Decode, Debug, PartialEq, Clone, Default)]
struct Tree {
    label: String,
    weight: u32,
    children: Vec<Tree>,
}

#[derive(Encode, Decode, Debug, PartialEq, Clone)]
enum Json {
    Null,
    Number(f64),
    Text(String),
    Array(Vec<Json>),
    Object(BTreeMap<String, Json>),
}

#[derive(Encode, Decode, Debug, PartialEq, Clone)]
enum Expr {
    Number(i64),
    Add(Box<Expr>, Box<Expr>),
    Block(Vec<Stmt>),
}

#[derive(Encode, Decode, Debug, PartialEq, Clone)]
enum Stmt {
    Let(String, Box<Expr>),
    Loop(Vec<Stmt>),
    Print(Expr),
}

fn round_trip<T: Encode + DecodeOwned + PartialEq + std::fmt::Debug>(value: &T) -> Vec<u8> {
    let bytes = encode(value);
    assert_eq!(&decode::<T>(&bytes).unwrap(), value);
    bytes
}

/// The number of schema nodes of a file.
fn schema_nodes(bytes: &[u8]) -> usize {
    fn count(node: &SchemaNode) -> usize {
        1 + node.children.iter().map(count).sum::<usize>()
    }
    count(&Reader::new(bytes).unwrap().schema())
}

#[test]
fn lists_of_every_length_round_trip_with_one_schema() {
    let mut sizes = Vec::new();
    for len in [0, 1, 2, 3, 10, 300] {
        let list = List::of(0..len);
        let bytes = round_trip(&list);
        sizes.push(schema_nodes(&bytes));
        assert_eq!(
            decode::<List>(&bytes).unwrap().values(),
            (0..len).collect::<Vec<_>>()
        );
    }
    // Nil alone has no recursion; every longer list the same schema.
    assert!(
        sizes[1..].windows(2).all(|pair| pair[0] == pair[1]),
        "{sizes:?}"
    );
}

#[test]
fn trees_round_trip() {
    fn tree(depth: u32, fanout: u32) -> Tree {
        Tree {
            label: format!("node {depth}/{fanout}"),
            weight: depth * 7 + fanout,
            children: match depth {
                0 => Vec::new(),
                _ => (0..fanout)
                    .map(|i| tree(depth - 1, (fanout + i) % 4))
                    .collect(),
            },
        }
    }
    for depth in 0..6 {
        round_trip(&tree(depth, 3));
        round_trip(&vec![tree(depth, 2), Tree::default(), tree(depth, 1)]);
    }
}

#[test]
fn json_like_values_round_trip() {
    let value = Json::Object(BTreeMap::from([
        ("a".to_owned(), Json::Number(1.5)),
        (
            "b".to_owned(),
            Json::Array(vec![
                Json::Null,
                Json::Text("x".into()),
                Json::Array(vec![Json::Array(vec![]), Json::Number(-2.0)]),
                Json::Object(BTreeMap::from([("c".to_owned(), Json::Null)])),
            ]),
        ),
    ]));
    round_trip(&value);
    round_trip(&vec![value.clone(), Json::Null, value]);
}

#[test]
fn mutually_recursive_types_round_trip() {
    let program = Expr::Block(vec![
        Stmt::Let(
            "x".into(),
            Box::new(Expr::Add(
                Box::new(Expr::Number(1)),
                Box::new(Expr::Block(vec![Stmt::Print(Expr::Number(2))])),
            )),
        ),
        Stmt::Loop(vec![
            Stmt::Loop(vec![Stmt::Print(Expr::Add(
                Box::new(Expr::Number(3)),
                Box::new(Expr::Number(4)),
            ))]),
            Stmt::Print(Expr::Block(vec![])),
        ]),
    ]);
    round_trip(&program);
}

#[test]
fn the_depth_limit_is_a_clear_error() {
    let bytes = encode(&List::of(0..200));
    let err = decode_with_options::<List>(&bytes, &DecodeOptions::default().depth_limit(100))
        .unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::LimitExceeded);
    assert!(err.to_string().contains("100 levels"), "{err}");
    let list = decode_with_options::<List>(&bytes, &DecodeOptions::default().depth_limit(200));
    assert_eq!(list.unwrap().values(), (0..200).collect::<Vec<_>>());
}

#[test]
fn recursion_nodes_are_in_the_schema() {
    let bytes = encode(&List::of(0..3));
    let schema = Reader::new(&bytes).unwrap().schema();
    fn has_recursion(node: &SchemaNode) -> bool {
        node.node_type == NodeType::Recursion || node.children.iter().any(has_recursion)
    }
    assert!(has_recursion(&schema), "{schema:?}");
}

/// Random programs of mutually recursive types, each built from `seed`, with at most `budget`
/// nodes.
fn program(seed: u64, budget: u32) -> Expr {
    let mut state = seed | 1;
    let mut random = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    fn expr(random: &mut dyn FnMut(u64) -> u64, budget: &mut u32) -> Expr {
        *budget = budget.saturating_sub(1);
        match (*budget, random(3)) {
            (0, _) | (_, 0) => Expr::Number(random(10) as i64),
            (_, 1) => Expr::Add(
                Box::new(expr(random, budget)),
                Box::new(expr(random, budget)),
            ),
            _ => Expr::Block((0..random(3)).map(|_| stmt(random, budget)).collect()),
        }
    }
    fn stmt(random: &mut dyn FnMut(u64) -> u64, budget: &mut u32) -> Stmt {
        *budget = budget.saturating_sub(1);
        match random(3) {
            0 => Stmt::Let(format!("v{}", random(4)), Box::new(expr(random, budget))),
            1 => Stmt::Loop((0..random(3)).map(|_| stmt(random, budget)).collect()),
            _ => Stmt::Print(expr(random, budget)),
        }
    }
    let mut budget = budget;
    expr(&mut random, &mut budget)
}

#[test]
fn random_programs_round_trip() {
    for seed in 0..2_000 {
        round_trip(&program(seed, 1 + (seed % 40) as u32));
    }
    let programs: Vec<Expr> = (0..50).map(|seed| program(seed, 30)).collect();
    round_trip(&programs);
}

/// Runs `test` on a thread with a 2 MiB stack, as a test harness or an async runtime gives.
fn on_small_stack(test: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(test)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn a_million_element_list_round_trips_on_a_small_stack() {
    on_small_stack(|| {
        let len = 1_000_000;
        let list = List::of(0..len);
        let bytes = encode(&list);
        let options = DecodeOptions::default().depth_limit(len as usize);
        let back = decode_with_options::<List>(&bytes, &options).unwrap();
        assert!(back.values().into_iter().eq(0..len));
        // The default limit turns it away.
        let err = decode::<List>(&bytes).unwrap_err();
        assert_eq!(err.kind(), DecodeErrorKind::LimitExceeded);
    });
}

#[test]
fn a_tree_nested_100_000_deep_round_trips_on_a_small_stack() {
    on_small_stack(|| {
        // A path 100,000 deep with a short branch at every level.
        let mut tree = Tree::default();
        for depth in 0..100_000u32 {
            let leaf = Tree {
                label: format!("leaf {depth}"),
                weight: depth,
                children: Vec::new(),
            };
            tree = Tree {
                label: String::new(),
                weight: depth,
                children: vec![leaf, tree],
            };
        }
        let bytes = encode(&tree);
        let back = decode::<Tree>(&bytes).unwrap();
        // Compared and dropped level by level: the derived ones recurse.
        let (mut expected, mut got) = (tree, back);
        loop {
            assert_eq!(expected.label, got.label);
            assert_eq!(expected.weight, got.weight);
            assert_eq!(expected.children.len(), got.children.len());
            match (expected.children.pop(), got.children.pop()) {
                (Some(a), Some(b)) => {
                    assert_eq!(expected.children, got.children);
                    (expected, got) = (a, b);
                }
                _ => break,
            }
        }
    });
}

#[test]
fn archives_of_recursive_rows_round_trip() {
    use tree_buf::archive::{Archive, ArchiveOptions, ArchiveWriter};
    let rows: Vec<Expr> = (0..500).map(|seed| program(seed, 25)).collect();
    let mut bytes = Vec::new();
    let mut writer =
        ArchiveWriter::with_options(&mut bytes, ArchiveOptions::default().chunk_rows(64)).unwrap();
    for row in &rows {
        writer.push(row).unwrap();
    }
    writer.finish().unwrap();
    let archive = Archive::from_bytes(&bytes).unwrap();
    assert_eq!(archive.decode_all::<Expr>().unwrap(), rows);
    assert_eq!(decode::<Vec<Expr>>(&bytes).unwrap(), rows);
    let values = archive.decode_all::<Value>().unwrap();
    assert_eq!(values.len(), rows.len());
}

/// A root with two children, the first of which has one.
fn sample_tree() -> Tree {
    let leaf = |label: &str, weight| Tree {
        label: label.into(),
        weight,
        children: vec![],
    };
    Tree {
        label: "root".into(),
        weight: 1,
        children: vec![
            Tree {
                children: vec![leaf("a1", 3)],
                ..leaf("a", 2)
            },
            leaf("b", 4),
        ],
    }
}

#[test]
fn files_read_as_values_and_by_path() {
    let tree = sample_tree();
    let bytes = encode(&tree);
    // As a `Value`, and back into the type through one.
    let value = decode::<Value>(&bytes).unwrap();
    assert_eq!(decode::<Tree>(&encode(&value)).unwrap(), tree);
    // A path names the values of every depth: a recursive type's paths are its own, shared by
    // all depths, in the order written (each value after those it holds).
    let reader = Reader::new(&bytes).unwrap();
    let labels: Vec<String> = reader.decode_path("label").unwrap();
    assert_eq!(labels, ["a1", "a", "b", "root"]);
    let weights: Vec<u32> = reader.decode_path("weight").unwrap();
    assert_eq!(weights, [3, 2, 4, 1]);
    let err = reader
        .decode_path::<Vec<String>>("children.[].label")
        .unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::PathNotFound);
    assert!(err.to_string().contains("every depth"), "{err}");
    // The type's own node reads its values; a node between it and its recursion nodes does not
    // (its values hold the type's, which only the type's node builds).
    let whole: Vec<Tree> = reader.decode_path("").unwrap();
    assert_eq!(whole, std::slice::from_ref(&tree));
    let err = reader.decode_path::<Vec<Value>>("children").unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::SchemaMismatch);
    // Where the type's node is below the root, the path to it gives the values there.
    let forest = encode(&vec![tree.clone(), Tree::default()]);
    let reader = Reader::new(&forest).unwrap();
    let trees: Vec<Tree> = reader.decode_path("[]").unwrap();
    assert_eq!(trees, [tree, Tree::default()]);
}

#[test]
fn shared_values_are_written_once_per_place_they_are_reached() {
    use std::rc::Rc;
    #[derive(Encode, Decode, Debug, PartialEq)]
    struct Node {
        name: String,
        next: Vec<Rc<Node>>,
    }
    let shared = Rc::new(Node {
        name: "shared".into(),
        next: vec![],
    });
    let graph = Node {
        name: "top".into(),
        next: vec![
            Rc::clone(&shared),
            Rc::new(Node {
                name: "middle".into(),
                next: vec![Rc::clone(&shared)],
            }),
            shared,
        ],
    };
    round_trip(&graph);
}

#[test]
fn recursive_types_read_each_others_files() {
    /// `Tree` without its weights, its children behind pointers.
    #[derive(Decode, Debug, PartialEq)]
    #[allow(clippy::vec_box)] // Boxed on purpose: the writer's children are not.
    struct Labels {
        label: String,
        children: Vec<Box<Labels>>,
    }
    let labels: Labels = decode(&encode(&sample_tree())).unwrap();
    let leaf = |label: &str| {
        Box::new(Labels {
            label: label.into(),
            children: vec![],
        })
    };
    assert_eq!(
        labels,
        Labels {
            label: "root".into(),
            children: vec![
                Box::new(Labels {
                    children: vec![leaf("a1")],
                    ..*leaf("a")
                }),
                leaf("b"),
            ],
        }
    );
    // (Files written one schema level per depth, before format version 6, still read: the
    // golden files of version 1 hold one.)
}

#[test]
fn a_value_field_reads_a_recursive_field() {
    #[derive(Encode)]
    struct Written {
        id: u8,
        body: Box<Json>,
    }
    #[derive(Decode, Debug)]
    struct Read {
        id: u8,
        body: Value,
    }
    let body = Json::Array(vec![Json::Number(1.0), Json::Array(vec![Json::Null])]);
    let read: Read = decode(&encode(&Written {
        id: 7,
        body: Box::new(body),
    }))
    .unwrap();
    assert_eq!(read.id, 7);
    let text = format!("{:?}", read.body);
    assert!(text.contains("Null"), "{text}");
}

#[test]
fn borrowed_recursive_types_encode() {
    #[derive(Encode)]
    struct Borrowed<'a> {
        label: &'a str,
        weight: u32,
        children: Vec<Borrowed<'a>>,
    }
    let names = ["root".to_owned(), "leaf".to_owned()];
    let borrowed = Borrowed {
        label: &names[0],
        weight: 1,
        children: vec![Borrowed {
            label: &names[1],
            weight: 2,
            children: vec![],
        }],
    };
    let owned: Tree = decode(&encode(&borrowed)).unwrap();
    assert_eq!(owned.children[0].label, "leaf");
    assert_eq!(owned.weight + owned.children[0].weight, 3);
}

/// A value nested `depth` levels: arrays, objects (one with a repeated name), maps and
/// variants in turn, with scalars beside them.
fn deep_value(depth: usize) -> Value {
    let mut value = Value::String("bottom".into());
    for level in 0..depth {
        value = match level % 4 {
            0 => Value::Array(vec![Value::Unsigned(level as u128), value, Value::Null]),
            1 => Value::Object(vec![
                ("level".into(), Value::Signed(-(level as i128))),
                ("next".into(), value),
                ("level".into(), Value::Bool(true)),
            ]),
            2 => Value::Map(vec![(Value::Float(level as f64), value)]),
            _ => Value::Variant("wrapped".into(), Box::new(value)),
        };
    }
    value
}

/// Checks that `got` is `expected` read back, level by level (a derived comparison or `Debug`
/// would recurse once per level), and returns how many levels there are below the top. Of a
/// repeated name in an object, the writer keeps the first value.
fn assert_same_levels(expected: Value, got: Value) -> usize {
    let (mut expected, mut got) = (expected, got);
    let mut levels = 0;
    loop {
        let next = |value: &mut Value| -> Option<Value> {
            match value {
                Value::Array(items) => Some(std::mem::take(&mut items[1])),
                Value::Object(entries) => Some(std::mem::take(&mut entries[1].1)),
                Value::Map(entries) => Some(std::mem::take(&mut entries[0].1)),
                Value::Variant(_, content) => Some(std::mem::take(&mut **content)),
                _ => None,
            }
        };
        let (a, b) = (next(&mut expected), next(&mut got));
        if let Value::Object(entries) = &mut expected {
            let mut seen = std::collections::HashSet::new();
            entries.retain(|(name, _)| seen.insert(name.clone()));
        }
        assert_eq!(
            format!("{expected:?}"),
            format!("{got:?}"),
            "at level {levels}"
        );
        match (a, b) {
            (Some(a), Some(b)) => (expected, got) = (a, b),
            (None, None) => return levels,
            _ => panic!("the values differ in depth at level {levels}"),
        }
        levels += 1;
    }
}

#[test]
fn values_nested_10_000_deep_round_trip() {
    on_small_stack(|| {
        let value = deep_value(10_000);
        let bytes = encode(&value);
        let back = decode::<Value>(&bytes).unwrap();
        assert_eq!(assert_same_levels(value, back), 10_000);
        let err = decode_with_options::<Value>(&bytes, &DecodeOptions::default().depth_limit(100))
            .unwrap_err();
        assert_eq!(err.kind(), DecodeErrorKind::LimitExceeded);
    });
}

#[test]
fn json_nested_100_000_levels_round_trips() {
    on_small_stack(|| {
        // What `[[[ ... ]]]` parses to, as deep as the default depth limit lets a file be read
        // (each level is looked at once: an array's kind does not look into arrays within).
        let depth = 100_000;
        let value = (1..depth).fold(Value::Array(vec![]), |inner, _| Value::Array(vec![inner]));
        let back = decode::<Value>(&encode(&value)).unwrap();
        let mut levels = 1;
        let mut at = &back;
        while let Value::Array(items) = at {
            match items.first() {
                Some(item) => at = item,
                None => break,
            }
            levels += 1;
        }
        assert_eq!(levels, depth);
        // Cloning, comparing and printing go as deep, on the thread's small stack.
        let copy = back.clone();
        assert!(copy == back && copy == value);
        let printed = format!("{copy:?}");
        assert_eq!(printed.len(), depth * "Array([])".len());
        for value in [back, value, copy] {
            value.drop_deep();
        }
    });
}

/// An archive of `rows` of `Value`, a chunk per row.
fn archive_of_values(rows: &[Value]) -> Vec<u8> {
    use tree_buf::archive::{ArchiveOptions, ArchiveWriter};
    let options = ArchiveOptions::default().chunk_rows(1);
    let mut writer = ArchiveWriter::<Value, _>::with_options(Vec::new(), options).unwrap();
    for row in rows {
        writer.push(row).unwrap();
    }
    writer.finish().unwrap()
}

/// The rows of an archive of `Value`s.
fn values_of_archive(bytes: &[u8]) -> Vec<Value> {
    (tree_buf::archive::Archive::from_bytes(bytes).unwrap())
        .decode_all::<Value>()
        .unwrap()
}

#[test]
fn archives_whose_first_chunk_nests_deep_take_rows_of_any_depth() {
    on_small_stack(|| {
        let depths = [10_000, 3, 5_000, 0];
        let rows: Vec<Value> = depths.iter().map(|&depth| deep_value(depth)).collect();
        let bytes = archive_of_values(&rows);
        // The first chunk needed recursion nodes, so the archive declares their version.
        assert_eq!(bytes[4], 6);
        let back = values_of_archive(&bytes);
        assert_eq!(back.len(), rows.len());
        for ((row, back), depth) in rows.into_iter().zip(back).zip(depths) {
            assert_eq!(assert_same_levels(row, back), depth);
        }
    });
}

#[test]
fn archives_whose_first_chunk_is_shallow_keep_one_level_per_level() {
    use tree_buf::archive::{Archive, ArchiveWriter};
    // Deeper than the whole values a file of one value writes with recursion nodes, but within
    // the schema's limit.
    let rows = [deep_value(3), deep_value(60)];
    let bytes = archive_of_values(&rows);
    assert_eq!(bytes[4], 4);
    let back = values_of_archive(&bytes);
    for (row, back) in rows.iter().zip(back) {
        assert_same_levels(row.clone(), back);
    }
    // The one-value file of the deep row holds recursion nodes.
    assert_eq!(encode(&rows[1])[4], 6);

    // A later row deeper than the schema's limit is refused, saying why.
    let path = std::env::temp_dir().join(format!(
        "tree-buf-test-{}-shallow-first.tb",
        std::process::id()
    ));
    std::fs::write(&path, &bytes).unwrap();
    let mut writer = ArchiveWriter::<Value>::append(&path).unwrap();
    writer.push(&deep_value(300)).unwrap();
    let err = writer.flush_chunk().unwrap_err();
    let message = err.to_string();
    assert!(message.contains("declares format version 4"), "{message}");
    drop(writer);
    // The archive is as it was, and still takes shallow rows.
    let mut writer = ArchiveWriter::<Value>::append(&path).unwrap();
    writer.push(&deep_value(2)).unwrap();
    writer.finish().unwrap();
    let appended = std::fs::read(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    assert_eq!(appended[4], 4);
    assert_eq!(Archive::from_bytes(&appended).unwrap().rows(), 3);
}

#[test]
fn one_encoder_type_for_several_value_types_recurs_by_both() {
    use std::collections::VecDeque;
    // `SeqEncoder<Node>` takes both `Vec<Node>` and `VecDeque<Node>`, each here behind a
    // pointer, whose encoder is that of what it points to.
    #[derive(Encode, Decode, Debug, PartialEq, Default)]
    #[allow(clippy::box_collection)]
    struct Node {
        value: u8,
        listed: Box<Vec<Node>>,
        queued: Box<VecDeque<Node>>,
    }
    let leaf = |value| Node {
        value,
        ..Node::default()
    };
    let node = Node {
        value: 1,
        listed: Box::new(vec![
            leaf(2),
            Node {
                queued: Box::new(VecDeque::from([leaf(4)])),
                ..leaf(3)
            },
        ]),
        queued: Box::new(VecDeque::from([leaf(5)])),
    };
    round_trip(&node);
}

#[test]
fn recursive_rows_append_only_to_archives_that_declare_recursion() {
    use tree_buf::archive::{Archive, ArchiveError, ArchiveWriter};
    let dir = std::env::temp_dir().join(format!("tree-buf-recursion-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // An archive of rows that do not recur declares version 4: recursive rows are refused.
    let flat = dir.join("flat.tb");
    let mut writer = ArchiveWriter::<u32>::create(&flat).unwrap();
    writer.push(&7).unwrap();
    writer.finish().unwrap();
    match ArchiveWriter::<Expr>::append(&flat) {
        Err(ArchiveError::Decode(error)) => {
            assert_eq!(error.kind(), DecodeErrorKind::UnsupportedVersion, "{error}")
        }
        other => panic!(
            "appending recursive rows to a version 4 archive: {:?}",
            other.err()
        ),
    }
    assert_eq!(
        Archive::open(&flat).unwrap().decode_all::<u32>().unwrap(),
        [7]
    );
    // One of recursive rows declares 6, and takes more.
    let programs = dir.join("programs.tb");
    let rows: Vec<Expr> = (0..6).map(|seed| program(seed, 12)).collect();
    let mut writer = ArchiveWriter::<Expr>::create(&programs).unwrap();
    writer.push(&rows[0]).unwrap();
    writer.finish().unwrap();
    let mut writer = ArchiveWriter::<Expr>::append(&programs).unwrap();
    for row in &rows[1..] {
        writer.push(row).unwrap();
    }
    writer.finish().unwrap();
    assert_eq!(
        Archive::open(&programs)
            .unwrap()
            .decode_all::<Expr>()
            .unwrap(),
        rows
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
