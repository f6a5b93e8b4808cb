//! SQL over tree-buf archives: answers, the chunks and bytes a scan reads, archives read through
//! DataFusion's file format machinery (object stores, partitions), and the same queries over
//! the same rows in Parquet, which must answer alike.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use async_trait::async_trait;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::DataType;
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::catalog::TableProvider;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::execution::object_store::ObjectStoreUrl;
use datafusion::object_store::memory::InMemory;
use datafusion::object_store::path::Path as ObjectPath;
use datafusion::object_store::{
    self as object_store, CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload,
    ObjectMeta, ObjectStore, ObjectStoreExt, PutMultipartOptions, PutOptions, PutPayload,
    PutResult,
};
use datafusion::physical_plan::displayable;
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};
use futures::stream::BoxStream;
use tree_buf::archive::{Archive, ArchiveOptions, ArchiveWriter};
use tree_buf::{Encode, Value};
use tree_buf_datafusion::{register, TreeBufFormat, TreeBufTable};

mod support;

#[derive(Encode)]
struct Season {
    player: String,
    year: u16,
    hits: Option<u16>,
    team: Team,
}

#[derive(Encode)]
struct Team {
    name: String,
    league: String,
}

/// Writes `rows` as an archive of chunks of `chunk_rows` rows.
fn write_archive<T: Encode>(path: &Path, rows: &[T], chunk_rows: usize) {
    std::fs::write(path, archive(rows, chunk_rows)).unwrap();
}

/// `rows` as the bytes of an archive of chunks of `chunk_rows` rows.
fn archive<T: Encode>(rows: &[T], chunk_rows: usize) -> Vec<u8> {
    let options = ArchiveOptions::default().chunk_rows(chunk_rows);
    let mut writer = ArchiveWriter::with_options(Vec::new(), options).unwrap();
    for row in rows {
        writer.push(row).unwrap();
    }
    writer.finish().unwrap()
}

/// Rows `rows` of a made-up table whose years rise with the rows.
fn seasons(rows: Range<u16>) -> Vec<Season> {
    rows.map(|i| Season {
        player: format!("player{:02}", i % 7),
        year: 1900 + i,
        hits: (i % 5 != 0).then_some(i * 3),
        team: Team {
            name: ["BOS", "NYA", "TOR"][usize::from(i % 3)].to_owned(),
            league: if i % 2 == 0 { "AL" } else { "NL" }.to_owned(),
        },
    })
    .collect()
}

/// A session with `seasons(0..count)` as the table `seasons`, an archive of chunks of `chunk_rows`
/// rows in a directory that lives as long as the first of the three.
fn seasons_table(count: u16, chunk_rows: usize) -> (tempfile::TempDir, PathBuf, SessionContext) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seasons.tb");
    write_archive(&path, &seasons(0..count), chunk_rows);
    let ctx = SessionContext::new();
    let table = TreeBufTable::open(&path).unwrap();
    ctx.register_table("seasons", Arc::new(table)).unwrap();
    (dir, path, ctx)
}

async fn answer(ctx: &SessionContext, sql: &str) -> String {
    let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
    pretty_format_batches(&batches).unwrap().to_string()
}

/// The physical plan of `sql`, run to the end, and its text with metrics.
async fn run_plan(ctx: &SessionContext, sql: &str) -> (Vec<RecordBatch>, String) {
    let (batches, plan) = support::run(ctx, sql).await;
    let text = displayable(plan.as_ref()).indent(true).to_string();
    let metrics = support::scanned_bytes(plan.as_ref());
    (batches, format!("{text}bytes_scanned={metrics}"))
}

fn rows(batches: &[RecordBatch]) -> usize {
    batches.iter().map(RecordBatch::num_rows).sum()
}

#[tokio::test]
async fn columns_nulls_and_nested_fields_answer() {
    let (_dir, _, ctx) = seasons_table(100, 10);
    let got = answer(
        &ctx,
        "SELECT team['name'] AS team, count(*) AS n, count(hits) AS with_hits, sum(hits) AS hits \
         FROM seasons GROUP BY team['name'] ORDER BY team",
    )
    .await;
    let expected = [
        "+------+----+-----------+------+",
        "| team | n  | with_hits | hits |",
        "+------+----+-----------+------+",
        "| BOS  | 34 | 27        | 4104 |",
        "| NYA  | 33 | 27        | 3996 |",
        "| TOR  | 33 | 26        | 3900 |",
        "+------+----+-----------+------+",
    ];
    assert_eq!(got, expected.join("\n"));
    assert_eq!(
        answer(&ctx, "SELECT count(*) AS n FROM seasons WHERE hits IS NULL").await,
        "+----+\n| n  |\n+----+\n| 20 |\n+----+"
    );
}

