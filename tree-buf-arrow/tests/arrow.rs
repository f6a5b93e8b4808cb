//! Record batches from tree-buf files: every schema node maps to its Arrow type with the values
//! the typed decode reads, projections read only their columns, and the real datasets' tables
//! come out whole.

use std::collections::BTreeMap;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
    UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, UnionMode};
use tree_buf::{encode, Reader};
use tree_buf_arrow::{
    record_batch, record_batch_with, schema, schema_with, ArrowOptions, Error, Selection,
    StringLayout,
};

#[derive(tree_buf::Encode, Clone)]
struct Row {
    flag: bool,
    tiny: u8,
    small: u16,
    medium: u32,
    large: u64,
    huge: u128,
    signed_tiny: i8,
    signed_small: i16,
    signed_medium: i32,
    signed_large: i64,
    signed_huge: i128,
    single: f32,
    double: f64,
    letter: char,
    name: String,
    nothing: (),
    maybe: Option<i32>,
    maybe_maybe: Option<Option<u8>>,
    tags: Vec<String>,
    triple: [u16; 3],
    scores: BTreeMap<String, i64>,
    pair: (i32, String),
    inner: Inner,
    maybe_inner: Option<Inner>,
    color: Color,
    shape: Shape,
}

#[derive(tree_buf::Encode, Clone)]
struct Inner {
    x: f64,
    label: String,
}

#[derive(tree_buf::Encode, Clone)]
enum Color {
    Red,
    Green,
    Blue,
}

#[derive(tree_buf::Encode, Clone)]
enum Shape {
    Point,
    Circle(f32),
    Rectangle { width: u32, height: u32 },
}

fn rows() -> Vec<Row> {
    (0..50u32)
        .map(|i| Row {
            flag: i % 3 == 0,
            tiny: i as u8,
            small: i as u16 * 300,
            medium: i * 70_000,
            large: u64::from(i) << 40,
            huge: u128::from(i) << 100,
            signed_tiny: -(i as i8),
            signed_small: -(i as i16) * 300,
            signed_medium: -(i as i32) * 70_000,
            signed_large: -(i64::from(i) << 40),
            signed_huge: -(i128::from(i) * 10_i128.pow(30)),
            single: i as f32 / 4.0,
            double: f64::from(i) / 8.0,
            letter: ['a', 'é', '日'][i as usize % 3],
            name: format!("row {i}"),
            nothing: (),
            maybe: (i % 4 != 0).then_some(i as i32),
            maybe_maybe: match i % 3 {
                0 => None,
                1 => Some(None),
                _ => Some(Some(i as u8)),
            },
            tags: (0..i % 3).map(|t| format!("tag {t}")).collect(),
            triple: [i as u16, 1, 2],
            scores: (0..i % 2 + 1)
                .map(|k| (format!("k{k}"), i64::from(k)))
                .collect(),
            pair: (i as i32, format!("p{i}")),
            inner: Inner {
                x: f64::from(i),
                label: "in".into(),
            },
            maybe_inner: (i % 2 == 1).then(|| Inner {
                x: 0.5,
                label: format!("maybe {i}"),
            }),
            color: [Color::Red, Color::Green, Color::Blue][i as usize % 3].clone(),
            shape: match i % 3 {
                0 => Shape::Point,
                1 => Shape::Circle(i as f32),
                _ => Shape::Rectangle {
                    width: i,
                    height: 2 * i,
                },
            },
        })
        .collect()
}

fn batch_of(bytes: &[u8], rows_path: &str, projection: Option<&[&str]>) -> RecordBatch {
    let reader = Reader::new(bytes).unwrap();
    let batch = record_batch(&reader, rows_path, projection).unwrap();
    if projection.is_none() {
        assert_eq!(batch.schema(), schema(&reader, rows_path).unwrap());
    }
    batch
}

