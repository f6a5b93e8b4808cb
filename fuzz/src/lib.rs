//! The checks behind the fuzz targets. `tree-buf/tests/fuzz_replay.rs` includes this file too and
//! replays the seeds and every regression input through it in a plain `cargo test`.
//!
//! Every check takes arbitrary bytes. Decoding them may fail but must never panic; a check panics
//! only where tree-buf broke a promise (a valid file that does not read back, say). Each returns
//! what it managed to read, so that the replay can also assert that valid seeds read in full.

use std::collections::BTreeMap;
use std::fmt;

use arbitrary::{Arbitrary, Unstructured};
use serde::{Deserialize, Serialize};
use tree_buf::archive::{Archive, PartialArchive, StreamReader};
use tree_buf::{
    decode_with_options, encode_with_options, size_breakdown, size_breakdown_with_options,
    try_encode, BreakdownOptions, Buffer, Decode, DecodeErrorKind, DecodeOptions, DecodeOwned,
    Encode, EncodeErrorKind, EncodeOptions, Path, Preference, Reader, Value,
};

/// A type with every kind of schema node: integers of every width, floats, strings, chars, bytes,
/// options, sequences, arrays, tuples, maps, enums of every variant shape, recursion and units.
#[derive(Encode, Decode, Arbitrary, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Record {
    pub id: u64,
    pub name: String,
    pub tags: Vec<String>,
    pub score: Option<f64>,
    pub ratio: f32,
    pub small: (i8, u16, i32),
    pub wide: (u128, i128),
    pub flag: bool,
    pub letter: char,
    pub bytes: Vec<u8>,
    pub hash: [u8; 4],
    pub points: Vec<(f32, f64)>,
    pub kind: Kind,
    pub history: Vec<Option<Kind>>,
    pub index: BTreeMap<String, Vec<i64>>,
    pub tree: Tree,
    pub label: Box<str>,
    pub nothing: (),
}

#[derive(Encode, Decode, Arbitrary, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Kind {
    Empty,
    Count(u32),
    Pair(String, i16),
    Named { x: f32, y: Option<bool> },
}

#[derive(Encode, Decode, Arbitrary, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Tree {
    pub value: i16,
    pub children: Vec<Tree>,
}

/// Types of other crates whose decoders check each value they convert from its stored form (a
/// date in range, a scale of at most 28, no NaN).
#[cfg(all(
    feature = "chrono",
    feature = "ordered-float",
    feature = "rust_decimal",
    feature = "time",
    feature = "uuid"
))]
#[derive(Encode, Decode, Debug, Clone, PartialEq)]
pub struct Foreign {
    pub at: chrono::DateTime<chrono::FixedOffset>,
    pub day: chrono::NaiveDate,
    pub time_of_day: chrono::NaiveTime,
    pub span: chrono::TimeDelta,
    pub local: time::OffsetDateTime,
    pub when: time::Time,
    pub wait: time::Duration,
    pub price: rust_decimal::Decimal,
    pub ratio: ordered_float::NotNan<f64>,
    pub id: uuid::Uuid,
}

/// Some fields of [`Record`]: decoding into it reads their branches and skips the others.
#[derive(Decode, Deserialize, Debug)]
pub struct RecordSubset {
    pub name: String,
    pub kind: Kind,
    pub index: BTreeMap<String, Vec<i64>>,
}

/// Some fields of [`Record`], borrowed from the bytes read or from the reader that read them.
#[derive(Decode, Debug)]
pub struct BorrowedRecord<'a> {
    pub name: &'a str,
    pub tags: Vec<std::borrow::Cow<'a, str>>,
    pub bytes: &'a [u8],
    pub index: BTreeMap<&'a str, Vec<i64>>,
    pub label: &'a str,
}

impl BorrowedRecord<'_> {
    /// Whether it holds what `record` holds.
    fn matches(&self, record: &Record) -> bool {
        let index: Vec<(&str, &Vec<i64>)> = self.index.iter().map(|(k, v)| (*k, v)).collect();
        let record_index: Vec<(&str, &Vec<i64>)> =
            record.index.iter().map(|(k, v)| (k.as_str(), v)).collect();
        self.name == record.name
            && self.tags == record.tags
            && self.bytes == record.bytes
            && index == record_index
            && self.label == &*record.label
    }
}

