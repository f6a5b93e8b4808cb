//! Writes the schema tree while encoders hand over their columns.
//!
//! Encoders call these methods in pre-order: a node's tag first, then its children. A node that
//! owns a stream hands its column over at the same moment, so branch `i` is the `i`-th node with a
//! stream in pre-order; the file needs no branch ids.

use std::ops::Range;

use super::Column;
use crate::encodings::bytes::{write_prefixed, write_varint};
use crate::error::EncodeError;
use crate::options::MAX_DEPTH;
use crate::schema::{NodeType, Path, Segment};

/// The result type of encoders' `finish`.
pub type EncodeResult = Result<(), EncodeError>;

/// Collects the schema and the columns of a value being encoded. Generated code uses it through
/// `tree_buf::__private` (the methods for structs, tuples, enums and units are public for it); it
/// is not meant to be called by hand.
#[derive(Debug, Default)]
pub struct SchemaWriter {
    schema: Vec<u8>,
    columns: Vec<(Column, Option<usize>)>,
    /// The steps to the node being written, one per level (none for an option's present
    /// values, which add nothing to the path).
    path: Vec<Option<Step>>,
    /// The length of the array whose items are written next, if that is the current node.
    array_len: Option<usize>,
    /// For each struct or tuple written, the branches of the strings whose nearest struct or tuple
    /// it is (through any options, sequences, maps, enums and unions between), in branch order:
    /// the columns that may key one another ([`super::key_string_siblings`]).
    string_siblings: Vec<Vec<usize>>,
    /// Likewise the integer leaves: the columns that may key one another
    /// ([`super::key_int_siblings`]).
    int_siblings: Vec<Vec<IntSibling>>,
    /// The entry of `string_siblings` and `int_siblings` of the struct or tuple being written,
    /// if any.
    sibling_group: Option<usize>,
    /// The anchors of recursive types being written, each with the depth of its node.
    recursion_targets: Vec<(u64, usize)>,
}

/// An integer leaf among the siblings of a struct or tuple.
#[derive(Debug, Clone, Copy)]
pub(crate) struct IntSibling {
    pub(crate) branch: usize,
    pub(crate) signed: bool,
    /// The branch of the presence flags of the option whose present values the leaf holds, if
    /// its parent is an option.
    pub(crate) presence: Option<usize>,
}

/// A step of the path being written. A name is kept as the range of schema bytes it was just
/// written to, so that writing a field costs no allocation: the path is only read for errors.
#[derive(Debug)]
enum Step {
    Segment(Segment),
    Name(Range<usize>),
}

/// What a [`SchemaWriter`] collected: the schema, and the columns in branch order with the length
/// of the fixed-size arrays each is the items of (if any).
pub(crate) struct WrittenSchema {
    pub(crate) schema: Vec<u8>,
    pub(crate) columns: Vec<(Column, Option<usize>)>,
}

impl SchemaWriter {
    pub(crate) fn new() -> Self {
        SchemaWriter::default()
    }

    /// Forgets what was written, keeping the memory for the next value.
    pub(crate) fn clear(&mut self) {
        self.schema.clear();
        self.columns.clear();
        self.path.clear();
        self.array_len = None;
        self.string_siblings.clear();
        self.int_siblings.clear();
        self.sibling_group = None;
        self.recursion_targets.clear();
    }

    /// The schema and the columns written.
    pub(crate) fn parts(&self) -> (&[u8], &[(Column, Option<usize>)]) {
        (&self.schema, &self.columns)
    }

    /// What was written.
    pub(crate) fn into_parts(self) -> WrittenSchema {
        WrittenSchema {
            schema: self.schema,
            columns: self.columns,
        }
    }

    /// The path being written, for error messages.
    pub(crate) fn path(&self) -> String {
        let path: Path = (self.path.iter().flatten())
            .map(|step| match step {
                Step::Segment(segment) => segment.clone(),
                Step::Name(range) => {
                    Segment::Name(String::from_utf8_lossy(&self.schema[range.clone()]).into())
                }
            })
            .collect();
        path.to_string()
    }

    /// An error for a value nested deeper than [`MAX_DEPTH`] below the current node.
    pub(crate) fn too_deep(&self) -> EncodeError {
        crate::error::too_deep(self.path())
    }

