//! Partial reads: the Reader, decode_path, schema listings and the size breakdown.

use std::collections::BTreeMap;

use tree_buf::{decode, encode, size_breakdown, DecodeErrorKind, NodeType, Reader};

type Country = (String, String, Option<Vec<Vec<(f64, f64)>>>);

fn countries() -> Vec<Country> {
    (0..50)
        .map(|i| {
            let ring: Vec<(f64, f64)> = (0..200)
                .map(|j| (f64::from(i) + f64::from(j) * 0.001, -f64::from(j) * 0.002))
                .collect();
            (
                format!("Country {i}"),
                format!("C{i:02}"),
                (i % 7 != 0).then(|| vec![ring.clone(), ring]),
            )
        })
        .collect()
}

#[test]
fn decode_path_reads_one_column_across_sequences() {
    let bytes = encode(&countries());
    let reader = Reader::new(&bytes).unwrap();
    let names: Vec<String> = reader.decode_path("[].0").unwrap();
    assert_eq!(names.len(), 50);
    assert_eq!(names[3], "Country 3");
    // Through options and nested sequences: every x of every ring of the countries that have one.
    let xs: Vec<f64> = reader.decode_path("[].2.[].[].0").unwrap();
    assert_eq!(xs.len(), 42 * 2 * 200);
    let rings: Vec<Vec<(f64, f64)>> = reader.decode_path("[].2.[]").unwrap();
    assert_eq!(rings.len(), 42 * 2);
    let map = BTreeMap::from([("a".to_string(), vec![1u8]), ("b".to_string(), vec![2, 3])]);
    let bytes = encode(&map);
    let reader = Reader::new(&bytes).unwrap();
    assert_eq!(
        reader.decode_path::<Vec<String>>("{key}").unwrap(),
        ["a", "b"]
    );
    assert_eq!(
        reader.decode_path::<Vec<u8>>("{value}.[]").unwrap(),
        [1, 2, 3]
    );
}

#[test]
fn a_missing_path_is_a_clear_error() {
    let bytes = encode(&countries());
    let reader = Reader::new(&bytes).unwrap();
    for path in ["[].9", "features", "[].0.[]", "[].2.[].[].3"] {
        let err = reader.decode_path::<Vec<String>>(path).unwrap_err();
        assert_eq!(err.kind(), DecodeErrorKind::PathNotFound, "{path}: {err}");
        assert_eq!(err.path(), path);
    }
    let err = reader.decode_path::<Vec<u8>>("[].0").unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::SchemaMismatch);
}

#[test]
fn the_schema_lists_every_node_with_its_branch() {
    let bytes = encode(&countries());
    let schema = Reader::new(&bytes).unwrap().schema();
    let x = schema.find("[].2.[].[].0").unwrap();
    assert_eq!(x.node_type, NodeType::F64);
    assert!(x.bytes > 0 && x.encoding.is_some());
    assert_eq!(schema.find("[].2").unwrap().node_type, NodeType::Option);
    assert!(schema.find("[].3").is_none());
    let listing = schema.to_string();
    assert!(
        listing.contains("f64") && listing.contains("string"),
        "{listing}"
    );
    assert_eq!(schema.iter().count(), 10);
}

#[test]
fn the_breakdown_adds_up_to_the_file() {
    let bytes = encode(&countries());
    let breakdown = size_breakdown(&bytes).unwrap();
    let parts: usize = breakdown.header_bytes
        + breakdown.schema_bytes
        + breakdown.table_bytes
        + breakdown.branches.iter().map(|b| b.bytes).sum::<usize>();
    assert_eq!(parts, bytes.len());
    assert_eq!(breakdown.total_bytes, bytes.len());
    let text = breakdown.to_string();
    for heading in ["Largest by path", "Largest by type", "Total"] {
        assert!(text.contains(heading), "{text}");
    }
    assert_eq!(
        breakdown.by_type().iter().map(|(_, b)| b).sum::<usize>(),
        breakdown.branches.iter().map(|b| b.bytes).sum::<usize>()
    );
    assert!(size_breakdown(b"not a file").is_err());
}

#[test]
fn a_subset_type_reads_only_its_branches() {
    let full = countries();
    let mut bytes = encode(&full);
    // Corrupt the last branch (the y coordinates): a read of the names never looks at it.
    let last = bytes.len() - 5;
    bytes[last] ^= 0x55;
    let reader = Reader::new(&bytes).unwrap();
    let names: Vec<String> = reader.decode_path("[].0").unwrap();
    assert_eq!(names[1], "Country 1");
    assert!(reader.verify().is_err());
    assert!(decode::<Vec<Country>>(&bytes).is_err());
}
