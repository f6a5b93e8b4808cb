//! The execution plan of a scan: chunks spread over partitions, each read into a record batch of
//! the columns the query uses.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::{Field, Schema, SchemaRef};
use datafusion::common::config::ConfigOptions;
use datafusion::common::stats::Precision;
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::{internal_datafusion_err, internal_err, Result, ScalarValue, Statistics};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::expressions::{Column, Literal};
use datafusion::physical_expr::{
    DynamicFilterTracking, EquivalenceProperties, PhysicalExpr, ScalarFunctionExpr,
};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::filter_pushdown::{
    ChildPushdownResult, FilterPushdownPhase, FilterPushdownPropagation, PushedDown,
};
use datafusion::physical_plan::metrics::{
    Count, ExecutionPlanMetricsSet, MetricBuilder, MetricsSet,
};
use datafusion::physical_plan::projection::{ProjectionExec, ProjectionExpr};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    ChildrenPropertiesMode, DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning,
    PlanProperties, ReplaceChildrenOptions, StatisticsArgs,
};
use tree_buf::archive::{Archive, ChunkInfo};
use tree_buf::{Path, Segment};
use tree_buf_arrow::Selection;

use crate::prune::{column_path, is_under, RuntimeFilters};
use crate::table::ChunkRef;
use crate::{arrow_options, external};

/// Reads chunks of a table's archives: each partition a run of consecutive chunks, each chunk a
/// record batch of the projected columns.
#[derive(Debug)]
pub struct TreeBufExec {
    /// Where each archive was opened from.
    pub(crate) locations: Vec<PathBuf>,
    pub(crate) archives: Vec<Arc<Archive<'static>>>,
    /// The columns read, with the types of what is selected of them.
    pub(crate) schema: SchemaRef,
    /// For each column of `schema`, what is read of it.
    pub(crate) selection: Vec<Selection>,
    pub(crate) partitions: Vec<Vec<ChunkRef>>,
    /// At most this many rows from each partition.
    pub(crate) limit: Option<usize>,
    /// Filters over `schema`'s columns pushed in while planning ended (dynamic ones among them),
    /// which skip chunks as the scan runs.
    runtime_filters: Vec<Arc<dyn PhysicalExpr>>,
    properties: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
}

impl TreeBufExec {
    /// A scan of `partitions` (at least one, each a list of chunks of `archives`), reading of
    /// each of `schema`'s columns what `selection` says (all, without it).
    pub(crate) fn new(
        locations: Vec<PathBuf>,
        archives: Vec<Arc<Archive<'static>>>,
        schema: SchemaRef,
        selection: Option<Vec<Selection>>,
        partitions: Vec<Vec<ChunkRef>>,
        limit: Option<usize>,
    ) -> Self {
        let selection = selection.unwrap_or_else(|| vec![Selection::All; schema.fields().len()]);
        let properties = PlanProperties::new(
            EquivalenceProperties::new(Arc::clone(&schema)),
            Partitioning::UnknownPartitioning(partitions.len()),
            EmissionType::Incremental,
            Boundedness::Bounded,
        );
        TreeBufExec {
            locations,
            archives,
            schema,
            selection,
            partitions,
            limit,
            runtime_filters: Vec::new(),
            properties: Arc::new(properties),
            metrics: ExecutionPlanMetricsSet::new(),
        }
    }

    /// This scan, with `filters` checked against each chunk's statistics before it is read.
    fn with_runtime_filters(&self, filters: Vec<Arc<dyn PhysicalExpr>>) -> Self {
        let mut scan = TreeBufExec::new(
            self.locations.clone(),
            self.archives.clone(),
            Arc::clone(&self.schema),
            Some(self.selection.clone()),
            self.partitions.clone(),
            self.limit,
        );
        scan.runtime_filters = self.runtime_filters.clone();
        // A filter pushed more than once is checked once.
        for filter in filters {
            if !scan.runtime_filters.contains(&filter) {
                scan.runtime_filters.push(filter);
            }
        }
        scan
    }

