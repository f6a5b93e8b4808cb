//! Plans that cross processes (the `proto` feature): tree-buf tables and scans as bytes, for
//! DataFusion's plan serialization and for Ballista, whose scheduler and executors exchange
//! plans.
//!
//! Each codec handles its own nodes and hands everything else to the codec it wraps (DataFusion's
//! default, or Ballista's, which must stay in charge of Ballista's own nodes).
//!
//! # Wire format
//!
//! A table is [`TABLE_TAG`] and then a protobuf `TableNode`: the locations of its archives and
//! the most partitions its scans may have. A
//! scan is [`SCAN_TAG`] and then a protobuf `ScanNode`: the archives' locations, the projected
//! schema (DataFusion's protobuf `Schema`), for each partition the chunks it reads as
//! `(archive, chunk)` indices, the row limit, and what is read of each column (all, or some
//! fields of a struct). Archives are reopened from their locations where
//! the bytes are decoded, so every process must see the files at the same paths.
//!
//! A [`TreeBufListingTable`] is [`LISTING_TAG`] and then a protobuf `ListingNode`: its URLs, file
//! extension, file schema, partition columns, file sort order and SQL definition. A scan of
//! [`TreeBufFormat`](crate::TreeBufFormat) files (a `DataSourceExec` of a [`TreeBufSource`]) is
//! [`FILE_SCAN_TAG`] and then a protobuf `FileScanNode`: DataFusion's own `FileScanExecConf`
//! (files and byte ranges per partition, projection, limit) and the filters pushed to the scan,
//! which skip chunks by their statistics.

use std::path::PathBuf;
use std::sync::Arc;

use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::catalog::TableProvider;
use datafusion::common::{DataFusionError, Result, TableReference};
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::datasource::physical_plan::FileScanConfig;
use datafusion::datasource::source::DataSourceExec;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{
    AggregateUDF, Extension, HigherOrderUDF, LogicalPlan, ScalarUDF, WindowUDF,
};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr_common::physical_expr::proto_decode::PhysicalExprDecodeCtx;
use datafusion::physical_expr_common::physical_expr::proto_encode::PhysicalExprEncodeCtx;
use datafusion::physical_expr_common::physical_expr::snapshot_physical_expr;
use datafusion::physical_plan::ExecutionPlan;
use datafusion_proto::logical_plan::from_proto::parse_sorts;
use datafusion_proto::logical_plan::to_proto::serialize_sorts;
use datafusion_proto::logical_plan::{DefaultLogicalExtensionCodec, LogicalExtensionCodec};
use datafusion_proto::physical_plan::from_proto::{
    parse_protobuf_file_scan_config, parse_table_schema_from_proto,
};
use datafusion_proto::physical_plan::to_proto::serialize_file_scan_config;
use datafusion_proto::physical_plan::{
    DefaultPhysicalExtensionCodec, PhysicalExtensionCodec, PhysicalPlanDecodeContext,
    PhysicalProtoConverterExtension,
};
use datafusion_proto::protobuf;
use prost::Message;
use tree_buf_arrow::Selection;

use crate::scan::TreeBufExec;
use crate::table::{open_archives, ChunkRef, TreeBufTable};
use crate::{TreeBufFormat, TreeBufListingTable, TreeBufSource};

/// The first bytes of an encoded [`TreeBufExec`].
pub const SCAN_TAG: &[u8] = b"tree-buf scan 1\n";
/// The first bytes of an encoded [`TreeBufTable`].
pub const TABLE_TAG: &[u8] = b"tree-buf table 1\n";
/// The first bytes of an encoded [`TreeBufListingTable`].
pub const LISTING_TAG: &[u8] = b"tree-buf listing table 1\n";
/// The first bytes of an encoded scan of [`TreeBufFormat`] files.
pub const FILE_SCAN_TAG: &[u8] = b"tree-buf file scan 1\n";

#[derive(Clone, PartialEq, Message)]
struct TableNode {
    #[prost(string, repeated, tag = "1")]
    locations: Vec<String>,
    #[prost(uint64, optional, tag = "2")]
    scan_partitions: Option<u64>,
}

