//! Reading part of a file: open it without decoding, look at its schema, decode one path.

use std::fmt;

use crate::branch::DecodeContext;
use crate::breakdown::branch_encoding;
use crate::encodings::describe::Describer;
use crate::encodings::int;
use crate::error::{DecodeError, DecodeErrorKind};
use crate::file::FileView;
use crate::options::DecodeOptions;
use crate::schema::canonical::canonical_name;
use crate::schema::{NodeRef, NodeType};
use crate::types::{Decode, ValueDecoder};

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
}

impl<'a> Reader<'a> {
    /// Opens `bytes` with the default [`DecodeOptions`].
    pub fn new(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        Reader::with_options(bytes, DecodeOptions::default())
    }

    /// Opens `bytes` under the given limits.
    pub fn with_options(bytes: &'a [u8], options: DecodeOptions) -> Result<Self, DecodeError> {
        Ok(Reader {
            view: FileView::open(bytes, &options)?,
            options,
        })
    }

    pub(crate) fn view(&self) -> &FileView<'a> {
        &self.view
    }

    /// The schema tree: every node's path, type, encoding and branch size.
    pub fn schema(&self) -> SchemaNode {
        let root = self.view.tree.root();
        // Keyed string branches name their source by its path.
        let mut paths = vec![String::new(); self.view.branches.len()];
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            if let Some(path) = node.branch().and_then(|index| paths.get_mut(index)) {
                *path = node.path();
            }
            stack.extend(node.children());
        }
        SchemaNode::build(root, &self.view.branches, &paths)
    }

    /// Checks the data against its checksum (as [`crate::decode`] does before decoding).
    pub fn verify(&self) -> Result<(), DecodeError> {
        self.view.verify_data(&self.options)
    }

    /// Decodes the file as `T`. A type that names only some of the fields reads only their
    /// branches; the others are skipped by their recorded sizes, never decompressed or parsed.
    pub fn decode<T: Decode>(&self) -> Result<T, DecodeError> {
        self.view.decode(&self.options)
    }

    /// Decodes every value at `path` (such as `features.[].properties.ADMIN`) into the collection
    /// `T`, such as `Vec<String>`: one item per value at the path, in file order, across all the
    /// sequences above it. Only the branches on the way there and below it are read.
    ///
    /// Segments are field and variant names (matched in canonical case), `[]` for the items of a
    /// sequence or array, `{key}` and `{value}` for a map's, and positions for tuple elements;
    /// options are stepped through. A path that does not exist is a
    /// [`PathNotFound`](DecodeErrorKind::PathNotFound) error.
    pub fn decode_path<T: Decode>(&self, path: &str) -> Result<T, DecodeError> {
        if self.view.rows != 1 {
            return Err(DecodeError::new(
                DecodeErrorKind::Corrupt,
                "",
                "the file does not hold one root value",
            ));
        }
        let mut ctx = self.view.context(&self.options);
        let (node, count) = locate(self.view.tree.root(), 1, path, &mut ctx)?;
        // The values at the path become the items of one sequence, so that any collection type
        // decodes them.
        let mut lengths = vec![int::IntTag::Fixed as u8];
        let width = (u64::BITS - (count as u64).leading_zeros()).div_ceil(8) as u8;
        lengths.push(width);
        lengths.extend_from_slice(&(count as u64).to_le_bytes()[..usize::from(width)]);
        let tree = self.view.tree.with_sequence_of(node);
        let mut branches = self.view.branches.clone();
        branches.push(&lengths);
        let ctx = DecodeContext::new(branches, self.view.budget(&self.options));
        let mut decoder: T::Decoder = ctx.decode_root(
            tree.root_of_sequence(),
            1,
            self.view.parallel(&self.options),
        )?;
        Ok(decoder.next())
    }
}

