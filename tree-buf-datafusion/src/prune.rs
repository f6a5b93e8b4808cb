//! Which chunks a query's filters can skip: the footer's statistics of each chunk, offered to
//! DataFusion's [`PruningPredicate`] as one container per chunk.

use std::collections::HashSet;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, BooleanArray, UInt64Array};
use datafusion::arrow::datatypes::{DataType, SchemaRef};
use datafusion::catalog::Session;
use datafusion::common::pruning::PruningStatistics;
use datafusion::common::{Column, DFSchema, Result, ScalarValue};
use datafusion::logical_expr::utils::conjunction;
use datafusion::logical_expr::Expr;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr_common::physical_expr::{
    snapshot_generation, snapshot_physical_expr,
};
use datafusion::physical_optimizer::pruning::{PruningPredicate, PruningPredicateBuilder};
use tree_buf::archive::{BranchInfo, ChunkInfo, Statistics};
use tree_buf::{NodeType, Path, Segment};

use crate::table::ChunkRef;

/// The chunks among `chunks` that `filters` (all of which must hold) may select rows from, in
/// order. A filter the statistics cannot decide keeps every chunk.
pub(crate) fn kept_chunks(
    state: &dyn Session,
    chunks: Vec<(ChunkRef, &ChunkInfo)>,
    schema: &SchemaRef,
    filters: &[Expr],
) -> Result<Vec<ChunkRef>> {
    let Some(predicate) = conjunction(filters.iter().cloned()) else {
        return Ok(chunks.into_iter().map(|(chunk, _)| chunk).collect());
    };
    let df_schema = DFSchema::try_from(Arc::clone(schema))?;
    let physical = state.create_physical_expr(predicate, &df_schema)?;
    // A predicate the statistics can say nothing of (or cannot be made) keeps every chunk.
    let pruning = PruningPredicateBuilder::new()
        .with_file_schema(Arc::clone(schema))
        .build(physical);
    let Some(pruning) = pruning else {
        return Ok(chunks.into_iter().map(|(chunk, _)| chunk).collect());
    };
    let statistics = ChunkStatistics {
        schema,
        chunks: chunks.iter().map(|(_, info)| *info).collect(),
    };
    let keep = pruning.prune(&statistics)?;
    Ok((chunks.into_iter().zip(keep))
        .filter_map(|((chunk, _), keep)| keep.then_some(chunk))
        .collect())
}

/// Filters that arrive while a scan runs: those DataFusion pushes into it after planning, such as
/// the dynamic filters of a top-k sort (`duration > the 5th longest so far`) and of a hash join's
/// build side. Before each chunk is read, each filter's current state is checked against the
/// chunk's footer statistics; a chunk none of whose rows can pass is skipped. The filters are
/// still applied to the rows read, by the operators that made them.
pub(crate) struct RuntimeFilters {
    schema: SchemaRef,
    filters: Vec<RuntimeFilter>,
}

/// A filter, and its pruning predicate as of the generation it was last made for (none if the
/// statistics can say nothing of it).
struct RuntimeFilter {
    filter: Arc<dyn PhysicalExpr>,
    made: Option<(u64, Option<Arc<PruningPredicate>>)>,
}

impl RuntimeFilters {
    pub(crate) fn new(schema: &SchemaRef, filters: &[Arc<dyn PhysicalExpr>]) -> Self {
        RuntimeFilters {
            schema: Arc::clone(schema),
            filters: (filters.iter())
                .map(|filter| RuntimeFilter {
                    filter: Arc::clone(filter),
                    made: None,
                })
                .collect(),
        }
    }

    /// Whether `chunk` may hold rows that every filter, as it stands now, lets through. A filter
    /// whose pruning predicate cannot be made, or that fails, keeps the chunk.
    pub(crate) fn may_match(&mut self, chunk: &ChunkInfo) -> bool {
        let statistics = ChunkStatistics {
            schema: &self.schema,
            chunks: vec![chunk],
        };
        for RuntimeFilter { filter, made } in &mut self.filters {
            let generation = snapshot_generation(filter);
            let pruning = match made {
                Some((at, pruning)) if *at == generation => pruning,
                _ => {
                    let pruning = snapshot_physical_expr(Arc::clone(filter))
                        .ok()
                        .and_then(|now| {
                            PruningPredicateBuilder::new()
                                .with_file_schema(Arc::clone(&self.schema))
                                .build(now)
                        });
                    &mut made.insert((generation, pruning)).1
                }
            };
            let kept = (pruning.as_ref()).map_or(Ok(vec![true]), |p| p.prune(&statistics));
            if kept.is_ok_and(|kept| kept == [false]) {
                return false;
            }
        }
        true
    }
}

/// The branches of `chunk` that belong to the node at `path`: its own and those of the nodes
/// below it.
pub(crate) fn branches_under<'c>(
    chunk: &'c ChunkInfo,
    path: &str,
) -> impl Iterator<Item = &'c BranchInfo> {
    let path = path.to_owned();
    (chunk.branches.iter()).filter(move |branch| is_under(&branch.path, &path))
}