#[derive(Clone, PartialEq, Message)]
struct ScanNode {
    #[prost(string, repeated, tag = "1")]
    locations: Vec<String>,
    #[prost(message, optional, tag = "2")]
    schema: Option<protobuf::Schema>,
    #[prost(message, repeated, tag = "3")]
    partitions: Vec<PartitionNode>,
    #[prost(uint64, optional, tag = "4")]
    limit: Option<u64>,
    /// What is read of each column of the schema.
    #[prost(message, repeated, tag = "5")]
    selection: Vec<SelectionNode>,
}

/// A [`Selection`]: all of a column, or some of its fields.
#[derive(Clone, PartialEq, Message)]
struct SelectionNode {
    #[prost(bool, tag = "1")]
    all: bool,
    #[prost(string, repeated, tag = "2")]
    names: Vec<String>,
    #[prost(message, repeated, tag = "3")]
    fields: Vec<SelectionNode>,
}

impl SelectionNode {
    fn of(selection: &Selection) -> SelectionNode {
        match selection {
            Selection::All => SelectionNode {
                all: true,
                ..SelectionNode::default()
            },
            Selection::Fields(fields) => SelectionNode {
                all: false,
                names: fields.iter().map(|(name, _)| name.clone()).collect(),
                fields: fields
                    .iter()
                    .map(|(_, field)| SelectionNode::of(field))
                    .collect(),
            },
        }
    }

    fn selection(&self) -> Result<Selection> {
        if self.all {
            return Ok(Selection::All);
        }
        if self.names.len() != self.fields.len() {
            return Err(malformed("a selection's names and fields differ in number"));
        }
        let fields = (self.names.iter().zip(&self.fields))
            .map(|(name, field)| Ok((name.clone(), field.selection()?)))
            .collect::<Result<_>>()?;
        Ok(Selection::Fields(fields))
    }
}