/// Reads `bytes`, which decoded as `records`, as [`BorrowedRecord`]s: through a [`Reader`], which
/// lends what the file does not hold as it is, they must be the same; straight from the bytes
/// too, unless a column cannot be lent.
fn check_borrowed(bytes: &[u8], options: &DecodeOptions, records: &[Record]) {
    let same = |borrowed: &[BorrowedRecord<'_>]| {
        borrowed.len() == records.len() && borrowed.iter().zip(records).all(|(b, r)| b.matches(r))
    };
    if let Ok(reader) = Reader::with_options(bytes, options.clone()) {
        match reader.decode::<Vec<BorrowedRecord<'_>>>() {
            Ok(borrowed) if same(&borrowed) => {}
            other => panic!("a reader lent other records than were decoded: {other:?}"),
        }
    }
    match decode_with_options::<Vec<BorrowedRecord<'_>>>(bytes, options) {
        Ok(borrowed) if same(&borrowed) => {}
        Err(error) if error.kind() == DecodeErrorKind::SchemaMismatch => {}
        other => panic!("borrowed records differ from those decoded: {other:?}"),
    }
}

/// Options for hostile bytes: checksums off, so that the decoders see the corrupted content, and a
/// cap small enough to keep every run fast (the allocation test checks the cap itself).
fn unchecked() -> DecodeOptions {
    DecodeOptions::default()
        .verify_checksums(false)
        .max_decoded_bytes(1 << 24)
}

/// A type [`decode`] tries to read a file as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum As {
    /// `Vec<Record>`.
    Records,
    /// [`Record`].
    Record,
    /// `BTreeMap<String, Vec<Kind>>`.
    KindMap,
    /// `Vec<Option<(u8, String)>>`.
    Pairs,
    /// `(Vec<f32>, Vec<char>, [u16; 3])`.
    Columns,
    /// `Vec<Foreign>`.
    #[cfg(all(
        feature = "chrono",
        feature = "ordered-float",
        feature = "rust_decimal",
        feature = "time",
        feature = "uuid"
    ))]
    Foreign,
    /// [`Value`], which any valid file decodes as.
    Value,
}

/// The types a file decoded as in [`decode`], in the order of [`As`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    /// With the default options, which verify the checksums.
    pub checked: Vec<As>,
    /// With checksums off.
    pub unchecked: Vec<As>,
}

/// Whether `bytes` decode as `T`.
fn decodes<T: DecodeOwned>(bytes: &[u8], options: &DecodeOptions) -> bool {
    decode_with_options::<T>(bytes, options).is_ok()
}

/// Decodes `bytes` as several types and as a [`Value`]; a `Value` that decodes must encode, and
/// what it encodes to must decode.
pub fn decode(bytes: &[u8]) -> Decoded {
    let [checked, unchecked] = [DecodeOptions::default(), unchecked()].map(|options| {
        let value = decode_with_options::<Value>(bytes, &options);
        // A buffer reads the file as the free function does, the second time through the schema
        // it kept from the first.
        let mut buffer = Buffer::new();
        for _ in 0..2 {
            let again = buffer.decode_with_options::<Value>(bytes, &options);
            if format!("{:?}", again.as_ref().ok()) != format!("{:?}", value.as_ref().ok()) {
                panic!("a Buffer read the file otherwise than decode_with_options");
            }
        }
        if let Ok(value) = &value {
            if let Ok(again) = try_encode(value) {
                if let Err(e) = tree_buf::decode::<Value>(&again) {
                    panic!("a decoded Value encodes to a file that does not decode: {e}");
                }
            }
        }
        let records = decode_with_options::<Vec<Record>>(bytes, &options);
        if let Ok(records) = &records {
            check_borrowed(bytes, &options, records);
        }
        [
            (As::Records, records.is_ok()),
            (As::Record, decodes::<Record>(bytes, &options)),
            (
                As::KindMap,
                decodes::<BTreeMap<String, Vec<Kind>>>(bytes, &options),
            ),
            (
                As::Pairs,
                decodes::<Vec<Option<(u8, String)>>>(bytes, &options),
            ),
            (
                As::Columns,
                decodes::<(Vec<f32>, Vec<char>, [u16; 3])>(bytes, &options),
            ),
            #[cfg(all(
                feature = "chrono",
                feature = "ordered-float",
                feature = "rust_decimal",
                feature = "time",
                feature = "uuid"
            ))]
            (As::Foreign, decodes::<Vec<Foreign>>(bytes, &options)),
            (As::Value, value.is_ok()),
        ]
        .into_iter()
        .filter_map(|(read, ok)| ok.then_some(read))
        .collect()
    });
    Decoded { checked, unchecked }
}

