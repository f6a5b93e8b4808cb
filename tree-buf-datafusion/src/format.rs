//! tree-buf archives as a DataFusion file format: what `ListingTable` reads, so that archives in
//! any object store (local files, S3, memory), directories of them and Hive-style partitions
//! (`season=2018/games.tb`) are tables.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::{Field, Schema, SchemaRef};
use datafusion::catalog::Session;
use datafusion::common::config::ConfigOptions;
use datafusion::common::parsers::CompressionTypeVariant;
use datafusion::common::stats::Precision;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{plan_err, DataFusionError, GetExt, Result, Statistics};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::file_format::{FileFormat, FileFormatFactory};
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::{
    FileOpenFuture, FileOpener, FileScanConfig, FileScanConfigBuilder, FileSource,
};
use datafusion::datasource::projection::{ProjectionOpener, SplitProjection};
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::table_schema::TableSchema;
use datafusion::object_store::path::Path as ObjectPath;
use datafusion::object_store::{
    coalesce_ranges, GetOptions, GetResultPayload, ObjectMeta, ObjectStore, ObjectStoreExt,
};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr_common::sort_expr::LexOrdering;
use datafusion::physical_plan::filter_pushdown::{FilterPushdownPropagation, PushedDown};
use datafusion::physical_plan::metrics::{ExecutionPlanMetricsSet, MetricBuilder};
use datafusion::physical_plan::projection::ProjectionExprs;
use datafusion::physical_plan::{DisplayFormatType, ExecutionPlan};
use futures::StreamExt;
use tree_buf::archive::{Archive, PartialArchive};
use tree_buf_arrow::Selection;

use crate::prune::RuntimeFilters;
use crate::scan::{chunk_branches, field_paths, narrow_column, ChunkBatches};
use crate::table::{open_archive, ChunkRef, EXTENSION};
use crate::{arrow_options, external, FORMAT_NAME};

/// Makes [`TreeBufFormat`]s: registered under the name `TREEBUF` by
/// [`register`](crate::register), so that `CREATE EXTERNAL TABLE ... STORED AS TREEBUF` can make
/// a `ListingTable` of archives. It takes no format options.
#[derive(Debug, Default, Clone, Copy)]
pub struct TreeBufFormatFactory;

impl FileFormatFactory for TreeBufFormatFactory {
    fn create(
        &self,
        _state: &dyn Session,
        format_options: &HashMap<String, String>,
    ) -> Result<Arc<dyn FileFormat>> {
        // DataFusion passes every `OPTIONS` key it does not know itself, prefixed `format.`.
        if let Some(key) = (format_options.keys()).find(|key| key.starts_with("format.")) {
            return plan_err!("tree-buf archives take no format options, not `{key}`");
        }
        Ok(Arc::new(TreeBufFormat))
    }

    fn default(&self) -> Arc<dyn FileFormat> {
        Arc::new(TreeBufFormat)
    }
}

impl GetExt for TreeBufFormatFactory {
    /// The name the factory is found by (`STORED AS TREEBUF`), lowercased as DataFusion keeps
    /// it; the archives' file name extension is [`TreeBufFormat`]'s.
    fn get_ext(&self) -> String {
        FORMAT_NAME.to_lowercase()
    }
}