    /// The rows of the chunks of `partition` (all partitions for `None`).
    fn rows(&self, partition: Option<usize>) -> u64 {
        let chunks = match partition {
            Some(index) => &self.partitions[index..=index],
            None => &self.partitions[..],
        };
        let rows: u64 = (chunks.iter().flatten())
            .map(|chunk| chunk.info(&self.archives).rows)
            .sum();
        match self.limit {
            Some(limit) => rows.min(limit as u64),
            None => rows,
        }
    }
}

/// `chunks` in runs of consecutive chunks, one per partition, at most `partitions` of them and
/// at least one.
pub(crate) fn spread(chunks: Vec<ChunkRef>, partitions: usize) -> Vec<Vec<ChunkRef>> {
    let per_partition = chunks.len().div_ceil(partitions.max(1)).max(1);
    let mut spread: Vec<Vec<ChunkRef>> = chunks
        .chunks(per_partition)
        .map(<[ChunkRef]>::to_vec)
        .collect();
    if spread.is_empty() {
        spread.push(Vec::new());
    }
    spread
}

impl DisplayAs for TreeBufExec {
    fn fmt_as(&self, format: DisplayFormatType, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let chunks: usize = self.partitions.iter().map(Vec::len).sum();
        let columns: Vec<String> = (self.schema.fields().iter())
            .zip(&self.selection)
            .map(|(field, selection)| selected(field.name(), selection))
            .collect();
        let columns = columns.join(", ");
        let partitions = self.partitions.len();
        match format {
            DisplayFormatType::Default => write!(
                f,
                "TreeBufExec: archives={}, chunks={chunks}, partitions={partitions}, \
                 columns=[{columns}]",
                self.archives.len(),
            ),
            DisplayFormatType::Verbose => {
                let files: Vec<String> = (self.locations.iter())
                    .map(|path| path.display().to_string())
                    .collect();
                write!(
                    f,
                    "TreeBufExec: archives=[{}], chunks={chunks}, partitions={partitions}, \
                     columns=[{columns}]",
                    files.join(", "),
                )
            }
            DisplayFormatType::TreeRender => {
                writeln!(f, "chunks={chunks}")?;
                write!(f, "columns=[{columns}]")
            }
        }
    }
}

/// `name` and, if only some of its fields are read, those in braces: `home{team, score}`.
fn selected(name: &str, selection: &Selection) -> String {
    match selection {
        Selection::All => name.to_owned(),
        Selection::Fields(fields) => {
            let fields: Vec<String> = (fields.iter())
                .map(|(name, selection)| selected(name, selection))
                .collect();
            format!("{name}{{{}}}", fields.join(", "))
        }
    }
}

