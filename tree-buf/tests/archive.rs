//! Archives: chunked writing, the footer and its statistics, partial and parallel reading,
//! appending, recovery, and hostile bytes.

use std::collections::BTreeMap;
use std::path::PathBuf;

use tree_buf::archive::{
    Archive, ArchiveError, ArchiveOptions, ArchiveWriter, PartialArchive, Statistics, StreamReader,
};
use tree_buf::prelude::*;
use tree_buf::{DecodeError, DecodeErrorKind, EncodeOptions, NodeType, Preference};

#[derive(Encode, Decode, Debug, Clone, PartialEq)]
struct Game {
    id: u32,
    home: String,
    delta: i16,
    attendance: Option<u32>,
    innings: Vec<u8>,
}

#[derive(Decode, Debug, PartialEq)]
struct HomeOnly {
    home: String,
}

fn game(i: u32) -> Game {
    Game {
        id: i,
        home: ["BOS", "NYA", "CHA", "DET"][i as usize % 4].to_owned(),
        delta: (i as i16 % 7) - 3,
        attendance: (!i.is_multiple_of(3)).then_some(20_000 + i),
        innings: vec![(i % 5) as u8; (i % 4) as usize],
    }
}

fn write<T: Encode>(rows: impl IntoIterator<Item = T>, options: ArchiveOptions) -> Vec<u8> {
    let mut writer = ArchiveWriter::with_options(Vec::new(), options).unwrap();
    for row in rows {
        writer.push(&row).unwrap();
    }
    writer.finish().unwrap()
}

/// A file in the temporary directory, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str) -> TempFile {
        let path =
            std::env::temp_dir().join(format!("tree-buf-test-{}-{name}.tb", std::process::id()));
        let _ = std::fs::remove_file(&path);
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn rows_come_back_from_every_way_of_reading() {
    let games: Vec<Game> = (0..1000).map(game).collect();
    let bytes = write(games.clone(), ArchiveOptions::default().chunk_rows(300));
    let archive = Archive::from_bytes(&bytes).unwrap();
    assert_eq!(archive.rows(), 1000);
    let chunks = archive.chunks();
    assert_eq!(
        chunks
            .iter()
            .map(|c| (c.first_row, c.rows))
            .collect::<Vec<_>>(),
        [(0, 300), (300, 300), (600, 300), (900, 100)]
    );
    assert_eq!(archive.decode_all::<Game>().unwrap(), games);
    assert_eq!(decode::<Vec<Game>>(&bytes).unwrap(), games);
    let iterated: Vec<Game> = archive.iter().unwrap().map(Result::unwrap).collect();
    assert_eq!(iterated, games);
    assert_eq!(
        archive.decode_rows::<Game>(250..610).unwrap(),
        games[250..610]
    );
    assert_eq!(
        archive.decode_rows::<Game>(990..5000).unwrap(),
        games[990..]
    );
    assert!(archive.decode_rows::<Game>(5000..6000).unwrap().is_empty());
    let homes: Vec<HomeOnly> = archive.decode_rows(0..4).unwrap();
    assert_eq!(homes[1], HomeOnly { home: "NYA".into() });
    let ids: Vec<u32> = archive.decode_path("[].id").unwrap();
    assert_eq!(ids, (0..1000).collect::<Vec<_>>());
    let innings: Vec<u8> = archive.decode_path("[].innings.[]").unwrap();
    assert_eq!(
        innings.len(),
        games.iter().map(|g| g.innings.len()).sum::<usize>()
    );
    assert_eq!(archive.decode_chunk::<Game>(1).unwrap(), games[300..600]);
    assert_eq!(
        archive.decode_chunk::<Game>(4).unwrap_err().kind(),
        DecodeErrorKind::PathNotFound
    );
    archive.verify().unwrap();
    // As values: the rows of every chunk, in one array.
    let value: Value = decode(&bytes).unwrap();
    let Value::Array(rows) = value else {
        panic!("an array of rows")
    };
    assert_eq!(rows.len(), 1000);
}

#[test]
fn the_footer_holds_statistics_of_every_branch() {
    let bytes = write((0..100).map(game), ArchiveOptions::default().chunk_rows(60));
    let archive = Archive::from_bytes(&bytes).unwrap();
    let first = &archive.chunks()[0];
    // The first branch at `path`: an option's presence comes before its values, which have
    // the same path.
    let branch = |path: &str| {
        first
            .branches
            .iter()
            .find(|branch| branch.path == path)
            .unwrap_or_else(|| panic!("a branch at {path}"))
    };
    assert_eq!(
        branch("[].id").statistics,
        Some(Statistics::Unsigned { min: 0, max: 59 })
    );
    assert_eq!(branch("[].id").values, 60);
    assert_eq!(
        branch("[].delta").statistics,
        Some(Statistics::Signed { min: -3, max: 3 })
    );
    assert_eq!(
        branch("[].home").statistics,
        Some(Statistics::Str {
            min: b"BOS".to_vec(),
            max: b"NYA".to_vec()
        })
    );
    let attendance = branch("[].attendance");
    assert_eq!(attendance.node_type, NodeType::Option);
    assert_eq!(attendance.statistics, Some(Statistics::Nulls(20)));
    let present = (first.branches.iter())
        .find(|b| b.path == "[].attendance" && b.node_type == NodeType::U32)
        .unwrap();
    assert_eq!(
        present.statistics,
        Some(Statistics::Unsigned {
            min: 20_001,
            max: 20_059
        })
    );
    assert_eq!(
        branch("[].innings").statistics,
        Some(Statistics::Unsigned { min: 0, max: 3 })
    );
    // The second chunk's ids start where the first's end.
    let second = &archive.chunks()[1];
    let ids = second.branches.iter().find(|b| b.path == "[].id").unwrap();
    assert_eq!(
        ids.statistics,
        Some(Statistics::Unsigned { min: 60, max: 99 })
    );
    // Without statistics, the branches are still listed.
    let bare = write(
        (0..100).map(game),
        ArchiveOptions::default().statistics(false),
    );
    let archive = Archive::from_bytes(&bare).unwrap();
    assert!(archive.chunks()[0]
        .branches
        .iter()
        .all(|b| b.statistics.is_none() && b.bytes > 0));
    assert!(bare.len() < bytes.len());
}

