//! Reading part of a file: open it without decoding, look at its schema, decode one path.

use std::borrow::Cow;
use std::fmt;

use crate::branch::{branch_encoding, DecodeContext, Kept};
use crate::encodings::describe::Describer;
use crate::error::{DecodeError, DecodeErrorKind};
use crate::file::FileView;
use crate::options::DecodeOptions;
use crate::schema::canonical::canonical_name;
use crate::schema::{resolve, AsPath, NodeRef, NodeType, Path, Route, SchemaView};
use crate::types::{decode_root, Decode, Indirect, ValueDecoder};

/// An opened tree-buf file: header, schema and branch table checked, no branch decoded yet.
///
/// A reader decodes only the branches a request needs, and does not checksum the data, since
/// that would read every byte; call [`Reader::verify`] for that. Every branch it reads is still
/// validated, so corrupt input gives an error or some value, never a panic.
///
/// ```
/// use tree_buf::prelude::*;
/// use tree_buf::Reader;
///
/// #[derive(Encode)]
/// struct Country { name: String, iso: String, border: Vec<(f64, f64)> }
///
/// let countries = vec![
///     Country { name: "Aruba".into(), iso: "ABW".into(), border: vec![(-69.9, 12.4); 100] },
///     Country { name: "Angola".into(), iso: "AGO".into(), border: vec![(11.7, -16.7); 100] },
/// ];
/// let bytes = encode(&countries);
/// let reader = Reader::new(&bytes)?;
/// // Reads the names only: the borders' branches are skipped by their recorded sizes.
/// let names: Vec<String> = reader.decode_path("[].name")?;
/// assert_eq!(names, ["Aruba", "Angola"]);
/// assert!(reader.schema().find("[].border.[].0").is_some());
/// # Ok::<(), tree_buf::DecodeError>(())
/// ```
#[derive(Debug)]
pub struct Reader<'a> {
    view: FileView<'a>,
    options: DecodeOptions,
    /// The columns that borrowed types decoded through the reader borrow, where the file does not
    /// hold them as they are.
    kept: Kept,
}

impl<'a> Reader<'a> {
    /// Opens `bytes` with the default [`DecodeOptions`].
    pub fn new(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        Reader::with_options(bytes, DecodeOptions::default())
    }

    /// Opens `bytes` under the given limits.
    pub fn with_options(bytes: &'a [u8], options: DecodeOptions) -> Result<Self, DecodeError> {
        Ok(Reader::of_view(FileView::open(bytes, &options)?, options))
    }

    /// A reader of a view that is open already (a chunk of an archive).
    pub(crate) fn of_view(view: FileView<'a>, options: DecodeOptions) -> Self {
        Reader {
            view,
            options,
            kept: Kept::default(),
        }
    }