/// Walks `path` from `node`, which holds `count` values, to the node it names and the number of
/// values there, reading the presence, length and discriminant streams on the way.
fn locate<'t>(
    mut node: NodeRef<'t>,
    mut count: usize,
    path: &str,
    ctx: &mut DecodeContext<'_>,
) -> Result<(NodeRef<'t>, usize), DecodeError> {
    let not_found = |at: NodeRef<'_>, segment: &str| {
        DecodeError::new(
            DecodeErrorKind::PathNotFound,
            path,
            format!(
                "`{}` has no `{segment}` (it is {})",
                if at.path().is_empty() {
                    "the root"
                } else {
                    "the node"
                },
                at.node_type()
            ),
        )
    };
    for segment in path.split('.').filter(|s| !s.is_empty()) {
        // Options are transparent in paths: step to their present values first.
        while node.node_type() == NodeType::Option {
            count = ctx
                .bools(node, count)?
                .into_iter()
                .filter(|&present| present)
                .count();
            node = node.child(0).ok_or_else(|| not_found(node, segment))?;
        }
        let (child, child_count) = match (node.node_type(), segment) {
            (NodeType::Seq, "[]") => (node.child(0), ctx.lengths(node, count)?.1),
            (NodeType::Array, "[]") => {
                let total = usize::try_from(node.array_len())
                    .ok()
                    .and_then(|len| len.checked_mul(count));
                (
                    node.child(0),
                    total.ok_or_else(|| not_found(node, segment))?,
                )
            }
            (NodeType::Map, "{key}" | "{value}") => {
                let total = ctx.lengths(node, count)?.1;
                (node.child(usize::from(segment == "{value}")), total)
            }
            (NodeType::Tuple, index) => (index.parse().ok().and_then(|i| node.child(i)), count),
            (NodeType::Struct, name) => (node.find_child(name)?.and_then(|i| node.child(i)), count),
            (NodeType::Enum | NodeType::Union, name) => match node.find_child(name)? {
                Some(index) => {
                    let discriminants = ctx.discriminants(node, count)?;
                    (
                        node.child(index),
                        discriminants
                            .iter()
                            .filter(|&&d| d as usize == index)
                            .count(),
                    )
                }
                None => (None, 0),
            },
            _ => (None, 0),
        };
        node = child.ok_or_else(|| not_found(node, segment))?;
        count = child_count;
    }
    Ok((node, count))
}

/// One node of a file's schema, with its children.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaNode {
    /// The dotted path from the root.
    pub path: String,
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
}

impl SchemaNode {
    /// The schema below `node`; `paths` holds the path of every branch.
    fn build(node: NodeRef<'_>, branches: &[&[u8]], paths: &[String]) -> SchemaNode {
        let branch = node.branch().and_then(|index| branches.get(index)).copied();
        SchemaNode {
            path: node.path(),
            name: node.name().map(str::to_owned),
            node_type: node.node_type(),
            array_len: (node.node_type() == NodeType::Array).then(|| node.array_len()),
            encoding: branch.map(|bytes| describe_branch(node.node_type(), bytes, paths)),
            bytes: branch.map_or(0, <[u8]>::len),
            children: node
                .children()
                .map(|child| SchemaNode::build(child, branches, paths))
                .collect(),
        }
    }

    /// The node at `path` (spelled as in [`Reader::decode_path`], names matched canonically).
    pub fn find(&self, path: &str) -> Option<&SchemaNode> {
        let mut node = self;
        for segment in path.split('.').filter(|s| !s.is_empty()) {
            while node.node_type == NodeType::Option {
                node = node.children.first()?;
            }
            node = match node.node_type {
                NodeType::Tuple => node.children.get(segment.parse::<usize>().ok()?)?,
                NodeType::Map => node.children.get(usize::from(segment == "{value}"))?,
                NodeType::Seq | NodeType::Array => {
                    node.children.first().filter(|_| segment == "[]")?
                }
                _ => {
                    let wanted = canonical_name(segment);
                    node.children.iter().find(|c| {
                        c.name.as_deref().map(canonical_name).as_deref() == Some(&*wanted)
                    })?
                }
            };
        }
        Some(node)
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
            let label = match (&node.name, node.path.rsplit('.').next()) {
                (Some(name), _) => name.clone(),
                (None, Some(last)) if !node.path.is_empty() => last.to_owned(),
                _ => "(root)".to_owned(),
            };
            let node_type = match node.array_len {
                Some(len) => format!("array of {len}"),
                None => node.node_type.to_string(),
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