#[test]
fn floats_and_bools_get_bounds() {
    let rows: Vec<(f32, f64, bool)> = vec![(1.5, -0.25, false), (f32::NAN, 8.0, false)];
    let mut writer = ArchiveWriter::new(Vec::new()).unwrap();
    for row in &rows {
        writer.push(row).unwrap();
    }
    let bytes = writer.finish().unwrap();
    let archive = Archive::from_bytes(&bytes).unwrap();
    let stats: BTreeMap<String, Option<Statistics>> = (archive.chunks()[0].branches.iter())
        .map(|b| (b.path.clone(), b.statistics.clone()))
        .collect();
    assert_eq!(
        stats["[].0"],
        Some(Statistics::Float { min: 1.5, max: 1.5 })
    );
    assert_eq!(
        stats["[].1"],
        Some(Statistics::Float {
            min: -0.25,
            max: 8.0
        })
    );
    assert_eq!(stats["[].2"], Some(Statistics::Unsigned { min: 0, max: 0 }));
}

#[test]
fn chunks_end_at_a_size_in_bytes_too() {
    let options = ArchiveOptions::default().chunk_bytes(64 * 1024);
    let bytes = write((0..20_000).map(game), options);
    let archive = Archive::from_bytes(&bytes).unwrap();
    assert!(archive.chunks().len() > 3, "{}", archive.chunks().len());
    assert_eq!(archive.rows(), 20_000);
    assert_eq!(archive.decode_all::<Game>().unwrap()[19_999], game(19_999));
}

#[test]
fn empty_and_one_chunk_archives() {
    let empty = write::<Game>([], ArchiveOptions::default());
    let archive = Archive::from_bytes(&empty).unwrap();
    assert_eq!((archive.rows(), archive.chunks().len()), (0, 0));
    assert!(archive.decode_all::<Game>().unwrap().is_empty());
    assert!(decode::<Vec<Game>>(&empty).unwrap().is_empty());
    assert_eq!(decode::<Value>(&empty).unwrap(), Value::Array(Vec::new()));

    let one = write((0..10).map(game), ArchiveOptions::default());
    assert_eq!(
        decode::<Vec<Game>>(&one).unwrap(),
        (0..10).map(game).collect::<Vec<_>>()
    );
    // A single value is not a sequence of chunks' rows.
    let two = write((0..10).map(game), ArchiveOptions::default().chunk_rows(5));
    let error = decode::<Game>(&two).unwrap_err();
    assert_eq!(error.kind(), DecodeErrorKind::SchemaMismatch);
    // A file of one value is not an archive, and says how to read it.
    let plain = encode(&vec![game(1)]);
    let error = Archive::from_bytes(&plain).unwrap_err();
    assert_eq!(error.kind(), DecodeErrorKind::SchemaMismatch);
    assert!(error.message().contains("tree_buf::decode"));
}

#[test]
fn rows_of_values_may_change_shape_between_chunks() {
    let rows: Vec<Value> = vec![
        serde_json::json!({"a": 1, "b": "x"}),
        serde_json::json!({"a": 2, "b": "y"}),
        serde_json::json!({"a": 2.5, "b": "z", "c": true}),
        serde_json::json!({"a": 3, "c": false}),
        serde_json::json!({"a": 4, "b": "w"}),
    ]
    .into_iter()
    .map(Value::from)
    .collect();
    let bytes = write(
        rows.iter().cloned(),
        ArchiveOptions::default().chunk_rows(2),
    );
    let archive = Archive::from_bytes(&bytes).unwrap();
    assert_eq!(archive.chunks().len(), 3);
    assert_eq!(archive.decode_all::<Value>().unwrap(), rows);
    assert_eq!(decode::<Value>(&bytes).unwrap(), Value::Array(rows.clone()));
    // Rows a chunk at a time, from any row.
    let some: Vec<Value> = archive.iter_rows(1..4).collect::<Result<_, _>>().unwrap();
    assert_eq!(some, rows[1..4]);
    assert_eq!(archive.iter_rows::<Value>(4..9).count(), 1);
    // A path only some chunks have gives their values; one no chunk has is not found.
    let c: Vec<bool> = archive.decode_path("[].c").unwrap();
    assert_eq!(c, [true, false]);
    let error = archive.decode_path::<Vec<bool>>("[].d").unwrap_err();
    assert_eq!(error.kind(), DecodeErrorKind::PathNotFound);

    // Read as a type, each chunk by the evolution rules: absent fields are `None`.
    #[derive(Decode, Debug, PartialEq)]
    struct Row {
        b: Option<String>,
        c: Option<bool>,
    }
    let typed: Vec<Row> = archive.decode_all().unwrap();
    assert_eq!(
        typed[0],
        Row {
            b: Some("x".into()),
            c: None
        }
    );
    assert_eq!(
        typed[3],
        Row {
            b: None,
            c: Some(false)
        }
    );
}

