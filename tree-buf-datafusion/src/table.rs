//! A table of one or more archives, and what a scan of it reads.

use std::fmt;
use std::path::{Path as FsPath, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::{DataType, SchemaRef};
use datafusion::catalog::{Session, TableProvider, TableProviderFactory};
use datafusion::common::stats::Precision;
use datafusion::common::{DataFusionError, Result, Statistics};
use datafusion::datasource::listing::ListingTable;
use datafusion::datasource::listing_table_factory::ListingTableFactory;
use datafusion::datasource::TableType;
use datafusion::logical_expr::{CreateExternalTable, Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;
use tree_buf::archive::{Archive, ChunkInfo};

use crate::listing::TreeBufListingTable;
use crate::prune::kept_chunks;
use crate::scan::{spread, TreeBufExec};
use crate::{arrow_options, external};

/// The file name extension of the archives a directory given as a table's location holds.
pub const EXTENSION: &str = "tb";

/// A chunk of one of a table's archives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ChunkRef {
    /// The archive's place in the table's list.
    pub(crate) archive: usize,
    /// The chunk's place in the archive.
    pub(crate) chunk: usize,
}

impl ChunkRef {
    /// What the footer of its archive, one of `archives`, says of the chunk.
    pub(crate) fn info<'a>(self, archives: &'a [Arc<Archive<'static>>]) -> &'a ChunkInfo {
        &archives[self.archive].chunks()[self.chunk]
    }
}

/// A DataFusion table whose rows are the rows of one or more tree-buf archives, in order.
///
/// Its columns are the fields of the rows as [`tree_buf_arrow`] maps them (nested structs,
/// lists and maps included). A scan reads only the branches of the columns a query uses, skips
/// the chunks whose footer statistics show that the query's filters select nothing from them,
/// and spreads the remaining chunks over DataFusion's partitions.
///
/// ```
/// use datafusion::prelude::SessionContext;
/// use tree_buf::archive::{ArchiveOptions, ArchiveWriter};
/// use tree_buf_datafusion::TreeBufTable;
///
/// #[derive(tree_buf::Encode)]
/// struct Game { home: String, runs: u8 }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("games.tb");
/// let mut writer = ArchiveWriter::create_with_options(&path, ArchiveOptions::default().chunk_rows(2))?;
/// for (home, runs) in [("BOS", 3), ("NYA", 1), ("BOS", 7)] {
///     writer.push(&Game { home: home.into(), runs })?;
/// }
/// writer.finish()?;
///
/// let ctx = SessionContext::new();
/// ctx.register_table("games", std::sync::Arc::new(TreeBufTable::open(&path)?))?;
/// let batches = ctx
///     .sql("SELECT home, sum(runs) AS runs FROM games GROUP BY home ORDER BY home")
///     .await?
///     .collect()
///     .await?;
/// assert_eq!(batches[0].num_rows(), 2);
/// # Ok(())
/// # }
/// ```
pub struct TreeBufTable {
    locations: Vec<PathBuf>,
    archives: Vec<Arc<Archive<'static>>>,
    schema: SchemaRef,
    /// At most this many partitions per scan, if set.
    scan_partitions: Option<usize>,
}

impl fmt::Debug for TreeBufTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TreeBufTable")
            .field("locations", &self.locations)
            .field("schema", &self.schema)
            .field("scan_partitions", &self.scan_partitions)
            .finish_non_exhaustive()
    }
}

impl TreeBufTable {
    /// The table of the archive at `path`, or of every archive (`*.tb`) in the directory at
    /// `path`, in the order of their names.
    pub fn open(path: impl AsRef<FsPath>) -> Result<Self> {
        Self::open_all([path])
    }