impl ExecutionPlan for TreeBufExec {
    fn name(&self) -> &str {
        "TreeBufExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        Vec::new()
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn replace_children(
        self: Arc<Self>,
        _children: Vec<Arc<dyn ExecutionPlan>>,
        _options: ReplaceChildrenOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.replace_children(
            children,
            ReplaceChildrenOptions::new(ChildrenPropertiesMode::Recompute),
        )
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let Some(chunks) = self.partitions.get(partition) else {
            return internal_err!(
                "TreeBufExec has {} partitions, not {}",
                self.partitions.len(),
                partition + 1
            );
        };
        let selection = (self.schema.fields().iter())
            .zip(&self.selection)
            .map(|(field, selection)| (field.name().clone(), selection.clone()))
            .collect();
        let batches = ChunkBatches {
            archives: self.archives.clone(),
            schema: Arc::clone(&self.schema),
            selection,
            chunks: chunks.clone().into_iter(),
            remaining: self.limit,
            batch_size: context.session_config().batch_size(),
            rest: None,
            runtime_filters: RuntimeFilters::new(&self.schema, &self.runtime_filters),
            bytes_scanned: MetricBuilder::new(&self.metrics).counter("bytes_scanned", partition),
            chunks_skipped: (MetricBuilder::new(&self.metrics))
                .counter("chunks_skipped_at_run_time", partition),
        };
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            Arc::clone(&self.schema),
            futures::stream::iter(batches),
        )))
    }

    /// Reads of a struct column only the fields the projection above takes from it (with
    /// `get_field`, as `home['score']` is planned), so that their branches alone are read.
    fn try_swapping_with_projection(
        &self,
        projection: &ProjectionExec,
    ) -> Result<Option<Arc<dyn ExecutionPlan>>> {
        let mut paths = Vec::new();
        for expr in projection.expr() {
            field_paths(&expr.expr, &self.schema, &mut paths);
        }
        // The columns the projection reads, in the scan's order, each as little as it needs.
        let mut kept = Vec::new();
        for (index, (field, selection)) in
            self.schema.fields().iter().zip(&self.selection).enumerate()
        {
            if let Some((field, narrowed)) = narrow_column(index, field, selection, &paths) {
                kept.push((index, field, narrowed));
            }
        }
        if kept.len() == self.selection.len()
            && kept
                .iter()
                .all(|(index, _, narrowed)| *narrowed == self.selection[*index])
        {
            return Ok(None);
        }
        let places: Vec<Option<usize>> = (0..self.selection.len())
            .map(|index| kept.iter().position(|(kept, ..)| *kept == index))
            .collect();
        let schema = Arc::new(Schema::new(
            kept.iter()
                .map(|(_, field, _)| field.clone())
                .collect::<Vec<_>>(),
        ));
        let selection = kept.into_iter().map(|(.., narrowed)| narrowed).collect();
        let scan = TreeBufExec::new(
            self.locations.clone(),
            self.archives.clone(),
            schema,
            Some(selection),
            self.partitions.clone(),
            self.limit,
        );
        // The same expressions, over the narrowed scan's columns.
        let exprs = (projection.expr().iter())
            .map(|expr| {
                let renumbered = Arc::clone(&expr.expr).transform(|node| {
                    let Some(column) = node.downcast_ref::<Column>() else {
                        return Ok(Transformed::no(node));
                    };
                    let place = places.get(column.index()).copied().flatten();
                    let place = place.ok_or_else(|| {
                        internal_datafusion_err!("a column the projection reads was dropped")
                    })?;
                    Ok(Transformed::yes(
                        Arc::new(Column::new(column.name(), place)) as _,
                    ))
                })?;
                Ok(ProjectionExpr::new(renumbered.data, expr.alias.clone()))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Some(Arc::new(ProjectionExec::try_new(
            exprs,
            Arc::new(scan),
        )?)))
    }

    /// Takes the filters DataFusion pushes down once the plan is made (the dynamic filters of
    /// top-k sorts and hash joins, say) to skip chunks by their statistics while it runs. The
    /// operators above still apply them to the rows: they are not pushed down exactly.
    fn handle_child_pushdown_result(
        &self,
        _phase: FilterPushdownPhase,
        child_pushdown_result: ChildPushdownResult,
        _config: &ConfigOptions,
    ) -> Result<FilterPushdownPropagation<Arc<dyn ExecutionPlan>>> {
        let filters: Vec<Arc<dyn PhysicalExpr>> = (child_pushdown_result.parent_filters)
            .into_iter()
            .map(|pushed| pushed.filter)
            .collect();
        let results = FilterPushdownPropagation::with_parent_pushdown_result(vec![
            PushedDown::No;
            filters.len()
        ]);
        // Static filters skipped their chunks when the table planned the scan: only those that
        // change while the query runs are worth checking again.
        let dynamic: Vec<_> = (filters.into_iter())
            .filter(|filter| DynamicFilterTracking::classify(filter).contains_dynamic_filter())
            .collect();
        if dynamic.is_empty() {
            return Ok(results);
        }
        Ok(results.with_updated_node(Arc::new(self.with_runtime_filters(dynamic))))
    }

    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }

    fn statistics_from_inputs(
        &self,
        _input_stats: &[Arc<Statistics>],
        args: &StatisticsArgs,
    ) -> Result<Arc<Statistics>> {
        let mut statistics = Statistics::new_unknown(&self.schema);
        if let Ok(rows) = usize::try_from(self.rows(args.partition())) {
            statistics.num_rows = Precision::Exact(rows);
        }
        Ok(Arc::new(statistics))
    }
}

/// Adds to `paths` what `expr` reads of the columns of `schema`: for each column it refers to,
/// the index of the column and the names of the fields `get_field` takes from it, at most deep
/// (no names for the whole column).
pub(crate) fn field_paths(
    expr: &Arc<dyn PhysicalExpr>,
    schema: &SchemaRef,
    paths: &mut Vec<(usize, Vec<String>)>,
) {
    if let Some(column) = expr.downcast_ref::<Column>() {
        paths.push((column.index(), Vec::new()));
        return;
    }
    if let Some((column, names)) = field_access(expr) {
        if column.index() < schema.fields().len() {
            paths.push((column.index(), names));
            return;
        }
    }
    for child in expr.children() {
        field_paths(child, schema, paths);
    }
}