#[tokio::test]
async fn filters_skip_chunks_by_their_statistics() {
    let (_dir, _, ctx) = seasons_table(100, 10);

    // Years rise with the rows: 1,925 to 1,934 lie in chunks 2 and 3 only.
    let sql = "SELECT player, year FROM seasons WHERE year BETWEEN 1925 AND 1934";
    let (batches, plan) = run_plan(&ctx, sql).await;
    assert_eq!(rows(&batches), 10);
    assert!(plan.contains("chunks=2,"), "{plan}");

    // Strings too: no player sorts before "player00".
    let (batches, plan) =
        run_plan(&ctx, "SELECT year FROM seasons WHERE player < 'player00'").await;
    assert_eq!(rows(&batches), 0);
    assert!(plan.contains("chunks=0,"), "{plan}");

    // A filter the statistics cannot decide reads every chunk, and still answers.
    let (batches, plan) = run_plan(&ctx, "SELECT year FROM seasons WHERE year % 10 = 3").await;
    assert_eq!(rows(&batches), 10);
    assert!(plan.contains("chunks=10,"), "{plan}");

    // Null counts: every chunk has rows without hits, none has only such rows.
    let (batches, plan) = run_plan(&ctx, "SELECT year FROM seasons WHERE hits IS NULL").await;
    assert_eq!(rows(&batches), 20);
    assert!(plan.contains("chunks=10,"), "{plan}");
}

