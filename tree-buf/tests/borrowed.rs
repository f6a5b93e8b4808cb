//! Borrowed decoding: types with lifetimes (`&str`, `&[u8]`, `Cow<str>` fields) decoded from the
//! bytes of a file or an archive, borrowing them where the file holds them as they are, and from
//! a `Reader`, which keeps what it had to decode, where it does not.

use std::borrow::Cow;
use std::fmt::Debug;

use tree_buf::archive::{Archive, ArchiveWriter, StreamReader};
use tree_buf::{
    decode, decode_with_options, encode, encode_with_options, Decode, DecodeErrorKind,
    DecodeOptions, Encode, EncodeOptions, Preference, Reader,
};

#[derive(Encode, Decode, Debug, PartialEq, Clone)]
struct Country<'a> {
    name: &'a str,
    code: Cow<'a, str>,
    flag: &'a [u8],
    motto: Option<&'a str>,
    cities: Vec<&'a str>,
    capital: City<'a>,
    status: Status<'a>,
    population: u64,
}

#[derive(Encode, Decode, Debug, PartialEq, Clone)]
struct City<'a> {
    name: &'a str,
    districts: Vec<(u32, &'a str)>,
}

#[derive(Encode, Decode, Debug, PartialEq, Clone)]
enum Status<'a> {
    Member,
    Observer { since: &'a str },
    Disputed(Cow<'a, str>),
}

fn country(i: usize) -> Country<'static> {
    const NAMES: [&str; 4] = ["Aruba", "Angola", "Åland", "日本"];
    const CITIES: [&str; 5] = ["Oranjestad", "Luanda", "Mariehamn", "東京", "Kyoto"];
    Country {
        name: NAMES[i % 4],
        code: Cow::Borrowed(["ABW", "AGO", "ALA", "JPN"][i % 4]),
        flag: noise(i * 7 % 40),
        motto: i.is_multiple_of(3).then_some("Unity"),
        cities: CITIES[..i % 5].to_vec(),
        capital: City {
            name: CITIES[i % 5],
            districts: (0..i as u32 % 3).map(|d| (d, NAMES[d as usize])).collect(),
        },
        status: match i % 3 {
            0 => Status::Member,
            1 => Status::Observer { since: "1945" },
            _ => Status::Disputed(Cow::Borrowed("north")),
        },
        population: i as u64 * 1000,
    }
}

/// `len` bytes of noise, which a file holds as they are: no codec makes them smaller.
fn noise(len: usize) -> &'static [u8] {
    let mut state = len as u64 + 1;
    let bytes = (0..len).map(|_| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 56) as u8
    });
    Vec::leak(bytes.collect())
}

/// Whether `text` lies inside `bytes`: borrowed from them, not a copy.
fn lent_from(bytes: &[u8], text: &[u8]) -> bool {
    text.is_empty() || bytes.as_ptr_range().contains(&text.as_ptr())
}

/// Reads `bytes`, the encoding of `value`, with `options` as the same type, which borrows from
/// them.
fn borrowed_round_trip<'b, T>(value: &T, bytes: &'b [u8], options: &DecodeOptions) -> T
where
    T: Decode<'b> + PartialEq + Debug,
{
    let back: T = decode_with_options(bytes, options).unwrap();
    assert_eq!(&back, value);
    back
}

#[test]
fn borrowed_fields_of_every_kind_round_trip_and_point_into_the_file() {
    let countries: Vec<Country<'static>> = (0..20).map(country).collect();
    // Strings and bytes as they are, so that all of them can be borrowed from the file.
    let plain = EncodeOptions::default().prefer(Preference::Faster);
    let bytes = encode_with_options(&countries, &plain).unwrap();
    for parallel in [false, true] {
        let options = DecodeOptions::default().parallel(parallel);
        let back = borrowed_round_trip(&countries, &bytes, &options);
        for country in &back {
            assert!(lent_from(&bytes, country.name.as_bytes()));
            assert!(matches!(country.code, Cow::Borrowed(_)));
            assert!(lent_from(&bytes, country.flag));
            assert!(country
                .cities
                .iter()
                .all(|c| lent_from(&bytes, c.as_bytes())));
            assert!(lent_from(&bytes, country.capital.name.as_bytes()));
        }
    }
    // The default options keep these columns as they are too (or as dictionaries of them).
    let bytes = encode(&countries);
    let back: Vec<Country<'_>> = decode(&bytes).unwrap();
    assert_eq!(back, countries);
}

