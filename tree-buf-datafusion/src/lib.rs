//! SQL over tree-buf archives with [Apache DataFusion](https://datafusion.apache.org).
//!
//! A [`TreeBufTable`] is a DataFusion table whose rows are an archive's rows (or those of several
//! archives, one after another). Its columns are the rows' fields as [`tree_buf_arrow`] maps
//! them to Arrow, nested structs, lists and maps included, so `home['score']` or
//! `properties['ADMIN']` address a field inside one. Strings are `Utf8View`, as DataFusion reads
//! Parquet's strings.
//!
//! What a scan reads:
//!
//! - **Only the columns the query uses.** tree-buf stores every path through a type as its own
//!   branch, with the byte length of each in the chunk's table, so a column is read without
//!   touching the bytes of the others. The scan's `bytes_scanned` metric (in `EXPLAIN ANALYZE`)
//!   counts the bytes of the branches read.
//! - **Only the chunks the filters can select from.** The archive's footer keeps, per chunk and
//!   branch, the least and greatest value and the count of nulls; DataFusion's pruning predicate
//!   skips every chunk they rule out. The filters are then applied to the rows read.
//! - **Only the chunks that can still matter, as the query runs.** Filters DataFusion pushes
//!   into a scan once the plan is made, such as the dynamic filter of a top-k sort (`ORDER BY
//!   duration DESC LIMIT 5`: longer than the fifth longest so far) or of a hash join's build
//!   side, are checked against each chunk's statistics just before it is read (the
//!   `chunks_skipped_at_run_time` metric counts the chunks they skip).
//! - **Chunks in parallel.** The chunks are spread over DataFusion's target partitions, in runs
//!   of consecutive chunks.
//!
//! [`TreeBufFormat`] is tree-buf as a DataFusion file format, for `ListingTable`: archives in any
//! object store, Hive-style partitioned directories, and large files split over partitions by
//! chunk ranges.
//!
//! ```
//! use datafusion::prelude::SessionContext;
//! use tree_buf::archive::{ArchiveOptions, ArchiveWriter};
//!
//! #[derive(tree_buf::Encode)]
//! struct Batting { player: String, year: u16, hits: Option<u16> }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("batting.tb");
//! let mut writer = ArchiveWriter::create(&path)?;
//! writer.push(&Batting { player: "aaronha01".into(), year: 1954, hits: Some(131) })?;
//! writer.push(&Batting { player: "aaronha01".into(), year: 1955, hits: None })?;
//! writer.finish()?;
//!
//! let ctx = SessionContext::new();
//! tree_buf_datafusion::register(&ctx);
//! let create = format!("CREATE EXTERNAL TABLE batting STORED AS TREEBUF LOCATION '{}'", path.display());
//! ctx.sql(&create).await?;
//! let frame = ctx.sql("SELECT year FROM batting WHERE hits IS NULL").await?;
//! let batches = frame.collect().await?;
//! assert_eq!(batches.iter().map(|batch| batch.num_rows()).sum::<usize>(), 1);
//! # Ok(())
//! # }
//! ```

#[cfg(feature = "proto")]
mod codec;
mod format;
mod listing;
mod prune;
mod scan;
mod table;

use std::sync::Arc;

use datafusion::common::DataFusionError;
use datafusion::prelude::SessionContext;
use tree_buf_arrow::{ArrowOptions, StringLayout};

#[cfg(feature = "ballista")]
pub use codec::{ballista_codecs, ballista_state};
#[cfg(feature = "proto")]
pub use codec::{TreeBufLogicalCodec, TreeBufPhysicalCodec, SCAN_TAG, TABLE_TAG};
pub use format::{TreeBufFormat, TreeBufFormatFactory, TreeBufSource};
pub use listing::TreeBufListingTable;
pub use scan::TreeBufExec;
pub use table::{TreeBufTable, TreeBufTableFactory, EXTENSION};

/// The name `STORED AS` gives tree-buf archives in `CREATE EXTERNAL TABLE`.
pub const FORMAT_NAME: &str = "TREEBUF";

/// Lets `CREATE EXTERNAL TABLE ... STORED AS TREEBUF LOCATION '...'` make tree-buf tables in
/// `ctx`, and registers [`TreeBufFormat`] as the session's file format `treebuf`.
///
/// A local location (a path, or a `file://` URL) is an archive, or a directory whose `*.tb`
/// archives are read in the order of their names: a [`TreeBufTable`]. A location in another
/// object store registered with the session (`s3://bucket/games/`, `memory:///games.tb`), or a
/// table `PARTITIONED BY` columns of its directories' names (`season=2018/`), is a
/// `ListingTable` of [`TreeBufFormat`], as a [`TreeBufListingTable`].
pub fn register(ctx: &SessionContext) {
    let state = ctx.state_ref();
    let mut state = state.write();
    state
        .table_factories_mut()
        .insert(FORMAT_NAME.to_owned(), Arc::new(TreeBufTableFactory));
    state
        .register_file_format(Arc::new(TreeBufFormatFactory), true)
        .unwrap_or_else(|_| unreachable!("registering a file format over another never fails"));
}

/// How tables lay out the archives' values in Arrow: strings as views, which is how DataFusion
/// reads Parquet's strings and what its operators compare and group fastest. A branch that
/// stores each distinct string once is not expanded: its rows' views point at those strings.
fn arrow_options() -> ArrowOptions {
    ArrowOptions::default().strings(StringLayout::Utf8View)
}

/// A tree-buf or Arrow error as DataFusion's.
fn external(error: impl std::error::Error + Send + Sync + 'static) -> DataFusionError {
    DataFusionError::External(Box::new(error))
}