#[tokio::test]
async fn characters_are_pruned_by_their_bounds_as_characters() {
    #[derive(Encode)]
    struct Mark {
        grade: char,
    }
    // A chunk's bounds of a character column are the characters' codes, which read as strings
    // ("97") would rule out the chunks that hold 'b'.
    let marks: Vec<Mark> = (0..40)
        .map(|i| Mark {
            grade: ['a', 'b', 'c', 'd'][i % 4],
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("marks.tb");
    write_archive(&path, &marks, 10);
    let ctx = SessionContext::new();
    let table = TreeBufTable::open(&path).unwrap();
    ctx.register_table("marks", Arc::new(table)).unwrap();
    let (batches, plan) = run_plan(&ctx, "SELECT grade FROM marks WHERE grade = 'b'").await;
    assert_eq!(rows(&batches), 10, "{plan}");

    // Read as the characters they are, the bounds skip the chunks that cannot hold the grade.
    let sorted: Vec<Mark> = (0..40)
        .map(|i| Mark {
            grade: ['a', 'b', 'é', '日'][i / 10],
        })
        .collect();
    let path = dir.path().join("sorted.tb");
    write_archive(&path, &sorted, 10);
    let table = TreeBufTable::open(&path).unwrap();
    ctx.register_table("sorted", Arc::new(table)).unwrap();
    for (grade, chunk) in [("b", "chunks=1,"), ("é", "chunks=1,"), ("c", "chunks=0,")] {
        let sql = format!("SELECT grade FROM sorted WHERE grade = '{grade}'");
        let (batches, plan) = run_plan(&ctx, &sql).await;
        assert_eq!(rows(&batches), if grade == "c" { 0 } else { 10 }, "{plan}");
        assert!(plan.contains(chunk), "{plan}");
    }
}

#[tokio::test]
async fn a_scan_reads_the_branches_of_its_columns_only() {
    let (_dir, path, ctx) = seasons_table(1000, 100);
    let archive = Archive::open(&path).unwrap();
    let branch_bytes = |prefix: &str| -> usize {
        (archive.chunks().iter())
            .flat_map(|chunk| &chunk.branches)
            .filter(|branch| {
                branch.path == prefix || branch.path.starts_with(&format!("{prefix}."))
            })
            .map(|branch| branch.bytes as usize)
            .sum()
    };
    let (_, plan) = run_plan(&ctx, "SELECT max(year) FROM seasons").await;
    assert!(
        plan.ends_with(&format!("bytes_scanned={}", branch_bytes("[].year"))),
        "{plan}"
    );
    // A field of a struct: that field's branches only.
    let (batches, plan) = run_plan(&ctx, "SELECT max(team['league']) AS league FROM seasons").await;
    let expected = format!("bytes_scanned={}", branch_bytes("[].team.league"));
    assert!(plan.ends_with(&expected), "{plan}");
    assert_eq!(
        pretty_format_batches(&batches).unwrap().to_string(),
        "+--------+\n| league |\n+--------+\n| NL     |\n+--------+"
    );
    let (_, plan) = run_plan(&ctx, "SELECT team FROM seasons WHERE team['name'] = 'BOS'").await;
    assert!(
        plan.ends_with(&format!("bytes_scanned={}", branch_bytes("[].team"))),
        "{plan}"
    );
    // Counting rows reads no branch: the footer has every chunk's rows.
    let (batches, _) = run_plan(&ctx, "SELECT count(*) AS n FROM seasons").await;
    assert_eq!(
        pretty_format_batches(&batches).unwrap().to_string(),
        "+------+\n| n    |\n+------+\n| 1000 |\n+------+"
    );
}

#[tokio::test]
async fn top_k_sorts_skip_chunks_as_their_threshold_tightens() {
    // Years ascend with the rows: once the first chunk is sorted, the 3 earliest years are known,
    // and the sort's dynamic filter (`year < 1903`) rules out every later chunk by its bounds.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seasons.tb");
    write_archive(&path, &seasons(0..100), 10);
    let config = SessionConfig::new().with_target_partitions(1);
    let ctx = SessionContext::new_with_config(config);
    ctx.register_table("seasons", Arc::new(TreeBufTable::open(&path).unwrap()))
        .unwrap();
    let sql = "SELECT year, player FROM seasons ORDER BY year LIMIT 3";
    let (batches, plan) = support::run(&ctx, sql).await;
    let got = pretty_format_batches(&batches).unwrap().to_string();
    let expected = [
        "+------+----------+",
        "| year | player   |",
        "+------+----------+",
        "| 1900 | player00 |",
        "| 1901 | player01 |",
        "| 1902 | player02 |",
        "+------+----------+",
    ];
    assert_eq!(got, expected.join("\n"));
    let skipped = support::metric(plan.as_ref(), "chunks_skipped_at_run_time");
    assert!(skipped >= 8, "{skipped} of the 9 later chunks skipped");
    // Descending, the latest chunk comes last: the filter is never tight enough to skip one, and
    // the answer is the same as without it.
    let got = answer(&ctx, "SELECT year FROM seasons ORDER BY year DESC LIMIT 2").await;
    assert!(got.contains("| 1999 |\n| 1998 |"), "{got}");
}

#[tokio::test]
async fn a_limit_reads_the_first_chunks() {
    let (_dir, _, ctx) = seasons_table(100, 10);
    let (batches, plan) = run_plan(&ctx, "SELECT year FROM seasons LIMIT 15").await;
    assert_eq!(rows(&batches), 15);
    assert!(plan.contains("chunks=2,"), "{plan}");
}

#[tokio::test]
async fn scans_hand_out_batches_of_the_session_batch_size_at_most() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seasons.tb");
    write_archive(&path, &seasons(0..100), 50);
    let config = SessionConfig::new()
        .with_target_partitions(1)
        .with_batch_size(16);
    let ctx = SessionContext::new_with_config(config);
    register(&ctx);
    ctx.register_table("seasons", Arc::new(TreeBufTable::open(&path).unwrap()))
        .unwrap();
    ctx.sql(&format!(
        "CREATE EXTERNAL TABLE listed STORED AS TREEBUF LOCATION '{}/'",
        dir.path().display()
    ))
    .await
    .unwrap();
    for (sql, expected) in [
        ("SELECT year FROM seasons", 100),
        ("SELECT year FROM seasons LIMIT 40", 40),
        ("SELECT year FROM listed", 100),
    ] {
        let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
        let sizes: Vec<usize> = batches.iter().map(RecordBatch::num_rows).collect();
        assert_eq!(sizes.iter().sum::<usize>(), expected, "{sql}");
        assert!(sizes.iter().all(|&size| size <= 16), "{sql}: {sizes:?}");
        // In order, from the first row.
        let years = pretty_format_batches(&batches).unwrap().to_string();
        let last = format!("| {} |", 1899 + expected);
        assert!(
            years.contains("| 1900 |") && years.contains(&last),
            "{years}"
        );
    }
}

#[tokio::test]
async fn create_external_table_reads_files_and_directories() {
    let dir = tempfile::tempdir().unwrap();
    let all = seasons(0..60);
    let (first, second) = all.split_at(25);
    write_archive(&dir.path().join("a.tb"), first, 10);
    write_archive(&dir.path().join("b.tb"), second, 10);
    std::fs::write(dir.path().join("notes.txt"), "not an archive").unwrap();

    let ctx = SessionContext::new();
    register(&ctx);
    let location = dir.path().display();
    ctx.sql(&format!(
        "CREATE EXTERNAL TABLE everything STORED AS TREEBUF LOCATION '{location}'"
    ))
    .await
    .unwrap();
    ctx.sql(&format!(
        "CREATE EXTERNAL TABLE first (year SMALLINT UNSIGNED, player VARCHAR) STORED AS TREEBUF \
         LOCATION '{location}/a.tb'"
    ))
    .await
    .unwrap();
    assert_eq!(
        answer(&ctx, "SELECT count(*) AS n, min(year) AS lo, max(year) AS hi FROM everything").await,
        "+----+------+------+\n| n  | lo   | hi   |\n+----+------+------+\n| 60 | 1900 | 1959 |\n+----+------+------+"
    );
    assert_eq!(
        answer(&ctx, "SELECT count(*) AS n FROM first").await,
        "+----+\n| n  |\n+----+\n| 25 |\n+----+"
    );

    // Declared columns must be the archive's.
    let wrong = format!(
        "CREATE EXTERNAL TABLE wrong (year VARCHAR) STORED AS TREEBUF LOCATION '{location}/a.tb'"
    );
    let error = ctx.sql(&wrong).await.unwrap_err().to_string();
    assert!(
        error.contains("column `year` of table wrong is UInt16"),
        "{error}"
    );
    let missing = format!(
        "CREATE EXTERNAL TABLE missing (runs INT) STORED AS TREEBUF LOCATION '{location}/a.tb'"
    );
    let error = ctx.sql(&missing).await.unwrap_err().to_string();
    assert!(error.contains("no column `runs`"), "{error}");
    let error = (ctx.sql("CREATE EXTERNAL TABLE gone STORED AS TREEBUF LOCATION '/no/such.tb'"))
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("/no/such.tb"), "{error}");
}

