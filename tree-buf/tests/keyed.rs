//! Keyed branches, read back exactly, in whole or in part, typed or as a `Value`:
//! - a string field that is a function of a sibling string field (a name given an id) is written
//!   as a table over the sibling's strings;
//! - an integer field whose values go with the size of a sibling's (hits with at-bats) is written
//!   in parts, one for each range of the sibling's values (with `Preference::Smaller`).

use tree_buf::{
    decode, encode, encode_with_options, size_breakdown, Decode, Encode, EncodeOptions, NodeType,
    Preference, Reader, Value,
};

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

#[derive(Encode, Decode, Debug, Clone, PartialEq)]
struct Season {
    games: u16,
    at_bats: u16,
    hits: u16,
    walks: u8,
    /// Signed: a plus-minus that grows with playing time either way.
    plus_minus: i32,
    /// Runs, where the record has them: keyed by the rows where it does.
    runs: Option<u16>,
}

/// 20,000 seasons: most players bat little, a few a lot, and every count grows with at-bats.
fn seasons() -> Vec<Season> {
    let mut state = 0x2545_f491u32;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state
    };
    (0..20_000)
        .map(|_| {
            let scale = [0, 1, 3, 10, 40, 150, 400, 600][(next() % 8) as usize];
            let at_bats = (next() % (scale + 1)) as u16;
            let hits = (u32::from(at_bats) * (200 + next() % 150) / 1000) as u16;
            let sign = if next() % 2 == 0 { 1 } else { -1 };
            Season {
                games: (at_bats / 4 + (next() % 5) as u16).min(162),
                at_bats,
                hits,
                walks: (u32::from(at_bats) * (next() % 120) / 1000) as u8,
                plus_minus: sign * (i32::from(at_bats) * (next() % 100) as i32 / 1000),
                runs: (next() % 3 != 0)
                    .then(|| (u32::from(at_bats) * (next() % 160) / 1000) as u16),
            }
        })
        .collect()
}

/// Integer columns are keyed with `Preference::Smaller` only.
fn smaller<T: Encode + ?Sized>(value: &T) -> Vec<u8> {
    encode_with_options(value, &EncodeOptions::default().prefer(Preference::Smaller)).unwrap()
}

fn int_branch(bytes: &[u8], path: &str) -> (String, usize) {
    let breakdown = size_breakdown(bytes).unwrap();
    let branch = (breakdown.branches.iter())
        .find(|b| b.path == path && b.node_type != NodeType::Option)
        .unwrap_or_else(|| panic!("no branch {path}"));
    (branch.encoding.to_string(), branch.bytes)
}

#[test]
fn counts_that_grow_with_a_sibling_are_keyed_and_read_back_every_way() {
    let rows = seasons();
    let bytes = smaller(&rows);
    let keyed: Vec<&str> = [
        "[].games",
        "[].at_bats",
        "[].hits",
        "[].walks",
        "[].plus_minus",
    ]
    .into_iter()
    .filter(|path| int_branch(&bytes, path).0.starts_with("keyed(by "))
    .collect();
    // At least the counts that follow at-bats, by one source that is not keyed itself.
    assert!(keyed.len() >= 3, "{keyed:?}");
    // An option's present values are keyed by the source's values in their rows; with fewer
    // values than rows, they are never a source.
    let (runs, _) = int_branch(&bytes, "[].runs");
    assert!(runs.starts_with("keyed(by "), "{runs}");
    let breakdown = size_breakdown(&bytes).unwrap();
    assert!(breakdown
        .branches
        .iter()
        .all(|b| !b.encoding.to_string().contains("by [].runs")));
    assert_eq!(decode::<Vec<Season>>(&bytes).unwrap(), rows);

    // Reading one keyed field alone reads its source too.
    #[derive(Decode, Debug, PartialEq)]
    struct Hits {
        hits: u16,
        plus_minus: i64,
    }
    let hits: Vec<Hits> = decode(&bytes).unwrap();
    assert!(hits
        .iter()
        .zip(&rows)
        .all(|(a, b)| a.hits == b.hits && a.plus_minus == i64::from(b.plus_minus)));
    let reader = Reader::new(&bytes).unwrap();
    let runs: Vec<Option<u16>> = reader.decode_path("[].runs").unwrap();
    assert!(runs.iter().eq(rows.iter().map(|row| &row.runs)));
    for path in keyed {
        let column: Vec<i64> = reader.decode_path(path).unwrap();
        let field = |row: &Season| match path {
            "[].games" => i64::from(row.games),
            "[].at_bats" => i64::from(row.at_bats),
            "[].hits" => i64::from(row.hits),
            "[].walks" => i64::from(row.walks),
            _ => i64::from(row.plus_minus),
        };
        assert!(column.iter().copied().eq(rows.iter().map(field)), "{path}");
    }
    let value: Value = decode(&bytes).unwrap();
    let json = serde_json::to_value(&value).unwrap();
    assert_eq!(json[7]["hits"], rows[7].hits);
    assert_eq!(json[9]["plus_minus"], rows[9].plus_minus);
}