    /// The groups of two or more string branches that share their nearest struct or tuple.
    pub(crate) fn string_siblings(&self) -> impl Iterator<Item = &[usize]> {
        (self.string_siblings.iter())
            .filter(|group| group.len() > 1)
            .map(Vec::as_slice)
    }

    /// The groups of two or more integer leaves that share their nearest struct or tuple.
    pub(crate) fn int_siblings(&self) -> impl Iterator<Item = &[IntSibling]> {
        (self.int_siblings.iter())
            .filter(|group| group.len() > 1)
            .map(Vec::as_slice)
    }

    /// Writes the children of a struct or tuple with `write`, as a group of siblings.
    fn sibling_group(&mut self, write: impl FnOnce(&mut Self) -> EncodeResult) -> EncodeResult {
        self.string_siblings.push(Vec::new());
        self.int_siblings.push(Vec::new());
        let outer = self.sibling_group.replace(self.string_siblings.len() - 1);
        let result = write(self);
        self.sibling_group = outer;
        result
    }

    /// Writes a node's tag; returns the array length when the node is the items of an array.
    fn node(&mut self, node_type: NodeType) -> Result<Option<usize>, EncodeError> {
        let array_len = self.array_len.take();
        if self.path.len() >= MAX_DEPTH {
            return Err(self.too_deep());
        }
        self.schema.push(node_type.tag());
        Ok(array_len)
    }

    fn child(
        &mut self,
        step: Option<Step>,
        write: impl FnOnce(&mut Self) -> EncodeResult,
    ) -> EncodeResult {
        self.path.push(step);
        let result = write(self);
        self.path.pop();
        result
    }

    /// A place no value was written to.
    pub(crate) fn void(&mut self) -> EncodeResult {
        self.node(NodeType::Void).map(drop)
    }

    /// A value without data: `()`, a unit struct or variant.
    pub fn unit(&mut self) -> EncodeResult {
        self.node(NodeType::Unit).map(drop)
    }

    /// A leaf and its column of values.
    pub(crate) fn leaf(&mut self, node_type: NodeType, column: Column) -> EncodeResult {
        let array_len = self.node(node_type)?;
        if let Some(group) = self.sibling_group {
            let branch = self.columns.len();
            if node_type == NodeType::Str {
                self.string_siblings[group].push(branch);
            } else if let Some(signed) = node_type.integer_signedness() {
                // Not the items of a sequence: byte strings (`Vec<u8>`) are read as the branch
                // holds them, where it can, which a keyed stream never does.
                let items = matches!(self.path.last(), Some(Some(Step::Segment(Segment::Items))));
                // An option's present values follow its presence flags, the column before.
                let presence = matches!(self.path.last(), Some(None)).then(|| branch - 1);
                if !items {
                    self.int_siblings[group].push(IntSibling {
                        branch,
                        signed,
                        presence,
                    });
                }
            }
        }
        self.columns.push((column, array_len));
        Ok(())
    }

    /// Writes, with `write`, the node of a recursive type's anchor `anchor`, which the
    /// recursion nodes written within refer to.
    pub(crate) fn recursion_target(
        &mut self,
        anchor: u64,
        write: impl FnOnce(&mut Self) -> EncodeResult,
    ) -> EncodeResult {
        self.recursion_targets.push((anchor, self.path.len()));
        let result = write(self);
        self.recursion_targets.pop();
        result
    }

    /// A recursion node: values of the node of anchor `anchor` (an ancestor), at `positions`
    /// among its values.
    pub(crate) fn recursion(&mut self, anchor: u64, positions: Vec<u64>) -> EncodeResult {
        let depth = self.path.len();
        let up = (self.recursion_targets.iter().rev())
            .find(|&&(target, _)| target == anchor)
            .map(|&(_, target_depth)| depth - target_depth)
            .ok_or_else(|| {
                EncodeError::new(
                    crate::error::EncodeErrorKind::Custom,
                    self.path(),
                    "a recursive type's values reached a place outside the type",
                )
            })?;
        let array_len = self.node(NodeType::Recursion)?;
        write_varint(&mut self.schema, up as u64);
        self.columns.push((Column::Recursion(positions), array_len));
        Ok(())
    }

    /// An option: its presence stream, then the present values.
    pub(crate) fn option(
        &mut self,
        presence: Vec<bool>,
        inner: impl FnOnce(&mut Self) -> EncodeResult,
    ) -> EncodeResult {
        self.node(NodeType::Option)?;
        self.columns.push((Column::Bool(presence), None));
        self.child(None, inner)
    }