#[test]
fn a_borrowed_type_reads_a_file_written_by_its_owned_twin() {
    #[derive(Encode, Debug)]
    struct Owned {
        name: String,
        tags: Vec<String>,
        blob: Vec<u8>,
    }
    #[derive(Decode, Debug, PartialEq)]
    struct Lent<'a> {
        name: &'a str,
        tags: Vec<Cow<'a, str>>,
        blob: &'a [u8],
    }
    let owned = vec![
        Owned {
            name: "one".into(),
            tags: vec!["a".into(), "bc".into()],
            blob: vec![1, 2, 3],
        },
        Owned {
            name: "".into(),
            tags: vec![],
            blob: vec![],
        },
    ];
    let bytes = encode(&owned);
    // The blobs' few small values are packed: a reader keeps them unpacked to lend.
    let reader = Reader::new(&bytes).unwrap();
    let lent: Vec<Lent<'_>> = reader.decode().unwrap();
    assert_eq!(lent[0].name, "one");
    assert_eq!(lent[0].tags, ["a", "bc"]);
    assert_eq!(lent[0].blob, [1, 2, 3]);
    assert_eq!((lent[1].name, lent[1].blob), ("", &[][..]));
}

/// Long strings of repeated words, which the default options compress: nothing in the file to
/// borrow. And bytes that are all zero, which no column keeps as they are.
#[derive(Encode, Decode, Debug, PartialEq)]
struct Note<'a> {
    text: &'a str,
    zeros: &'a [u8],
}

#[derive(Decode, Debug, PartialEq)]
struct CowNote<'a> {
    text: Cow<'a, str>,
}

fn notes() -> Vec<Note<'static>> {
    let texts: Vec<&'static str> = (0..400)
        .map(|i| &*format!("the quick brown fox jumps over the lazy dog, {i} times").leak())
        .collect();
    texts
        .into_iter()
        .map(|text| Note {
            text,
            zeros: &[0; 16],
        })
        .collect()
}

#[test]
fn compressed_columns_borrow_from_a_reader_and_are_errors_without_one() {
    let notes = notes();
    let bytes = encode(&notes);
    let schema = Reader::new(&bytes).unwrap().schema();
    let encoding = |path| schema.find(path).unwrap().encoding.clone().unwrap();
    assert!(
        encoding("[].text").starts_with("zstd"),
        "{}",
        encoding("[].text")
    );

    // Straight from the bytes, a `&str` has nothing to borrow: an error at its path.
    let error = decode::<Vec<Note<'_>>>(&bytes).unwrap_err();
    assert_eq!(error.kind(), DecodeErrorKind::SchemaMismatch);
    assert_eq!(error.path(), "[].text", "{error}");
    assert!(error.to_string().contains("Reader"), "{error}");
    // A `Cow` owns a copy instead.
    let cows: Vec<CowNote<'_>> = decode(&bytes).unwrap();
    assert_eq!(cows[7].text, notes[7].text);
    assert!(matches!(cows[7].text, Cow::Owned(_)));

    // A reader keeps the decoded columns, and lends them, on one thread or several.
    for parallel in [false, true] {
        let reader =
            Reader::with_options(&bytes, DecodeOptions::default().parallel(parallel)).unwrap();
        let read: Vec<Note<'_>> = reader.decode().unwrap();
        assert_eq!(read, notes);
        assert!(
            !lent_from(&bytes, read[1].text.as_bytes()),
            "kept by the reader"
        );
        assert!(!lent_from(&bytes, read[1].zeros), "kept by the reader");
        let cows: Vec<CowNote<'_>> = reader.decode().unwrap();
        assert!(cows
            .iter()
            .all(|note| matches!(note.text, Cow::Borrowed(_))));
        let texts: Vec<&str> = reader.decode_path("[].text").unwrap();
        assert_eq!(texts[399], notes[399].text);

        // Each column is kept once: decoding it again, whole or by its path, lends the same copy,
        // so a reader asked many times holds no more than one decoding of each branch.
        let again: Vec<Note<'_>> = reader.decode().unwrap();
        assert_eq!(again[1].text.as_ptr(), read[1].text.as_ptr());
        assert_eq!(again[1].zeros.as_ptr(), read[1].zeros.as_ptr());
        assert_eq!(texts[1].as_ptr(), read[1].text.as_ptr());
        let cow = |note: &CowNote<'_>| note.text.as_ptr();
        assert_eq!(cow(&cows[1]), read[1].text.as_ptr());
    }
}