/// What [`serde`] read of a file, with checksums verified and without.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ThroughSerde {
    /// It read as `serde_json::Value`.
    pub json: bool,
    /// It read as `Vec<Record>`.
    pub records: bool,
    /// It read as `Vec<RecordSubset>`, a type that names some of the fields.
    pub subset: bool,
}

/// Decodes `bytes` through serde's `Deserialize` (`tree_buf::serde::from_slice`) as types that
/// read the file's own types, as the derive's records, and as some of their fields. Where the
/// derive reads records, serde must read the same ones.
pub fn serde(bytes: &[u8]) -> [ThroughSerde; 2] {
    [DecodeOptions::default(), unchecked()].map(|options| {
        let json = tree_buf::serde::from_slice_with_options::<serde_json::Value>(bytes, &options);
        let records = tree_buf::serde::from_slice_with_options::<Vec<Record>>(bytes, &options);
        let subset = tree_buf::serde::from_slice_with_options::<Vec<RecordSubset>>(bytes, &options);
        if let Ok(derived) = decode_with_options::<Vec<Record>>(bytes, &options) {
            match &records {
                // Compared as encoded, bit for bit: a NaN is not equal to itself.
                Ok(records) if tree_buf::encode(records) == tree_buf::encode(&derived) => {}
                other => panic!("the derive read records that serde read otherwise: {other:?}"),
            }
        }
        ThroughSerde {
            json: json.is_ok(),
            records: records.is_ok(),
            subset: subset.is_ok(),
        }
    })
}

/// What [`inspect`] could read of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inspected {
    /// `size_breakdown` measured it (and its parts add up to the file).
    pub breakdown: bool,
    /// It opened with checksums off, and its schema was listed.
    pub opened: bool,
    /// It opened with the default options and its data matches its checksum.
    pub verified: bool,
}

/// Measures and lists `bytes` without decoding values (and with zstd frames decompressed).
pub fn inspect(bytes: &[u8]) -> Inspected {
    let breakdown = size_breakdown(bytes).map(|breakdown| {
        let parts = breakdown.header_bytes
            + breakdown.schema_bytes
            + breakdown.table_bytes
            + breakdown.branches.iter().map(|b| b.bytes).sum::<usize>();
        assert_eq!(parts, bytes.len(), "the breakdown does not add up");
        let _ = breakdown.to_string();
    });
    let decompressing = BreakdownOptions::default().decompress_zstd(true);
    if let Ok(breakdown) = size_breakdown_with_options(bytes, &decompressing) {
        let _ = breakdown.to_string();
    }
    let opened = Reader::with_options(bytes, unchecked()).map(|reader| {
        let schema = reader.schema();
        let _ = schema.to_string();
        for node in schema.iter() {
            // Every node's path reads back as itself and leads to a node of the schema.
            let text = node.path.to_string();
            assert_eq!(Path::parse(&text).as_ref(), Ok(&node.path), "{text}");
            assert!(schema.find(&node.path).is_some(), "{text} is not found");
        }
    });
    // With checksums off `verify` has nothing to check.
    let verified = Reader::new(bytes).and_then(|reader| reader.verify());
    Inspected {
        breakdown: breakdown.is_ok(),
        opened: opened.is_ok(),
        verified: verified.is_ok(),
    }
}

/// What [`partial`] could read of a file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Partial {
    /// It decoded as a [`RecordSubset`].
    pub subset: bool,
    /// It decoded as a `Vec<RecordSubset>`.
    pub subsets: bool,
    /// The schema paths tried, in pre-order.
    pub paths: Vec<String>,
    /// Those of them that decoded as `Vec<Value>`.
    pub values: Vec<String>,
}

