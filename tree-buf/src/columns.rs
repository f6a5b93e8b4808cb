//! Reading a file column by column, with no Rust type for the whole: for readers that fill
//! columnar memory of their own (Arrow arrays, say) from the streams of each schema node, without
//! making a Rust value per row.

use crate::branch::DecodeContext;
use crate::error::DecodeError;
use crate::reader::Reader;
use crate::schema::{resolve, AsPath, NodeRef, NodeType};
use crate::types::{Decode, Indirect, ValueDecoder};

/// The streams of a file's schema nodes as vectors, node by node: how many values each node
/// holds, the presence flags of options, the lengths of sequences and maps, the discriminants of
/// enums, and the values of leaves. Made by [`Reader::columns`].
///
/// The values of a node are those of every value above it, in file order: the items of all the
/// sequences at a path one after another, the present values of an option only. Every stream read
/// is validated and charged to one decoding budget, that of the reader's [`DecodeOptions`]; no
/// other branch is read.
///
/// [`DecodeOptions`]: crate::DecodeOptions
///
/// ```
/// use tree_buf::{encode, NodeType, Reader};
///
/// #[derive(tree_buf::Encode)]
/// struct Game { home: String, runs: Option<u8>, innings: Vec<u8> }
///
/// let games = vec![
///     Game { home: "BOS".into(), runs: Some(3), innings: vec![0, 2, 1] },
///     Game { home: "NYA".into(), runs: None, innings: vec![1] },
/// ];
/// let bytes = encode(&games);
/// let reader = Reader::new(&bytes)?;
/// let mut columns = reader.columns()?;
/// let rows = columns.find("[]")?;
/// assert_eq!(columns.count(rows)?, 2);
/// let runs = columns.find("[].runs")?;
/// assert_eq!(runs.node_type(), NodeType::Option);
/// assert_eq!(columns.presence(runs)?, [true, false]);
/// // The present values only, below the option.
/// assert_eq!(columns.values::<u8>(runs.child(0).unwrap())?, [3]);
/// let innings = columns.find("[].innings")?;
/// assert_eq!(columns.lengths(innings)?, [3, 1]);
/// assert_eq!(columns.values::<u8>(columns.find("[].innings.[]")?)?, [0, 2, 1, 1]);
/// // Strings borrow from the file, or from the reader where it compressed them.
/// assert_eq!(columns.values::<&str>(columns.find("[].home")?)?, ["BOS", "NYA"]);
/// # Ok::<(), tree_buf::DecodeError>(())
/// ```
pub struct Columns<'r> {
    root: NodeRef<'r>,
    ctx: DecodeContext<'r>,
}

/// A node of the file's schema, as [`Columns`] reads it.
#[derive(Debug, Clone, Copy)]
pub struct ColumnNode<'r>(NodeRef<'r>);

impl<'r> ColumnNode<'r> {
    /// What the node holds.
    pub fn node_type(self) -> NodeType {
        self.0.node_type()
    }

    /// The name its parent reaches it by (a field, variant or union member), if any.
    pub fn name(self) -> Option<&'r str> {
        self.0.name()
    }

    /// Its path from the root, as text (see [`Path`](crate::Path)).
    pub fn path(self) -> String {
        self.0.path()
    }

    /// Its children, in file order: an option's or sequence's one, a map's keys and values, a
    /// tuple's elements, a struct's fields, an enum's variants, a union's members.
    pub fn children(self) -> impl ExactSizeIterator<Item = ColumnNode<'r>> {
        self.0.children().map(ColumnNode)
    }

    /// Child `index`, in file order.
    pub fn child(self, index: usize) -> Option<ColumnNode<'r>> {
        self.0.child(index).map(ColumnNode)
    }

    /// For a recursion node, the ancestor whose type it holds again: its values are values of
    /// that node, counted there (see [`Columns::count`]). `None` for other nodes.
    pub fn returns_to(self) -> Option<ColumnNode<'r>> {
        self.0.recursion_target().map(ColumnNode)
    }

    /// The length of each value of a fixed-length array node; `None` for other nodes.
    pub fn array_len(self) -> Option<u64> {
        (self.node_type() == NodeType::Array).then(|| self.0.array_len())
    }
}

impl Reader<'_> {
    /// The file's streams, node by node, as [`Columns`] reads them.
    pub fn columns(&self) -> Result<Columns<'_>, DecodeError> {
        let (root, ctx) = self.root_and_context()?;
        Ok(Columns { root, ctx })
    }
}

impl<'r> Columns<'r> {
    /// The root node.
    pub fn root(&self) -> ColumnNode<'r> {
        ColumnNode(self.root)
    }

    /// The node at `path`; a [`PathNotFound`](crate::DecodeErrorKind::PathNotFound) error if
    /// there is none.
    pub fn find(&self, path: impl AsPath) -> Result<ColumnNode<'r>, DecodeError> {
        let path = path.as_path()?;
        Ok(ColumnNode(resolve(self.root, &path)?.node))
    }

    /// How many values `node` holds. A node that recursion nodes return to holds their values
    /// too, after its parent's, each written after the values it holds (see the format's
    /// "Recursion").
    pub fn count(&mut self, node: ColumnNode<'r>) -> Result<usize, DecodeError> {
        self.ctx.values_at(node.0)
    }

    /// The presence flag of each value of an option node: whether it is `Some`.
    pub fn presence(&mut self, node: ColumnNode<'r>) -> Result<Vec<bool>, DecodeError> {
        self.expect(node, &[NodeType::Option], "an option")?;
        let count = self.count(node)?;
        self.ctx.presence(node.0, count)
    }

    /// The length of each value of a sequence or map node.
    pub fn lengths(&mut self, node: ColumnNode<'r>) -> Result<Vec<u64>, DecodeError> {
        self.expect(node, &[NodeType::Seq, NodeType::Map], "a sequence or map")?;
        let count = self.count(node)?;
        Ok(self.ctx.lengths(node.0, count)?.0)
    }

    /// The discriminant of each value of an enum or union node: the index of its variant or
    /// member among the node's children, each checked to be one.
    pub fn discriminants(&mut self, node: ColumnNode<'r>) -> Result<Vec<u32>, DecodeError> {
        self.expect(node, &[NodeType::Enum, NodeType::Union], "an enum or union")?;
        let count = self.count(node)?;
        Ok(self.ctx.discriminants_and_counts(node.0, count)?.0)
    }

    /// Every value of `node` as `T`, read as [`Reader::decode_path`] reads its values: numbers
    /// into any type that holds them, strings into `String`, `&str` (borrowed) and the like.
    pub fn values<T: Decode<'r>>(&mut self, node: ColumnNode<'r>) -> Result<Vec<T>, DecodeError> {
        let count = self.count(node)?;
        let mut decoder: Indirect<'r, T> = Indirect::new(node.0, count, &mut self.ctx)?;
        Ok(decoder.next_vec(count))
    }

    /// An error unless `node` is of one of `types`.
    fn expect(
        &self,
        node: ColumnNode<'r>,
        types: &[NodeType],
        expected: &str,
    ) -> Result<(), DecodeError> {
        match types.contains(&node.node_type()) {
            true => Ok(()),
            false => Err(node.0.mismatch(expected)),
        }
    }
}
