//! Keyed string branches: a string field that is a function of a sibling string field (a name
//! given an id) is written as a table over the sibling's strings, and reads back exactly, in whole
//! or in part, typed or as a `Value`.

use tree_buf::{decode, encode, size_breakdown, Decode, Encode, NodeType, Reader, Value};

#[derive(Encode, Decode, Debug, Clone, PartialEq)]
struct Appearance {
    id: String,
    name: String,
    team: String,
    at_bats: u8,
}

#[derive(Encode, Decode, Debug, Clone, PartialEq)]
struct Person {
    id: Option<String>,
    name: Option<String>,
}

/// 2,000 appearances of 60 players in a scrambled order, each name a function of the id but for
/// a few renamed rows.
fn appearances() -> Vec<Appearance> {
    let mut state = 0x9e37_79b9u32;
    (0..2000u32)
        .map(|i| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let player = state % 60;
            let name = match i {
                500 | 1999 => "Renamed Player".to_owned(),
                _ => format!("Player Number {player}"),
            };
            Appearance {
                id: format!("p{player:04}x"),
                name,
                team: ["BOS", "NYA", "CHN"][(player % 3) as usize].to_owned(),
                at_bats: (i % 5) as u8,
            }
        })
        .collect()
}

/// The encoding and size of the string branch at `path`.
fn string_branch(bytes: &[u8], path: &str) -> (String, usize) {
    let breakdown = size_breakdown(bytes).unwrap();
    let branch = (breakdown.branches.iter())
        .find(|b| b.path == path && b.node_type == NodeType::Str)
        .unwrap_or_else(|| panic!("no string branch {path}"));
    (branch.encoding.to_string(), branch.bytes)
}

fn encoding(bytes: &[u8], path: &str) -> String {
    string_branch(bytes, path).0
}

#[test]
fn a_name_given_its_id_is_keyed_and_reads_back_every_way() {
    let rows = appearances();
    let bytes = encode(&rows);
    let name = encoding(&bytes, "[].name");
    assert!(name.starts_with("keyed(by [].id, 60 strings"), "{name}");
    assert!(name.contains("2 exceptions"), "{name}");
    assert!(!encoding(&bytes, "[].id").starts_with("keyed("));
    assert_eq!(decode::<Vec<Appearance>>(&bytes).unwrap(), rows);

    // Reading the name alone reads its source branch too.
    #[derive(Decode, Debug, PartialEq)]
    struct NameOnly {
        name: String,
    }
    let names: Vec<NameOnly> = decode(&bytes).unwrap();
    assert!(names.iter().zip(&rows).all(|(a, b)| a.name == b.name));
    let reader = Reader::new(&bytes).unwrap();
    let by_path: Vec<String> = reader.decode_path("[].name").unwrap();
    assert!(by_path.iter().eq(rows.iter().map(|row| &row.name)));

    let value: Value = decode(&bytes).unwrap();
    let json = serde_json::to_value(&value).unwrap();
    assert_eq!(json[500]["name"], "Renamed Player");
    assert_eq!(json[1]["name"].as_str(), Some(rows[1].name.as_str()));
}

#[test]
fn keyed_branches_are_smaller_than_the_column_alone() {
    let rows = appearances();
    let keyed = encode(&rows);
    // The same names, with no id beside them to key them by.
    let names: Vec<(String, u8)> = rows.iter().map(|r| (r.name.clone(), r.at_bats)).collect();
    let (_, alone) = string_branch(&encode(&names), "[].0");
    let (_, keyed) = string_branch(&keyed, "[].name");
    assert!(keyed * 2 < alone, "keyed {keyed} B, alone {alone} B");
}

#[test]
fn optional_names_are_keyed_by_optional_ids() {
    let people: Vec<Person> = (0..3000u32)
        .map(|i| match i % 10 {
            // Both missing together, as in Retrosheet's empty lineup slots.
            0 => Person {
                id: None,
                name: None,
            },
            _ => Person {
                id: Some(format!("id{}", i % 97)),
                name: Some(format!("Name {}", i % 97)),
            },
        })
        .collect();
    let bytes = encode(&people);
    let name = encoding(&bytes, "[].name");
    assert!(name.starts_with("keyed("), "{name}");
    assert_eq!(decode::<Vec<Person>>(&bytes).unwrap(), people);
}

#[test]
fn unrelated_and_unequal_columns_are_left_alone() {
    // Names present more often than ids: the columns differ in length.
    let people: Vec<Person> = (0..3000u32)
        .map(|i| Person {
            id: (i % 2 == 0).then(|| format!("id{}", i % 97)),
            name: Some(format!("Name {}", i % 97)),
        })
        .collect();
    let bytes = encode(&people);
    assert!(!encoding(&bytes, "[].name").starts_with("keyed("));
    assert_eq!(decode::<Vec<Person>>(&bytes).unwrap(), people);
    // Strings that do not follow one another.
    let pairs: Vec<(String, String)> = (0..3000u32)
        .map(|i| (format!("{}", i % 50), format!("{}", i * 31 % 1013)))
        .collect();
    let bytes = encode(&pairs);
    assert!(!encoding(&bytes, "[].1").starts_with("keyed("));
    assert_eq!(decode::<Vec<(String, String)>>(&bytes).unwrap(), pairs);
}