/// tree-buf archives as a DataFusion [`FileFormat`], for `ListingTable`: each file an archive,
/// read through the session's object store for its URL.
///
/// - **Schema:** each archive's columns as [`tree_buf_arrow`] maps them, strings as views; the
///   table's is the widest over its archives and their chunks.
/// - **Partitions are chunk ranges.** DataFusion may split a large file into byte ranges, one per
///   partition; a range reads the chunks whose sections start in it.
/// - **Projection** reads only the branches of the columns a query uses (of a struct column it
///   reaches only through fields, `home['score']`, those fields' branches), and **filters** skip
///   the chunks whose footer statistics rule them out (DataFusion still applies the filters to
///   the rows read).
/// - **Local files** are memory-mapped, so only the branches read are read from disk. Objects in
///   other stores are fetched by byte ranges ([`PartialArchive`]): the header, the footer and
///   the branch tables, then the branches the query reads of the chunks the filters leave
///   (with a keyed branch's source), ranges closer than 16 KiB fetched as one. Each partition
///   fetches the header and footer of the files it reads, and so does the planner for their
///   row counts.
///
/// Writing (`COPY ... TO` or `INSERT INTO`) is not supported: write archives with
/// [`ArchiveWriter`](tree_buf::archive::ArchiveWriter) or `tree-buf from-parquet`.
///
/// ```
/// use std::sync::Arc;
/// use datafusion::datasource::listing::{ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl};
/// use datafusion::prelude::SessionContext;
/// use tree_buf::archive::ArchiveWriter;
/// use tree_buf_datafusion::TreeBufFormat;
///
/// #[derive(tree_buf::Encode)]
/// struct Game { home: String, runs: u8 }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// for (name, games) in [("april.tb", [("BOS", 3), ("NYA", 1)]), ("may.tb", [("BOS", 7), ("SEA", 2)])] {
///     let mut writer = ArchiveWriter::create(dir.path().join(name))?;
///     for (home, runs) in games {
///         writer.push(&Game { home: home.into(), runs })?;
///     }
///     writer.finish()?;
/// }
///
/// let ctx = SessionContext::new();
/// let url = ListingTableUrl::parse(format!("{}/", dir.path().display()))?;
/// let options = ListingOptions::new(Arc::new(TreeBufFormat)).with_file_extension(".tb");
/// let config = ListingTableConfig::new(url)
///     .with_listing_options(options)
///     .infer_schema(&ctx.state())
///     .await?;
/// ctx.register_table("games", Arc::new(ListingTable::try_new(config)?))?;
/// let batches = ctx.sql("SELECT sum(runs) AS runs FROM games WHERE home = 'BOS'").await?.collect().await?;
/// assert_eq!(batches[0].num_rows(), 1);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Default, Clone, Copy)]
pub struct TreeBufFormat;

#[async_trait]
impl FileFormat for TreeBufFormat {
    fn get_ext(&self) -> String {
        EXTENSION.to_owned()
    }

    fn get_ext_with_compression(
        &self,
        file_compression_type: &FileCompressionType,
    ) -> Result<String> {
        match file_compression_type.get_variant() {
            CompressionTypeVariant::UNCOMPRESSED => Ok(self.get_ext()),
            // Archives compress their own branches.
            other => plan_err!("tree-buf archives are not compressed as whole files ({other:?})"),
        }
    }

    /// Uncompressed as a whole (its branches compress themselves): so that DataFusion lists a
    /// directory's files by their extension, `*.tb`.
    fn compression_type(&self) -> Option<FileCompressionType> {
        Some(FileCompressionType::UNCOMPRESSED)
    }

    async fn infer_schema(
        &self,
        _state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        objects: &[ObjectMeta],
    ) -> Result<SchemaRef> {
        let mut schemas = Vec::with_capacity(objects.len());
        for object in objects {
            // The columns are read from the schemas and branch tables, which opening fetches.
            let archive = open_object(store, object, |_| Vec::new()).await?;
            let schema = tree_buf_arrow::table_schema(&archive, &arrow_options())
                .map_err(|error| in_object(&object.location, error))?;
            schemas.push(schema);
        }
        tree_buf_arrow::widest_schema(&schemas).map_err(external)
    }

    async fn infer_stats(
        &self,
        _state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        table_schema: SchemaRef,
        object: &ObjectMeta,
    ) -> Result<Statistics> {
        let mut statistics = Statistics::new_unknown(&table_schema);
        // The row count is the footer's: no chunk is read.
        let archive = open_object(store, object, |_| Vec::new()).await?;
        statistics.num_rows =
            usize::try_from(archive.rows()).map_or(Precision::Absent, Precision::Exact);
        Ok(statistics)
    }

    async fn create_physical_plan(
        &self,
        _state: &dyn Session,
        conf: FileScanConfig,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(DataSourceExec::from_data_source(conf))
    }