/// The column and field names of `get_field(get_field(column, 'a'), 'b', ...)`, if `expr` is
/// one.
fn field_access(expr: &Arc<dyn PhysicalExpr>) -> Option<(&Column, Vec<String>)> {
    let function = expr.downcast_ref::<ScalarFunctionExpr>()?;
    if function.name() != "get_field" {
        return None;
    }
    let (target, names) = function.args().split_first()?;
    let names = (names.iter())
        .map(|name| match name.downcast_ref::<Literal>()?.value() {
            ScalarValue::Utf8(Some(name))
            | ScalarValue::Utf8View(Some(name))
            | ScalarValue::LargeUtf8(Some(name)) => Some(name.clone()),
            _ => None,
        })
        .collect::<Option<Vec<String>>>()?;
    if let Some(column) = target.downcast_ref::<Column>() {
        return Some((column, names));
    }
    let (column, mut path) = field_access(target)?;
    path.extend(names);
    Some((column, path))
}

/// Column `index` (`field`, of which `selection` is read) narrowed to what `paths` (of
/// [`field_paths`]) take of it, with the type of what is read; `None` if they take nothing.
pub(crate) fn narrow_column(
    index: usize,
    field: &Field,
    selection: &Selection,
    paths: &[(usize, Vec<String>)],
) -> Option<(Field, Selection)> {
    let column: Vec<&[String]> = (paths.iter())
        .filter(|(column, _)| *column == index)
        .map(|(_, path)| path.as_slice())
        .collect();
    if column.is_empty() {
        return None;
    }
    let narrowed = narrow(selection, &column);
    let data_type = narrowed.select_type(field.data_type());
    Some((field.clone().with_data_type(data_type), narrowed))
}

/// `selection` narrowed to the field paths given (an empty path is the whole).
fn narrow(selection: &Selection, paths: &[&[String]]) -> Selection {
    if paths.iter().any(|path| path.is_empty()) {
        return selection.clone();
    }
    let mut fields: Vec<(String, Vec<&[String]>)> = Vec::new();
    for path in paths {
        let (first, rest) = path.split_first().expect("not empty");
        match fields.iter_mut().find(|(name, _)| name == first) {
            Some((_, rests)) => rests.push(rest),
            None => fields.push((first.clone(), vec![rest])),
        }
    }
    let within = |name: &str| match selection {
        Selection::All => Some(Selection::All),
        Selection::Fields(chosen) => (chosen.iter())
            .find(|(chosen, _)| chosen == name)
            .map(|(_, selection)| selection.clone()),
    };
    Selection::Fields(
        (fields.into_iter())
            .filter_map(|(name, rests)| {
                let narrowed = narrow(&within(&name)?, &rests);
                Some((name, narrowed))
            })
            .collect(),
    )
}

/// The record batches of a partition's chunks, each read when it is asked for.
pub(crate) struct ChunkBatches {
    pub(crate) archives: Vec<Arc<Archive<'static>>>,
    pub(crate) schema: SchemaRef,
    /// Each column's name and what is read of it.
    pub(crate) selection: Vec<(String, Selection)>,
    pub(crate) chunks: std::vec::IntoIter<ChunkRef>,
    /// Rows still wanted, if there is a limit.
    pub(crate) remaining: Option<usize>,
    /// The most rows a batch holds: DataFusion's `batch_size`, which its operators are tuned
    /// for and its file sources' streams cut batches to.
    pub(crate) batch_size: usize,
    /// The rows of the chunk last read that are not handed out yet.
    pub(crate) rest: Option<RecordBatch>,
    pub(crate) runtime_filters: RuntimeFilters,
    /// The bytes of the branches read.
    pub(crate) bytes_scanned: Count,
    /// The chunks the runtime filters ruled out.
    pub(crate) chunks_skipped: Count,
}