/// Whether the node at `branch_path` is the node at `path` or lies below it.
pub(crate) fn is_under(branch_path: &str, path: &str) -> bool {
    (branch_path.strip_prefix(path)).is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

/// The path of the branches of the table column `name`: a field of the rows, or the rows
/// themselves for rows that are not structs (their one column is `value`).
pub(crate) fn column_path(name: &str, chunk: &ChunkInfo) -> String {
    let field = Path::from(vec![Segment::Items, Segment::Name(name.to_owned())]).to_string();
    if name != "value" || branches_under(chunk, &field).next().is_some() {
        field
    } else {
        Path::from(vec![Segment::Items]).to_string()
    }
}

/// The footer's statistics of some chunks, one container each.
struct ChunkStatistics<'a> {
    schema: &'a SchemaRef,
    chunks: Vec<&'a ChunkInfo>,
}

impl ChunkStatistics<'_> {
    /// Per chunk, the least (or greatest) value the statistics of `column`'s value branch give,
    /// as a value of the column's Arrow type (null where a chunk has none).
    fn bounds(&self, column: &Column, least: bool) -> Option<ArrayRef> {
        let data_type = self.schema.field_with_name(&column.name).ok()?.data_type();
        if !has_ordered_statistics(data_type) {
            return None;
        }
        let null = ScalarValue::try_from(data_type).ok()?;
        let values = self.chunks.iter().map(|chunk| {
            let path = column_path(&column.name, chunk);
            (chunk.branches.iter())
                .find(|branch| branch.path == path && is_value_branch(branch.node_type))
                .and_then(|branch| bound(branch.statistics.as_ref()?, branch.node_type, least))
                .and_then(|bound| bound.cast_to(data_type).ok())
                .unwrap_or_else(|| null.clone())
        });
        ScalarValue::iter_to_array(values).ok()
    }
}

/// Whether the footer's bounds of a branch are bounds of a column of this Arrow type (the
/// columns tree-buf-arrow makes straight from one branch of numbers, strings or booleans).
fn has_ordered_statistics(data_type: &DataType) -> bool {
    data_type.is_integer()
        || data_type.is_floating()
        || matches!(
            data_type,
            DataType::Utf8 | DataType::Utf8View | DataType::Boolean
        )
}

/// Whether a branch of a node of this type holds the values themselves, rather than presence,
/// lengths or discriminants.
fn is_value_branch(node_type: NodeType) -> bool {
    !matches!(
        node_type,
        NodeType::Option | NodeType::Seq | NodeType::Map | NodeType::Enum | NodeType::Union
    )
}

/// The least or the greatest value `statistics` bound the values of a branch of a node of
/// `node_type` by. A character branch's bounds are the characters' codes, whose order is that of
/// the characters as strings.
fn bound(statistics: &Statistics, node_type: NodeType, least: bool) -> Option<ScalarValue> {
    fn pick<T>(least: bool, min: T, max: T) -> T {
        if least {
            min
        } else {
            max
        }
    }
    Some(match statistics {
        Statistics::Unsigned { min, max } if node_type == NodeType::Char => {
            let code = u32::try_from(*pick(least, min, max)).ok()?;
            ScalarValue::Utf8(Some(char::from_u32(code)?.to_string()))
        }
        Statistics::Unsigned { min, max } => {
            ScalarValue::UInt64(Some(u64::try_from(*pick(least, min, max)).ok()?))
        }
        Statistics::Signed { min, max } => {
            ScalarValue::Int64(Some(i64::try_from(*pick(least, min, max)).ok()?))
        }
        Statistics::Float { min, max } => ScalarValue::Float64(Some(*pick(least, min, max))),
        Statistics::Str { min, max } => ScalarValue::Utf8(Some(
            String::from_utf8(Vec::clone(pick(least, min, max))).ok()?,
        )),
        _ => return None,
    })
}

impl PruningStatistics for ChunkStatistics<'_> {
    fn min_values(&self, column: &Column) -> Option<ArrayRef> {
        self.bounds(column, true)
    }

    fn max_values(&self, column: &Column) -> Option<ArrayRef> {
        self.bounds(column, false)
    }

    fn num_containers(&self) -> usize {
        self.chunks.len()
    }

    fn null_counts(&self, column: &Column) -> Option<ArrayRef> {
        self.schema.field_with_name(&column.name).ok()?;
        let counts = self.chunks.iter().map(|chunk| {
            let path = column_path(&column.name, chunk);
            let mut branches = branches_under(chunk, &path).peekable();
            // A column a chunk does not have (an archive whose schema widened later) is all
            // nulls there, as many as its rows are.
            if branches.peek().is_none() {
                return Some(chunk.rows);
            }
            // Nested options: each presence stream counts the nulls among the values the one
            // above it kept, so the column's nulls are their sum. Without a presence stream, none.
            branches
                .filter(|branch| branch.path == path)
                .try_fold(0u64, |nulls, branch| {
                    match (branch.node_type, &branch.statistics) {
                        (NodeType::Option, Some(Statistics::Nulls(count))) => Some(nulls + count),
                        (NodeType::Option, _) => None,
                        _ => Some(nulls),
                    }
                })
        });
        Some(Arc::new(counts.collect::<UInt64Array>()))
    }

    fn row_counts(&self) -> Option<ArrayRef> {
        let rows = self.chunks.iter().map(|chunk| Some(chunk.rows));
        Some(Arc::new(rows.collect::<UInt64Array>()))
    }

    fn contained(&self, _column: &Column, _values: &HashSet<ScalarValue>) -> Option<BooleanArray> {
        None
    }
}
