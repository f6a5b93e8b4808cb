//! Times the same SQL in DataFusion over the same rows stored as tree-buf archives and as Parquet
//! (zstd level 3, a row group per chunk), and prints each query's median time, the bytes its
//! scans read, and the files' sizes (and the size of each archive written with
//! `Preference::Smaller`). Each archive is read twice: as a `TreeBufTable`, and as a
//! `ListingTable` of `TreeBufFormat` (the file format's path, which object stores take).
//!
//! `cargo run --release -p tree-buf-datafusion --example query_report -- [CHUNK_ROWS] [RUNS]
//! [ONLY]` (defaults: 65,536 rows per chunk and row group, 15 runs of each query; every query,
//! or only those whose name holds ONLY, for a profiler to watch). Needs the datasets.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::prelude::{ParquetReadOptions, SessionContext};
use tree_buf::archive::{ArchiveOptions, ArchiveWriter};
use tree_buf::{Encode, EncodeOptions, Preference};
use tree_buf_datafusion::{TreeBufFormat, TreeBufTable};

#[path = "../tests/support/mod.rs"]
mod support;

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let chunk_rows: usize = args
        .next()
        .map_or(65_536, |n| n.parse().expect("CHUNK_ROWS"));
    let runs: usize = args.next().map_or(15, |n| n.parse().expect("RUNS"));
    let only = args.next().unwrap_or_default();
    let dir = tempfile::tempdir().unwrap();
    let ctx = SessionContext::new();

    println!(
        "Rows per chunk and per row group: {chunk_rows}; DataFusion's partitions: {}.",
        ctx.state().config().target_partitions()
    );
    println!();
    println!(
        "| table | rows | tree-buf bytes | tree-buf (smaller) bytes | Parquet bytes | ratio | \
         smaller ratio |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let databank = tree_buf_datasets::baseball::load().expect("the baseball databank");
    store(&ctx, dir.path(), "batting", &databank.batting, chunk_rows).await;
    store(&ctx, dir.path(), "people", &databank.people, chunk_rows).await;
    drop(databank);
    let games = tree_buf_datasets::retrosheet::load_all().expect("the Retrosheet game logs");
    store(&ctx, dir.path(), "games", &games, chunk_rows).await;
    drop(games);
    let countries = tree_buf_datasets::geojson::load().expect("the GeoJSON countries");
    store(
        &ctx,
        dir.path(),
        "countries",
        &countries.features,
        chunk_rows,
    )
    .await;
    drop(countries);

    println!();
    println!(
        "| query | tree-buf | tree-buf (file format) | Parquet | time ratio | file format \
         ratio | tree-buf bytes read | Parquet bytes read | bytes ratio |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let queries = [support::BASEBALL, support::RETROSHEET, support::GEOJSON].concat();
    for (name, sql) in queries.into_iter().filter(|(name, _)| name.contains(&only)) {
        let on = ["_tb", "_tf", "_pq"].map(|suffix| sql.replace("{t}", suffix));
        // Runs take turns, so that a slow spell of a shared machine falls on all three.
        let mut times: [Vec<Duration>; 3] = Default::default();
        let mut bytes = [0; 3];
        for _ in 0..=runs {
            for (which, sql) in on.iter().enumerate() {
                let (time, read) = run(&ctx, sql).await;
                times[which].push(time);
                // The most any run read: a top-k's dynamic filter may skip chunks in a run,
                // depending on how soon it tightens.
                bytes[which] = bytes[which].max(read);
            }
        }
        // The first run of each warms the page cache and DataFusion's plans.
        let [tree_buf, format, parquet] = times.map(|mut times| median(&mut times[1..]));
        assert_eq!(
            bytes[0], bytes[1],
            "{name}: both tree-buf scans read the same branches"
        );
        let ratio = |time: Duration| time.as_secs_f64() / parquet.as_secs_f64();
        println!(
            "| {name} | {} | {} | {} | {:.2}x | {:.2}x | {} | {} | {:.2}x |",
            millis(tree_buf),
            millis(format),
            millis(parquet),
            ratio(tree_buf),
            ratio(format),
            bytes[0],
            bytes[2],
            bytes[0] as f64 / bytes[2] as f64,
        );
    }
}

/// Writes `rows` as a tree-buf archive and as Parquet, registered as `{name}_tb` (a
/// `TreeBufTable`), `{name}_tf` (a `ListingTable` of the same archive) and `{name}_pq`, and prints
/// their sizes.
async fn store<T: Encode>(
    ctx: &SessionContext,
    dir: &Path,
    name: &str,
    rows: &[T],
    chunk_rows: usize,
) {
    let tb = dir.join(format!("{name}.tb"));
    let options = ArchiveOptions::default().chunk_rows(chunk_rows);
    write_archive(&tb, rows, options.clone());
    // For its size only: integer columns keyed by their siblings make reading one column read
    // another too.
    let smaller = dir.join(format!("{name}-smaller.tb"));
    let prefer_smaller = EncodeOptions::default().prefer(Preference::Smaller);
    write_archive(&smaller, rows, options.encode_options(prefer_smaller));
    let table = TreeBufTable::open(&tb).unwrap();
    ctx.register_table(format!("{name}_tb"), Arc::new(table))
        .unwrap();
    let url = ListingTableUrl::parse(tb.to_str().unwrap()).unwrap();
    let listing = ListingTableConfig::new(url)
        .with_listing_options(ListingOptions::new(Arc::new(TreeBufFormat)))
        .infer_schema(&ctx.state())
        .await
        .unwrap();
    ctx.register_table(
        format!("{name}_tf"),
        Arc::new(ListingTable::try_new(listing).unwrap()),
    )
    .unwrap();

    let pq = dir.join(format!("{name}.parquet"));
    let batches = ctx
        .table(format!("{name}_tb"))
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    support::write_parquet(&batches, &pq, chunk_rows);
    let options = ParquetReadOptions::default();
    ctx.register_parquet(format!("{name}_pq"), pq.to_str().unwrap(), options)
        .await
        .unwrap();

    let size = |path: &Path| std::fs::metadata(path).unwrap().len();
    let (tb, smaller, pq) = (size(&tb), size(&smaller), size(&pq));
    println!(
        "| {name} | {} | {tb} | {smaller} | {pq} | {:.3}x | {:.3}x |",
        rows.len(),
        tb as f64 / pq as f64,
        smaller as f64 / pq as f64
    );
}

/// Writes `rows` as an archive at `path`.
fn write_archive<T: Encode>(path: &Path, rows: &[T], options: ArchiveOptions) {
    let mut writer = ArchiveWriter::create_with_options(path, options).unwrap();
    for row in rows {
        writer.push(row).unwrap();
    }
    writer.finish().unwrap();
}

/// Plans and runs `sql`: the time from the SQL text to the last batch, and the bytes its scans
/// read.
async fn run(ctx: &SessionContext, sql: &str) -> (Duration, usize) {
    let start = Instant::now();
    let (batches, plan) = support::run(ctx, sql).await;
    let time = start.elapsed();
    assert!(!batches.is_empty(), "{sql}");
    (time, support::scanned_bytes(plan.as_ref()))
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn millis(time: Duration) -> String {
    format!("{:.2} ms", time.as_secs_f64() * 1e3)
}