#[test]
fn appending_adds_chunks_and_keeps_the_earlier_ones() {
    let file = TempFile::new("append");
    let mut writer = ArchiveWriter::<Game>::create(&file.0).unwrap();
    for i in 0..10 {
        writer.push(&game(i)).unwrap();
    }
    writer.finish().unwrap();
    for round in 1..=2u32 {
        let mut writer = ArchiveWriter::<Game>::append(&file.0).unwrap();
        assert_eq!(writer.rows(), 10 * u64::from(round));
        for i in 10 * round..10 * round + 10 {
            writer.push(&game(i)).unwrap();
        }
        writer.finish().unwrap();
    }
    let archive = Archive::open(&file.0).unwrap();
    assert_eq!(archive.chunks().len(), 3);
    assert_eq!(
        archive.decode_all::<Game>().unwrap(),
        (0..30).map(game).collect::<Vec<_>>()
    );
    assert_eq!(archive.unfinished_bytes(), 0);
    // Rows of the same type share the header's schema: no schema section was needed.
    let bytes = std::fs::read(&file.0).unwrap();
    assert_eq!(decode::<Vec<Game>>(&bytes).unwrap().len(), 30);
}

#[test]
fn an_append_that_stops_leaves_the_archive_as_it_was() {
    let file = TempFile::new("torn");
    let bytes = write((0..10).map(game), ArchiveOptions::default());
    std::fs::write(&file.0, &bytes).unwrap();
    // An append that wrote a chunk but no footer.
    let mut writer = ArchiveWriter::<Game>::append(&file.0).unwrap();
    writer.push(&game(10)).unwrap();
    writer.flush_chunk().unwrap();
    drop(writer);
    let torn = std::fs::read(&file.0).unwrap();
    assert!(torn.len() > bytes.len());
    for cut in bytes.len()..=torn.len() {
        let archive = Archive::from_bytes(&torn[..cut]).unwrap();
        assert_eq!(archive.rows(), 10, "cut at {cut}");
        assert_eq!(archive.unfinished_bytes(), cut - bytes.len());
    }
    // Decoding the whole file, which checks everything, says what is wrong instead.
    let error = decode::<Vec<Game>>(&torn).unwrap_err();
    assert_eq!(error.kind(), DecodeErrorKind::Truncated);
    assert!(
        error.message().contains("after its last complete footer"),
        "{error}"
    );
    // The chunk the append finished is there for recovery.
    let recovered = Archive::recover_bytes(&torn).unwrap();
    assert_eq!(recovered.rows(), 11);
    assert_eq!(recovered.decode_all::<Game>().unwrap()[10], game(10));
    // The next append drops the unfinished bytes first.
    let mut writer = ArchiveWriter::<Game>::append(&file.0).unwrap();
    writer.push(&game(11)).unwrap();
    writer.finish().unwrap();
    let archive = Archive::open(&file.0).unwrap();
    let ids: Vec<u32> = archive.decode_path("[].id").unwrap();
    assert_eq!(ids, (0..10).chain([11]).collect::<Vec<_>>());
}

#[test]
fn an_unfinished_archive_is_an_error_that_names_recovery() {
    let file = TempFile::new("unfinished");
    let options = ArchiveOptions::default().chunk_rows(4);
    let mut writer = ArchiveWriter::<Game>::create_with_options(&file.0, options).unwrap();
    for i in 0..10 {
        writer.push(&game(i)).unwrap();
    }
    writer.flush_chunk().unwrap();
    // Dropped without `finish`: the file holds three chunks and no footer.
    drop(writer);
    let bytes = std::fs::read(&file.0).unwrap();
    let error = Archive::from_bytes(&bytes).unwrap_err();
    assert_eq!(error.kind(), DecodeErrorKind::Truncated);
    assert!(error.message().contains("Archive::recover"), "{error}");
    let recovered = Archive::recover(&file.0).unwrap();
    assert_eq!(recovered.rows(), 10);
    assert_eq!(
        recovered.decode_all::<Game>().unwrap(),
        (0..10).map(game).collect::<Vec<_>>()
    );
    // Cut inside the last chunk: the complete ones are recovered.
    let cut = &bytes[..bytes.len() - 3];
    assert_eq!(Archive::recover_bytes(cut).unwrap().rows(), 8);
}

#[test]
fn hostile_archives_are_errors_not_panics() {
    let bytes = write((0..50).map(game), ArchiveOptions::default().chunk_rows(20));
    let read_all = |bytes: &[u8]| -> Result<usize, DecodeError> {
        let archive = Archive::from_bytes(bytes)?;
        let rows = archive.decode_all::<Game>()?;
        let _ = archive.decode_path::<Vec<String>>("[].home");
        let _ = archive.decode_rows::<HomeOnly>(10..30);
        let _ = decode::<Vec<Game>>(bytes);
        Ok(rows.len())
    };
    for cut in 0..bytes.len() {
        assert!(read_all(&bytes[..cut]).is_err(), "cut at {cut}");
        let _ = Archive::recover_bytes(&bytes[..cut]).map(|a| a.decode_all::<Game>());
    }
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for round in 0..3000 {
        let mut bad = bytes.clone();
        for _ in 0..1 + round % 4 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let at = (state % bad.len() as u64) as usize;
            bad[at] ^= 1 << ((state >> 60) as u8 % 8);
        }
        if let Ok(rows) = read_all(&bad) {
            assert_eq!(rows, 50);
        }
        let _ = Archive::recover_bytes(&bad).map(|a| a.decode_all::<Game>());
        let unchecked = tree_buf::DecodeOptions::default().verify_checksums(false);
        let _ = Archive::from_bytes_with_options(&bad, unchecked).map(|a| {
            (
                a.decode_all::<Game>(),
                a.decode_path::<Vec<u8>>("[].innings.[]"),
            )
        });
    }
}