    fn file_source(&self, table_schema: TableSchema) -> Arc<dyn FileSource> {
        Arc::new(TreeBufSource::new(table_schema))
    }
}

/// Opens the archive `object` of `store`. A local file is mapped. Any other object is fetched by
/// byte ranges: what opening reads, then the branches of the chunks that `reads` picks from the
/// opened archive (the chunk's branch indices), which are all that can be read of it.
async fn open_object(
    store: &Arc<dyn ObjectStore>,
    object: &ObjectMeta,
    reads: impl FnOnce(&Archive<'_>) -> Vec<(usize, Vec<usize>)>,
) -> Result<Archive<'static>> {
    let location = &object.location;
    let in_object = |error: &dyn fmt::Display| in_object(location, error);
    let mut partial = PartialArchive::new(object.size).map_err(|e| in_object(&e))?;
    // The first range asked for tells a local file, which comes as a file whatever the range.
    let first = partial.wanted().map_err(|e| in_object(&e))?;
    let got = (store.get_opts(
        location,
        GetOptions::new().with_range(first.last().cloned()),
    ))
    .await?;
    if let GetResultPayload::File(_, path) = got.payload {
        return open_archive(&path);
    }
    let start = got.range.start;
    let bytes = got.bytes().await?;
    partial.fill(start, &bytes).map_err(|e| in_object(&e))?;
    fetch_wanted(store, location, &mut partial).await?;
    let reads = reads(&partial.view().map_err(|e| in_object(&e))?);
    for (chunk, branches) in reads {
        partial.read_branches(chunk, branches);
    }
    fetch_wanted(store, location, &mut partial).await?;
    partial.finish().map_err(|e| in_object(&e))
}

/// Ranges of an object closer than this are fetched in one request. A request costs about what
/// tens of kilobytes do (its round trip, and the store's fee); object_store's default of 1 MiB
/// would fetch every chunk between two chunk heads that opening reads.
const COALESCE_BYTES: u64 = 16 << 10;

/// Fetches what `partial` wants of the object at `location`, round after round, until it wants
/// nothing more (each round fetches new bytes, so there are at most as many as bytes).
async fn fetch_wanted(
    store: &Arc<dyn ObjectStore>,
    location: &ObjectPath,
    partial: &mut PartialArchive,
) -> Result<()> {
    loop {
        let wanted = partial.wanted().map_err(|e| in_object(location, e))?;
        if wanted.is_empty() {
            return Ok(());
        }
        let fetch = |range| store.get_range(location, range);
        let fetched = coalesce_ranges(&wanted, fetch, COALESCE_BYTES).await?;
        for (range, bytes) in wanted.iter().zip(fetched) {
            if bytes.len() as u64 != range.end - range.start {
                return Err(in_object(
                    location,
                    format!(
                        "the store gave {} bytes for the range {range:?}",
                        bytes.len()
                    ),
                ));
            }
            partial
                .fill(range.start, &bytes)
                .map_err(|e| in_object(location, e))?;
        }
    }
}

/// `error` about the object at `location`, naming it.
fn in_object(location: &ObjectPath, error: impl fmt::Display) -> DataFusionError {
    DataFusionError::External(format!("{location}: {error}").into())
}

/// The [`FileSource`] of [`TreeBufFormat`]: what a scan of archives reads of each.
#[derive(Clone)]
pub struct TreeBufSource {
    table_schema: TableSchema,
    projection: SplitProjection,
    /// Filters over the file's columns, checked against each chunk's statistics.
    filters: Vec<Arc<dyn PhysicalExpr>>,
    metrics: ExecutionPlanMetricsSet,
    /// The most rows a batch holds (DataFusion's `batch_size`, which the scan sets).
    batch_size: usize,
}

impl fmt::Debug for TreeBufSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TreeBufSource")
            .field("file_schema", self.table_schema.file_schema())
            .field("columns", &self.projection.file_indices)
            .field("filters", &self.filters.len())
            .finish_non_exhaustive()
    }
}

