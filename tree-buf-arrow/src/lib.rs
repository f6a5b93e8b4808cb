//! [Apache Arrow](https://arrow.apache.org) arrays from tree-buf files, filled column by column.
//!
//! tree-buf already stores every path through a type as its own column, so an Arrow array is
//! made from each schema node's streams as they are: a leaf's values become a buffer, a
//! sequence's lengths become offsets, an option's presence flags become a validity bitmap. No
//! Rust value is made per row, and only the branches of the columns asked for are read.
//!
//! ```
//! use arrow_array::{Array, Int64Array, StringArray};
//! use tree_buf::Reader;
//!
//! #[derive(tree_buf::Encode)]
//! struct Batting { player: String, year: i64, hits: Option<u16>, border: Vec<(f64, f64)> }
//!
//! let rows = vec![
//!     Batting { player: "aaronha01".into(), year: 1954, hits: Some(131), border: vec![] },
//!     Batting { player: "aaronha01".into(), year: 1955, hits: None, border: vec![] },
//! ];
//! let bytes = tree_buf::encode(&rows);
//! let reader = Reader::new(&bytes)?;
//! // The rows are the items of the root sequence; read two of their fields.
//! let batch = tree_buf_arrow::record_batch(&reader, "", Some(&["year", "hits"]))?;
//! assert_eq!(batch.num_rows(), 2);
//! let years = batch.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
//! assert_eq!(years.value(1), 1955);
//! assert!(batch.column(1).is_null(1));
//! # Ok::<(), tree_buf_arrow::Error>(())
//! ```
//!
//! # How tree-buf's types map to Arrow's
//!
//! | tree-buf schema node (Rust type) | Arrow type |
//! |---|---|
//! | `bool` | `Boolean` |
//! | `u8` … `u64`, `i8` … `i64` | `UInt8` … `UInt64`, `Int8` … `Int64` |
//! | `u128` | `FixedSizeBinary(16)`, the number's 16 little-endian bytes (no Arrow integer is that wide) |
//! | `i128` | `Decimal128(38, 0)`: a value of more than 38 digits is an error |
//! | `f32`, `f64` | `Float32`, `Float64` |
//! | `char` | `Utf8`, one character each |
//! | strings | `Utf8`, or as [`ArrowOptions::strings`] lays them out: `Utf8View`, or `Dictionary(UInt32, Utf8)` keeping the file's dictionaries |
//! | `()`, unit structs, a place no value was written to | `Null` |
//! | `Option<T>` | `T`'s type, nullable; `None` at any level of nested options is a null; not mapped over an enum with data (a union cannot be null): an error |
//! | `Vec<T>`, sets, slices (sequences) | `List(T)` |
//! | `[T; N]` | `FixedSizeList(T, N)` |
//! | maps | `Map(Struct(keys, values))`, unsorted; keys may not be null |
//! | tuples | `Struct` of fields named `0`, `1`, … |
//! | structs | `Struct` of their fields, by name |
//! | enums of unit variants only | `Dictionary(UInt8, Utf8)` of the variant names (`UInt16` past 256 variants, at most 65,536) |
//! | other enums, and unions of schemaless values (JSON's) | dense `Union` of one child per variant or member, named so (at most 128) |
//! | recursive types (a recursion node) | not mapped: an error |
//!
//! A record batch's rows are the items of one sequence node in the file: the root of a file of a
//! `Vec<Row>`, or any path such as `features` for the rows of a field. Rows of a struct type give
//! a column per field; rows of any other type, one column named `value`.
//!
//! Record batches can be stored the other way ([`batch_rows`]), as rows that keep what each
//! value is; an archive that keeps their Arrow schema in its metadata
//! ([`arrow_schema_metadata`]) reads back with every type they had ([`table_schema`],
//! [`conform`]).

mod original;
mod rows;
mod strings;
mod unions;
mod widen;

use std::fmt;
use std::sync::Arc;

use arrow_array::types::{UInt16Type, UInt8Type};
use arrow_array::{
    make_array, new_null_array, ArrayRef, BooleanArray, Decimal128Array, DictionaryArray,
    FixedSizeBinaryArray, FixedSizeListArray, Float32Array, Float64Array, Int16Array, Int32Array,
    Int64Array, Int8Array, ListArray, MapArray, NullArray, RecordBatch, RecordBatchOptions,
    StringArray, StructArray, UInt16Array, UInt32Array, UInt64Array, UInt8Array, UnionArray,
};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{
    ArrowError, DataType, Field, Fields, Schema, SchemaRef, UnionFields, UnionMode,
};
pub use original::{arrow_schema_metadata, original_schema, table_schema, ARROW_SCHEMA_KEY};
pub use rows::batch_rows;
pub use strings::StringLayout;
use tree_buf::archive::Archive;
use tree_buf::{AsPath, ColumnNode, Columns, DecodeError, NodeType, Reader};
pub use unions::without_unions;
pub use widen::{archive_schema, conform, widest_schema};