#[test]
fn byte_slices_read_wider_integers_through_a_reader_as_byte_vectors_do() {
    #[derive(Encode)]
    struct Wide {
        bytes: Vec<u32>,
    }
    #[derive(Decode, Debug, PartialEq)]
    struct Owned {
        bytes: Vec<u8>,
    }
    #[derive(Decode, Debug, PartialEq)]
    struct Lent<'a> {
        bytes: &'a [u8],
    }
    let rows: Vec<Wide> = (0..50u32)
        .map(|i| Wide {
            bytes: (0..i % 7).map(|b| (b * 37 + i) % 256).collect(),
        })
        .collect();
    let bytes = encode(&rows);
    let owned: Vec<Owned> = decode(&bytes).unwrap();
    // A reader narrows the column once, as `Vec<u8>` reads it, keeps it, and lends it.
    let reader = Reader::new(&bytes).unwrap();
    let lent: Vec<Lent<'_>> = reader.decode().unwrap();
    assert!(lent
        .iter()
        .zip(&owned)
        .all(|(lent, owned)| lent.bytes == owned.bytes));
    // Straight from the bytes there is nothing to lend.
    let error = decode::<Vec<Lent<'_>>>(&bytes).unwrap_err();
    assert_eq!(error.kind(), DecodeErrorKind::SchemaMismatch);
    // A value past 255 fits neither.
    let bytes = encode(&vec![Wide {
        bytes: vec![7, 300],
    }]);
    let reader = Reader::new(&bytes).unwrap();
    let error = reader.decode::<Vec<Lent<'_>>>().unwrap_err();
    assert_eq!(error.kind(), DecodeErrorKind::SchemaMismatch);
    assert!(error.to_string().contains("300"), "{error}");
    assert!(decode::<Vec<Owned>>(&bytes).is_err());
}

#[test]
fn a_dictionary_column_lends_its_strings() {
    let words: Vec<&str> = (0..300).map(|i| ["red", "green", "blue"][i % 3]).collect();
    let bytes = encode(&words);
    let schema = Reader::new(&bytes).unwrap().schema();
    let encoding = schema.find("[]").unwrap().encoding.clone().unwrap();
    assert!(encoding.starts_with("dictionary"), "{encoding}");
    let back: Vec<&str> = decode(&bytes).unwrap();
    assert_eq!(back, words);
    assert!(back.iter().all(|word| lent_from(&bytes, word.as_bytes())));
}

#[test]
fn a_recursive_borrowed_type_round_trips_at_depth() {
    #[derive(Encode, Decode, Debug, PartialEq)]
    struct Node<'a> {
        name: &'a str,
        kids: Vec<Node<'a>>,
    }
    let names: Vec<String> = (0..2000).map(|i| format!("node {i}")).collect();
    // A chain 2,000 deep, each node with a leaf beside the next.
    let mut tree = Node {
        name: "leaf",
        kids: Vec::new(),
    };
    for name in &names {
        tree = Node {
            name,
            kids: vec![
                Node {
                    name: "side",
                    kids: Vec::new(),
                },
                tree,
            ],
        };
    }
    let bytes =
        encode_with_options(&tree, &EncodeOptions::default().prefer(Preference::Faster)).unwrap();
    let reader = Reader::new(&bytes).unwrap();
    let back: Node<'_> = reader.decode().unwrap();
    assert_eq!(back, tree);
    // Dropping both deep trees would recurse 2,000 levels; a thread's default stack holds that.
}

#[test]
fn archives_lend_their_rows_strings() {
    let countries: Vec<Country<'static>> = (0..50).map(country).collect();
    let mut writer = ArchiveWriter::new(Vec::new()).unwrap();
    for country in &countries {
        writer.push(country).unwrap();
    }
    let bytes = writer.finish().unwrap();
    let archive = Archive::from_bytes(&bytes).unwrap();
    let rows: Vec<Country<'_>> = archive.decode_all().unwrap();
    assert_eq!(rows, countries);
    let some: Vec<Country<'_>> = archive.decode_rows(10..20).unwrap();
    assert_eq!(some, countries[10..20]);
    let iterated: Vec<Country<'_>> = archive.iter().unwrap().map(Result::unwrap).collect();
    assert_eq!(iterated, countries);
    // The whole archive through `decode`, and a stream's chunk at a time.
    let whole: Vec<Country<'_>> = decode(&bytes).unwrap();
    assert_eq!(whole, countries);
    let mut stream = StreamReader::new(bytes.as_slice()).unwrap();
    let mut streamed = Vec::new();
    while let Some(rows) = stream.next_rows::<Country<'_>>().unwrap() {
        streamed.extend(rows.map(|row| row.name.to_owned()));
    }
    let names: Vec<&str> = countries.iter().map(|c| c.name).collect();
    assert_eq!(streamed, names);
}