#[tokio::test]
async fn an_archive_whose_schema_widened_reads_as_one_table() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("events.tb");
    let options = ArchiveOptions::default().chunk_rows(2);
    let mut writer = ArchiveWriter::<Value, _>::create_with_options(&path, options).unwrap();
    // A field that appears in the second chunk, and scores that are integers in the first
    // chunk, integers and floats in the second (a union of both), floats in the third.
    let rows = [
        (1, None, Value::Unsigned(10)),
        (2, None, Value::Unsigned(20)),
        (3, Some("late"), Value::Unsigned(30)),
        (4, Some("later"), Value::Float(0.5)),
        (5, Some("last"), Value::Float(1.5)),
    ];
    for (id, tag, score) in rows {
        let mut fields = vec![("id".to_owned(), Value::Unsigned(id))];
        if let Some(tag) = tag {
            fields.push(("tag".to_owned(), Value::String(tag.to_owned())));
        }
        fields.push(("score".to_owned(), score));
        writer.push(&Value::Object(fields)).unwrap();
    }
    writer.finish().unwrap();
    let ctx = SessionContext::new();
    let table = TreeBufTable::open(&path).unwrap();
    let score = table.schema().field_with_name("score").unwrap().clone();
    assert_eq!(score.data_type(), &DataType::Float64);
    ctx.register_table("events", Arc::new(table)).unwrap();
    let got = answer(&ctx, "SELECT id, tag, score FROM events ORDER BY id").await;
    let expected = [
        "+----+-------+-------+",
        "| id | tag   | score |",
        "+----+-------+-------+",
        "| 1  |       | 10.0  |",
        "| 2  |       | 20.0  |",
        "| 3  | late  | 30.0  |",
        "| 4  | later | 0.5   |",
        "| 5  | last  | 1.5   |",
        "+----+-------+-------+",
    ];
    assert_eq!(got, expected.join("\n"));
    // Filters on the widened column compare the chunks' bounds as the table's type.
    let got = answer(&ctx, "SELECT sum(score) AS s FROM events WHERE score > 15").await;
    assert!(got.contains("| 50.0 |"), "{got}");
}