impl TreeBufSource {
    /// A source that reads every column of `table_schema`'s files.
    pub fn new(table_schema: impl Into<TableSchema>) -> Self {
        let table_schema = table_schema.into();
        TreeBufSource {
            projection: SplitProjection::unprojected(&table_schema),
            table_schema,
            filters: Vec::new(),
            metrics: ExecutionPlanMetricsSet::new(),
            batch_size: ConfigOptions::default().execution.batch_size.into(),
        }
    }

    /// The filters that skip chunks by their statistics.
    #[cfg(feature = "proto")]
    pub(crate) fn filters(&self) -> &[Arc<dyn PhysicalExpr>] {
        &self.filters
    }

    /// This source with `filters` to skip chunks by.
    #[cfg(feature = "proto")]
    pub(crate) fn with_filters(mut self, filters: Vec<Arc<dyn PhysicalExpr>>) -> Self {
        self.filters = filters;
        self
    }
}

impl FileSource for TreeBufSource {
    fn create_file_opener(
        &self,
        object_store: Arc<dyn ObjectStore>,
        _base_config: &FileScanConfig,
        partition: usize,
    ) -> Result<Arc<dyn FileOpener>> {
        let file_schema = self.table_schema.file_schema();
        // What the projection takes of each file column: of a struct column reached only
        // through `get_field` (`home['score']`), only those fields, whose branches alone are read.
        // The projection above then finds them in the narrower struct by name.
        let mut paths = Vec::new();
        for projected in self.projection.source.iter() {
            field_paths(&projected.expr, file_schema, &mut paths);
        }
        let (fields, selection): (Vec<Field>, Vec<(String, Selection)>) =
            (self.projection.file_indices.iter())
                .map(|&index| {
                    let field = file_schema.field(index);
                    // A column the expressions do not name (none should be) is read whole.
                    let (read, narrowed) = narrow_column(index, field, &Selection::All, &paths)
                        .unwrap_or_else(|| (field.clone(), Selection::All));
                    (read, (field.name().clone(), narrowed))
                })
                .unzip();
        let opener = TreeBufOpener {
            object_store,
            schema: Arc::new(Schema::new(fields)),
            selection,
            file_schema: Arc::clone(file_schema),
            filters: self.filters.clone(),
            metrics: self.metrics.clone(),
            partition,
            batch_size: self.batch_size,
        };
        ProjectionOpener::try_new(self.projection.clone(), Arc::new(opener), file_schema)
    }

    fn table_schema(&self) -> &TableSchema {
        &self.table_schema
    }

    fn with_batch_size(&self, batch_size: usize) -> Arc<dyn FileSource> {
        Arc::new(TreeBufSource {
            batch_size,
            ..self.clone()
        })
    }

    fn projection(&self) -> Option<&ProjectionExprs> {
        Some(&self.projection.source)
    }

    fn try_pushdown_projection(
        &self,
        projection: &ProjectionExprs,
    ) -> Result<Option<Arc<dyn FileSource>>> {
        let mut source = self.clone();
        source.projection = SplitProjection::new(
            self.table_schema.file_schema(),
            &self.projection.source.try_merge(projection)?,
        );
        Ok(Some(Arc::new(source)))
    }

    fn try_pushdown_filters(
        &self,
        filters: Vec<Arc<dyn PhysicalExpr>>,
        _config: &ConfigOptions,
    ) -> Result<FilterPushdownPropagation<Arc<dyn FileSource>>> {
        // Chunks are skipped by the filters, and the rows of the rest still filtered above.
        let results = FilterPushdownPropagation::with_parent_pushdown_result(vec![
            PushedDown::No;
            filters.len()
        ]);
        let mut source = self.clone();
        for filter in filters {
            if !source.filters.contains(&filter) {
                source.filters.push(filter);
            }
        }
        Ok(results.with_updated_node(Arc::new(source) as Arc<dyn FileSource>))
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        let projected = self
            .projection
            .source
            .iter()
            .map(|projected| &projected.expr);
        for expression in projected.chain(&self.filters) {
            if f(expression)? == TreeNodeRecursion::Stop {
                return Ok(TreeNodeRecursion::Stop);
            }
        }
        Ok(TreeNodeRecursion::Continue)
    }