/// Why a file could not be read into Arrow arrays.
#[non_exhaustive]
#[derive(Debug)]
pub enum Error {
    /// Reading the file failed: it is corrupt, or the path names no node, say.
    Decode(DecodeError),
    /// The file holds something at `path` that no Arrow type holds (a recursive type, a
    /// sequence longer than 32-bit offsets reach, more than 128 variants).
    Unsupported { path: String, message: String },
    /// Arrow refused the arrays made.
    Arrow(ArrowError),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Decode(error) => error.fmt(f),
            Error::Unsupported { path, message } => write!(f, "at `{path}`: {message}"),
            Error::Arrow(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Decode(error) => Some(error),
            Error::Arrow(error) => Some(error),
            Error::Unsupported { .. } => None,
        }
    }
}

impl From<DecodeError> for Error {
    fn from(error: DecodeError) -> Self {
        Error::Decode(error)
    }
}

impl From<ArrowError> for Error {
    fn from(error: ArrowError) -> Self {
        Error::Arrow(error)
    }
}

/// An [`Error::Unsupported`] at `node`.
fn unsupported(node: ColumnNode<'_>, message: impl Into<String>) -> Error {
    Error::Unsupported {
        path: node.path(),
        message: message.into(),
    }
}

/// The Arrow schema of the record batches whose rows are the items of the sequence at
/// `rows_path` (`""` for the root), as [`record_batch`] reads them.
pub fn schema(reader: &Reader<'_>, rows_path: impl AsPath) -> Result<SchemaRef, Error> {
    schema_with(reader, rows_path, &ArrowOptions::default())
}

/// [`schema`], with the choices of layout `options` makes.
pub fn schema_with(
    reader: &Reader<'_>,
    rows_path: impl AsPath,
    options: &ArrowOptions,
) -> Result<SchemaRef, Error> {
    let columns = reader.columns()?;
    let items = rows_of(&columns, rows_path)?;
    let fields = (row_columns(items).into_iter())
        .map(|(name, node)| field(&name, node, options))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Arc::new(Schema::new(fields)))
}

/// The names of the columns of the record batches whose rows are the items of the sequence at
/// `rows_path`, in order, as [`schema`] names them, without working out their Arrow types.
///
/// ```
/// #[derive(tree_buf::Encode)]
/// struct Game { home: String, runs: u8 }
///
/// let bytes = tree_buf::encode(&vec![Game { home: "BOS".into(), runs: 3 }]);
/// let names = tree_buf_arrow::column_names(&tree_buf::Reader::new(&bytes)?, "")?;
/// assert_eq!(names, ["home", "runs"]);
/// # Ok::<(), tree_buf_arrow::Error>(())
/// ```
pub fn column_names(reader: &Reader<'_>, rows_path: impl AsPath) -> Result<Vec<String>, Error> {
    let columns = reader.columns()?;
    let items = rows_of(&columns, rows_path)?;
    Ok(row_columns(items)
        .into_iter()
        .map(|(name, _)| name)
        .collect())
}

/// The items of the sequence at `rows_path` as a record batch: a column per field of the items'
/// struct (or one column, `value`, for items of another type), only those named in `projection`
/// if it is given, in its order. Only the branches of those columns, and the streams on the way
/// to them, are read.
pub fn record_batch(
    reader: &Reader<'_>,
    rows_path: impl AsPath,
    projection: Option<&[&str]>,
) -> Result<RecordBatch, Error> {
    let selection = match projection {
        None => Selection::All,
        Some(names) => Selection::Fields(
            (names.iter())
                .map(|&name| (name.to_owned(), Selection::All))
                .collect(),
        ),
    };
    record_batch_of(reader, rows_path, &selection)
}