/// The same rows as a tree-buf archive and as a Parquet file (zstd, a row group per chunk), both
/// registered in one session: `{name}_tb` and `{name}_pq`.
struct Twins {
    ctx: SessionContext,
    dir: tempfile::TempDir,
}

impl Twins {
    fn new() -> Self {
        Twins {
            ctx: SessionContext::new(),
            dir: tempfile::tempdir().unwrap(),
        }
    }

    async fn add<T: Encode>(&self, name: &str, rows: &[T], chunk_rows: usize) -> PathBuf {
        let tb = self.dir.path().join(format!("{name}.tb"));
        write_archive(&tb, rows, chunk_rows);
        let table = TreeBufTable::open(&tb).unwrap();
        self.ctx
            .register_table(format!("{name}_tb"), Arc::new(table))
            .unwrap();
        // Parquet gets the archive's own batches.
        let pq = self.dir.path().join(format!("{name}.parquet"));
        let frame = self.ctx.table(format!("{name}_tb")).await.unwrap();
        support::write_parquet(&frame.collect().await.unwrap(), &pq, chunk_rows);
        (self.ctx)
            .register_parquet(
                format!("{name}_pq"),
                pq.to_str().unwrap(),
                ParquetReadOptions::default(),
            )
            .await
            .unwrap();
        tb
    }

    /// Runs `sql` with `{t}` as `_tb` and as `_pq`, and checks that the answers are equal and
    /// not empty.
    async fn check(&self, sql: &str) {
        let on_tree_buf = answer(&self.ctx, &sql.replace("{t}", "_tb")).await;
        let on_parquet = answer(&self.ctx, &sql.replace("{t}", "_pq")).await;
        assert_eq!(on_tree_buf, on_parquet, "{sql}");
        assert!(on_tree_buf.lines().count() > 4, "{sql}: {on_tree_buf}");
    }
}

// tree-buf as a file format: archives in object stores, partitioned directories and large
// archives split into chunk ranges, read by DataFusion's `ListingTable`.

#[tokio::test]
async fn archives_in_an_object_store_answer_as_local_ones() {
    let store = InMemory::new();
    for (name, rows) in [("seasons/a.tb", 0..60), ("seasons/b.tb", 60..100)] {
        let bytes = archive(&seasons(rows), 10);
        store
            .put(&ObjectPath::from(name), bytes.into())
            .await
            .unwrap();
    }
    let ctx = SessionContext::new();
    let url = ObjectStoreUrl::parse("memory://").unwrap();
    ctx.register_object_store(url.as_ref(), Arc::new(store));
    register(&ctx);
    ctx.sql("CREATE EXTERNAL TABLE seasons STORED AS TREEBUF LOCATION 'memory:///seasons/'")
        .await
        .unwrap();

    for sql in [
        "SELECT team['name'] AS team, count(*) AS n, count(hits) AS with_hits, sum(hits) AS hits \
         FROM seasons GROUP BY team['name'] ORDER BY team",
        "SELECT player, year, team['league'] AS league FROM seasons WHERE year BETWEEN 1955 AND \
         1964 ORDER BY year",
        "SELECT count(*) AS n FROM seasons WHERE hits IS NULL",
        "SELECT team['name'] AS name, team, year FROM seasons WHERE year < 1903 ORDER BY year",
    ] {
        let (_dir, _, local) = seasons_table(100, 10);
        assert_eq!(answer(&ctx, sql).await, answer(&local, sql).await, "{sql}");
    }

    // Years rise with the rows: 1,925 to 1,934 lie in 2 of the 10 chunks, and the footer's
    // statistics skip the other 8 unread.
    let sql = "SELECT player FROM seasons WHERE year BETWEEN 1925 AND 1934";
    let (batches, plan) = support::run(&ctx, sql).await;
    assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 10);
    assert_eq!(support::metric(plan.as_ref(), "chunks_skipped"), 8);

    // A column is read from its own branches only.
    let (_, one) = support::run(&ctx, "SELECT max(year) FROM seasons").await;
    let (_, all) = support::run(&ctx, "SELECT * FROM seasons").await;
    let (one, all) = (
        support::scanned_bytes(one.as_ref()),
        support::scanned_bytes(all.as_ref()),
    );
    assert!(one > 0 && one * 5 < all, "{one} of {all} bytes");

    // Of a struct column, only the fields the query takes.
    let (_, field) = support::run(&ctx, "SELECT team['name'] AS name FROM seasons").await;
    let (_, whole) = support::run(&ctx, "SELECT team FROM seasons").await;
    let (field, whole) = (
        support::scanned_bytes(field.as_ref()),
        support::scanned_bytes(whole.as_ref()),
    );
    assert!(field > 0 && field < whole, "{field} of {whole} bytes");
}