    pub(crate) fn view(&self) -> &FileView<'a> {
        &self.view
    }

    /// The schema tree: every node's path, type, encoding and branch size.
    pub fn schema(&self) -> SchemaNode {
        let root = self.view.tree.root();
        // Keyed string branches name their source by its path.
        let mut paths = vec![String::new(); self.view.chunk.branches.len()];
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            if let Some(path) = node.branch().and_then(|index| paths.get_mut(index)) {
                *path = node.path();
            }
            stack.extend(node.children());
        }
        SchemaNode::build(root, &self.view.chunk.branches, &paths)
    }

    /// Checks the data against its checksum (as [`crate::decode`] does before decoding).
    pub fn verify(&self) -> Result<(), DecodeError> {
        self.view.verify_data(&self.options)
    }

    /// Decodes the file as `T`. A type that names only some of the fields reads only their
    /// branches; the others are skipped by their recorded sizes, never decompressed or parsed.
    ///
    /// A type that borrows (`&str`, `&[u8]`, `Cow<str>` fields: see [`Decode`]) borrows the
    /// strings and bytes of the file where it holds them as they are, and otherwise (where it
    /// compressed them, say) from the reader, which keeps the decoded column for as long as it
    /// lives: one allocation per column, none per value, and one copy of a column however many
    /// times it is decoded.
    ///
    /// ```
    /// use tree_buf::prelude::*;
    /// use tree_buf::Reader;
    ///
    /// #[derive(Encode)]
    /// struct Country { name: String, border: Vec<(f64, f64)> }
    ///
    /// #[derive(Decode)]
    /// struct Name<'a> { name: &'a str }
    ///
    /// let countries: Vec<Country> = (0..1000)
    ///     .map(|i| Country { name: format!("Country number {i}"), border: vec![(1.0, 2.0)] })
    ///     .collect();
    /// let bytes = encode(&countries);
    /// let reader = Reader::new(&bytes)?;
    /// let names: Vec<Name<'_>> = reader.decode()?;
    /// assert_eq!(names[999].name, "Country number 999");
    /// # Ok::<(), tree_buf::DecodeError>(())
    /// ```
    pub fn decode<'r, T: Decode<'r>>(&'r self) -> Result<T, DecodeError> {
        (self.view).decode_in(self.context(), &self.options)
    }

    /// A context for the file's branches that keeps what borrowed types borrow in the reader.
    fn context(&self) -> DecodeContext<'_> {
        self.view.context(&self.options).keeping_in(&self.kept)
    }

    /// The root of the file's schema and a context for its branches, on one thread; an error for
    /// a view of more than one root value.
    pub(crate) fn root_and_context(&self) -> Result<(NodeRef<'_>, DecodeContext<'_>), DecodeError> {
        self.view.check_one_root()?;
        Ok((self.view.tree.root(), self.context()))
    }

    /// Decodes every value at `path` (such as `features.[].properties.ADMIN`, as text or a
    /// [`Path`]) into the collection `T`, such as `Vec<String>`: one item per value at the path,
    /// in file order, across all the sequences above it.
    ///
    /// [`Path`] says what each segment means at each kind of node. Only the streams on the way
    /// there (presence, lengths, discriminants) and the branches below it are read (and, for a
    /// string column stored keyed by another, that one too), all under one decoding budget. A path
    /// that does not exist, or text that is not a path, is a
    /// [`PathNotFound`](crate::DecodeErrorKind::PathNotFound) error.
    pub fn decode_path<'r, T: Decode<'r>>(&'r self, path: impl AsPath) -> Result<T, DecodeError> {
        let (node, ctx) = self.gathered(path)?;
        let ctx = ctx.keeping_in(&self.kept);
        let mut decoder: Indirect<'r, T> =
            decode_root(ctx, node, 1, self.view.parallel(&self.options))?;
        Ok(decoder.next())
    }

    /// The node that gathers every value at `path` into one array, and a context that has read
    /// the streams on the way there.
    fn gathered(&self, path: impl AsPath) -> Result<(NodeRef<'_>, DecodeContext<'a>), DecodeError> {
        let path = path.as_path()?;
        self.view.check_one_root()?;
        let route = resolve(self.view.tree.root(), &path)?;
        let mut ctx = self.view.context(&self.options);
        let count = values_at_end(&route, &mut ctx)?;
        Ok((route.node.gathered(count), ctx))
    }

    /// Decodes the file through serde's `Deserialize`, as [`crate::serde::from_slice`] does, but
    /// without checksumming the data, as [`Self::decode`] does: a type that names only some of
    /// the fields reads only their branches, and strings stored as they are are lent from the
    /// bytes.
    ///
    /// ```
    /// #[derive(serde::Serialize)]
    /// struct Country { name: String, border: Vec<(f64, f64)> }
    /// #[derive(serde::Deserialize)]
    /// struct Name<'a> { name: &'a str }
    ///
    /// let countries = vec![Country { name: "Aruba".into(), border: vec![(-69.9, 12.4); 100] }];
    /// let options = tree_buf::EncodeOptions::default().prefer(tree_buf::Preference::Faster);
    /// let bytes = tree_buf::serde::to_vec_with_options(&countries, &options)?;
    /// let reader = tree_buf::Reader::new(&bytes)?;
    /// let names: Vec<Name<'_>> = reader.deserialize()?;
    /// let again: Vec<&str> = reader.deserialize_path("[].name")?;
    /// assert_eq!((names[0].name, again[0]), ("Aruba", "Aruba"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "serde")]
    pub fn deserialize<T: ::serde::Deserialize<'a>>(&self) -> Result<T, DecodeError> {
        self.view.check_one_root()?;
        let ctx = self.view.context(&self.options);
        crate::serde::deserialize_root(self.view.tree.root(), ctx)
    }

    /// Decodes every value at `path` through serde's `Deserialize` into the collection `T`, as
    /// [`Self::decode_path`] does for [`Decode`] types.
    #[cfg(feature = "serde")]
    pub fn deserialize_path<T: ::serde::Deserialize<'a>>(
        &self,
        path: impl AsPath,
    ) -> Result<T, DecodeError> {
        let (node, ctx) = self.gathered(path)?;
        crate::serde::deserialize_root(node, ctx)
    }
}

/// How many values a step from `node`, which holds `count` values, to its child `index` leads
/// to, reading the stream that decides it: presence, lengths or discriminants.
pub(crate) fn values_below(
    node: NodeRef<'_>,
    index: usize,
    count: usize,
    ctx: &mut DecodeContext<'_>,
) -> Result<usize, DecodeError> {
    let below = match node.node_type() {
        // The bits past the last value are 0.
        NodeType::Option => (ctx.presence_bits(node, count)?.iter())
            .map(|byte| byte.count_ones() as usize)
            .sum(),
        NodeType::Seq | NodeType::Map => ctx.lengths(node, count)?.1,
        NodeType::Array => node.array_items(count)?,
        NodeType::Enum | NodeType::Union => ctx.member_count(node, index, count)?,
        // A tuple or struct value holds one value of each element or field.
        _ => count,
    };
    Ok(below)
}

