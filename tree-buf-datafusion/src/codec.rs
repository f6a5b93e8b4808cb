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

use std::any::Any;
use std::path::PathBuf;
use std::sync::Arc;

use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::catalog::TableProvider;
use datafusion::common::{DataFusionError, Result, TableReference};
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{
    AggregateUDF, Extension, HigherOrderUDF, LogicalPlan, ScalarUDF, WindowUDF,
};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr_common::physical_expr::proto_decode::PhysicalExprDecodeCtx;
use datafusion::physical_expr_common::physical_expr::proto_encode::PhysicalExprEncodeCtx;
use datafusion::physical_plan::ExecutionPlan;
use datafusion_proto::logical_plan::{DefaultLogicalExtensionCodec, LogicalExtensionCodec};
use datafusion_proto::physical_plan::{
    DefaultPhysicalExtensionCodec, PhysicalExtensionCodec, PhysicalProtoConverterExtension,
};
use datafusion_proto::protobuf;
use prost::Message;
use tree_buf_arrow::Selection;

use crate::scan::TreeBufExec;
use crate::table::{open_archives, ChunkRef, TreeBufTable};

/// The first bytes of an encoded [`TreeBufExec`].
pub const SCAN_TAG: &[u8] = b"tree-buf scan 1\n";
/// The first bytes of an encoded [`TreeBufTable`].
pub const TABLE_TAG: &[u8] = b"tree-buf table 1\n";

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

/// Sends [`TreeBufExec`] scans between processes, and every other plan node through the codec
/// it wraps.
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
        match buf.strip_prefix(SCAN_TAG) {
            Some(body) => Ok(Arc::new(decode_scan(body)?)),
            None => self.inner.try_decode(buf, inputs, ctx, proto_converter),
        }
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        match (node.as_ref() as &dyn Any).downcast_ref::<TreeBufExec>() {
            Some(scan) => encode_scan(scan, buf),
            None => self.inner.try_encode(node, buf, proto_converter),
        }
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
        let Some(body) = buf.strip_prefix(TABLE_TAG) else {
            return self
                .inner
                .try_decode_table_provider(buf, table_ref, schema, ctx);
        };
        let node = TableNode::decode(body).map_err(malformed)?;
        let locations: Vec<PathBuf> = node.locations.iter().map(PathBuf::from).collect();
        let archives = open_archives(&locations)?;
        let mut table = TreeBufTable::from_archives(locations, archives)?;
        if let Some(partitions) = node.scan_partitions {
            table = table.with_scan_partitions(usize::try_from(partitions).unwrap_or(usize::MAX));
        }
        if table.schema() != schema {
            return Err(DataFusionError::Plan(format!(
                "table {table_ref}: the archives' columns are not those the plan was made for"
            )));
        }
        Ok(Arc::new(table))
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        let Some(table) = (node.as_ref() as &dyn Any).downcast_ref::<TreeBufTable>() else {
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