/// The items of the sequence at `rows_path` as a record batch, as [`record_batch`] makes it, of
/// the columns `selection` names (in its order; all for [`Selection::All`]), and of a struct
/// column only the fields its selection names, at any depth. Only the branches of what is
/// selected are read.
///
/// ```
/// use tree_buf::Reader;
/// use tree_buf_arrow::Selection;
///
/// #[derive(tree_buf::Encode)]
/// struct Side { team: String, score: u8, lineup: Vec<String> }
/// #[derive(tree_buf::Encode)]
/// struct Game { date: u32, home: Side }
///
/// let side = Side { team: "BOS".into(), score: 3, lineup: vec!["a".into()] };
/// let bytes = tree_buf::encode(&vec![Game { date: 20180329, home: side }]);
/// let selection = Selection::Fields(vec![(
///     "home".into(),
///     Selection::Fields(vec![("score".into(), Selection::All)]),
/// )]);
/// let batch = tree_buf_arrow::record_batch_of(&Reader::new(&bytes)?, "", &selection)?;
/// let home = batch.column(0).as_any().downcast_ref::<arrow_array::StructArray>().unwrap();
/// assert_eq!(home.num_columns(), 1);
/// # Ok::<(), tree_buf_arrow::Error>(())
/// ```
pub fn record_batch_of(
    reader: &Reader<'_>,
    rows_path: impl AsPath,
    selection: &Selection,
) -> Result<RecordBatch, Error> {
    record_batch_with(reader, rows_path, selection, &ArrowOptions::default())
}

/// [`record_batch_of`], with the choices of layout `options` makes.
///
/// ```
/// use arrow_array::{cast::AsArray, Array};
/// use tree_buf::Reader;
/// use tree_buf_arrow::{ArrowOptions, Selection, StringLayout};
///
/// let teams: Vec<String> = ["BOS", "NYA", "BOS", "BOS"].map(String::from).into();
/// let bytes = tree_buf::encode(&teams);
/// let options = ArrowOptions::default().strings(StringLayout::Utf8View);
/// let batch =
///     tree_buf_arrow::record_batch_with(&Reader::new(&bytes)?, "", &Selection::All, &options)?;
/// assert_eq!(batch.column(0).as_string_view().value(1), "NYA");
/// # Ok::<(), tree_buf_arrow::Error>(())
/// ```
pub fn record_batch_with(
    reader: &Reader<'_>,
    rows_path: impl AsPath,
    selection: &Selection,
    options: &ArrowOptions,
) -> Result<RecordBatch, Error> {
    let mut columns = reader.columns()?;
    let items = rows_of(&columns, rows_path)?;
    let rows = columns.count(items)?;
    let all = row_columns(items);
    let chosen: Vec<(String, ColumnNode<'_>, &Selection)> = match selection {
        Selection::All => (all.into_iter())
            .map(|(name, node)| (name, node, &Selection::All))
            .collect(),
        Selection::Fields(names) => (names.iter())
            .map(|(name, selection)| {
                (all.iter())
                    .find(|(column, _)| column == name)
                    .map(|(column, node)| (column.clone(), *node, selection))
                    .ok_or_else(|| unsupported(items, format!("the rows have no column `{name}`")))
            })
            .collect::<Result<_, _>>()?,
    };
    let mut fields = Vec::with_capacity(chosen.len());
    let mut arrays = Vec::with_capacity(chosen.len());
    for (name, node, selection) in chosen {
        fields.push(selected_field(&name, node, selection, options)?);
        arrays.push(selected_array(&mut columns, node, selection, options)?);
    }
    let batch_options = RecordBatchOptions::new().with_row_count(Some(rows));
    Ok(RecordBatch::try_new_with_options(
        Arc::new(Schema::new(fields)),
        arrays,
        &batch_options,
    )?)
}

/// Choices in how tree-buf's types become Arrow's, where Arrow has more than one layout for them.
/// The default is the layout of the table in the crate's docs.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ArrowOptions {
    strings: StringLayout,
}

impl ArrowOptions {
    /// Lays out strings and characters as `layout` says.
    pub fn strings(mut self, layout: StringLayout) -> Self {
        self.strings = layout;
        self
    }

    /// How strings and characters are laid out.
    pub fn string_layout(&self) -> StringLayout {
        self.strings
    }
}

/// Which part of a column to read: all of it, or of a struct, some of its fields.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Selection {
    /// Every field, at every depth.
    #[default]
    All,
    /// Of a struct, tuple or optional struct, only the fields named, each as its selection says
    /// (a selection of a column of any other type reads all of it). As the selection of a
    /// batch's rows, the columns named, in this order.
    Fields(Vec<(String, Selection)>),
}