/// The number of values at the end of `route`, the path to a node, and a context that has read
/// the streams on the way: every node on the way holds the values of every depth (where
/// recursion nodes return to it), the node at the end those the path gives it. An error if its
/// values hold those of a recursive type whose node lies above it, which only that node reads.
pub(crate) fn values_at_end(
    route: &Route<NodeRef<'_>>,
    ctx: &mut DecodeContext<'_>,
) -> Result<usize, DecodeError> {
    if let Some(recursion) = route.node.recursion_from_above() {
        let target = recursion.recursion_target().unwrap_or(recursion);
        return Err(DecodeError::new(
            DecodeErrorKind::SchemaMismatch,
            route.node.path(),
            format!(
                "the values here hold values of the recursive type at `{}` (by `{}`), which are \
                 read through that path or the paths of its fields",
                target.path(),
                recursion.path()
            ),
        ));
    }
    let mut count = 1;
    for &(node, index) in &route.steps {
        count = ctx.values_with_recursions(node, count)?;
        count = values_below(node, index, count, ctx)?;
    }
    Ok(count)
}

/// One node of a file's schema, with its children.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaNode {
    /// The path from the root.
    pub path: Path,
    /// The field or variant name by which the parent reaches this node, as written in the file.
    pub name: Option<String>,
    /// The type of the node.
    pub node_type: NodeType,
    /// For arrays, the number of items per value.
    pub array_len: Option<u64>,
    /// The encoding cascade of the node's branch, such as `delta → zigzag → bitpack`, if it owns
    /// one.
    pub encoding: Option<String>,
    /// The byte size of the node's own branch (0 if it has none).
    pub bytes: usize,
    /// The children, in file order.
    pub children: Vec<SchemaNode>,
    /// For a recursion node, the path of the ancestor whose values its values are.
    pub returns_to: Option<Path>,
}

impl SchemaNode {
    /// The schema below `node`; `paths` holds the path of every branch.
    fn build(node: NodeRef<'_>, branches: &[&[u8]], paths: &[String]) -> SchemaNode {
        let branch = node.branch().and_then(|index| branches.get(index)).copied();
        SchemaNode {
            path: node.schema_path(),
            name: node.name().map(str::to_owned),
            node_type: node.node_type(),
            array_len: (node.node_type() == NodeType::Array).then(|| node.array_len()),
            encoding: branch.map(|bytes| describe_branch(node.node_type(), bytes, paths)),
            bytes: branch.map_or(0, <[u8]>::len),
            children: node
                .children()
                .map(|child| SchemaNode::build(child, branches, paths))
                .collect(),
            returns_to: node.recursion_target().map(NodeRef::schema_path),
        }
    }

    /// The node at `path` below this one (as text or a [`Path`]), resolved as
    /// [`Reader::decode_path`] resolves it; `None` if there is none or the text is not a path.
    pub fn find(&self, path: impl AsPath) -> Option<&SchemaNode> {
        let path = path.as_path().ok()?;
        resolve(self, &path).ok().map(|route| route.node)
    }

    /// This node and all below it, in pre-order.
    pub fn iter(&self) -> impl Iterator<Item = &SchemaNode> {
        let mut stack = vec![self];
        std::iter::from_fn(move || {
            let node = stack.pop()?;
            stack.extend(node.children.iter().rev());
            Some(node)
        })
    }
}

/// Names what a branch holds and its encoding cascade, read from the stream headers only (a zstd
/// stage by its size); `paths` holds the path of every branch.
fn describe_branch(node_type: NodeType, bytes: &[u8], paths: &[String]) -> String {
    branch_encoding(node_type, bytes, paths, Describer::new(false)).to_string()
}

impl fmt::Display for SchemaNode {
    /// An indented tree: name, type, encoding and bytes of every node.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn line(node: &SchemaNode, depth: usize, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            let label = match (&node.name, node.path.segments().last()) {
                (Some(name), _) => name.clone(),
                (None, Some(last)) => last.to_string(),
                (None, None) => "(root)".to_owned(),
            };
            let node_type = match (node.array_len, &node.returns_to) {
                (Some(len), _) => format!("array of {len}"),
                (_, Some(target)) if target.segments().is_empty() => "recursion to (root)".into(),
                (_, Some(target)) => format!("recursion to {target}"),
                _ => node.node_type.to_string(),
            };
            write!(f, "{:indent$}{label}: {node_type}", "", indent = depth * 2)?;
            if let Some(encoding) = &node.encoding {
                write!(f, "  [{encoding}]  {} B", node.bytes)?;
            }
            writeln!(f)?;
            node.children
                .iter()
                .try_for_each(|child| line(child, depth + 1, f))
        }
        line(self, 0, f)
    }
}

impl<'a> SchemaView<'a> for &'a SchemaNode {
    fn node_type(self) -> NodeType {
        self.node_type
    }

    fn child_count(self) -> usize {
        self.children.len()
    }

    fn child(self, index: usize) -> Option<Self> {
        self.children.get(index)
    }

    fn name(self) -> Option<&'a str> {
        self.name.as_deref()
    }

    fn canonical_name(self) -> Option<Cow<'a, str>> {
        self.name.as_deref().map(canonical_name)
    }
}