#[derive(Clone, PartialEq, Message)]
struct ListingNode {
    #[prost(string, repeated, tag = "1")]
    urls: Vec<String>,
    #[prost(string, tag = "2")]
    file_extension: String,
    /// The columns the files hold, without the partition columns.
    #[prost(message, optional, tag = "3")]
    file_schema: Option<protobuf::Schema>,
    #[prost(message, repeated, tag = "4")]
    partition_columns: Vec<protobuf::PartitionColumn>,
    #[prost(message, repeated, tag = "5")]
    sort_order: Vec<protobuf::SortExprNodeCollection>,
    #[prost(string, optional, tag = "6")]
    definition: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
struct FileScanNode {
    #[prost(message, optional, tag = "1")]
    config: Option<protobuf::FileScanExecConf>,
    /// Over the file schema.
    #[prost(message, repeated, tag = "2")]
    filters: Vec<protobuf::PhysicalExprNode>,
}

/// A partition's chunks: the `i`th is chunk `chunks[i]` of archive `archives[i]`.
#[derive(Clone, PartialEq, Message)]
struct PartitionNode {
    #[prost(uint32, repeated, tag = "1")]
    archives: Vec<u32>,
    #[prost(uint32, repeated, tag = "2")]
    chunks: Vec<u32>,
}

fn malformed(what: impl std::fmt::Display) -> DataFusionError {
    DataFusionError::Internal(format!("a malformed tree-buf plan node: {what}"))
}

/// Paths as the text the wire carries.
fn location_texts(locations: &[PathBuf]) -> Result<Vec<String>> {
    (locations.iter())
        .map(|path| {
            path.to_str().map(str::to_owned).ok_or_else(|| {
                DataFusionError::NotImplemented(format!(
                    "sending a plan over an archive whose path is not UTF-8: {}",
                    path.display()
                ))
            })
        })
        .collect()
}

fn encode_scan(scan: &TreeBufExec, buf: &mut Vec<u8>) -> Result<()> {
    let partitions = (scan.partitions.iter())
        .map(|chunks| PartitionNode {
            archives: chunks.iter().map(|chunk| chunk.archive as u32).collect(),
            chunks: chunks.iter().map(|chunk| chunk.chunk as u32).collect(),
        })
        .collect();
    let node = ScanNode {
        locations: location_texts(&scan.locations)?,
        schema: Some(protobuf::Schema::try_from(scan.schema.as_ref())?),
        partitions,
        limit: scan.limit.map(|limit| limit as u64),
        selection: scan.selection.iter().map(SelectionNode::of).collect(),
    };
    buf.extend_from_slice(SCAN_TAG);
    node.encode(buf).map_err(malformed)
}

fn decode_scan(body: &[u8]) -> Result<TreeBufExec> {
    let node = ScanNode::decode(body).map_err(malformed)?;
    let schema = node
        .schema
        .as_ref()
        .ok_or_else(|| malformed("a scan without a schema"))?;
    let schema: SchemaRef = Arc::new(Schema::try_from(schema)?);
    let locations: Vec<PathBuf> = node.locations.iter().map(PathBuf::from).collect();
    let archives: Vec<_> = (open_archives(&locations)?.into_iter())
        .map(Arc::new)
        .collect();
    let mut partitions = Vec::with_capacity(node.partitions.len());
    for partition in &node.partitions {
        if partition.archives.len() != partition.chunks.len() {
            return Err(malformed(
                "a partition's archive and chunk lists differ in length",
            ));
        }
        let chunks = (partition.archives.iter().zip(&partition.chunks))
            .map(|(&archive, &chunk)| {
                let (archive, chunk) = (archive as usize, chunk as usize);
                let known = archives
                    .get(archive)
                    .is_some_and(|found| chunk < found.chunks().len());
                match known {
                    true => Ok(ChunkRef { archive, chunk }),
                    false => Err(malformed(format!("no chunk {chunk} in archive {archive}"))),
                }
            })
            .collect::<Result<Vec<_>>>()?;
        partitions.push(chunks);
    }
    if partitions.is_empty() {
        return Err(malformed("a scan of no partitions"));
    }
    let limit = node
        .limit
        .map(|limit| usize::try_from(limit).unwrap_or(usize::MAX));
    let selection = (node.selection.iter())
        .map(SelectionNode::selection)
        .collect::<Result<Vec<_>>>()?;
    if selection.len() != schema.fields().len() {
        return Err(malformed("a selection for each column of the schema"));
    }
    let scan = TreeBufExec::new(
        locations,
        archives,
        schema,
        Some(selection),
        partitions,
        limit,
    );
    Ok(scan)
}

/// The file configuration and source of `node`, if it is a scan of [`TreeBufFormat`] files.
fn file_scan(node: &dyn ExecutionPlan) -> Option<(&FileScanConfig, &TreeBufSource)> {
    let exec = node.downcast_ref::<DataSourceExec>()?;
    let config = exec.data_source().downcast_ref::<FileScanConfig>()?;
    let source = config.file_source().downcast_ref::<TreeBufSource>()?;
    Some((config, source))
}

fn encode_file_scan(
    (config, source): (&FileScanConfig, &TreeBufSource),
    codec: &dyn PhysicalExtensionCodec,
    proto_converter: &dyn PhysicalProtoConverterExtension,
    buf: &mut Vec<u8>,
) -> Result<()> {
    // The filters only skip chunks (the rows read are filtered above the scan), so a filter
    // that cannot be sent is left out rather than failing the plan. A dynamic filter goes as
    // what it holds now: the operator that tightens it runs in this process.
    let filters = (source.filters().iter())
        .filter_map(|filter| {
            let filter = snapshot_physical_expr(Arc::clone(filter)).ok()?;
            proto_converter.physical_expr_to_proto(&filter, codec).ok()
        })
        .collect();
    let node = FileScanNode {
        config: Some(serialize_file_scan_config(config, codec, proto_converter)?),
        filters,
    };
    buf.extend_from_slice(FILE_SCAN_TAG);
    node.encode(buf).map_err(malformed)
}

fn decode_file_scan(
    body: &[u8],
    ctx: &TaskContext,
    codec: &dyn PhysicalExtensionCodec,
    proto_converter: &dyn PhysicalProtoConverterExtension,
) -> Result<Arc<dyn ExecutionPlan>> {
    let node = FileScanNode::decode(body).map_err(malformed)?;
    let config =
        (node.config.as_ref()).ok_or_else(|| malformed("a file scan without its configuration"))?;
    let table_schema = parse_table_schema_from_proto(config)?;
    let decode_ctx = PhysicalPlanDecodeContext::new(ctx, codec);
    // Filters name file columns by their places, which are the same in the table's schema (the
    // file's columns and then the partition columns).
    let columns = Arc::clone(table_schema.table_schema());
    let filters = (node.filters.iter())
        .map(|filter| proto_converter.proto_to_physical_expr(filter, &columns, &decode_ctx))
        .collect::<Result<Vec<_>>>()?;
    let source = TreeBufSource::new(table_schema).with_filters(filters);
    let config =
        parse_protobuf_file_scan_config(config, &decode_ctx, proto_converter, Arc::new(source))?;
    Ok(DataSourceExec::from_data_source(config))
}

/// Sends [`TreeBufExec`] scans and scans of [`TreeBufFormat`](crate::TreeBufFormat) files
/// between processes, and every other plan node through the codec it wraps.
#[derive(Debug)]
pub struct TreeBufPhysicalCodec {
    inner: Arc<dyn PhysicalExtensionCodec>,
}

impl Default for TreeBufPhysicalCodec {
    fn default() -> Self {
        Self::wrapping(Arc::new(DefaultPhysicalExtensionCodec {}))
    }
}

impl TreeBufPhysicalCodec {
    /// This codec in front of `inner`, which handles every node that is not a tree-buf scan
    /// (for Ballista: `Arc::new(BallistaPhysicalExtensionCodec::default())`).
    pub fn wrapping(inner: Arc<dyn PhysicalExtensionCodec>) -> Self {
        TreeBufPhysicalCodec { inner }
    }
}

impl PhysicalExtensionCodec for TreeBufPhysicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if let Some(body) = buf.strip_prefix(SCAN_TAG) {
            return Ok(Arc::new(decode_scan(body)?));
        }
        if let Some(body) = buf.strip_prefix(FILE_SCAN_TAG) {
            return decode_file_scan(body, ctx, self, proto_converter);
        }
        self.inner.try_decode(buf, inputs, ctx, proto_converter)
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        if let Some(scan) = node.downcast_ref::<TreeBufExec>() {
            return encode_scan(scan, buf);
        }
        if let Some(scan) = file_scan(node.as_ref()) {
            return encode_file_scan(scan, self, proto_converter, buf);
        }
        self.inner.try_encode(node, buf, proto_converter)
    }

    fn try_decode_higher_order_function(
        &self,
        name: &str,
        buf: &[u8],
    ) -> Result<Arc<HigherOrderUDF>> {
        self.inner.try_decode_higher_order_function(name, buf)
    }

    fn try_encode_higher_order_function(
        &self,
        node: &HigherOrderUDF,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        self.inner.try_encode_higher_order_function(node, buf)
    }
    fn try_decode_expr(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn PhysicalExpr>],
        ctx: &PhysicalExprDecodeCtx<'_>,
    ) -> Result<Arc<dyn PhysicalExpr>> {
        self.inner.try_decode_expr(buf, inputs, ctx)
    }

    fn try_encode_expr(
        &self,
        node: &Arc<dyn PhysicalExpr>,
        buf: &mut Vec<u8>,
        ctx: &PhysicalExprEncodeCtx<'_>,
    ) -> Result<()> {
        self.inner.try_encode_expr(node, buf, ctx)
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        self.inner.try_decode_udf(name, buf)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udf(node, buf)
    }

    fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> Result<Arc<AggregateUDF>> {
        self.inner.try_decode_udaf(name, buf)
    }

    fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udaf(node, buf)
    }

    fn try_decode_udwf(&self, name: &str, buf: &[u8]) -> Result<Arc<WindowUDF>> {
        self.inner.try_decode_udwf(name, buf)
    }

    fn try_encode_udwf(&self, node: &WindowUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udwf(node, buf)
    }
}

