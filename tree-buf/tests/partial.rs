//! Partial reads: the Reader, decode_path, schema listings and the size breakdown.

use std::collections::BTreeMap;
use std::ops::Range;

use tree_buf::{
    decode, decode_with_options, encode, size_breakdown, Decode, DecodeErrorKind, DecodeOptions,
    Encode, NodeType, Reader,
};

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
fn decode_path_never_reads_other_branches() {
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

#[derive(Encode, Decode, Debug, PartialEq)]
struct Collection {
    features: Vec<Feature>,
}

#[derive(Encode, Decode, Debug, PartialEq)]
struct Feature {
    name: String,
    properties: Properties,
    border: Vec<(f64, f64)>,
}

#[derive(Encode, Decode, Debug, PartialEq)]
struct Properties {
    #[tree_buf(rename = "ADMIN")]
    admin: String,
    population: u64,
}

/// The same file seen through a type that names one field.
#[derive(Decode, Debug, PartialEq)]
struct NamesOnly {
    features: Vec<NameOnly>,
}

#[derive(Decode, Debug, PartialEq)]
struct NameOnly {
    name: String,
}

fn collection() -> Collection {
    Collection {
        features: (0..20)
            .map(|i| Feature {
                name: format!("Country {i}"),
                properties: Properties {
                    admin: format!("Admin {i}"),
                    population: i * 1_000_003,
                },
                border: (0..50).map(|j| (j as f64 * 0.5, i as f64)).collect(),
            })
            .collect(),
    }
}

/// Every branch's path and its byte range in the file, from the size breakdown.
fn branch_ranges(bytes: &[u8]) -> Vec<(String, Range<usize>)> {
    let breakdown = size_breakdown(bytes).unwrap();
    // The table bytes include the data checksum, which follows the branches.
    let mut start = breakdown.header_bytes + breakdown.schema_bytes + breakdown.table_bytes - 4;
    breakdown
        .branches
        .iter()
        .map(|branch| {
            let range = start..start + branch.bytes;
            start = range.end;
            (branch.path.clone(), range)
        })
        .collect()
}

#[test]
fn a_subset_type_never_parses_the_other_branches() {
    let mut bytes = encode(&collection());
    let needed = ["features", "features.[].name"];
    let mut overwritten = 0;
    for (path, range) in branch_ranges(&bytes) {
        if !needed.contains(&path.as_str()) && !range.is_empty() {
            // 0xff is no encoding's tag: any read of these bytes fails.
            bytes[range].fill(0xff);
            overwritten += 1;
        }
    }
    assert_eq!(overwritten, 5);
    let expected = NamesOnly {
        features: (0..20)
            .map(|i| NameOnly {
                name: format!("Country {i}"),
            })
            .collect(),
    };
    let unchecked = DecodeOptions::default().verify_checksums(false);
    assert_eq!(
        decode_with_options::<NamesOnly>(&bytes, &unchecked).unwrap(),
        expected
    );
    let reader = Reader::new(&bytes).unwrap();
    assert_eq!(reader.decode::<NamesOnly>().unwrap(), expected);
    // The full type does read the overwritten branches, and the checksum sees them.
    let err = decode_with_options::<Collection>(&bytes, &unchecked).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::Corrupt, "{err}");
    assert!(err.path().starts_with("features.[]."), "{err}");
    assert_eq!(
        decode::<NamesOnly>(&bytes).unwrap_err().kind(),
        DecodeErrorKind::Corrupt
    );
}

#[test]
fn decode_path_matches_names_in_canonical_case() {
    let bytes = encode(&collection());
    let reader = Reader::new(&bytes).unwrap();
    let admins: Vec<String> = reader.decode_path("features.[].properties.ADMIN").unwrap();
    assert_eq!(admins.len(), 20);
    assert_eq!(admins[2], "Admin 2");
    let same: Vec<String> = reader.decode_path("features.[].properties.admin").unwrap();
    assert_eq!(same, admins);
    let populations: Vec<u64> = reader
        .decode_path("features.[].properties.population")
        .unwrap();
    assert_eq!(populations[3], 3_000_009);
    let err = reader
        .decode_path::<Vec<String>>("features.[].properties.NAME")
        .unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::PathNotFound);
    assert_eq!(err.path(), "features.[].properties.NAME");
    assert!(err.message().contains("NAME"), "{err}");
    let schema = reader.schema();
    let admin = schema.find("features.[].properties.ADMIN").unwrap();
    assert_eq!(admin.path.to_string(), "features.[].properties.admin");
    assert_eq!(admin.node_type, NodeType::Str);
    assert!(admin.bytes > 0 && admin.encoding.is_some());
}

#[test]
fn the_breakdown_serializes_to_json() {
    let bytes = encode(&collection());
    let breakdown = size_breakdown(&bytes).unwrap();
    let json = serde_json::to_value(&breakdown).unwrap();
    assert_eq!(json["total_bytes"], bytes.len());
    let branches = json["branches"].as_array().unwrap();
    assert_eq!(branches.len(), breakdown.branches.len());
    let admin = branches
        .iter()
        .find(|b| b["path"] == "features.[].properties.admin")
        .unwrap();
    assert_eq!(admin["node_type"], "string");
    assert!(admin["encoding"].as_str().is_some_and(|e| !e.is_empty()));
    assert!(admin["bytes"].as_u64().is_some_and(|b| b > 0));
}