    fn metrics(&self) -> &ExecutionPlanMetricsSet {
        &self.metrics
    }

    fn file_type(&self) -> &str {
        EXTENSION
    }

    fn fmt_extra(&self, format: DisplayFormatType, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match format {
            DisplayFormatType::Default | DisplayFormatType::Verbose if !self.filters.is_empty() => {
                let filters: Vec<String> = self.filters.iter().map(ToString::to_string).collect();
                write!(f, ", chunk_filters=[{}]", filters.join(", "))
            }
            _ => Ok(()),
        }
    }

    fn repartitioned(
        &self,
        target_partitions: usize,
        repartition_file_min_size: usize,
        output_ordering: Option<LexOrdering>,
        config: &FileScanConfig,
    ) -> Result<Option<FileScanConfig>> {
        let groups = datafusion::datasource::physical_plan::FileGroupPartitioner::new()
            .with_target_partitions(target_partitions)
            .with_repartition_file_min_size(repartition_file_min_size)
            .with_preserve_order_within_groups(output_ordering.is_some())
            .repartition_file_groups(&config.file_groups);
        Ok(groups.map(|groups| {
            FileScanConfigBuilder::from(config.clone())
                .with_file_groups(groups)
                .build()
        }))
    }
}

/// Opens the archives of one partition of a scan and reads their chunks.
struct TreeBufOpener {
    object_store: Arc<dyn ObjectStore>,
    /// The file's columns read.
    schema: SchemaRef,
    selection: Vec<(String, Selection)>,
    /// The whole file schema, which the filters are over.
    file_schema: SchemaRef,
    filters: Vec<Arc<dyn PhysicalExpr>>,
    metrics: ExecutionPlanMetricsSet,
    partition: usize,
    batch_size: usize,
}

impl FileOpener for TreeBufOpener {
    fn open(&self, file: PartitionedFile) -> Result<FileOpenFuture> {
        let store = Arc::clone(&self.object_store);
        let schema = Arc::clone(&self.schema);
        let selection = self.selection.clone();
        let mut runtime_filters = RuntimeFilters::new(&self.file_schema, &self.filters);
        let metrics = MetricBuilder::new(&self.metrics);
        let bytes_scanned = metrics.clone().counter("bytes_scanned", self.partition);
        let chunks_skipped = metrics.counter("chunks_skipped", self.partition);
        let batch_size = self.batch_size;
        Ok(Box::pin(async move {
            // A byte range of the file reads the chunks whose sections start in it, so that the
            // ranges of a file read each chunk once; of those, the chunks the filters do not rule
            // out are fetched (from a store other than the local disk), then read in turn.
            let in_range = |archive: &Archive<'_>| -> Vec<usize> {
                (archive.chunks().iter().enumerate())
                    .filter(|(_, info)| {
                        file.range.as_ref().is_none_or(|range| {
                            let start = i64::try_from(info.offset).unwrap_or(i64::MAX);
                            (range.start..range.end).contains(&start)
                        })
                    })
                    .map(|(chunk, _)| chunk)
                    .collect()
            };
            let archive = open_object(&store, &file.object_meta, |archive| {
                let infos = archive.chunks();
                (in_range(archive).into_iter())
                    .filter(|&chunk| runtime_filters.may_match(&infos[chunk]))
                    .map(|chunk| (chunk, chunk_branches(&infos[chunk], &selection)))
                    .collect()
            })
            .await?;
            let chunks: Vec<ChunkRef> = (in_range(&archive).into_iter())
                .map(|chunk| ChunkRef { archive: 0, chunk })
                .collect();
            let batches = ChunkBatches {
                archives: vec![Arc::new(archive)],
                schema,
                selection,
                chunks: chunks.into_iter(),
                remaining: None,
                batch_size,
                rest: None,
                runtime_filters,
                bytes_scanned,
                chunks_skipped,
            };
            Ok(futures::stream::iter(batches).boxed())
        }))
    }
}