#[test]
fn every_node_type_maps_to_its_arrow_type_with_its_values() {
    let rows = rows();
    let bytes = encode(&rows);
    let batch = batch_of(&bytes, "", None);
    assert_eq!(batch.num_rows(), rows.len());
    let column = |name: &str| batch.column_by_name(name).unwrap().clone();
    let n = rows.len();

    let flags = column("flag");
    assert_eq!(
        flags.as_boolean().iter().flatten().filter(|&f| f).count(),
        17
    );
    assert_eq!(column("tiny").as_primitive::<UInt8Type>().value(7), 7);
    assert_eq!(column("small").as_primitive::<UInt16Type>().value(7), 2100);
    assert_eq!(
        column("medium").as_primitive::<UInt32Type>().value(7),
        490_000
    );
    assert_eq!(
        column("large").as_primitive::<UInt64Type>().value(7),
        7 << 40
    );
    assert_eq!(column("huge").data_type(), &DataType::FixedSizeBinary(16));
    let huge = column("huge");
    assert_eq!(
        huge.as_fixed_size_binary().value(7),
        (7u128 << 100).to_le_bytes()
    );
    assert_eq!(
        column("signed_tiny").as_primitive::<Int8Type>().value(7),
        -7
    );
    assert_eq!(
        column("signed_small").as_primitive::<Int16Type>().value(7),
        -2100
    );
    assert_eq!(
        column("signed_medium").as_primitive::<Int32Type>().value(7),
        -490_000
    );
    assert_eq!(
        column("signed_large").as_primitive::<Int64Type>().value(7),
        -(7 << 40)
    );
    let signed_huge = column("signed_huge");
    assert_eq!(signed_huge.data_type(), &DataType::Decimal128(38, 0));
    assert_eq!(
        signed_huge.as_primitive::<Decimal128Type>().value(7),
        -7 * 10_i128.pow(30)
    );
    assert_eq!(
        column("single").as_primitive::<Float32Type>().value(7),
        1.75
    );
    assert_eq!(
        column("double").as_primitive::<Float64Type>().value(7),
        0.875
    );
    assert_eq!(column("letter").as_string::<i32>().value(7), "é");
    assert_eq!(column("name").as_string::<i32>().value(49), "row 49");
    assert_eq!(column("nothing").data_type(), &DataType::Null);
    assert_eq!(column("nothing").len(), n);

    let maybe = column("maybe");
    let maybe = maybe.as_primitive::<Int32Type>();
    assert!(maybe.is_null(0) && maybe.is_null(4));
    assert_eq!(maybe.value(5), 5);
    assert_eq!(maybe.null_count(), 13);
    // Nested options: `None` at either level is a null.
    let maybe_maybe = column("maybe_maybe");
    let maybe_maybe = maybe_maybe.as_primitive::<UInt8Type>();
    assert!(maybe_maybe.is_null(0) && maybe_maybe.is_null(1));
    assert_eq!(maybe_maybe.value(2), 2);

    let tags = column("tags");
    let tags = tags.as_list::<i32>();
    assert_eq!(tags.value_length(2), 2);
    assert_eq!(tags.value(2).as_string::<i32>().value(1), "tag 1");
    let triple = column("triple");
    let triple = triple.as_fixed_size_list();
    assert_eq!(triple.value_length(), 3);
    assert_eq!(triple.value(9).as_primitive::<UInt16Type>().value(0), 9);
    let scores = column("scores");
    let scores = scores.as_map();
    assert_eq!(scores.value_length(1), 2);
    assert_eq!(scores.keys().as_string::<i32>().value(2), "k1");
    let pair = column("pair");
    let pair = pair.as_struct();
    assert_eq!(
        pair.column_by_name("1")
            .unwrap()
            .as_string::<i32>()
            .value(3),
        "p3"
    );
    let inner = column("inner");
    let inner = inner.as_struct();
    assert_eq!(
        inner
            .column_by_name("x")
            .unwrap()
            .as_primitive::<Float64Type>()
            .value(3),
        3.0
    );
    let maybe_inner = column("maybe_inner");
    let maybe_inner = maybe_inner.as_struct();
    assert!(maybe_inner.is_null(0) && maybe_inner.is_valid(1));
    let labels = maybe_inner.column_by_name("label").unwrap();
    assert_eq!(labels.as_string::<i32>().value(3), "maybe 3");

    let color = column("color");
    let color = color.as_dictionary::<UInt8Type>();
    let names = color.values().as_string::<i32>();
    let color_of = |row: usize| names.value(color.keys().value(row) as usize);
    assert_eq!(
        (color_of(0), color_of(1), color_of(5)),
        ("red", "green", "blue")
    );

    let shape = column("shape");
    let DataType::Union(fields, UnionMode::Dense) = shape.data_type() else {
        panic!("a dense union, not {}", shape.data_type());
    };
    let names: Vec<&str> = fields
        .iter()
        .map(|(_, field)| field.name().as_str())
        .collect();
    assert_eq!(names, ["point", "circle", "rectangle"]);
    let shape = shape.as_union();
    assert_eq!(shape.type_id(4), 1);
    let circle = shape.value(4);
    assert_eq!(circle.as_primitive::<Float32Type>().value(0), 4.0);
    let rectangle = shape.value(5);
    let rectangle = rectangle.as_struct();
    let width = rectangle.column_by_name("width").unwrap();
    assert_eq!(width.as_primitive::<UInt32Type>().value(0), 5);
}

