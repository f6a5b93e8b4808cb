//! A `ListingTable` of tree-buf archives under a type of tree-buf's own, so that plan codecs can
//! send it between processes.

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{ScanArgs, ScanResult, Session, TableProvider};
use datafusion::common::{plan_err, Constraints, Result};
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::datasource::TableType;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;

use crate::{TreeBufFormat, EXTENSION};

/// A `ListingTable` of [`TreeBufFormat`] archives (an object store, Hive-style partitioned
/// directories) that the plan codecs of the `proto` feature can send between processes, as
/// Ballista's client, scheduler and executors do.
///
/// DataFusion's plan serialization knows only the file formats it ships (Parquet, CSV and the
/// like) and refuses a `ListingTable` of any other, before any extension codec is asked. This
/// is the same table under a type `TreeBufLogicalCodec` recognizes; it reads exactly as the
/// `ListingTable` it wraps. `CREATE EXTERNAL TABLE ... STORED AS TREEBUF` makes one wherever it
/// would make a `ListingTable` (see [`register`](crate::register)).
///
/// Ballista hands each of its tasks only its own partitions of such a scan (its files, or byte
/// ranges of a large file, each reading the chunks that start in it), so the scan is spread over
/// the cluster's executors.
///
/// ```
/// use std::sync::Arc;
/// use datafusion::prelude::SessionContext;
/// use tree_buf_datafusion::TreeBufListingTable;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// for (name, day) in [("june.tb", 7u32), ("july.tb", 9)] {
///     let mut writer = tree_buf::archive::ArchiveWriter::create(dir.path().join(name))?;
///     writer.push(&day)?;
///     writer.finish()?;
/// }
///
/// let ctx = SessionContext::new();
/// let table = TreeBufListingTable::open(&ctx.state(), &format!("{}/", dir.path().display())).await?;
/// ctx.register_table("days", Arc::new(table))?;
/// assert_eq!(ctx.sql("SELECT * FROM days").await?.count().await?, 2);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct TreeBufListingTable {
    table: ListingTable,
}

impl TreeBufListingTable {
    /// The archives at `location` as a table, with the widest of their schemas: an archive, or
    /// a directory of `*.tb` archives (its URL or path ending in `/`), on the local disk or in an
    /// object store registered with the session (`s3://bucket/games/`).
    pub async fn open(state: &dyn Session, location: &str) -> Result<Self> {
        let url = ListingTableUrl::parse(location)?;
        // A single file is read whatever its name ends with.
        let extension = match url.is_collection() {
            true => format!(".{EXTENSION}"),
            false => String::new(),
        };
        let options = ListingOptions::new(Arc::new(TreeBufFormat)).with_file_extension(extension);
        let config = ListingTableConfig::new(url)
            .with_listing_options(options)
            .infer_schema(state)
            .await?;
        Self::new(ListingTable::try_new(config)?)
    }

    /// `table` under tree-buf's type; an error unless its format is [`TreeBufFormat`].
    pub fn new(table: ListingTable) -> Result<Self> {
        let format = table.options().format.as_ref();
        if !format.is::<TreeBufFormat>() {
            return plan_err!("a listing table of {format:?}, not of tree-buf archives");
        }
        Ok(TreeBufListingTable { table })
    }

    /// The `ListingTable` it wraps.
    pub fn listing_table(&self) -> &ListingTable {
        &self.table
    }
}

#[async_trait]
impl TableProvider for TreeBufListingTable {
    fn schema(&self) -> SchemaRef {
        self.table.schema()
    }

    fn constraints(&self) -> Option<&Constraints> {
        self.table.constraints()
    }

    fn table_type(&self) -> TableType {
        self.table.table_type()
    }

    fn get_table_definition(&self) -> Option<&str> {
        self.table.get_table_definition()
    }

    fn get_column_default(&self, column: &str) -> Option<&Expr> {
        self.table.get_column_default(column)
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.table.scan(state, projection, filters, limit).await
    }

    async fn scan_with_args<'a>(
        &self,
        state: &dyn Session,
        args: ScanArgs<'a>,
    ) -> Result<ScanResult> {
        self.table.scan_with_args(state, args).await
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        self.table.supports_filters_pushdown(filters)
    }
}