fn decode_table(body: &[u8]) -> Result<TreeBufTable> {
    let node = TableNode::decode(body).map_err(malformed)?;
    let locations: Vec<PathBuf> = node.locations.iter().map(PathBuf::from).collect();
    let archives = open_archives(&locations)?;
    let table = TreeBufTable::from_archives(locations, archives)?;
    Ok(match node.scan_partitions {
        Some(partitions) => {
            table.with_scan_partitions(usize::try_from(partitions).unwrap_or(usize::MAX))
        }
        None => table,
    })
}

fn encode_listing(
    table: &TreeBufListingTable,
    codec: &dyn LogicalExtensionCodec,
    buf: &mut Vec<u8>,
) -> Result<()> {
    let listing = table.listing_table();
    let options = listing.options();
    if options.output_partitioning.is_some() {
        return Err(DataFusionError::NotImplemented(
            "sending a listing table with a declared output partitioning".into(),
        ));
    }
    let is_partition_column =
        |name: &str| (options.table_partition_cols.iter()).any(|(column, _)| column == name);
    let schema = listing.schema();
    let file_fields: Vec<_> = (schema.fields().iter())
        .filter(|field| !is_partition_column(field.name()))
        .cloned()
        .collect();
    let file_schema = Schema::new(file_fields).with_metadata(schema.metadata().clone());
    let partition_columns = (options.table_partition_cols.iter())
        .map(|(name, data_type)| {
            Ok(protobuf::PartitionColumn {
                name: name.clone(),
                arrow_type: Some(data_type.try_into()?),
            })
        })
        .collect::<Result<_>>()?;
    let sort_order = (options.file_sort_order.iter())
        .map(|order| {
            Ok(protobuf::SortExprNodeCollection {
                sort_expr_nodes: serialize_sorts(order, codec)?,
            })
        })
        .collect::<Result<_>>()?;
    let node = ListingNode {
        urls: listing
            .table_paths()
            .iter()
            .map(|url| url.to_string())
            .collect(),
        file_extension: options.file_extension.clone(),
        file_schema: Some((&file_schema).try_into()?),
        partition_columns,
        sort_order,
        definition: listing.get_table_definition().map(str::to_owned),
    };
    buf.extend_from_slice(LISTING_TAG);
    node.encode(buf).map_err(malformed)
}