/// Partial reads of `bytes`: a type naming a subset of fields, and every path of the schema.
pub fn partial(bytes: &[u8]) -> Partial {
    let Ok(reader) = Reader::with_options(bytes, unchecked()) else {
        return Partial::default();
    };
    let subset = reader.decode::<RecordSubset>().is_ok();
    let subsets = reader.decode::<Vec<RecordSubset>>().is_ok();
    let schema = reader.schema();
    // Every path reads but those whose values hold a recursive type's values from a node above
    // them, which only that node reads.
    let from_above = |node: &tree_buf::SchemaNode| {
        let depth = node.path.segments().len();
        (node.iter()).any(|below| {
            (below.returns_to.as_ref()).is_some_and(|target| target.segments().len() < depth)
        })
    };
    let paths: Vec<String> = schema
        .iter()
        .take(64)
        .filter(|node| !from_above(node))
        .map(|node| node.path.to_string())
        .collect();
    // Every read that decodes a path; whether it decoded as values.
    let read = |path: &str| {
        let _ = reader.decode_path::<Vec<u64>>(path);
        let _ = reader.decode_path::<Vec<Option<String>>>(path);
        reader.decode_path::<Vec<Value>>(path).is_ok()
    };
    let values = paths.iter().filter(|path| read(path)).cloned().collect();
    for path in ["", "[]", "{key}", "{value}.[]", "0.1", "no.such", "[]..[]"] {
        read(path);
    }
    Partial {
        subset,
        subsets,
        paths,
        values,
    }
}

/// What [`archive`] could read of an archive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Archived {
    /// Its rows, if it opened (checksums verified) and every row decoded as a [`Value`].
    pub rows: Option<u64>,
    /// Its rows decoded as [`Record`]s.
    pub records: bool,
    /// The rows of the complete chunks a scan found, if it found any.
    pub recovered: Option<u64>,
}

/// Opens `bytes` as an archive (and, when that fails, recovers it by scanning) and reads it every
/// way an archive is read: all rows, a range, a path, a chunk at a time, as a sequence.
pub fn archive(bytes: &[u8]) -> Archived {
    let mut archived = Archived::default();
    for (options, verified) in [(DecodeOptions::default(), true), (unchecked(), false)] {
        let Ok(archive) = Archive::from_bytes_with_options(bytes, options.clone()) else {
            continue;
        };
        let listed: u64 = archive.chunks().iter().map(|chunk| chunk.rows).sum();
        assert_eq!(listed, archive.rows(), "the chunks' rows do not add up");
        let values = archive.decode_all::<Value>();
        // Compared as text: `Value`'s floats may be NaN, which equals nothing.
        let text = |rows: &[Value]| format!("{rows:?}");
        // Through serde the rows read chunk after chunk too, and as many.
        let through_serde = tree_buf::serde::from_slice_with_options::<Vec<Value>>(bytes, &options);
        if let (Ok(values), Ok(through_serde)) = (&values, &through_serde) {
            assert_eq!(through_serde.len(), values.len(), "serde read other rows");
        }
        if let Ok(values) = &values {
            assert_eq!(values.len() as u64, archive.rows(), "rows were lost");
            let iterated: Result<Vec<Value>, _> =
                archive.iter::<Value>().and_then(Iterator::collect);
            if let Ok(iterated) = iterated {
                assert_eq!(text(&iterated), text(values), "iterating reads other rows");
            }
            if let Ok(some) = archive.decode_rows::<Value>(1..3) {
                let range = 1.min(values.len())..3.min(values.len());
                assert_eq!(
                    text(&some),
                    text(&values[range]),
                    "a range reads other rows"
                );
            }
        }
        // Read as a stream from the start, without the footer: with the checksums verified, a
        // stream that reads to its end gives the rows the footer lists.
        if let (Ok(values), Ok(mut stream)) =
            (&values, StreamReader::with_options(bytes, options.clone()))
        {
            // Every other chunk whole, the others a row at a time.
            let mut streamed = Vec::new();
            let mut whole = true;
            let ended = loop {
                let next = match whole {
                    true => stream.next_chunk::<Value>(),
                    false => {
                        (stream.next_rows::<Value>()).map(|chunk| chunk.map(Iterator::collect))
                    }
                };
                whole = !whole;
                match next {
                    Ok(Some(chunk)) => streamed.extend(chunk),
                    Ok(None) => break true,
                    Err(_) => break false,
                }
            };
            if verified && ended && archive.unfinished_bytes() == 0 {
                assert_eq!(text(&streamed), text(values), "a stream reads other rows");
                assert_eq!(
                    stream.metadata(),
                    archive.metadata(),
                    "a stream reads other metadata"
                );
            }
        }
        // Fetched by ranges, every branch of every chunk: what opens reads the rows read whole.
        if let (true, Ok(values), Some(Ok(in_part))) = (verified, &values, read_in_part(bytes)) {
            assert_eq!(
                text(&in_part),
                text(values),
                "a partial archive reads other rows"
            );
        }
        let records = archive.decode_all::<Record>().is_ok();
        let _ = archive.decode_rows::<RecordSubset>(0..2);
        let _ = archive.decode_path::<Vec<Value>>("[].name");
        let _ = archive.decode_path::<Vec<u64>>("[]");
        let _ = decode_with_options::<Vec<RecordSubset>>(bytes, &options);
        let _ = archive.verify();
        if verified {
            archived.rows = values.ok().map(|_| archive.rows());
            archived.records = records;
        }
    }
    if let Ok(recovered) = Archive::recover_bytes(bytes) {
        if recovered.decode_all::<Value>().is_ok() {
            archived.recovered = Some(recovered.rows());
        }
    }
    archived
}