#[test]
fn io_errors_are_archive_errors() {
    let missing = std::env::temp_dir().join("tree-buf-no-such-dir/archive.tb");
    assert!(matches!(
        ArchiveWriter::<Game>::create(&missing),
        Err(ArchiveError::Io(_))
    ));
    assert!(matches!(Archive::open(&missing), Err(ArchiveError::Io(_))));
}

/// The environment variable naming the archive that [`append_until_killed`] appends to.
const CHILD_ARCHIVE: &str = "TREE_BUF_TEST_APPEND_UNTIL_KILLED";

/// The child half of `appends_killed_at_any_moment_leave_a_readable_archive`: appends rounds
/// of 100 rows (4 chunks each) to the archive the environment names, until it is killed.
#[test]
#[ignore = "a child process of appends_killed_at_any_moment_leave_a_readable_archive"]
fn append_until_killed() {
    let Ok(path) = std::env::var(CHILD_ARCHIVE) else {
        return;
    };
    let options = ArchiveOptions::default().chunk_rows(25);
    loop {
        let mut writer =
            ArchiveWriter::<Game>::append_with_options(&path, options.clone()).unwrap();
        let start = writer.rows() as u32;
        for i in start..start + 100 {
            writer.push(&game(i)).unwrap();
        }
        writer.finish().unwrap();
    }
}

#[test]
fn appends_killed_at_any_moment_leave_a_readable_archive() {
    let file = TempFile::new("killed");
    ArchiveWriter::<Game>::create(&file.0)
        .unwrap()
        .finish()
        .unwrap();
    let mut last_rows = 0;
    for attempt in 0..24u64 {
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "append_until_killed", "--ignored", "--nocapture"])
            .env(CHILD_ARCHIVE, &file.0)
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Kill it at a different moment each time (SIGKILL on Unix): while starting, while
        // writing chunks, while writing a footer.
        std::thread::sleep(std::time::Duration::from_micros(
            5_000 + attempt * 7_919 % 40_000,
        ));
        child.kill().unwrap();
        child.wait().unwrap();
        let archive = Archive::open(&file.0).unwrap();
        let rows = archive.rows();
        assert_eq!(rows % 100, 0, "only finished appends count");
        assert!(rows >= last_rows);
        let ids: Vec<u32> = archive.decode_path("[].id").unwrap();
        assert!(ids.iter().copied().eq(0..rows as u32));
        let recovered = Archive::recover(&file.0).unwrap();
        assert!(recovered.rows() >= rows);
        let all: Vec<Game> = recovered.decode_all().unwrap();
        assert!(all.iter().enumerate().all(|(i, g)| *g == game(i as u32)));
        last_rows = rows;
    }
    assert!(last_rows > 0, "the appends made progress");
}

#[test]
fn breakdowns_and_readers_see_archives_in_total_and_per_chunk() {
    let bytes = write((0..100).map(game), ArchiveOptions::default().chunk_rows(40));
    let breakdown = tree_buf::size_breakdown(&bytes).unwrap();
    let parts = breakdown.header_bytes
        + breakdown.schema_bytes
        + breakdown.table_bytes
        + breakdown.branches.iter().map(|b| b.bytes).sum::<usize>();
    assert_eq!(parts, bytes.len());
    let archive = Archive::from_bytes(&bytes).unwrap();
    let ids = |chunk: &tree_buf::archive::ChunkInfo| {
        chunk
            .branches
            .iter()
            .find(|b| b.path == "[].id")
            .unwrap()
            .bytes as usize
    };
    let id_bytes: usize = archive.chunks().iter().map(ids).sum();
    let total = breakdown
        .branches
        .iter()
        .find(|b| b.path == "[].id")
        .unwrap();
    assert_eq!(total.bytes, id_bytes);

    let reader = archive.chunk_reader(2).unwrap();
    assert_eq!(
        reader.decode_path::<Vec<u32>>("[].id").unwrap(),
        (80..100).collect::<Vec<_>>()
    );
    assert!(reader.schema().find("[].home").unwrap().bytes > 0);
    reader.verify().unwrap();
    assert_eq!(
        reader.decode::<Vec<Game>>().unwrap(),
        (80..100).map(game).collect::<Vec<_>>()
    );
    assert!(archive.chunk_reader(3).is_err());
}