fn decode_listing(
    body: &[u8],
    ctx: &TaskContext,
    codec: &dyn LogicalExtensionCodec,
) -> Result<TreeBufListingTable> {
    let node = ListingNode::decode(body).map_err(malformed)?;
    let file_schema =
        (node.file_schema.as_ref()).ok_or_else(|| malformed("a listing table without a schema"))?;
    let file_schema: SchemaRef = Arc::new(Schema::try_from(file_schema)?);
    let urls = (node.urls.iter())
        .map(ListingTableUrl::parse)
        .collect::<Result<Vec<_>>>()?;
    let partition_columns = (node.partition_columns.iter())
        .map(|column| {
            let data_type = (column.arrow_type.as_ref())
                .ok_or_else(|| malformed("a partition column without a type"))?;
            Ok((column.name.clone(), data_type.try_into()?))
        })
        .collect::<Result<Vec<_>>>()?;
    let sort_order = (node.sort_order.iter())
        .map(|order| Ok(parse_sorts(&order.sort_expr_nodes, ctx, codec)?))
        .collect::<Result<Vec<_>>>()?;
    let options = ListingOptions::new(Arc::new(TreeBufFormat))
        .with_file_extension(node.file_extension)
        .with_table_partition_cols(partition_columns)
        .with_file_sort_order(sort_order);
    let config = ListingTableConfig::new_with_multi_paths(urls)
        .with_listing_options(options)
        .with_schema(file_schema);
    let table = ListingTable::try_new(config)?
        .with_definition(node.definition)
        .with_cache(ctx.runtime_env().cache_manager.get_file_statistic_cache());
    TreeBufListingTable::new(table)
}

/// Sends [`TreeBufTable`]s between processes (as the locations of their archives, reopened where
/// they arrive), and everything else through the codec it wraps.
#[derive(Debug)]
pub struct TreeBufLogicalCodec {
    inner: Arc<dyn LogicalExtensionCodec>,
}

impl Default for TreeBufLogicalCodec {
    fn default() -> Self {
        Self::wrapping(Arc::new(DefaultLogicalExtensionCodec {}))
    }
}