impl Selection {
    /// The Arrow type of this selection of a column of type `data_type`: its structs keep only
    /// the fields selected, in their order.
    pub fn select_type(&self, data_type: &DataType) -> DataType {
        match (self, data_type) {
            (Selection::Fields(chosen), DataType::Struct(fields)) => DataType::Struct(
                (fields.iter())
                    .filter_map(|field| {
                        let (_, selection) =
                            chosen.iter().find(|(name, _)| name == field.name())?;
                        let data_type = selection.select_type(field.data_type());
                        Some(Field::clone(field).with_data_type(data_type))
                    })
                    .collect(),
            ),
            _ => data_type.clone(),
        }
    }
}

/// The children of a struct or tuple `node` that `selection` keeps, named, in the node's order,
/// each with its own selection.
fn selected_children<'r, 's>(
    node: ColumnNode<'r>,
    selection: &'s Selection,
) -> Result<Vec<(String, ColumnNode<'r>, &'s Selection)>, Error> {
    let all = (node.children().enumerate()).map(|(index, child)| (child_name(child, index), child));
    match selection {
        Selection::All => Ok(all
            .map(|(name, child)| (name, child, &Selection::All))
            .collect()),
        Selection::Fields(chosen) => {
            let children: Vec<_> = all
                .filter_map(|(name, child)| {
                    let (_, selection) = chosen.iter().find(|(wanted, _)| *wanted == name)?;
                    Some((name, child, selection))
                })
                .collect();
            if let Some((missing, _)) = (chosen.iter())
                .find(|(wanted, _)| !children.iter().any(|(name, ..)| name == wanted))
            {
                return Err(unsupported(node, format!("no field `{missing}` to select")));
            }
            Ok(children)
        }
    }
}

/// The rows of an archive as record batches, one for each chunk, in order: each chunk's rows as
/// [`record_batch`] makes them, `projection` as there. A chunk is read only when its batch is
/// taken, so memory holds one chunk's columns at a time. Archives of schemaless rows may widen
/// their schema from one chunk to the next: each batch has its chunk's.
///
/// ```
/// use tree_buf::archive::{Archive, ArchiveOptions, ArchiveWriter};
///
/// #[derive(tree_buf::Encode)]
/// struct Game { home: String, runs: u8 }
///
/// let options = ArchiveOptions::default().chunk_rows(2);
/// let mut writer = ArchiveWriter::with_options(Vec::new(), options)?;
/// for (home, runs) in [("BOS", 3), ("NYA", 1), ("TOR", 7)] {
///     writer.push(&Game { home: home.into(), runs })?;
/// }
/// let bytes = writer.finish()?;
/// let archive = Archive::from_bytes(&bytes)?;
/// let rows: Vec<usize> = tree_buf_arrow::record_batches(&archive, Some(&["runs"]))
///     .map(|batch| batch.map(|batch| batch.num_rows()))
///     .collect::<Result<_, _>>()?;
/// assert_eq!(rows, [2, 1]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn record_batches<'a>(
    archive: &'a Archive<'_>,
    projection: Option<&'a [&'a str]>,
) -> impl Iterator<Item = Result<RecordBatch, Error>> + 'a {
    (0..archive.chunks().len()).map(move |index| {
        let reader = archive.chunk_reader(index)?;
        record_batch(&reader, "", projection)
    })
}

/// The items node of the sequence at `path`.
fn rows_of<'r>(columns: &Columns<'r>, path: impl AsPath) -> Result<ColumnNode<'r>, Error> {
    let node = columns.find(path)?;
    let items = match (node.node_type(), node.child(0)) {
        (NodeType::Seq, Some(items)) => items,
        _ => {
            return Err(unsupported(
                node,
                "rows are the items of a sequence, and this is not one",
            ))
        }
    };
    // A recursive type whose values are the rows (or hold them) pools the values of every
    // depth at one node, where the rows are no longer only the sequence's items.
    let rows_path = items.path();
    let mut below = vec![items];
    while let Some(node) = below.pop() {
        if let Some(target) = node.returns_to() {
            let target = target.path();
            if target.is_empty()
                || rows_path == target
                || rows_path.starts_with(&format!("{target}."))
            {
                return Err(unsupported(
                    items,
                    "the rows are values of a recursive type, whose values of every depth are \
                     pooled here: Arrow has no type for them",
                ));
            }
        }
        below.extend(node.children());
    }
    Ok(items)
}

/// The columns of rows whose values are `items`: the fields of a struct, else the items whole.
fn row_columns(items: ColumnNode<'_>) -> Vec<(String, ColumnNode<'_>)> {
    match items.node_type() {
        NodeType::Struct => (items.children())
            .map(|field| (field.name().unwrap_or_default().to_owned(), field))
            .collect(),
        _ => vec![("value".to_owned(), items)],
    }
}