/// Opens `bytes` as a [`PartialArchive`] would be from a store, asking for every branch of every
/// chunk, and reads its rows; `None` if it did not open.
fn read_in_part(bytes: &[u8]) -> Option<Result<Vec<Value>, tree_buf::DecodeError>> {
    let fetch = |partial: &mut PartialArchive| -> Result<(), tree_buf::DecodeError> {
        // Opening takes at most four rounds (start and end, header and footer, tables, schema
        // sections); a read two more (branches, keyed branches' sources).
        for _ in 0..8 {
            let wanted = partial.wanted()?;
            if wanted.is_empty() {
                return Ok(());
            }
            for range in wanted {
                partial.fill(
                    range.start,
                    &bytes[range.start as usize..range.end as usize],
                )?;
            }
        }
        panic!("a partial archive wanted more rounds of fetching than its layout has");
    };
    let mut partial = PartialArchive::new(bytes.len() as u64).ok()?;
    fetch(&mut partial).ok()?;
    let branches: Vec<usize> = (partial.view().ok()?.chunks().iter())
        .map(|chunk| chunk.branches.len())
        .collect();
    for (chunk, count) in branches.into_iter().enumerate() {
        partial.read_branches(chunk, 0..count);
    }
    fetch(&mut partial).ok()?;
    Some(partial.finish().ok()?.decode_all::<Value>())
}

/// A round-trip input: records and the options to encode them with.
#[derive(Debug, Clone)]
pub struct RoundTrip {
    /// The records to encode.
    pub records: Vec<Record>,
    /// The encoder's preference.
    pub preference: Preference,
    /// Whether the encoder may use threads.
    pub parallel: bool,
}

impl RoundTrip {
    /// Reads the input from arbitrary bytes: the records first, then the options.
    pub fn parse(data: &[u8]) -> Option<RoundTrip> {
        let mut input = Unstructured::new(data);
        let (records, preference, parallel) =
            <(Vec<Record>, u8, bool)>::arbitrary(&mut input).ok()?;
        let preference = match preference % 3 {
            0 => Preference::Faster,
            1 => Preference::Balanced,
            _ => Preference::Smaller,
        };
        Some(RoundTrip {
            records,
            preference,
            parallel,
        })
    }

    /// The options to encode the records with.
    pub fn options(&self) -> EncodeOptions {
        EncodeOptions::default()
            .prefer(self.preference)
            .parallel(self.parallel)
    }
}