/// An object store in memory that counts the bytes it serves, as a remote store would.
#[derive(Debug, Default)]
struct CountingStore {
    inner: InMemory,
    served: AtomicU64,
}

impl CountingStore {
    /// The bytes served since the last call.
    fn take_served(&self) -> u64 {
        self.served.swap(0, Ordering::Relaxed)
    }
}

impl fmt::Display for CountingStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CountingStore({})", self.inner)
    }
}

#[async_trait]
impl ObjectStore for CountingStore {
    async fn put_opts(
        &self,
        location: &ObjectPath,
        payload: PutPayload,
        options: PutOptions,
    ) -> object_store::Result<PutResult> {
        self.inner.put_opts(location, payload, options).await
    }

    async fn put_multipart_opts(
        &self,
        location: &ObjectPath,
        options: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        self.inner.put_multipart_opts(location, options).await
    }

    async fn get_opts(
        &self,
        location: &ObjectPath,
        options: GetOptions,
    ) -> object_store::Result<GetResult> {
        let head = options.head;
        let got = self.inner.get_opts(location, options).await?;
        if !head {
            (self.served).fetch_add(got.range.end - got.range.start, Ordering::Relaxed);
        }
        Ok(got)
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, object_store::Result<ObjectPath>>,
    ) -> BoxStream<'static, object_store::Result<ObjectPath>> {
        self.inner.delete_stream(locations)
    }

    fn list(
        &self,
        prefix: Option<&ObjectPath>,
    ) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        self.inner.list(prefix)
    }

    async fn list_with_delimiter(
        &self,
        prefix: Option<&ObjectPath>,
    ) -> object_store::Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(
        &self,
        from: &ObjectPath,
        to: &ObjectPath,
        options: CopyOptions,
    ) -> object_store::Result<()> {
        self.inner.copy_opts(from, to, options).await
    }
}

/// A session with `bytes` as the archive `name.tb` in a [`CountingStore`] at `memory://`, the
/// table `name`.
async fn remote_table(name: &str, bytes: Vec<u8>) -> (SessionContext, Arc<CountingStore>) {
    let store = Arc::new(CountingStore::default());
    let location = ObjectPath::from(format!("{name}.tb"));
    store.put(&location, bytes.into()).await.unwrap();
    let ctx = SessionContext::new();
    let url = ObjectStoreUrl::parse("memory://").unwrap();
    ctx.register_object_store(url.as_ref(), Arc::clone(&store) as Arc<dyn ObjectStore>);
    register(&ctx);
    let create =
        format!("CREATE EXTERNAL TABLE {name} STORED AS TREEBUF LOCATION 'memory:///{location}'");
    ctx.sql(&create).await.unwrap();
    (ctx, store)
}

#[derive(Encode)]
struct Reading {
    id: u32,
    sensor: String,
    samples: Vec<f64>,
}