/// A reader that gives at most three bytes at a time, as a slow pipe does.
struct Trickle<'a>(&'a [u8]);

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = out.len().min(3).min(self.0.len());
        out[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

/// Every chunk a stream reader gives of `bytes`, and how it ended.
fn stream_rows<T: DecodeOwned>(bytes: &[u8]) -> (Vec<T>, Result<(), ArchiveError>) {
    let mut rows = Vec::new();
    let mut stream = match StreamReader::new(Trickle(bytes)) {
        Ok(stream) => stream,
        Err(error) => return (rows, Err(error)),
    };
    // Every other chunk is taken whole, the others a row at a time: both give the same rows.
    let mut whole = true;
    loop {
        let next = match whole {
            true => stream.next_chunk::<T>(),
            false => stream
                .next_rows::<T>()
                .map(|chunk| chunk.map(Iterator::collect)),
        };
        whole = !whole;
        match next {
            Ok(Some(chunk)) => rows.extend(chunk),
            Ok(None) => return (rows, Ok(())),
            Err(error) => return (rows, Err(error)),
        }
    }
}

#[test]
fn a_stream_reads_from_the_start_without_the_footer() {
    let file = TempFile::new("stream");
    let options = ArchiveOptions::default().chunk_rows(7);
    let mut writer = ArchiveWriter::<Game>::create_with_options(&file.0, options.clone()).unwrap();
    for i in 0..20 {
        writer.push(&game(i)).unwrap();
    }
    writer.finish().unwrap();
    let mut writer = ArchiveWriter::<Game>::append_with_options(&file.0, options).unwrap();
    for i in 20..30 {
        writer.push(&game(i)).unwrap();
    }
    writer.finish().unwrap();
    let bytes = std::fs::read(&file.0).unwrap();
    // Past the first footer and its trailer, into the appended chunks.
    let (rows, end) = stream_rows::<Game>(&bytes);
    end.unwrap();
    assert_eq!(rows, (0..30).map(game).collect::<Vec<_>>());

    // Rows of values whose schema changes: the schema sections come in the stream too.
    let values: Vec<Value> = (0..9)
        .map(|i| match i {
            0..=2 => serde_json::json!({"a": i}),
            3..=5 => serde_json::json!({"a": i as f64 / 2.0, "b": "x"}),
            _ => serde_json::json!({"c": [i]}),
        })
        .map(Value::from)
        .collect();
    let widened = write(
        values.iter().cloned(),
        ArchiveOptions::default().chunk_rows(3),
    );
    let (rows, end) = stream_rows::<Value>(&widened);
    end.unwrap();
    assert_eq!(rows, values);

    // A stream cut short gives its complete chunks, then says what happened; never a panic.
    for cut in 0..bytes.len() {
        let (rows, end) = stream_rows::<Game>(&bytes[..cut]);
        assert!(rows
            .iter()
            .enumerate()
            .all(|(i, row)| *row == game(i as u32)));
        let ends_after_a_footer =
            Archive::from_bytes(&bytes[..cut]).is_ok_and(|archive| archive.unfinished_bytes() == 0);
        assert_eq!(end.is_ok(), ends_after_a_footer, "cut at {cut}");
    }
    // A footer whose checksum does not match is an error in a stream as in a file, in archives
    // of every version (this one declares a version before metadata).
    let footer = u64::from_le_bytes(bytes[bytes.len() - 16..][..8].try_into().unwrap()) as usize;
    let mut damaged = bytes.clone();
    damaged[footer + 4] ^= 0x10;
    let (rows, end) = stream_rows::<Game>(&damaged);
    assert_eq!(rows.len(), 30);
    assert!(end.unwrap_err().to_string().contains("checksum"));
    // A file of one value is not a stream of rows.
    assert!(StreamReader::new(encode(&vec![game(0)]).as_slice()).is_err());
}

/// Fetches what `partial` wants of `stored`, round after round, until it wants nothing more;
/// the number of rounds.
fn fetch_all(partial: &mut PartialArchive, stored: &[u8]) -> Result<usize, DecodeError> {
    let mut rounds = 0;
    loop {
        let wanted = partial.wanted()?;
        if wanted.is_empty() {
            return Ok(rounds);
        }
        rounds += 1;
        assert!(rounds < 20, "{wanted:?}");
        for range in wanted {
            partial.fill(
                range.start,
                &stored[range.start as usize..range.end as usize],
            )?;
        }
    }
}

/// `stored` opened in part, holding the branches of `branch` in chunk `chunk`.
fn fetch_branch(stored: &[u8], chunk: usize, branch: usize) -> (Archive<'static>, u64) {
    let mut partial = PartialArchive::new(stored.len() as u64).unwrap();
    fetch_all(&mut partial, stored).unwrap();
    partial.read_branches(chunk, [branch]);
    fetch_all(&mut partial, stored).unwrap();
    let fetched = partial.fetched_bytes();
    (partial.finish().unwrap(), fetched)
}

/// Checks that each path of every chunk of `stored`, read from a partial archive that fetched
/// only the path's branch and what it needs, reads as from the whole archive.
fn check_every_branch_alone(stored: &[u8]) {
    let whole = Archive::from_bytes(stored).unwrap();
    for (chunk, info) in whole.chunks().iter().enumerate() {
        for (branch, branch_info) in info.branches.iter().enumerate() {
            let (partial, _) = fetch_branch(stored, chunk, branch);
            let path = &branch_info.path;
            if path.is_empty() {
                continue;
            }
            // Paths inside a recursive type are read through the type's own path.
            let Ok(expected) = whole
                .chunk_reader(chunk)
                .unwrap()
                .decode_path::<Value>(path)
            else {
                continue;
            };
            let got: Value = (partial.chunk_reader(chunk).unwrap().decode_path(path))
                .unwrap_or_else(|error| panic!("chunk {chunk}, {path}: {error}"));
            assert_eq!(got, expected, "chunk {chunk}, {path}");
        }
    }
}

/// Rows whose columns go together, as in a statistics table: hits with at-bats, a league with
/// its team. Written as `Value`s, as from CSV, integer columns are keyed by their siblings.
fn batting_rows(count: u64) -> Vec<Value> {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move |below: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % below
    };
    (0..count)
        .map(|i| {
            let at_bats = next(600);
            let hits = at_bats / 4 + next(at_bats / 8 + 1);
            let team = next(30);
            let league = if team % 3 == 0 { "AL" } else { "NL" };
            Value::from(serde_json::json!({
                "player": format!("player{:04}", next(900)),
                "year": 1900 + i / 200,
                "team": format!("team{team:02}"),
                "city": format!("city of team {team}"),
                "league": league,
                "at_bats": at_bats,
                "hits": hits,
                "home_runs": hits / 10 + next(hits / 20 + 1),
                "walks": (i % 7 != 0).then_some(next(90)),
            }))
        })
        .collect()
}