/// The Arrow field of `node`'s values, named `name`.
fn field(name: &str, node: ColumnNode<'_>, options: &ArrowOptions) -> Result<Field, Error> {
    selected_field(name, node, &Selection::All, options)
}

/// The Arrow field of the `selection` of `node`'s values, named `name`.
fn selected_field(
    name: &str,
    node: ColumnNode<'_>,
    selection: &Selection,
    options: &ArrowOptions,
) -> Result<Field, Error> {
    let (data_type, nullable) = data_type(node, selection, options)?;
    Ok(Field::new(name, data_type, nullable))
}

/// The names of a node's children: field and variant names, or positions for tuple elements.
fn child_name(child: ColumnNode<'_>, index: usize) -> String {
    child
        .name()
        .map_or_else(|| index.to_string(), str::to_owned)
}

/// The one child of an option, sequence or array node.
fn only_child(node: ColumnNode<'_>) -> Result<ColumnNode<'_>, Error> {
    node.child(0)
        .ok_or_else(|| unsupported(node, "a node without its child"))
}

/// Whether every variant of an enum node is a unit (or was never written).
fn unit_only(node: ColumnNode<'_>) -> bool {
    (node.children()).all(|variant| matches!(variant.node_type(), NodeType::Unit | NodeType::Void))
}

/// The Arrow type of the `selection` of `node`'s values, and whether they may be null.
fn data_type(
    node: ColumnNode<'_>,
    selection: &Selection,
    options: &ArrowOptions,
) -> Result<(DataType, bool), Error> {
    let list_item = |node: ColumnNode<'_>| -> Result<Arc<Field>, Error> {
        Ok(Arc::new(field("item", only_child(node)?, options)?))
    };
    let children = |node: ColumnNode<'_>| -> Result<Fields, Error> {
        (selected_children(node, selection)?.into_iter())
            .map(|(name, child, selection)| selected_field(&name, child, selection, options))
            .collect()
    };
    Ok(match node.node_type() {
        NodeType::Void | NodeType::Unit => (DataType::Null, true),
        NodeType::Bool => (DataType::Boolean, false),
        NodeType::U8 => (DataType::UInt8, false),
        NodeType::U16 => (DataType::UInt16, false),
        NodeType::U32 => (DataType::UInt32, false),
        NodeType::U64 => (DataType::UInt64, false),
        NodeType::U128 => (DataType::FixedSizeBinary(16), false),
        NodeType::I8 => (DataType::Int8, false),
        NodeType::I16 => (DataType::Int16, false),
        NodeType::I32 => (DataType::Int32, false),
        NodeType::I64 => (DataType::Int64, false),
        NodeType::I128 => (DataType::Decimal128(38, 0), false),
        NodeType::F32 => (DataType::Float32, false),
        NodeType::F64 => (DataType::Float64, false),
        NodeType::Char | NodeType::Str => (options.strings.data_type(), false),
        NodeType::Option => match data_type(only_child(node)?, selection, options)?.0 {
            // A union has no validity of its own: a null would read as a value of a variant.
            DataType::Union(..) => {
                return Err(unsupported(
                    node,
                    "an optional enum with data, or union: Arrow's unions hold no nulls",
                ))
            }
            inner => (inner, true),
        },
        NodeType::Seq => (DataType::List(list_item(node)?), false),
        NodeType::Array => {
            let len = i32::try_from(node.array_len().unwrap_or_default())
                .map_err(|_| unsupported(node, "an array longer than Arrow's lists"))?;
            (DataType::FixedSizeList(list_item(node)?, len), false)
        }
        NodeType::Map => {
            let keys = node
                .child(0)
                .ok_or_else(|| unsupported(node, "a map without keys"))?;
            let values =
                (node.child(1)).ok_or_else(|| unsupported(node, "a map without values"))?;
            let entries = Fields::from(vec![
                field("keys", keys, options)?,
                field("values", values, options)?,
            ]);
            let entries = Field::new("entries", DataType::Struct(entries), false);
            (DataType::Map(Arc::new(entries), false), false)
        }
        NodeType::Tuple | NodeType::Struct => (DataType::Struct(children(node)?), false),
        NodeType::Enum if unit_only(node) => {
            let key = match node.children().len() {
                0..=256 => DataType::UInt8,
                257..=65_536 => DataType::UInt16,
                _ => return Err(unsupported(node, "more than 65,536 variants")),
            };
            (
                DataType::Dictionary(Box::new(key), Box::new(DataType::Utf8)),
                false,
            )
        }
        NodeType::Enum | NodeType::Union => {
            let ids = type_ids(node)?;
            let fields = UnionFields::try_new(ids, children(node)?.iter().cloned())?;
            (DataType::Union(fields, UnionMode::Dense), false)
        }
        other => return Err(unsupported(node, format!("no Arrow type holds {other}"))),
    })
}