#[tokio::test]
async fn remote_archives_are_fetched_by_the_byte_ranges_a_query_reads() {
    // Samples whose low bits are noise, which no codec shrinks much.
    let noise = tree_buf_datasets::noise::generate(0, 4_000 * 40, 7).readings;
    let readings: Vec<Reading> = (0..4_000u32)
        .map(|id| Reading {
            id,
            sensor: format!("sensor {}", id % 10),
            samples: noise[id as usize * 40..][..40].to_vec(),
        })
        .collect();
    let bytes = archive(&readings, 500);
    let size = bytes.len() as u64;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("readings.tb");
    std::fs::write(&path, &bytes).unwrap();
    let local = SessionContext::new();
    let table = TreeBufTable::open(&path).unwrap();
    local.register_table("readings", Arc::new(table)).unwrap();
    let (remote, store) = remote_table("readings", bytes).await;
    // Making the table read the header, footer and schema: a few kilobytes.
    let opening = store.take_served();
    assert!(opening * 20 < size, "{opening} of {size} bytes");

    for sql in [
        "SELECT sensor, count(*) AS n, max(id) AS last FROM readings GROUP BY sensor ORDER BY sensor",
        "SELECT id, samples[1] AS first FROM readings WHERE id BETWEEN 1990 AND 2010 ORDER BY id",
        "SELECT count(*) AS n FROM readings",
    ] {
        store.take_served();
        assert_eq!(answer(&remote, sql).await, answer(&local, sql).await, "{sql}");
        let served = store.take_served();
        if !sql.contains("samples") {
            // The ids and sensors are a small part of the archive; the samples are most of it.
            assert!(served * 10 < size, "{sql}: {served} of {size} bytes");
        } else {
            // The samples of the 2 chunks the ids lie in, skipped by the footer's statistics.
            assert!(served * 3 < size, "{sql}: {served} of {size} bytes");
        }
    }
    // Every column: the archive once, no more (each partition fetches its header and footer).
    let sql = "SELECT * FROM readings ORDER BY id LIMIT 3";
    assert_eq!(answer(&remote, sql).await, answer(&local, sql).await);
    let served = store.take_served();
    assert!(
        served >= size * 9 / 10 && served < size * 11 / 10,
        "{served} of {size} bytes"
    );
}

#[tokio::test]
async fn partitioned_directories_are_columns() {
    let dir = tempfile::tempdir().unwrap();
    for (season, rows) in [("2017", 0..30), ("2018", 30..100)] {
        let folder = dir.path().join(format!("season={season}"));
        std::fs::create_dir(&folder).unwrap();
        write_archive(&folder.join("games.tb"), &seasons(rows), 16);
    }
    let ctx = SessionContext::new();
    register(&ctx);
    let create = format!(
        "CREATE EXTERNAL TABLE seasons STORED AS TREEBUF PARTITIONED BY (season) LOCATION '{}/'",
        dir.path().display()
    );
    ctx.sql(&create).await.unwrap();
    let got = answer(
        &ctx,
        "SELECT season, count(*) AS n, min(year) AS first FROM seasons WHERE team['name'] = \
         'BOS' GROUP BY season ORDER BY season",
    )
    .await;
    let expected = [
        "+--------+----+-------+",
        "| season | n  | first |",
        "+--------+----+-------+",
        "| 2017   | 10 | 1900  |",
        "| 2018   | 24 | 1930  |",
        "+--------+----+-------+",
    ];
    assert_eq!(got, expected.join("\n"));
}

#[tokio::test]
async fn a_large_archive_is_read_in_chunk_ranges_once_each() {
    let dir = tempfile::tempdir().unwrap();
    write_archive(&dir.path().join("seasons.tb"), &seasons(0..1000), 10);
    // DataFusion splits a file this small over partitions only when the minimum size is 0 and
    // the batches are fewer rows than the footer says the file has.
    let config = SessionConfig::new()
        .with_target_partitions(4)
        .with_repartition_file_min_size(0)
        .with_batch_size(100);
    let ctx = SessionContext::new_with_config(config);
    let url = ListingTableUrl::parse(format!("{}/", dir.path().display())).unwrap();
    let options = ListingOptions::new(Arc::new(TreeBufFormat)).with_file_extension(".tb");
    let table = ListingTableConfig::new(url)
        .with_listing_options(options)
        .infer_schema(&ctx.state())
        .await
        .unwrap();
    let table = ListingTable::try_new(table).unwrap();
    ctx.register_table("seasons", Arc::new(table)).unwrap();

    let frame = ctx
        .sql(
            "SELECT team['name'] AS team, count(*) AS n, sum(year) AS years FROM seasons \
             GROUP BY team['name'] ORDER BY team",
        )
        .await
        .unwrap();
    let plan = frame.clone().create_physical_plan().await.unwrap();
    let text = displayable(plan.as_ref()).indent(true).to_string();
    assert!(text.contains("file_groups={4 groups:"), "{text}");
    let batches = frame.collect().await.unwrap();
    let expected = [
        "+------+-----+--------+",
        "| team | n   | years  |",
        "+------+-----+--------+",
        "| BOS  | 334 | 801433 |",
        "| NYA  | 333 | 798867 |",
        "| TOR  | 333 | 799200 |",
        "+------+-----+--------+",
    ];
    assert_eq!(
        pretty_format_batches(&batches).unwrap().to_string(),
        expected.join("\n")
    );
}