    /// The table of the archives at these locations, each a file or a directory as
    /// [`Self::open`] takes it, one after another.
    pub fn open_all(locations: impl IntoIterator<Item = impl AsRef<FsPath>>) -> Result<Self> {
        let mut files = Vec::new();
        for location in locations {
            let location = location.as_ref();
            if location.is_dir() {
                let mut found = (std::fs::read_dir(location)?)
                    .map(|entry| entry.map(|entry| entry.path()))
                    .collect::<Result<Vec<_>, _>>()?;
                found.retain(|path| path.is_file() && path.extension() == Some(EXTENSION.as_ref()));
                found.sort();
                files.extend(found);
            } else {
                files.push(location.to_owned());
            }
        }
        let archives = open_archives(&files)?;
        Self::from_archives(files, archives)
    }

    /// The table of archives already open, named by `locations` in plans and errors.
    pub fn from_archives(locations: Vec<PathBuf>, archives: Vec<Archive<'static>>) -> Result<Self> {
        let schema = table_schema(&archives)?;
        Ok(TreeBufTable {
            locations,
            archives: archives.into_iter().map(Arc::new).collect(),
            schema,
            scan_partitions: None,
        })
    }

    /// Scans spread the chunks over at most `partitions` partitions (at least 1), rather than
    /// over DataFusion's target partitions.
    ///
    /// Ballista 55 restricts only file scans (`DataSourceExec`) to the partitions of each of its
    /// tasks: a scan of this table runs whole in every task, so a table read through Ballista
    /// must be scanned as one partition (`with_scan_partitions(1)`); the stages after the scan
    /// are still spread over the executors. A [`TreeBufListingTable`]'s scan is split over the
    /// tasks.
    pub fn with_scan_partitions(mut self, partitions: usize) -> Self {
        self.scan_partitions = Some(partitions.max(1));
        self
    }

    /// The most partitions a scan has, if [`Self::with_scan_partitions`] set it.
    pub fn scan_partitions(&self) -> Option<usize> {
        self.scan_partitions
    }

    /// Where the table's archives were opened from, in order.
    pub fn locations(&self) -> &[PathBuf] {
        &self.locations
    }

    /// The table's archives, in order.
    pub fn archives(&self) -> impl Iterator<Item = &Archive<'static>> {
        self.archives.iter().map(|archive| &**archive)
    }
}

/// The archives at `paths`, each opened (mapped, not read).
pub(crate) fn open_archives(paths: &[PathBuf]) -> Result<Vec<Archive<'static>>> {
    paths.iter().map(|path| open_archive(path)).collect()
}

/// The archive at `path`, mapped; an error names the file.
pub(crate) fn open_archive(path: &FsPath) -> Result<Archive<'static>> {
    Archive::open(path)
        .map_err(|error| DataFusionError::External(format!("{}: {error}", path.display()).into()))
}