/// The type ids of an enum's or union's children: their positions, if they fit Arrow's `i8`.
fn type_ids(node: ColumnNode<'_>) -> Result<Vec<i8>, Error> {
    (0..node.children().len())
        .map(i8::try_from)
        .collect::<Result<_, _>>()
        .map_err(|_| {
            unsupported(
                node,
                "more than 128 variants, which Arrow's unions cannot hold",
            )
        })
}

/// Offsets for `lengths`, which must fit 32 bits in all.
fn offsets(node: ColumnNode<'_>, lengths: &[u64]) -> Result<OffsetBuffer<i32>, Error> {
    let mut end = 0i32;
    let mut offsets = Vec::with_capacity(lengths.len() + 1);
    offsets.push(0);
    for &length in lengths {
        end = i32::try_from(length)
            .ok()
            .and_then(|length| end.checked_add(length))
            .ok_or_else(|| unsupported(node, "more items than Arrow's 32-bit offsets reach"))?;
        offsets.push(end);
    }
    Ok(OffsetBuffer::new(ScalarBuffer::from(offsets)))
}

/// The values of an option `node` whose `presence` flags say which hold a value, the `present`
/// ones (at least one, and not of the `Null` type), in order: absent values are null.
fn spread(
    node: ColumnNode<'_>,
    present: ArrayRef,
    presence: BooleanBuffer,
) -> Result<ArrayRef, Error> {
    if presence.count_set_bits() == presence.len() {
        return Ok(present);
    }
    if u32::try_from(presence.len()).is_err() {
        return Err(unsupported(
            node,
            "more options than 32-bit positions reach",
        ));
    }
    // Each present value's place among the present ones; an absent value takes the first
    // present one, which its null hides.
    let mut places = vec![0u32; presence.len()];
    for (place, index) in presence.set_indices().enumerate() {
        places[index] = place as u32;
    }
    let spread = arrow_select::take::take(&present, &UInt32Array::from(places), None)?;
    let nulls = NullBuffer::union(Some(&NullBuffer::new(presence)), spread.nulls());
    let data = spread.to_data().into_builder().nulls(nulls);
    // SAFETY: `take` made a valid array, of a type that has a validity bitmap (not `Null`, nor a
    // union, which no option holds); only that bitmap is replaced, by one of the same length.
    Ok(make_array(unsafe { data.build_unchecked() }))
}

/// The Arrow array of every value of `node`, of the type [`data_type`] gives it.
fn array<'r>(
    columns: &mut Columns<'r>,
    node: ColumnNode<'r>,
    options: &ArrowOptions,
) -> Result<ArrayRef, Error> {
    selected_array(columns, node, &Selection::All, options)
}