#[tokio::test]
async fn the_format_takes_no_options_and_writes_nothing() {
    let ctx = SessionContext::new();
    let store = InMemory::new();
    let bytes = archive(&seasons(0..10), 10);
    store
        .put(&ObjectPath::from("seasons/a.tb"), bytes.into())
        .await
        .unwrap();
    let store: Arc<dyn ObjectStore> = Arc::new(store);
    ctx.register_object_store(ObjectStoreUrl::parse("memory://").unwrap().as_ref(), store);
    register(&ctx);
    let error = ctx
        .sql(
            "CREATE EXTERNAL TABLE seasons STORED AS TREEBUF LOCATION 'memory:///seasons/' \
             OPTIONS ('format.compression' 'zstd')",
        )
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("take no format options"),
        "{error}"
    );

    ctx.sql("CREATE EXTERNAL TABLE seasons STORED AS TREEBUF LOCATION 'memory:///seasons/'")
        .await
        .unwrap();
    assert_eq!(
        answer(&ctx, "SELECT count(*) AS n FROM seasons").await,
        "+----+\n| n  |\n+----+\n| 10 |\n+----+"
    );
    let error = match ctx.sql("INSERT INTO seasons SELECT * FROM seasons").await {
        Ok(frame) => frame.collect().await.unwrap_err(),
        Err(error) => error,
    };
    assert!(error.to_string().contains("not implemented"), "{error}");
}

#[tokio::test]
#[cfg_attr(
    datasets_missing,
    ignore = "needs ../shared/datasets or $TREE_BUF_DATASETS"
)]
async fn real_baseball_queries_answer_as_on_parquet() {
    let databank = tree_buf_datasets::baseball::load().unwrap();
    let twins = Twins::new();
    twins.add("batting", &databank.batting, 16_384).await;
    twins.add("people", &databank.people, 16_384).await;
    for (_, sql) in support::BASEBALL {
        twins.check(sql).await;
    }
}

#[tokio::test]
#[cfg_attr(
    datasets_missing,
    ignore = "needs ../shared/datasets or $TREE_BUF_DATASETS"
)]
async fn real_retrosheet_queries_answer_as_on_parquet() {
    let games = tree_buf_datasets::retrosheet::load_season(2018).unwrap();
    let twins = Twins::new();
    let path = twins.add("games", &games, 512).await;
    for (_, sql) in support::RETROSHEET {
        twins.check(sql).await;
    }
    // Two of the game logs' 161 fields: a small part of the archive's bytes.
    let sql = "SELECT date, attendance FROM games_tb WHERE attendance > 40000";
    let (_, plan) = run_plan(&twins.ctx, sql).await;
    let scanned: usize = plan.rsplit('=').next().unwrap().parse().unwrap();
    let size = std::fs::metadata(&path).unwrap().len() as usize;
    assert!(scanned * 20 < size, "{scanned} of {size} bytes");
    // From a remote store, a small part of the archive is fetched: the two columns' branches,
    // and twice (for the statistics and for the scan) the header, the footer (161 branches of
    // 5 chunks) and the branch tables. 23,557 of 390,346 bytes when written.
    let (remote, store) = remote_table("games", std::fs::read(&path).unwrap()).await;
    store.take_served();
    let sql =
        "SELECT date, attendance FROM games{t} WHERE attendance > 40000 ORDER BY date, attendance";
    let on_remote = answer(&remote, &sql.replace("{t}", "")).await;
    assert_eq!(
        on_remote,
        answer(&twins.ctx, &sql.replace("{t}", "_tb")).await
    );
    let served = store.take_served() as usize;
    assert!(served * 10 < size, "{served} of {size} bytes");
}

#[tokio::test]
#[cfg_attr(
    datasets_missing,
    ignore = "needs ../shared/datasets or $TREE_BUF_DATASETS"
)]
async fn real_geojson_properties_answer_as_on_parquet() {
    let countries = tree_buf_datasets::geojson::load().unwrap();
    let twins = Twins::new();
    twins.add("countries", &countries.features, 64).await;
    for (_, sql) in support::GEOJSON {
        twins.check(sql).await;
    }
}