/// The rows of `bytes` as each string layout reads them, which must be the same values.
fn rows_in_every_layout(bytes: &[u8], rows_path: &str) -> Vec<tree_buf::Value> {
    let reader = Reader::new(bytes).unwrap();
    let layouts = [
        StringLayout::Utf8,
        StringLayout::Utf8View,
        StringLayout::Dictionary,
    ];
    let mut read = layouts.map(|layout| {
        let options = ArrowOptions::default().strings(layout);
        let batch = record_batch_with(&reader, rows_path, &Selection::All, &options).unwrap();
        assert_eq!(
            batch.schema(),
            schema_with(&reader, rows_path, &options).unwrap()
        );
        let strings = (batch.schema().fields().iter())
            .filter(|field| field.data_type() == &layout.data_type())
            .count();
        assert!(strings > 0, "{layout:?} lays out no column");
        tree_buf_arrow::batch_rows(&batch).unwrap()
    });
    let first = std::mem::take(&mut read[0]);
    for (layout, rows) in layouts.iter().zip(&read).skip(1) {
        assert!(rows == &first, "{layout:?} reads other values");
    }
    first
}

#[test]
fn every_string_layout_reads_the_same_values() {
    let rows = rows();
    let read = rows_in_every_layout(&encode(&rows), "");
    assert_eq!(read.len(), rows.len());
    // Strings repeated enough for the file to keep them once each (a dictionary).
    #[derive(tree_buf::Encode)]
    struct Team {
        name: String,
        letter: char,
    }
    let teams: Vec<Team> = (0..2000)
        .map(|i| Team {
            name: ["BOS", "NYA", "a team name past twelve bytes"][i % 3].to_owned(),
            letter: 'x',
        })
        .collect();
    let bytes = encode(&teams);
    let reader = Reader::new(&bytes).unwrap();
    let mut columns = reader.columns().unwrap();
    let stored = columns.strings(columns.find("[].name").unwrap()).unwrap();
    assert_eq!(stored.indices().map(<[u32]>::len), Some(teams.len()));
    let read = rows_in_every_layout(&bytes, "");
    assert_eq!(read.len(), teams.len());
}

#[test]
fn optional_enums_with_data_are_errors_and_empty_arrays_keep_their_rows() {
    #[derive(tree_buf::Encode)]
    enum Value {
        Number(i32),
        Text(String),
    }
    #[derive(tree_buf::Encode)]
    struct Row {
        id: u8,
        value: Option<Value>,
        none: Option<Value>,
        nothing: [u8; 0],
        never: Option<(u8, String)>,
    }
    let rows: Vec<Row> = (0..3)
        .map(|i| Row {
            id: i,
            value: match i {
                0 => Some(Value::Number(7)),
                1 => None,
                _ => Some(Value::Text("x".into())),
            },
            none: None,
            nothing: [],
            never: None,
        })
        .collect();
    let bytes = encode(&rows);
    let reader = Reader::new(&bytes).unwrap();
    // A null in a union would read as a value of one of its variants.
    for column in ["value", "none"] {
        let error = record_batch(&reader, "", Some(&[column])).unwrap_err();
        assert!(matches!(error, Error::Unsupported { .. }), "{error}");
    }
    let batch = record_batch(&reader, "", Some(&["id", "nothing", "never"])).unwrap();
    assert_eq!(batch.num_rows(), 3);
    assert_eq!(batch.column(1).as_fixed_size_list().len(), 3);
    assert_eq!(batch.column(2).null_count(), 3);
}