#[test]
fn partial_archives_read_any_branch_from_its_bytes_alone() {
    // Options, sequences, strings and a schema that changes between chunks.
    let games = write(
        (0..600).map(game),
        ArchiveOptions::default().chunk_rows(250),
    );
    check_every_branch_alone(&games);
    // A recursive type, whose values of every depth share its branches and are read whole.
    #[derive(Encode, Decode)]
    enum Tree {
        Leaf(u32),
        Node(String, Vec<Tree>),
    }
    fn tree(depth: u32, i: u32) -> Tree {
        match depth {
            0 => Tree::Leaf(i),
            _ => Tree::Node(
                format!("n{i}"),
                (0..i % 4).map(|j| tree(depth - 1, i + j)).collect(),
            ),
        }
    }
    let trees = write(
        (0..3_000).map(|i| (i, tree(i % 5, i))),
        ArchiveOptions::default().chunk_rows(1_000),
    );
    check_every_branch_alone(&trees);
    let mut rows = batting_rows(30_000);
    rows[25_000] =
        Value::from(serde_json::json!({"player": "late", "at_bats": 2.5, "extra": [1, 2]}));
    // Keyed columns are what `Preference::Smaller` writes.
    let smaller = EncodeOptions::default().prefer(Preference::Smaller);
    let batting = write(
        rows,
        ArchiveOptions::default()
            .chunk_rows(10_000)
            .encode_options(smaller),
    );
    let breakdown = tree_buf::size_breakdown(&batting).unwrap().to_string();
    assert!(breakdown.contains("keyed"), "{breakdown}");
    check_every_branch_alone(&batting);

    // A keyed column reads its source branch, which is fetched once the keyed branch names it:
    // at-bats keyed by hits, in the second chunk.
    let archive = Archive::from_bytes(&batting).unwrap();
    let at_bats = (archive.chunks()[1].branches.iter())
        .position(|branch| branch.path == "[].at_bats")
        .unwrap();
    let mut partial = PartialArchive::new(batting.len() as u64).unwrap();
    fetch_all(&mut partial, &batting).unwrap();
    partial.read_branches(1, [at_bats]);
    let rounds = fetch_all(&mut partial, &batting).unwrap();
    let archive = partial.finish().unwrap();
    let expected: Vec<u64> = (batting_rows(20_000)[10_000..].iter())
        .map(|row| match row {
            Value::Object(fields) => match fields.iter().find(|(name, _)| name == "at_bats") {
                Some((_, Value::Unsigned(at_bats))) => *at_bats as u64,
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        })
        .collect();
    let got: Vec<u64> = (archive.chunk_reader(1).unwrap())
        .decode_path("[].at_bats")
        .unwrap();
    assert_eq!(got, expected);
    assert!(
        rounds >= 2,
        "the keyed branch, then its source: {rounds} rounds"
    );
}

#[test]
fn partial_archives_fetch_little_more_than_the_branches_read() {
    #[derive(Encode, Decode, PartialEq, Debug)]
    struct Reading {
        id: u32,
        samples: Vec<f64>,
    }
    // Samples whose low bits are noise, which no codec shrinks much.
    let noise = tree_buf_datasets::noise::generate(0, 2_000 * 50, 7).readings;
    let rows = (0..2_000u32).map(|id| Reading {
        id,
        samples: noise[id as usize * 50..][..50].to_vec(),
    });
    let stored = write(rows, ArchiveOptions::default().chunk_rows(500));
    let whole = Archive::from_bytes(&stored).unwrap();
    let id = (whole.chunks()[3].branches.iter())
        .position(|branch| branch.path == "[].id")
        .unwrap();
    let (partial, fetched) = fetch_branch(&stored, 3, id);
    // The header, the footer and the last chunk's table and ids: far less than the samples.
    assert!(
        fetched * 20 < stored.len() as u64,
        "{fetched} of {}",
        stored.len()
    );
    let ids: Vec<u32> = partial
        .chunk_reader(3)
        .unwrap()
        .decode_path("[].id")
        .unwrap();
    assert_eq!(ids, (1_500..2_000).collect::<Vec<u32>>());
    // What was not fetched is an error to read, not zeros.
    let error = (partial
        .chunk_reader(3)
        .unwrap()
        .decode_path::<Vec<Vec<f64>>>("[].samples"))
    .unwrap_err();
    assert!(error.to_string().contains("checksum"), "{error}");
    let samples = partial
        .chunk_reader(0)
        .unwrap()
        .decode_path::<Vec<Vec<f64>>>("[].samples");
    assert!(samples.is_err());
    // Opening alone gives the rows and statistics of every chunk.
    let mut partial = PartialArchive::new(stored.len() as u64).unwrap();
    fetch_all(&mut partial, &stored).unwrap();
    assert_eq!(partial.view().unwrap().rows(), 2_000);
    assert_eq!(partial.view().unwrap().chunks(), whole.chunks());
    assert!(partial.fetched_bytes() * 20 < stored.len() as u64);
}

#[test]
fn partial_archives_of_hostile_bytes_are_errors_not_panics() {
    assert!(PartialArchive::new(3).is_err());
    let stored = write(
        (0..300).map(game),
        ArchiveOptions::default().chunk_rows(100),
    );
    let mut partial = PartialArchive::new(stored.len() as u64).unwrap();
    assert!(partial.fill(stored.len() as u64 - 2, &[0; 3]).is_err());
    assert!(partial.view().is_err());
    // Finishing before the reads are fetched is an error, and so is asking for a branch or a
    // chunk the archive does not have.
    partial.read_branches(1, [2]);
    assert!(partial.finish().is_err());
    for (chunk, branch) in [(0, 99), (7, 0)] {
        let mut partial = PartialArchive::new(stored.len() as u64).unwrap();
        fetch_all(&mut partial, &stored).unwrap();
        partial.read_branches(chunk, [branch]);
        assert!(fetch_all(&mut partial, &stored).is_err());
    }
    // Every byte flipped and every length cut, read through a partial archive that asks for
    // every branch of every chunk.
    let read_all = |stored: &[u8]| -> Result<(), Box<dyn std::error::Error>> {
        let mut partial = PartialArchive::new(stored.len() as u64)?;
        fetch_all(&mut partial, stored)?;
        let chunks: Vec<usize> = (partial.view()?.chunks().iter())
            .map(|chunk| chunk.branches.len())
            .collect();
        for (chunk, branches) in chunks.into_iter().enumerate() {
            partial.read_branches(chunk, 0..branches);
        }
        fetch_all(&mut partial, stored)?;
        partial.finish()?.decode_all::<Game>()?;
        Ok(())
    };
    read_all(&stored).unwrap();
    for at in 0..stored.len() {
        let mut bad = stored.clone();
        bad[at] ^= 0x5a;
        let _ = read_all(&bad);
        let _ = read_all(&stored[..at]);
    }
}

/// `bytes`, an archive, with its footer's body replaced by `body` and the checksums and trailer
/// made to match, as a writer of such a footer would have written it.
fn with_footer_body(bytes: &[u8], body: &[u8]) -> Vec<u8> {
    let footer = u64::from_le_bytes(bytes[bytes.len() - 16..][..8].try_into().unwrap()) as usize;
    let mut out = bytes[..footer].to_vec();
    out.push(0x03);
    let mut size = body.len() as u64;
    while size >= 0x80 {
        out.push(size as u8 | 0x80);
        size >>= 7;
    }
    out.push(size as u8);
    out.extend_from_slice(body);
    let crc = crc32fast::hash(&out[footer..]);
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(&(footer as u64).to_le_bytes());
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(b"TBUF");
    out
}

/// The body of `bytes`' footer.
fn footer_body(bytes: &[u8]) -> &[u8] {
    let footer = u64::from_le_bytes(bytes[bytes.len() - 16..][..8].try_into().unwrap()) as usize;
    let mut at = footer + 1;
    let (mut size, mut shift) = (0usize, 0);
    loop {
        let byte = bytes[at];
        at += 1;
        size |= usize::from(byte & 0x7f) << shift;
        shift += 7;
        if byte & 0x80 == 0 {
            break;
        }
    }
    &bytes[at..at + size]
}

fn pairs(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    (pairs.iter())
        .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
        .collect()
}

#[test]
fn metadata_comes_back_from_every_way_of_reading() {
    let options = ArchiveOptions::default()
        .chunk_rows(4)
        .metadata("source", "retrosheet")
        .metadata("ARROW:schema", "")
        .metadata("source", "game logs, 2024");
    let bytes = write((0..10).map(game), options);
    let expected = pairs(&[("source", "game logs, 2024"), ("ARROW:schema", "")]);
    // Metadata came with version 8.
    assert_eq!(bytes[4], 8);
    let archive = Archive::from_bytes(&bytes).unwrap();
    assert_eq!(archive.metadata(), expected);
    assert_eq!(archive.metadata_value("source"), Some("game logs, 2024"));
    assert_eq!(archive.metadata_value("missing"), None);
    assert_eq!(
        archive.decode_all::<Game>().unwrap(),
        (0..10).map(game).collect::<Vec<_>>()
    );
    assert_eq!(decode::<Vec<Game>>(&bytes).unwrap().len(), 10);
    // A stream has it once it reaches the footer.
    let mut stream = StreamReader::new(bytes.as_slice()).unwrap();
    assert!(stream.metadata().is_empty());
    while stream.next_chunk::<Game>().unwrap().is_some() {}
    assert_eq!(stream.metadata(), expected);
    assert_eq!(stream.metadata_value("ARROW:schema"), Some(""));
    // So does a partial archive, from the footer it fetches.
    let mut partial = PartialArchive::new(bytes.len() as u64).unwrap();
    fetch_all(&mut partial, &bytes).unwrap();
    assert_eq!(partial.finish().unwrap().metadata(), expected);
    // Recovery keeps what the last complete footer said.
    assert_eq!(Archive::recover_bytes(&bytes).unwrap().metadata(), expected);

    // Without metadata, archives declare the version they did before, and have none.
    let plain = write((0..10).map(game), ArchiveOptions::default());
    assert_eq!(plain[4], 4);
    assert!(Archive::from_bytes(&plain).unwrap().metadata().is_empty());
}

#[test]
fn appending_keeps_metadata_and_adds_to_it() {
    let file = TempFile::new("metadata-append");
    let options = ArchiveOptions::default().metadata("rows from", "1901");
    let mut writer = ArchiveWriter::<Game>::create_with_options(&file.0, options).unwrap();
    writer.push(&game(0)).unwrap();
    writer.finish().unwrap();
    // An append without metadata keeps the archive's.
    let mut writer = ArchiveWriter::<Game>::append(&file.0).unwrap();
    writer.push(&game(1)).unwrap();
    writer.finish().unwrap();
    let archive = Archive::open(&file.0).unwrap();
    assert_eq!(archive.metadata(), pairs(&[("rows from", "1901")]));
    drop(archive);
    // One with metadata sets its keys, old and new.
    let options = ArchiveOptions::default()
        .metadata("rows to", "2024")
        .metadata("rows from", "1871");
    let mut writer = ArchiveWriter::<Game>::append_with_options(&file.0, options).unwrap();
    writer.push(&game(2)).unwrap();
    writer.finish().unwrap();
    let archive = Archive::open(&file.0).unwrap();
    assert_eq!(
        archive.metadata(),
        pairs(&[("rows from", "1871"), ("rows to", "2024")])
    );
    assert_eq!(
        archive.decode_all::<Game>().unwrap(),
        [game(0), game(1), game(2)]
    );
}

#[test]
fn metadata_cannot_go_into_an_archive_of_an_earlier_version() {
    let file = TempFile::new("metadata-v4");
    let bytes = write((0..5).map(game), ArchiveOptions::default());
    std::fs::write(&file.0, &bytes).unwrap();
    let options = ArchiveOptions::default().metadata("key", "value");
    let error = ArchiveWriter::<Game>::append_with_options(&file.0, options)
        .err()
        .expect("a version 4 archive has no place for metadata");
    let ArchiveError::Decode(error) = error else {
        panic!("{error}")
    };
    assert_eq!(error.kind(), DecodeErrorKind::UnsupportedVersion);
    assert!(error.message().contains("version 8"), "{error}");
    // The archive is as it was.
    assert_eq!(std::fs::read(&file.0).unwrap(), bytes);
}

#[test]
fn appends_keep_to_the_version_the_archive_declares() {
    // Rows whose integer columns a writer that prefers small files keys by a sibling (a
    // version 7 encoding), appended to an archive of version 4.
    let rows: Vec<(u16, u16)> = (0..6000u32)
        .map(|i| {
            let scale = [0, 2, 8, 40, 200, 600][(i * 7 % 6) as usize];
            let big = (i.wrapping_mul(2_654_435_761) % (scale + 1)) as u16;
            (big, big / 3 + (i % 3) as u16)
        })
        .collect();
    let smaller = ArchiveOptions::default()
        .encode_options(EncodeOptions::default().prefer(Preference::Smaller));
    // Written afresh, they are keyed.
    assert_eq!(write(rows.iter(), smaller.clone())[4], 7);
    let file = TempFile::new("append-version");
    std::fs::write(&file.0, write(rows[..10].iter(), ArchiveOptions::default())).unwrap();
    let mut writer = ArchiveWriter::append_with_options(&file.0, smaller).unwrap();
    for row in &rows[10..] {
        writer.push(row).unwrap();
    }
    writer.finish().unwrap();
    let bytes = std::fs::read(&file.0).unwrap();
    assert_eq!(bytes[4], 4);
    assert_eq!(decode::<Vec<(u16, u16)>>(&bytes).unwrap(), rows);
}

#[test]
fn hostile_metadata_is_an_error() {
    let bytes = write(
        (0..3).map(game),
        ArchiveOptions::default().metadata("a", "1"),
    );
    let body = footer_body(&bytes);
    // The pairs are at the end of the body: one pair, "a" and "1".
    let (chunks, metadata) = body.split_at(body.len() - 5);
    assert_eq!(metadata, [1, 1, b'a', 1, b'1']);
    let error_of = |metadata: &[u8]| {
        let bad = with_footer_body(&bytes, &[chunks, metadata].concat());
        Archive::from_bytes(&bad).unwrap_err()
    };
    let twice = error_of(&[2, 1, b'a', 1, b'1', 1, b'a', 1, b'2']);
    assert!(twice.message().contains("twice"), "{twice}");
    let not_text = error_of(&[1, 1, 0xff, 1, b'1']);
    assert!(not_text.message().contains("UTF-8"), "{not_text}");
    // Counts and sizes that run past the footer's end.
    for lying in [
        &[3, 1, b'a', 1, b'1'][..],
        &[1, 9, b'a', 1, b'1'],
        &[1, 1, b'a'],
    ] {
        error_of(lying);
    }
    let trailing = error_of(&[1, 1, b'a', 1, b'1', 0]);
    assert_eq!(trailing.kind(), DecodeErrorKind::Corrupt);
    // Metadata in the footer of an archive that declares version 7 is bytes the footer of that
    // version does not have.
    let mut older = with_footer_body(&bytes, body);
    older[4] = 7;
    // The header's checksum covers the version.
    let schema_end = Archive::from_bytes(&bytes).unwrap().chunks()[0].offset as usize;
    let crc = crc32fast::hash(&older[..schema_end - 4]);
    older[schema_end - 4..schema_end].copy_from_slice(&crc.to_le_bytes());
    let error = Archive::from_bytes(&older).unwrap_err();
    assert_eq!(error.kind(), DecodeErrorKind::Corrupt, "{error}");
}