/// Encodes arbitrary records with arbitrary options; they must decode to the same records, whole
/// and in part. Returns the input it checked: none if the bytes do not parse, or if the records
/// nest too deep to encode.
pub fn round_trip(data: &[u8]) -> Option<RoundTrip> {
    let input = RoundTrip::parse(data)?;
    let records = &input.records;
    let options = input.options();
    let bytes = match encode_with_options(records, &options) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == EncodeErrorKind::DepthLimit => return None,
        Err(e) => panic!("records do not encode: {e}"),
    };
    let back: Vec<Record> = tree_buf::decode(&bytes).expect("a file just written decodes");
    // Debug tells floats apart by value (NaN aside) where `==` cannot; the second encoding
    // compares NaN payloads too.
    assert_eq!(format!("{back:?}"), format!("{records:?}"));
    assert_eq!(encode_with_options(&back, &options).unwrap(), bytes);

    let reader = Reader::new(&bytes).unwrap();
    let subsets: Vec<RecordSubset> = reader.decode().expect("a subset decodes");
    let expected: Vec<_> = records
        .iter()
        .map(|r| (&r.name, &r.kind, &r.index))
        .collect();
    let got: Vec<_> = subsets
        .iter()
        .map(|s| (&s.name, &s.kind, &s.index))
        .collect();
    assert_eq!(format!("{got:?}"), format!("{expected:?}"));
    // An empty sequence records no item type, so paths below it exist only once it has items.
    if !records.is_empty() {
        let ids: Vec<u64> = reader.decode_path("[].id").expect("a path decodes");
        assert!(ids.iter().eq(records.iter().map(|r| &r.id)));
    }
    let children = records.iter().map(|r| r.tree.children.len()).sum::<usize>();
    if children > 0 {
        let trees: Vec<Value> = reader.decode_path("[].tree.children.[]").unwrap();
        assert_eq!(trees.len(), children);
    }
    tree_buf::decode::<Value>(&bytes).expect("every file decodes as a Value");

    // Through serde: the records come back, and the derive's file reads through serde alike.
    let through_serde = match tree_buf::serde::to_vec_with_options(records, &options) {
        Ok(through_serde) => through_serde,
        Err(e) if e.kind() == EncodeErrorKind::DepthLimit => return Some(input),
        Err(e) => panic!("records do not encode through serde: {e}"),
    };
    // A derived file whose trees nest puts every depth in one set of branches (recursion nodes),
    // which serde reads too.
    for file in [&through_serde, &bytes] {
        let back: Vec<Record> =
            tree_buf::serde::from_slice(file).expect("a file just written decodes through serde");
        assert_eq!(format!("{back:?}"), format!("{records:?}"));
        assert_eq!(encode_with_options(&back, &options).unwrap(), bytes);
    }
    Some(input)
}