#[test]
fn an_i128_past_38_digits_is_an_error() {
    let bytes = encode(&vec![(1i128,), (i128::MAX,)]);
    let reader = Reader::new(&bytes).unwrap();
    let error = record_batch(&reader, "", None).unwrap_err();
    assert!(matches!(error, Error::Arrow(_)), "{error}");
    let bytes = encode(&vec![(1i128,), (-(10i128.pow(38)) + 1,)]);
    let batch = batch_of(&bytes, "", None);
    let value = batch.column(0).as_struct().column(0).clone();
    assert_eq!(
        value.as_primitive::<Decimal128Type>().value(1),
        -(10i128.pow(38)) + 1
    );
}

#[test]
fn a_projection_reads_only_its_columns_in_its_order() {
    let bytes = encode(&rows());
    let batch = batch_of(&bytes, "", Some(&["name", "tiny"]));
    assert_eq!(batch.num_columns(), 2);
    assert_eq!(batch.schema().field(0).name(), "name");
    assert_eq!(batch.column(1).as_primitive::<UInt8Type>().value(3), 3);
    // No column at all still counts the rows.
    let empty = batch_of(&bytes, "", Some(&[]));
    assert_eq!((empty.num_columns(), empty.num_rows()), (0, 50));
    let reader = Reader::new(&bytes).unwrap();
    let error = record_batch(&reader, "", Some(&["nowhere"])).unwrap_err();
    assert!(matches!(error, Error::Unsupported { .. }), "{error}");
}

#[test]
fn an_archive_is_a_batch_per_chunk() {
    use tree_buf::archive::{Archive, ArchiveOptions, ArchiveWriter};

    let rows = rows();
    let options = ArchiveOptions::default().chunk_rows(16);
    let mut writer = ArchiveWriter::with_options(Vec::new(), options).unwrap();
    for row in &rows {
        writer.push(row).unwrap();
    }
    let bytes = writer.finish().unwrap();
    let archive = Archive::from_bytes(&bytes).unwrap();
    let batches: Vec<RecordBatch> = tree_buf_arrow::record_batches(&archive, None)
        .collect::<Result<_, _>>()
        .unwrap();
    let lengths: Vec<usize> = batches.iter().map(RecordBatch::num_rows).collect();
    assert_eq!(lengths, [16, 16, 16, 2]);
    // The chunks' rows, one after another, are the rows.
    let names: Vec<String> = (batches.iter())
        .flat_map(|batch| {
            let names = batch
                .column_by_name("name")
                .unwrap()
                .as_string::<i32>()
                .clone();
            names
                .iter()
                .flatten()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect();
    let expected: Vec<String> = rows.iter().map(|row| row.name.clone()).collect();
    assert_eq!(names, expected);
    let shapes = batches[3].column_by_name("shape").unwrap();
    assert_eq!(shapes.as_union().type_id(1), 1, "row 49 is a circle");
}

#[test]
fn rows_of_other_types_and_at_other_paths() {
    #[derive(tree_buf::Encode)]
    struct Collection {
        title: String,
        items: Vec<(u8, String)>,
        numbers: Vec<f64>,
    }
    let collection = Collection {
        title: "c".into(),
        items: vec![(1, "one".into()), (2, "two".into())],
        numbers: vec![0.5, 1.5, 2.5],
    };
    let bytes = encode(&collection);
    let items = batch_of(&bytes, "items", None);
    assert_eq!(items.num_rows(), 2);
    let value = items.column_by_name("value").unwrap();
    assert_eq!(
        value.as_struct().column(1).as_string::<i32>().value(1),
        "two"
    );
    let numbers = batch_of(&bytes, "numbers", None);
    assert_eq!(
        numbers.column(0).as_primitive::<Float64Type>().value(2),
        2.5
    );
    let reader = Reader::new(&bytes).unwrap();
    assert!(matches!(
        record_batch(&reader, "title", None),
        Err(Error::Unsupported { .. })
    ));
    assert!(matches!(
        record_batch(&reader, "nowhere", None),
        Err(Error::Decode(_))
    ));
}

#[test]
fn recursive_types_are_errors_that_name_the_path() {
    #[derive(tree_buf::Encode)]
    struct Tree {
        value: u8,
        children: Vec<Tree>,
    }
    // Three levels: the third is a recursion wherever the tree is.
    let leaf = |value| Tree {
        value,
        children: vec![],
    };
    let tree = |value| Tree {
        value,
        children: vec![Tree {
            value: 1,
            children: vec![leaf(2), leaf(3)],
        }],
    };
    // Rows of a recursive type: the rows' node also holds the values of every depth.
    let bytes = encode(&vec![tree(1), tree(2)]);
    let reader = Reader::new(&bytes).unwrap();
    for projection in [None, Some(&["value"][..])] {
        let error = record_batch(&reader, "", projection).unwrap_err();
        assert!(
            matches!(&error, Error::Unsupported { path, .. } if path == "[]"),
            "{error}"
        );
    }
    // A recursive field: its column is the error, and the columns beside it still read.
    #[derive(tree_buf::Encode)]
    struct Row {
        id: u8,
        tree: Tree,
    }
    let bytes = encode(&vec![
        Row {
            id: 1,
            tree: tree(1),
        },
        Row {
            id: 2,
            tree: tree(2),
        },
    ]);
    let reader = Reader::new(&bytes).unwrap();
    let error = record_batch(&reader, "", None).unwrap_err();
    assert!(
        matches!(&error, Error::Unsupported { path, .. } if path.starts_with("[].tree.children")),
        "{error}"
    );
    let ids = record_batch(&reader, "", Some(&["id"])).unwrap();
    assert_eq!(ids.num_rows(), 2);
}

#[test]
#[cfg_attr(
    datasets_missing,
    ignore = "needs ../shared/datasets or $TREE_BUF_DATASETS"
)]
fn real_baseball_tables_are_record_batches() {
    let databank = tree_buf_datasets::baseball::load().unwrap();
    let bytes = encode(&databank);
    let batting = batch_of(&bytes, "batting", None);
    assert_eq!(batting.num_rows(), databank.batting.len());
    let players = batting.column_by_name("player_id").unwrap();
    let players = players.as_string::<i32>();
    let rbi = batting.column_by_name("rbi").unwrap();
    let rbi = rbi.as_primitive::<UInt16Type>();
    for (i, row) in databank.batting.iter().enumerate() {
        assert_eq!(players.value(i), row.player_id);
        assert_eq!(rbi.is_valid(i).then(|| rbi.value(i)), row.rbi);
    }
    let people = batch_of(&bytes, "people", None);
    assert_eq!(people.num_rows(), databank.people.len());
    rows_in_every_layout(&bytes, "people");
}