/// The columns of all of `archives`' chunks, each of the type the rows came from where the
/// archive kept it (`from-parquet` does), else of the widest type any chunk holds it as (an
/// archive of schemaless rows may widen part way through), and nullable where some chunk lacks
/// it.
fn table_schema(archives: &[Archive<'static>]) -> Result<SchemaRef> {
    let schemas = (archives.iter())
        .map(|archive| tree_buf_arrow::table_schema(archive, &arrow_options()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(external)?;
    tree_buf_arrow::widest_schema(&schemas).map_err(external)
}

#[async_trait]
impl TableProvider for TreeBufTable {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let chunks = (self.archives.iter().enumerate())
            .flat_map(|(archive_index, archive)| {
                (archive.chunks().iter().enumerate()).map(move |(chunk, info)| {
                    let chunk_ref = ChunkRef {
                        archive: archive_index,
                        chunk,
                    };
                    (chunk_ref, info)
                })
            })
            .collect();
        let mut chunks = kept_chunks(state, chunks, &self.schema, filters)?;
        if let Some(limit) = limit {
            // DataFusion passes a limit only where every filter is applied here exactly, and
            // there are none: the first chunks that hold that many rows are enough.
            let mut rows = 0u64;
            let enough = chunks.iter().position(|chunk| {
                rows += chunk.info(&self.archives).rows;
                rows >= limit as u64
            });
            if let Some(last) = enough {
                chunks.truncate(last + 1);
            }
        }
        let schema = match projection {
            Some(indices) => Arc::new(self.schema.project(indices)?),
            None => Arc::clone(&self.schema),
        };
        let target = state.config().target_partitions();
        let partitions = spread(
            chunks,
            self.scan_partitions.map_or(target, |most| most.min(target)),
        );
        Ok(Arc::new(TreeBufExec::new(
            self.locations.clone(),
            self.archives.clone(),
            schema,
            None,
            partitions,
            limit,
        )))
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        // Filters skip chunks, and DataFusion still applies them to the rows of the rest.
        Ok(vec![TableProviderFilterPushDown::Inexact; filters.len()])
    }

    fn statistics(&self) -> Option<Statistics> {
        let rows: u64 = self.archives.iter().map(|archive| archive.rows()).sum();
        let mut statistics = Statistics::new_unknown(&self.schema);
        statistics.num_rows = Precision::Exact(usize::try_from(rows).ok()?);
        Some(statistics)
    }
}

/// Makes `CREATE EXTERNAL TABLE name STORED AS TREEBUF LOCATION 'path'` open tree-buf archives
/// (a file, or a directory of `*.tb` files) as a [`TreeBufTable`]; [`register`](crate::register)
/// installs it. Locations in other object stores than the local disk, and tables `PARTITIONED
/// BY` directory names, are made `ListingTable`s of [`TreeBufFormat`](crate::TreeBufFormat) by
/// DataFusion's own factory (which finds the format `register` installs), each wrapped in a
/// [`TreeBufListingTable`] so that plans over it can be sent between processes.
#[derive(Debug, Default, Clone, Copy)]
pub struct TreeBufTableFactory;

#[async_trait]
impl TableProviderFactory for TreeBufTableFactory {
    async fn create(
        &self,
        state: &dyn Session,
        cmd: &CreateExternalTable,
    ) -> Result<Arc<dyn TableProvider>> {
        let local =
            |location: &String| !location.contains("://") || location.starts_with("file://");
        if !cmd.table_partition_cols.is_empty() || !cmd.locations.iter().all(local) {
            let table = ListingTableFactory::new().create(state, cmd).await?;
            // Under tree-buf's own type, which the plan codecs can send.
            return match table.downcast_ref::<ListingTable>() {
                Some(listing) => Ok(Arc::new(TreeBufListingTable::new(listing.clone())?)),
                None => Ok(table),
            };
        }
        let locations = (cmd.locations.iter())
            .map(|location| location.strip_prefix("file://").unwrap_or(location));
        let table = TreeBufTable::open_all(locations)?;
        // Columns the statement declares must be the archive's, as the archive types them.
        for declared in cmd.schema.fields() {
            let found = table.schema.field_with_name(declared.name()).map_err(|_| {
                DataFusionError::Plan(format!(
                    "the archives of table {} have no column `{}`",
                    cmd.name,
                    declared.name()
                ))
            })?;
            if !same_type(found.data_type(), declared.data_type()) {
                return Err(DataFusionError::Plan(format!(
                    "column `{}` of table {} is {} in the archives, not {}",
                    declared.name(),
                    cmd.name,
                    found.data_type(),
                    declared.data_type()
                )));
            }
        }
        Ok(Arc::new(table))
    }
}

/// Whether a column the archives hold as `found` is one declared as `declared`: the same type,
/// where SQL's `VARCHAR` (DataFusion's `Utf8View`) and `BYTEA` stand for any string or bytes.
fn same_type(found: &DataType, declared: &DataType) -> bool {
    use DataType::{Binary, BinaryView, LargeBinary, LargeUtf8, Utf8, Utf8View};
    found == declared
        || matches!(
            (found, declared),
            (Utf8 | LargeUtf8 | Utf8View, Utf8 | LargeUtf8 | Utf8View)
                | (
                    Binary | LargeBinary | BinaryView,
                    Binary | LargeBinary | BinaryView
                )
        )
}