#[test]
fn keyed_counts_are_smaller_than_the_columns_alone() {
    let rows = seasons();
    let keyed = smaller(&rows);
    for (path, alone) in [
        (
            "[].hits",
            smaller(&rows.iter().map(|r| r.hits).collect::<Vec<_>>()),
        ),
        (
            "[].walks",
            smaller(&rows.iter().map(|r| r.walks).collect::<Vec<_>>()),
        ),
    ] {
        let (encoding, keyed_bytes) = int_branch(&keyed, path);
        let (_, alone_bytes) = int_branch(&alone, "[]");
        assert!(
            keyed_bytes * 10 < alone_bytes * 9,
            "{path}: keyed {keyed_bytes} B ({encoding}), alone {alone_bytes} B"
        );
    }
}

#[test]
fn small_or_unrelated_integer_columns_are_left_alone() {
    // Not keyed but where asked for.
    let rows = seasons();
    let bytes = encode(&rows);
    for path in ["[].games", "[].at_bats", "[].hits", "[].runs"] {
        assert!(!int_branch(&bytes, path).0.starts_with("keyed("), "{path}");
    }
    // Too few values to pay for parts.
    let few = &seasons()[..1000];
    let bytes = smaller(few);
    for path in ["[].games", "[].at_bats", "[].hits"] {
        assert!(!int_branch(&bytes, path).0.starts_with("keyed("), "{path}");
    }
    assert_eq!(decode::<Vec<Season>>(&bytes).unwrap(), few);
    // Counters that share nothing.
    let pairs: Vec<(u32, u32)> = (0..20_000u32)
        .map(|i| {
            (
                i.wrapping_mul(2_654_435_761) % 1000,
                i.wrapping_mul(40_503) % 977,
            )
        })
        .collect();
    let bytes = smaller(&pairs);
    assert!(!int_branch(&bytes, "[].1").0.starts_with("keyed("));
    assert!(!int_branch(&bytes, "[].0").0.starts_with("keyed("));
    assert_eq!(decode::<Vec<(u32, u32)>>(&bytes).unwrap(), pairs);
}

#[test]
fn archives_that_prefer_smaller_files_declare_keyed_integers_and_read_back() {
    use tree_buf::archive::{Archive, ArchiveOptions, ArchiveWriter};
    let rows = seasons();
    let write = |options: EncodeOptions| {
        let options = ArchiveOptions::default()
            .chunk_rows(8192)
            .encode_options(options);
        let mut writer = ArchiveWriter::with_options(Vec::new(), options).unwrap();
        for row in &rows {
            writer.push(row).unwrap();
        }
        writer.finish().unwrap()
    };
    let smaller = write(EncodeOptions::default().prefer(Preference::Smaller));
    // The header declares the version of keyed integer streams.
    assert_eq!(smaller[4], 7);
    let archive = Archive::from_bytes(&smaller).unwrap();
    assert_eq!(archive.chunks().len(), 3);
    for index in 0..3 {
        let reader = archive.chunk_reader(index).unwrap();
        let hits: Vec<u16> = reader.decode_path("[].hits").unwrap();
        let start = index * 8192;
        assert!(hits
            .iter()
            .eq(rows[start..].iter().take(8192).map(|row| &row.hits)));
    }
    assert_eq!(archive.decode_all::<Season>().unwrap(), rows);
    let default = write(EncodeOptions::default());
    // The archive version, raised to that of the first chunk's Huffman codes in four streams.
    assert_eq!(default[4], 5);
    assert!(smaller.len() < default.len());
}

/// Nodes of a tree, every depth in one set of branches: their counts key one another there too.
#[derive(Encode, Decode, Debug, Clone, PartialEq)]
struct Folder {
    files: u32,
    bytes: u32,
    children: Vec<Folder>,
}

#[test]
fn counts_in_a_recursive_type_are_keyed_and_read_back() {
    let mut state = 0x1234_5678u32;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state
    };
    let leaf = |next: &mut dyn FnMut() -> u32| {
        let files = next() % [1, 10, 300][(next() % 3) as usize];
        Folder {
            files,
            bytes: files * (next() % 5000),
            children: Vec::new(),
        }
    };
    let roots: Vec<Folder> = (0..100)
        .map(|_| {
            let children = (0..60).map(|_| leaf(&mut next)).collect();
            Folder {
                children,
                ..leaf(&mut next)
            }
        })
        .collect();
    let bytes = smaller(&roots);
    let breakdown = size_breakdown(&bytes).unwrap();
    let keyed: Vec<String> = (breakdown.branches.iter())
        .filter(|b| b.encoding.to_string().starts_with("keyed(by "))
        .map(|b| format!("{}: {}", b.path, b.encoding))
        .collect();
    assert_eq!(keyed.len(), 1, "{keyed:?}");
    assert_eq!(decode::<Vec<Folder>>(&bytes).unwrap(), roots);
    let value: Value = decode(&bytes).unwrap();
    assert_eq!(
        serde_json::to_value(&value).unwrap()[3]["children"][5]["bytes"],
        roots[3].children[5].bytes
    );
}