    /// A sequence: its length stream, then all items.
    pub(crate) fn seq(
        &mut self,
        lengths: Vec<u64>,
        items: impl FnOnce(&mut Self) -> EncodeResult,
    ) -> EncodeResult {
        self.node(NodeType::Seq)?;
        self.columns.push((Column::lengths(lengths), None));
        self.child(Some(Step::Segment(Segment::Items)), items)
    }

    /// A fixed-length array of `len` items each, then all items.
    pub(crate) fn array(
        &mut self,
        len: usize,
        items: impl FnOnce(&mut Self) -> EncodeResult,
    ) -> EncodeResult {
        self.node(NodeType::Array)?;
        write_varint(&mut self.schema, len as u64);
        self.array_len = Some(len);
        self.child(Some(Step::Segment(Segment::Items)), items)
    }

    /// A map: its length stream, then all keys, then all values.
    pub(crate) fn map(
        &mut self,
        lengths: Vec<u64>,
        keys: impl FnOnce(&mut Self) -> EncodeResult,
        values: impl FnOnce(&mut Self) -> EncodeResult,
    ) -> EncodeResult {
        self.node(NodeType::Map)?;
        self.columns.push((Column::lengths(lengths), None));
        self.child(Some(Step::Segment(Segment::Keys)), keys)?;
        self.child(Some(Step::Segment(Segment::Values)), values)
    }

    /// A tuple of `len` elements; `elements` must call [`Self::element`] once for each, in order.
    pub fn tuple(
        &mut self,
        len: usize,
        elements: impl FnOnce(&mut Self) -> EncodeResult,
    ) -> EncodeResult {
        self.node(NodeType::Tuple)?;
        write_varint(&mut self.schema, len as u64);
        self.sibling_group(elements)
    }

    /// Tuple element `index`.
    pub fn element(
        &mut self,
        index: usize,
        write: impl FnOnce(&mut Self) -> EncodeResult,
    ) -> EncodeResult {
        self.child(Some(Step::Segment(Segment::Index(index))), write)
    }

    /// A struct of `len` named fields; `fields` must call [`Self::field`] once for each.
    pub fn structure(
        &mut self,
        len: usize,
        fields: impl FnOnce(&mut Self) -> EncodeResult,
    ) -> EncodeResult {
        self.node(NodeType::Struct)?;
        write_varint(&mut self.schema, len as u64);
        self.sibling_group(fields)
    }

    /// A named field of the current struct.
    pub fn field(
        &mut self,
        name: &str,
        write: impl FnOnce(&mut Self) -> EncodeResult,
    ) -> EncodeResult {
        self.named(name, write)
    }

    /// An enum of `len` variants with its discriminant stream (indices into the variants, in the
    /// order written); `variants` must call [`Self::variant`] once for each.
    pub fn enumeration(
        &mut self,
        len: usize,
        discriminants: Vec<u32>,
        variants: impl FnOnce(&mut Self) -> EncodeResult,
    ) -> EncodeResult {
        self.node(NodeType::Enum)?;
        write_varint(&mut self.schema, len as u64);
        self.columns
            .push((Column::discriminants(discriminants), None));
        variants(self)
    }

    /// A union of `len` types with its discriminant stream; `types` must call [`Self::variant`]
    /// once for each, named after the type.
    pub(crate) fn union(
        &mut self,
        len: usize,
        discriminants: Vec<u32>,
        types: impl FnOnce(&mut Self) -> EncodeResult,
    ) -> EncodeResult {
        self.node(NodeType::Union)?;
        write_varint(&mut self.schema, len as u64);
        self.columns
            .push((Column::discriminants(discriminants), None));
        types(self)
    }

    /// Writes a field's or variant's name, then the node under it.
    fn named(&mut self, name: &str, write: impl FnOnce(&mut Self) -> EncodeResult) -> EncodeResult {
        write_prefixed(&mut self.schema, name.as_bytes());
        let end = self.schema.len();
        self.child(Some(Step::Name(end - name.len()..end)), write)
    }

    /// A named variant of the current enum or union.
    pub fn variant(
        &mut self,
        name: &str,
        write: impl FnOnce(&mut Self) -> EncodeResult,
    ) -> EncodeResult {
        self.named(name, write)
    }
}