/// Declares [`Shapes`] with one counter per field, so that each is named once.
macro_rules! shapes {
    ($($(#[doc = $doc:literal])* $name:ident,)*) => {
        /// How often each shape of [`Record`], and each encoding option, occurs in some round-trip
        /// inputs: what a corpus of them covers.
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub struct Shapes {
            $($(#[doc = $doc])* pub $name: usize,)*
        }

        impl Shapes {
            /// Every counter set to `count`.
            pub const fn each(count: usize) -> Shapes {
                Shapes { $($name: count,)* }
            }

            /// Every counter with its name, in declaration order.
            pub fn counters(&self) -> Vec<(&'static str, usize)> {
                vec![$((stringify!($name), self.$name),)*]
            }
        }
    };
}

shapes! {
    /// Inputs that round-tripped.
    inputs,
    /// Records in them.
    records,
    /// Inputs encoded with [`Preference::Faster`].
    faster,
    /// Inputs encoded with [`Preference::Balanced`].
    balanced,
    /// Inputs encoded with [`Preference::Smaller`].
    smaller,
    /// Inputs encoded in parallel.
    parallel,
    /// Inputs encoded on one thread.
    sequential,
    /// Records whose `kind` is [`Kind::Empty`].
    kind_empty,
    /// Records whose `kind` is [`Kind::Count`].
    kind_count,
    /// Records whose `kind` is [`Kind::Pair`].
    kind_pair,
    /// Records whose `kind` is [`Kind::Named`].
    kind_named,
    /// Records with a `score`.
    score_some,
    /// Records without a `score`.
    score_none,
    /// NaN floats, in any field.
    nan,
    /// Infinite floats, in any field.
    infinite,
    /// Negative zeros, in any field.
    negative_zero,
    /// Records with `tags`.
    tags,
    /// Records with `bytes`.
    bytes,
    /// Records with `points`.
    points,
    /// `history` entries that hold a kind.
    history_some,
    /// `history` entries that hold none.
    history_none,
    /// Records with entries in `index`.
    index,
    /// Records whose `tree` has children.
    children,
    /// Records whose `tree` has grandchildren.
    grandchildren,
    /// Records with a `label`.
    label,
}

impl Shapes {
    /// The least a round-trip corpus must cover, as `tests/fuzz_replay.rs` asserts. Ten of each
    /// shape of record put it in several files (a seed holds a few dozen records) next to varied
    /// neighbours, and 200 records leave the corpus small. Options and special floats count
    /// files and values, not records: four of each still reach every encoder setting, and the
    /// float codecs' handling of each special value, in several files.
    pub const MINIMUM: Shapes = Shapes {
        records: 200,
        faster: 4,
        balanced: 4,
        smaller: 4,
        parallel: 4,
        sequential: 4,
        nan: 4,
        infinite: 4,
        negative_zero: 4,
        ..Shapes::each(10)
    };

    /// Counts the shapes of `input`.
    pub fn add(&mut self, input: &RoundTrip) {
        self.inputs += 1;
        self.faster += usize::from(input.preference == Preference::Faster);
        self.balanced += usize::from(input.preference == Preference::Balanced);
        self.smaller += usize::from(input.preference == Preference::Smaller);
        self.parallel += usize::from(input.parallel);
        self.sequential += usize::from(!input.parallel);
        for record in &input.records {
            self.add_record(record);
        }
    }

    fn add_record(&mut self, record: &Record) {
        self.records += 1;
        match record.kind {
            Kind::Empty => self.kind_empty += 1,
            Kind::Count(_) => self.kind_count += 1,
            Kind::Pair(..) => self.kind_pair += 1,
            Kind::Named { .. } => self.kind_named += 1,
        }
        self.score_some += usize::from(record.score.is_some());
        self.score_none += usize::from(record.score.is_none());
        self.tags += usize::from(!record.tags.is_empty());
        self.bytes += usize::from(!record.bytes.is_empty());
        self.points += usize::from(!record.points.is_empty());
        let history = record.history.iter().filter(|kind| kind.is_some()).count();
        self.history_some += history;
        self.history_none += record.history.len() - history;
        self.index += usize::from(!record.index.is_empty());
        let children = &record.tree.children;
        self.children += usize::from(!children.is_empty());
        self.grandchildren += usize::from(children.iter().any(|c| !c.children.is_empty()));
        self.label += usize::from(!record.label.is_empty());

        let named = std::iter::once(&record.kind)
            .chain(record.history.iter().flatten())
            .filter_map(|kind| match kind {
                Kind::Named { x, .. } => Some(f64::from(*x)),
                _ => None,
            });
        let floats = [f64::from(record.ratio)]
            .into_iter()
            .chain(record.score)
            .chain(record.points.iter().flat_map(|&(a, b)| [f64::from(a), b]))
            .chain(named);
        for float in floats {
            self.nan += usize::from(float.is_nan());
            self.infinite += usize::from(float.is_infinite());
            self.negative_zero += usize::from(float == 0.0 && float.is_sign_negative());
        }
    }

    /// The counters below those of `minimum`, as `name: count < minimum`.
    pub fn below(&self, minimum: &Shapes) -> Vec<String> {
        self.counters()
            .into_iter()
            .zip(minimum.counters())
            .filter(|((_, count), (_, least))| count < least)
            .map(|((name, count), (_, least))| format!("{name}: {count} < {least}"))
            .collect()
    }
}

impl fmt::Display for Shapes {
    /// One `name count` line per counter.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.counters()
            .into_iter()
            .try_for_each(|(name, count)| writeln!(f, "{name:>14} {count}"))
    }
}