impl TreeBufLogicalCodec {
    /// This codec in front of `inner`, which handles every table and node that is not
    /// tree-buf's (for Ballista: `Arc::new(BallistaLogicalExtensionCodec::default())`).
    pub fn wrapping(inner: Arc<dyn LogicalExtensionCodec>) -> Self {
        TreeBufLogicalCodec { inner }
    }
}

impl LogicalExtensionCodec for TreeBufLogicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> Result<Extension> {
        self.inner.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode(node, buf)
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> Result<Arc<dyn TableProvider>> {
        let table: Arc<dyn TableProvider> = if let Some(body) = buf.strip_prefix(LISTING_TAG) {
            Arc::new(decode_listing(body, ctx, self)?)
        } else if let Some(body) = buf.strip_prefix(TABLE_TAG) {
            Arc::new(decode_table(body)?)
        } else {
            return self
                .inner
                .try_decode_table_provider(buf, table_ref, schema, ctx);
        };
        // The archives are read again where the plan arrives: they must still be what it was
        // made for.
        if table.schema() != schema {
            return Err(DataFusionError::Plan(format!(
                "table {table_ref}: the archives' columns are not those the plan was made for"
            )));
        }
        Ok(table)
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        if let Some(listing) = node.downcast_ref::<TreeBufListingTable>() {
            return encode_listing(listing, self, buf);
        }
        let Some(table) = node.downcast_ref::<TreeBufTable>() else {
            return self.inner.try_encode_table_provider(table_ref, node, buf);
        };
        let node = TableNode {
            locations: location_texts(table.locations())?,
            scan_partitions: table.scan_partitions().map(|partitions| partitions as u64),
        };
        buf.extend_from_slice(TABLE_TAG);
        node.encode(buf).map_err(malformed)
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> Result<Arc<dyn FileFormatFactory>> {
        self.inner.try_decode_file_format(buf, ctx)
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn FileFormatFactory>,
    ) -> Result<()> {
        self.inner.try_encode_file_format(buf, node)
    }

    fn try_decode_higher_order_function(
        &self,
        name: &str,
        buf: &[u8],
    ) -> Result<Arc<HigherOrderUDF>> {
        self.inner.try_decode_higher_order_function(name, buf)
    }

    fn try_encode_higher_order_function(
        &self,
        node: &HigherOrderUDF,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        self.inner.try_encode_higher_order_function(node, buf)
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        self.inner.try_decode_udf(name, buf)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udf(node, buf)
    }

    fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> Result<Arc<AggregateUDF>> {
        self.inner.try_decode_udaf(name, buf)
    }

    fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udaf(node, buf)
    }

    fn try_decode_udwf(&self, name: &str, buf: &[u8]) -> Result<Arc<WindowUDF>> {
        self.inner.try_decode_udwf(name, buf)
    }

    fn try_encode_udwf(&self, node: &WindowUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udwf(node, buf)
    }
}

/// A session state for a Ballista client (`SessionContext::standalone_with_state`,
/// `remote_with_state`) that sends tree-buf tables: DataFusion's defaults, Ballista's
/// settings, and [`ballista_codecs`] (the `ballista` feature).
#[cfg(feature = "ballista")]
pub fn ballista_state() -> datafusion::execution::SessionState {
    use ballista::prelude::SessionConfigExt;

    let (logical, physical) = ballista_codecs();
    let config = datafusion::prelude::SessionConfig::new_with_ballista()
        .with_ballista_logical_extension_codec(logical)
        .with_ballista_physical_extension_codec(physical);
    datafusion::execution::SessionStateBuilder::new()
        .with_default_features()
        .with_config(config)
        .build()
}

/// Ballista's codecs with tree-buf's in front of them, as the client, the scheduler and every
/// executor of a Ballista cluster that reads tree-buf tables must have them (the `ballista`
/// feature).
#[cfg(feature = "ballista")]
pub fn ballista_codecs() -> (Arc<TreeBufLogicalCodec>, Arc<TreeBufPhysicalCodec>) {
    use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};

    let logical = TreeBufLogicalCodec::wrapping(Arc::new(BallistaLogicalExtensionCodec::default()));
    let physical =
        TreeBufPhysicalCodec::wrapping(Arc::new(BallistaPhysicalExtensionCodec::default()));
    (Arc::new(logical), Arc::new(physical))
}