/// The Arrow array of the `selection` of every value of `node`, of the type [`data_type`] gives
/// it.
fn selected_array<'r>(
    columns: &mut Columns<'r>,
    node: ColumnNode<'r>,
    selection: &Selection,
    options: &ArrowOptions,
) -> Result<ArrayRef, Error> {
    Ok(match node.node_type() {
        NodeType::Void | NodeType::Unit => Arc::new(NullArray::new(columns.count(node)?)),
        NodeType::Bool => Arc::new(BooleanArray::from(columns.values::<bool>(node)?)),
        NodeType::U8 => Arc::new(UInt8Array::from(columns.values::<u8>(node)?)),
        NodeType::U16 => Arc::new(UInt16Array::from(columns.values::<u16>(node)?)),
        NodeType::U32 => Arc::new(UInt32Array::from(columns.values::<u32>(node)?)),
        NodeType::U64 => Arc::new(UInt64Array::from(columns.values::<u64>(node)?)),
        NodeType::U128 => {
            let values = columns.values::<u128>(node)?;
            let bytes = values.iter().map(|value| value.to_le_bytes());
            Arc::new(FixedSizeBinaryArray::try_from_iter(bytes)?)
        }
        NodeType::I8 => Arc::new(Int8Array::from(columns.values::<i8>(node)?)),
        NodeType::I16 => Arc::new(Int16Array::from(columns.values::<i16>(node)?)),
        NodeType::I32 => Arc::new(Int32Array::from(columns.values::<i32>(node)?)),
        NodeType::I64 => Arc::new(Int64Array::from(columns.values::<i64>(node)?)),
        NodeType::I128 => {
            let values = Decimal128Array::from(columns.values::<i128>(node)?)
                .with_precision_and_scale(38, 0)?;
            values.validate_decimal_precision(38)?;
            Arc::new(values)
        }
        NodeType::F32 => Arc::new(Float32Array::from(columns.values::<f32>(node)?)),
        NodeType::F64 => Arc::new(Float64Array::from(columns.values::<f64>(node)?)),
        NodeType::Char => {
            let chars = columns.values::<char>(node)?;
            options
                .strings
                .array_of(&chars.iter().map(char::to_string).collect::<Vec<_>>())
        }
        NodeType::Str => options.strings.array(node, columns.strings(node)?)?,
        NodeType::Option => {
            let data_type = data_type(node, selection, options)?.0;
            let count = columns.count(node)?;
            let bits = columns.presence_bits(node)?;
            let presence = BooleanBuffer::new(Buffer::from(bits.as_ref()), 0, count);
            if presence.count_set_bits() == 0 || data_type == DataType::Null {
                return Ok(new_null_array(&data_type, count));
            }
            let present = selected_array(columns, only_child(node)?, selection, options)?;
            spread(node, present, presence)?
        }
        NodeType::Seq => {
            let offsets = offsets(node, &columns.lengths(node)?)?;
            let item = only_child(node)?;
            let items = array(columns, item, options)?;
            Arc::new(ListArray::try_new(
                Arc::new(field("item", item, options)?),
                offsets,
                items,
                None,
            )?)
        }
        NodeType::Array => {
            let item = only_child(node)?;
            let DataType::FixedSizeList(_, len) = data_type(node, &Selection::All, options)?.0
            else {
                return Err(unsupported(node, "an array node without a length"));
            };
            let items = array(columns, item, options)?;
            // The count, since arrays of no items cannot tell it.
            Arc::new(FixedSizeListArray::try_new_with_length(
                Arc::new(field("item", item, options)?),
                len,
                items,
                None,
                columns.count(node)?,
            )?)
        }
        NodeType::Map => {
            let DataType::Map(entries, _) = data_type(node, &Selection::All, options)?.0 else {
                return Err(unsupported(node, "a map node without keys and values"));
            };
            let DataType::Struct(fields) = entries.data_type().clone() else {
                return Err(unsupported(node, "a map node without keys and values"));
            };
            let offsets = offsets(node, &columns.lengths(node)?)?;
            let keys = array(columns, only_child(node)?, options)?;
            let values_node =
                (node.child(1)).ok_or_else(|| unsupported(node, "a map without values"))?;
            let values = array(columns, values_node, options)?;
            let entries_array = StructArray::try_new(fields, vec![keys, values], None)?;
            Arc::new(MapArray::try_new(
                entries,
                offsets,
                entries_array,
                None,
                false,
            )?)
        }
        NodeType::Tuple | NodeType::Struct => {
            let DataType::Struct(fields) = data_type(node, selection, options)?.0 else {
                return Err(unsupported(node, "a struct node of another type"));
            };
            if fields.is_empty() {
                return Ok(Arc::new(StructArray::new_empty_fields(
                    columns.count(node)?,
                    None,
                )));
            }
            let children = (selected_children(node, selection)?.into_iter())
                .map(|(_, child, selection)| selected_array(columns, child, selection, options))
                .collect::<Result<Vec<_>, _>>()?;
            Arc::new(StructArray::try_new(fields, children, None)?)
        }
        NodeType::Enum if unit_only(node) => {
            let discriminants = columns.discriminants(node)?;
            let names =
                (node.children().enumerate()).map(|(index, variant)| child_name(variant, index));
            let names: ArrayRef = Arc::new(StringArray::from_iter_values(names));
            if node.children().len() <= 256 {
                let keys: Vec<u8> = discriminants.iter().map(|&d| d as u8).collect();
                let keys = UInt8Array::from(keys);
                Arc::new(DictionaryArray::<UInt8Type>::try_new(keys, names)?)
            } else {
                let keys: Vec<u16> = discriminants.iter().map(|&d| d as u16).collect();
                let keys = UInt16Array::from(keys);
                Arc::new(DictionaryArray::<UInt16Type>::try_new(keys, names)?)
            }
        }
        NodeType::Enum | NodeType::Union => {
            let DataType::Union(fields, _) = data_type(node, &Selection::All, options)?.0 else {
                return Err(unsupported(node, "an enum node of another type"));
            };
            let discriminants = columns.discriminants(node)?;
            // Each value's position among the values of its variant.
            let mut taken = vec![0i32; node.children().len()];
            let mut type_ids = Vec::with_capacity(discriminants.len());
            let mut positions = Vec::with_capacity(discriminants.len());
            for &discriminant in &discriminants {
                let slot = &mut taken[discriminant as usize];
                type_ids.push(discriminant as i8);
                positions.push(*slot);
                *slot += 1;
            }
            let children = (node.children())
                .map(|variant| array(columns, variant, options))
                .collect::<Result<Vec<_>, _>>()?;
            Arc::new(UnionArray::try_new(
                fields,
                ScalarBuffer::from(type_ids),
                Some(ScalarBuffer::from(positions)),
                children,
            )?)
        }
        other => return Err(unsupported(node, format!("no Arrow type holds {other}"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What [`spread`] makes, made plainly: `take` with null positions for the absent values.
    fn spread_plainly(present: &ArrayRef, presence: &[bool]) -> ArrayRef {
        let mut next = 0u32;
        let positions: UInt32Array = (presence.iter())
            .map(|&present| {
                present.then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect();
        arrow_select::take::take(present, &positions, None).unwrap()
    }

    #[test]
    fn spread_options_match_a_plain_take() {
        #[derive(tree_buf::Encode)]
        struct Row {
            value: Option<Option<(u16, String)>>,
        }
        let rows: Vec<Row> = (0..40u16)
            .map(|i| Row {
                value: (i % 3 != 0).then(|| (i % 2 == 0).then(|| (i, format!("s{}", i % 5)))),
            })
            .collect();
        let bytes = tree_buf::encode(&rows);
        let reader = Reader::new(&bytes).unwrap();
        let mut columns = reader.columns().unwrap();
        let outer = columns.find("[].value").unwrap();
        let inner = only_child(outer).unwrap();
        let pair = only_child(inner).unwrap();
        let outer_presence = columns.presence(outer).unwrap();
        let inner_presence = columns.presence(inner).unwrap();
        // The flags as packed bits are the same flags.
        for (node, flags) in [(outer, &outer_presence), (inner, &inner_presence)] {
            let bits = columns.presence_bits(node).unwrap();
            let bits = BooleanBuffer::new(Buffer::from(bits.as_ref()), 0, flags.len());
            assert_eq!(bits, BooleanBuffer::from(flags.as_slice()));
        }
        let options = ArrowOptions::default();
        for layout in [
            StringLayout::Utf8,
            StringLayout::Utf8View,
            StringLayout::Dictionary,
        ] {
            let options = options.strings(layout);
            let pairs = array(&mut columns, pair, &options).unwrap();
            let inner_bits = BooleanBuffer::from(inner_presence.as_slice());
            let inner_array = spread(inner, Arc::clone(&pairs), inner_bits).unwrap();
            assert_eq!(&inner_array, &spread_plainly(&pairs, &inner_presence));
            let outer_bits = BooleanBuffer::from(outer_presence.as_slice());
            let outer_array = spread(outer, Arc::clone(&inner_array), outer_bits).unwrap();
            assert_eq!(&outer_array, &spread_plainly(&inner_array, &outer_presence));
            outer_array.to_data().validate_full().unwrap();
            assert_eq!(outer_array.null_count(), 27);
        }
        // Every value present: the present values as they are.
        let all = BooleanBuffer::new_set(3);
        let values: ArrayRef = Arc::new(UInt8Array::from(vec![1, 2, 3]));
        assert_eq!(&spread(outer, Arc::clone(&values), all).unwrap(), &values);
    }

    #[test]
    fn offsets_past_32_bits_are_errors() {
        #[derive(tree_buf::Encode)]
        struct Row {
            items: Vec<u8>,
        }
        let bytes = tree_buf::encode(&vec![Row { items: vec![1] }]);
        let reader = Reader::new(&bytes).unwrap();
        let columns = reader.columns().unwrap();
        let node = columns.find("[].items").unwrap();
        assert!(offsets(node, &[1, 2]).is_ok());
        assert!(matches!(
            offsets(node, &[i32::MAX as u64, 1]),
            Err(Error::Unsupported { .. })
        ));
    }
}