#[test]
#[cfg_attr(
    datasets_missing,
    ignore = "needs ../shared/datasets or $TREE_BUF_DATASETS"
)]
fn real_retrosheet_games_and_geojson_features_are_record_batches() {
    let games = tree_buf_datasets::retrosheet::load_season(2018).unwrap();
    let bytes = encode(&games);
    let batch = batch_of(&bytes, "", None);
    assert_eq!(batch.num_rows(), games.len());
    let attendance = batch.column_by_name("attendance").unwrap();
    let attendance = attendance.as_primitive::<UInt32Type>();
    let parks = batch.column_by_name("park").unwrap();
    let parks = parks.as_string::<i32>();
    for (i, game) in games.iter().enumerate() {
        assert_eq!(
            attendance.is_valid(i).then(|| attendance.value(i)),
            game.attendance
        );
        assert_eq!(parks.value(i), game.park);
    }

    let countries = tree_buf_datasets::geojson::load().unwrap();
    let bytes = encode(&countries);
    let batch = batch_of(&bytes, "features", Some(&["properties"]));
    let properties = batch.column(0).as_struct();
    let names = properties
        .column_by_name("admin")
        .unwrap()
        .as_string::<i32>();
    let expected: Vec<&str> = (countries.features.iter())
        .map(|feature| feature.properties.admin.as_str())
        .collect();
    assert_eq!(names.iter().flatten().collect::<Vec<_>>(), expected);
    // Geometry is an enum of nested lists of points.
    let everything = batch_of(&bytes, "features", None);
    assert_eq!(everything.num_rows(), countries.features.len());
    let geometry = everything.column_by_name("geometry").unwrap();
    assert!(matches!(geometry.data_type(), DataType::Union(..)));
}