impl Iterator for ChunkBatches {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.remaining == Some(0) {
            return None;
        }
        let batch = match self.rest.take() {
            Some(rest) => rest,
            None => match self.next_chunk()? {
                Ok(batch) => batch,
                Err(error) => return Some(Err(error)),
            },
        };
        let mut rows = batch.num_rows().min(self.batch_size.max(1));
        if let Some(remaining) = &mut self.remaining {
            rows = rows.min(*remaining);
            *remaining -= rows;
        }
        if rows < batch.num_rows() {
            self.rest = Some(batch.slice(rows, batch.num_rows() - rows));
        }
        Some(Ok(batch.slice(0, rows)))
    }
}

impl ChunkBatches {
    /// The next chunk the runtime filters do not rule out, read whole; none after an error.
    fn next_chunk(&mut self) -> Option<Result<RecordBatch>> {
        let chunk = loop {
            let chunk = self.chunks.next()?;
            if self.runtime_filters.may_match(chunk.info(&self.archives)) {
                break chunk;
            }
            self.chunks_skipped.add(1);
        };
        let archive = &self.archives[chunk.archive];
        let read = read_chunk(
            archive,
            chunk.chunk,
            &self.schema,
            &self.selection,
            &self.bytes_scanned,
        );
        if read.is_err() {
            self.chunks = Vec::new().into_iter();
        }
        Some(read)
    }
}

/// Chunk `index` of `archive` as a batch of `schema`'s columns, of each what `selection` says:
/// read from the chunk's branches, widened where the chunk stores a column as a narrower type
/// than the table's, and all nulls where the chunk has no such column.
fn read_chunk(
    archive: &Archive<'static>,
    index: usize,
    schema: &SchemaRef,
    selection: &[(String, Selection)],
    bytes_scanned: &Count,
) -> Result<RecordBatch> {
    let reader = archive.chunk_reader(index).map_err(external)?;
    let info = &archive.chunks()[index];
    let chunk_columns = tree_buf_arrow::column_names(&reader, "").map_err(external)?;
    let present: Vec<(String, Selection)> = (selection.iter())
        .filter(|(name, _)| chunk_columns.contains(name))
        .cloned()
        .collect();
    for (name, selection) in &present {
        bytes_scanned.add(selected_bytes(info, &column_path(name, info), selection) as usize);
    }
    let present = Selection::Fields(present);
    let read = tree_buf_arrow::record_batch_with(&reader, "", &present, &arrow_options())
        .map_err(external)?;
    tree_buf_arrow::conform(&read, schema).map_err(external)
}

/// The bytes of the branches of a chunk that reading `selection` of the node at `path` reads.
fn selected_bytes(chunk: &ChunkInfo, path: &str, selection: &Selection) -> u64 {
    (selected_branches(chunk, path, selection).into_iter())
        .map(|index| chunk.branches[index].bytes)
        .sum()
}

/// The branches of a chunk (by their index) that reading `selection` of the node at `path`
/// reads.
fn selected_branches(chunk: &ChunkInfo, path: &str, selection: &Selection) -> Vec<usize> {
    match selection {
        Selection::All => (chunk.branches.iter().enumerate())
            .filter(|(_, branch)| is_under(&branch.path, path))
            .map(|(index, _)| index)
            .collect(),
        Selection::Fields(fields) => {
            // The node's own branches (an option's presence), and the fields'.
            let mut branches: Vec<usize> = (chunk.branches.iter().enumerate())
                .filter(|(_, branch)| branch.path == path)
                .map(|(index, _)| index)
                .collect();
            for (name, selection) in fields {
                let segment = match name.parse::<usize>() {
                    // Tuples' elements are named by their places.
                    Ok(index) => Segment::Index(index),
                    Err(_) => Segment::Name(name.clone()),
                };
                let field = format!("{path}.{}", Path::from(vec![segment]));
                branches.extend(selected_branches(chunk, &field, selection));
            }
            branches
        }
    }
}

/// The branches of `chunk` that reading `selection` of its columns reads (the columns it
/// lacks read none), for fetching them before the chunk is read.
pub(crate) fn chunk_branches(chunk: &ChunkInfo, selection: &[(String, Selection)]) -> Vec<usize> {
    (selection.iter())
        .flat_map(|(name, selection)| {
            selected_branches(chunk, &column_path(name, chunk), selection)
        })
        .collect()
}
