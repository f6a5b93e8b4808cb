//! The schema as read back from a file: an arena of nodes in pre-order.
//!
//! ```text
//! node := tag:u8 body
//!   Void, Unit, Bool, U8..I128, F32, F64, Char, Str:   (no body)
//!   Option:  node                        the present values
//!   Seq:     node                        the items
//!   Array:   len:varint node             the items
//!   Map:     node node                   keys, values
//!   Tuple:   n:varint node{n}
//!   Struct:  n:varint (name node){n}     name := len:varint utf8
//!   Enum:    n:varint (name node){n}
//!   Union:   n:varint (name node){n}
//!   Recursion: up:varint                 the ancestor `up` levels above, whose values these are
//! ```

use std::borrow::Cow;
use std::ops::Range;

use super::canonical::canonical_name;
use super::path::{Path, SchemaView, Segment};
use super::tag::NodeType;
use crate::encodings::bytes::ByteReader;
use crate::error::{corrupt, DecodeError, DecodeErrorKind};
use crate::options::MAX_DEPTH;

#[derive(Debug)]
pub(crate) struct Node {
    pub(crate) node_type: NodeType,
    parent: Option<u32>,
    /// The step from the parent; none for the root and the present values of an option, which
    /// add nothing to the path.
    step: Option<Step>,
    /// Where this node's children are listed in [`SchemaTree::child_ids`].
    children: Range<u32>,
    pub(crate) branch: Option<usize>,
    pub(crate) array_len: u64,
    /// The ancestor a recursion node stands for.
    target: Option<u32>,
}

/// How a node's parent reaches it: a [`Segment`] whose name, if it has one, lies in
/// [`SchemaTree::names`], so that parsing allocates nothing per name.
#[derive(Debug, Clone)]
enum Step {
    Items,
    Keys,
    Values,
    Index(usize),
    /// A field, variant or member name as written, and its canonical spelling (for matching),
    /// the same range where the two agree.
    Name {
        written: Range<usize>,
        canonical: Range<usize>,
    },
}

/// The parsed schema of a file.
#[derive(Debug)]
pub(crate) struct SchemaTree {
    nodes: Vec<Node>,
    /// Every name of the schema back to back, each followed by its canonical spelling where
    /// that differs.
    names: String,
    /// The children of every node, each node's in one run (so that parsing allocates nothing
    /// per node).
    child_ids: Vec<u32>,
    branch_count: usize,
    /// Every recursion node as (its target, itself), by target.
    recursions: Vec<(u32, u32)>,
}

impl SchemaTree {
    /// Parses the schema section; `bytes` must hold exactly one root node.
    pub(crate) fn parse(bytes: &[u8]) -> Result<SchemaTree, DecodeError> {
        /// The most nodes reserved before parsing: a schema claiming to be larger must hold
        /// them to make the tree grow, so a hostile schema length reserves no more than this.
        const MAX_RESERVED_NODES: usize = 4096;
        // Every node takes at least a byte of the schema, most of them several (a name and its
        // length): sized for a node in every four bytes and the spare one, the tree rarely grows
        // while it parses.
        let likely_nodes = (bytes.len() / 4 + 3).min(MAX_RESERVED_NODES);
        let mut tree = SchemaTree {
            nodes: Vec::with_capacity(likely_nodes),
            names: String::new(),
            child_ids: Vec::with_capacity(likely_nodes),
            branch_count: 0,
            recursions: Vec::new(),
        };
        let mut reader = ByteReader::new(bytes);
        tree.parse_node(
            &mut reader,
            None,
            None,
            0,
            &mut Vec::with_capacity(likely_nodes),
        )?;
        reader.finish("the schema")?;
        tree.recursions = (tree.nodes.iter().enumerate())
            .filter_map(|(id, node)| Some((node.target?, id as u32)))
            .collect();
        tree.recursions.sort_unstable();
        // A spare node that stands for any absent part of the schema.
        tree.nodes.push(Node {
            node_type: NodeType::Void,
            parent: None,
            step: None,
            children: 0..0,
            branch: None,
            array_len: 0,
            target: None,
        });
        Ok(tree)
    }

    fn parse_node(
        &mut self,
        reader: &mut ByteReader<'_>,
        parent: Option<u32>,
        step: Option<Step>,
        depth: usize,
        pending: &mut Vec<u32>,
    ) -> Result<u32, DecodeError> {
        crate::stack::deeper(|| self.parse_node_here(reader, parent, step, depth, pending))
    }

    fn parse_node_here(
        &mut self,
        reader: &mut ByteReader<'_>,
        parent: Option<u32>,
        step: Option<Step>,
        depth: usize,
        pending: &mut Vec<u32>,
    ) -> Result<u32, DecodeError> {
        let child_path = |tree: &SchemaTree| -> String {
            let mut path = parent.map_or_else(Path::root, |p| tree.path_of(p));
            path.extend(step.as_ref().map(|step| tree.segment(step)));
            path.to_string()
        };
        if depth >= MAX_DEPTH {
            return Err(DecodeError::new(
                DecodeErrorKind::LimitExceeded,
                child_path(self),
                format!("the schema nests deeper than the limit of {MAX_DEPTH} levels"),
            ));
        }
        let tag = reader.u8()?;
        let node_type = NodeType::from_tag(tag).ok_or_else(|| {
            corrupt(format!("unknown schema tag {tag}")).at_path_if_unset(|| child_path(self))
        })?;
        let id = self.nodes.len() as u32;
        let branch = node_type.has_branch().then(|| {
            self.branch_count += 1;
            self.branch_count - 1
        });
        self.nodes.push(Node {
            node_type,
            parent,
            step,
            children: 0..0,
            branch,
            array_len: 0,
            target: None,
        });
        let path = |tree: &SchemaTree| tree.path_of(id).to_string();
        // This node's children gather at the end of `pending` (the nodes below them have moved
        // theirs to `child_ids` by the time they return), then move to `child_ids` in one run.
        let first_pending = pending.len();
        let mut child = |tree: &mut SchemaTree, reader: &mut ByteReader<'_>, segment| {
            let child = tree.parse_node(reader, Some(id), segment, depth + 1, pending)?;
            pending.push(child);
            Ok::<(), DecodeError>(())
        };
        match node_type {
            NodeType::Option => child(self, reader, None)?,
            NodeType::Seq => child(self, reader, Some(Step::Items))?,
            NodeType::Array => {
                self.nodes[id as usize].array_len = reader.varint()?;
                child(self, reader, Some(Step::Items))?;
            }
            NodeType::Map => {
                child(self, reader, Some(Step::Keys))?;
                child(self, reader, Some(Step::Values))?;
            }
            NodeType::Tuple => {
                let len = reader.count(1)?;
                for index in 0..len {
                    child(self, reader, Some(Step::Index(index)))?;
                }
            }
            NodeType::Recursion => {
                let up = reader.varint()?;
                if up == 0 || up > depth as u64 {
                    return Err(corrupt(format!(
                        "a recursion goes {up} levels up from a node {depth} levels deep"
                    ))
                    .at_path_if_unset(|| path(self)));
                }
                let mut target = id;
                for _ in 0..up {
                    target = self.nodes[target as usize].parent.unwrap_or(target);
                }
                self.nodes[id as usize].target = Some(target);
            }
            NodeType::Struct | NodeType::Enum | NodeType::Union => {
                let len = reader.count(2)?;
                if self.names.capacity() == 0 {
                    // The names (and their canonical spellings, which are rarely longer) lie
                    // in what is left of the schema.
                    self.names.reserve(reader.remaining());
                }
                for _ in 0..len {
                    let name = std::str::from_utf8(reader.prefixed()?).map_err(|_| {
                        corrupt("a name in the schema is not UTF-8").at_path_if_unset(|| path(self))
                    })?;
                    let step = self.name_step(name);
                    child(self, reader, Some(step))?;
                }
                // A name written twice would leave one of the two children without a path of
                // its own; no writer does that.
                let mut names: Vec<&str> = (pending[first_pending..].iter())
                    .filter_map(|&child| NodeRef::at(self, child).name())
                    .collect();
                names.sort_unstable();
                if let Some(twice) = names.windows(2).find(|pair| pair[0] == pair[1]) {
                    return Err(corrupt(format!("two children are named `{}`", twice[0]))
                        .at_path_if_unset(|| path(self)));
                }
            }
            _ => {}
        }
        let start = self.child_ids.len() as u32;
        self.child_ids.extend(pending.drain(first_pending..));
        self.nodes[id as usize].children = start..self.child_ids.len() as u32;
        Ok(id)
    }

    pub(crate) fn root(&self) -> NodeRef<'_> {
        NodeRef::at(self, 0)
    }

    /// A node that stands for an absent part of the schema.
    pub(crate) fn void(&self) -> NodeRef<'_> {
        NodeRef::at(self, self.nodes.len() as u32 - 1)
    }

    pub(crate) fn branch_count(&self) -> usize {
        self.branch_count
    }

    /// The node that owns each branch, in branch order.
    pub(crate) fn branch_owners(&self) -> Vec<NodeRef<'_>> {
        let mut owners = vec![self.void(); self.branch_count];
        for (id, node) in self.nodes.iter().enumerate() {
            if let Some(owner) = node.branch.and_then(|branch| owners.get_mut(branch)) {
                *owner = NodeRef::at(self, id as u32);
            }
        }
        owners
    }

    /// The step to a child named `name`, whose spellings are added to [`Self::names`].
    fn name_step(&mut self, name: &str) -> Step {
        let start = self.names.len();
        self.names.push_str(name);
        let written = start..self.names.len();
        let canonical = match canonical_name(name) {
            Cow::Borrowed(_) => written.clone(),
            Cow::Owned(canonical) => {
                self.names.push_str(&canonical);
                written.end..self.names.len()
            }
        };
        Step::Name { written, canonical }
    }

    /// The path segment that `step` stands for.
    fn segment(&self, step: &Step) -> Segment {
        match step {
            Step::Items => Segment::Items,
            Step::Keys => Segment::Keys,
            Step::Values => Segment::Values,
            &Step::Index(index) => Segment::Index(index),
            Step::Name { written, .. } => Segment::Name(self.names[written.clone()].to_owned()),
        }
    }

    /// The path from the root to node `id`.
    fn path_of(&self, mut id: u32) -> Path {
        let mut segments = Vec::new();
        while let Some(parent) = self.nodes[id as usize].parent {
            segments.extend(
                self.nodes[id as usize]
                    .step
                    .as_ref()
                    .map(|step| self.segment(step)),
            );
            id = parent;
        }
        segments.reverse();
        Path::from(segments)
    }
}

/// A node of the file's schema, as decoders see it.
#[derive(Debug, Clone, Copy)]
pub struct NodeRef<'a> {
    tree: &'a SchemaTree,
    id: u32,
    /// Set when this stands not for node `id` but for an array of that many of its values,
    /// outside the file's tree: what [`crate::Reader::decode_path`] decodes its collection from.
    gathered: Option<u64>,
}

impl<'a> NodeRef<'a> {
    fn at(tree: &'a SchemaTree, id: u32) -> NodeRef<'a> {
        NodeRef {
            tree,
            id,
            gathered: None,
        }
    }

    /// An array of `count` values of this node, in order: it has no branch and this node as its
    /// items, so that a collection type decodes every value at a path from it.
    pub(crate) fn gathered(self, count: usize) -> NodeRef<'a> {
        NodeRef {
            gathered: Some(count as u64),
            ..self
        }
    }

    fn node(self) -> &'a Node {
        &self.tree.nodes[self.id as usize]
    }

    /// The type of this node.
    pub fn node_type(self) -> NodeType {
        match self.gathered {
            Some(_) => NodeType::Array,
            None => self.node().node_type,
        }
    }

    /// The path from the root to this node (to the node whose values it gathers).
    pub(crate) fn schema_path(self) -> Path {
        self.tree.path_of(self.id)
    }

    /// The dotted path from the root to this node, as [`Path`] writes it.
    pub fn path(self) -> String {
        self.schema_path().to_string()
    }

    pub(crate) fn branch(self) -> Option<usize> {
        match self.gathered {
            Some(_) => None,
            None => self.node().branch,
        }
    }

    /// This node's place in its tree, for [`Self::with_id`].
    pub(crate) fn id(self) -> u32 {
        self.id
    }

    /// The node of the same tree whose [`Self::id`] is `id`.
    pub(crate) fn with_id(self, id: u32) -> NodeRef<'a> {
        NodeRef {
            tree: self.tree,
            id: id.min(self.tree.nodes.len() as u32 - 1),
            gathered: None,
        }
    }

    pub(crate) fn array_len(self) -> u64 {
        self.gathered.unwrap_or(self.node().array_len)
    }

    /// The items of `count` values of this array node, checked to fit in memory.
    pub(crate) fn array_items(self, count: usize) -> Result<usize, DecodeError> {
        usize::try_from(self.array_len())
            .ok()
            .and_then(|len| len.checked_mul(count))
            .ok_or_else(|| {
                DecodeError::new(
                    DecodeErrorKind::LimitExceeded,
                    self.path(),
                    "the array items add up to more than memory can address",
                )
            })
    }

    fn child_count(self) -> usize {
        match self.gathered {
            Some(_) => 1,
            None => self.node().children.len(),
        }
    }

    /// The child at `index`, which must be below [`Self::child_count`].
    fn nth_child(self, index: usize) -> NodeRef<'a> {
        let id = match self.gathered {
            Some(_) => self.id,
            None => self.tree.child_ids[self.node().children.start as usize + index],
        };
        NodeRef::at(self.tree, id)
    }

    /// The child at `index`: the only child of options, sequences and arrays; keys (0) and
    /// values (1) of maps; elements, fields and variants in order.
    pub(crate) fn child(self, index: usize) -> Option<NodeRef<'a>> {
        (index < self.child_count()).then(|| self.nth_child(index))
    }

    pub(crate) fn children(self) -> impl ExactSizeIterator<Item = NodeRef<'a>> {
        (0..self.child_count()).map(move |index| self.nth_child(index))
    }

    /// The field or variant name by which the parent reaches this node, as written.
    pub(crate) fn name(self) -> Option<&'a str> {
        match (self.gathered, &self.node().step) {
            (None, Some(Step::Name { written, .. })) => Some(&self.tree.names[written.clone()]),
            _ => None,
        }
    }

    /// The field or variant name by which the parent reaches this node, in canonical form.
    fn canonical_name(self) -> Option<&'a str> {
        match (self.gathered, &self.node().step) {
            (None, Some(Step::Name { canonical, .. })) => Some(&self.tree.names[canonical.clone()]),
            _ => None,
        }
    }

    /// The index of the child whose name matches `name` canonically; two matches are an error.
    pub(crate) fn find_child(self, name: &str) -> Result<Option<usize>, DecodeError> {
        let wanted = canonical_name(name);
        let mut found = None;
        for (index, child) in self.children().enumerate() {
            if child.canonical_name() == Some(&*wanted) {
                if found.is_some() {
                    return Err(DecodeError::new(
                        DecodeErrorKind::Corrupt,
                        self.path(),
                        format!("two children are named `{wanted}` in canonical form"),
                    ));
                }
                found = Some(index);
            }
        }
        Ok(found)
    }

    /// The parent of this node and this node's index among its children; `None` for the root.
    pub(crate) fn parent(self) -> Option<(NodeRef<'a>, usize)> {
        let parent = NodeRef::at(self.tree, self.node().parent?);
        let index = parent.children().position(|child| child.id == self.id)?;
        Some((parent, index))
    }

    /// The node of the same tree that owns branch `branch`, if any.
    pub(crate) fn owner_of_branch(self, branch: usize) -> Option<NodeRef<'a>> {
        let id = self
            .tree
            .nodes
            .iter()
            .position(|node| node.branch == Some(branch))?;
        Some(NodeRef::at(self.tree, id as u32))
    }

    /// The ancestor whose values a recursion node's values are.
    pub(crate) fn recursion_target(self) -> Option<NodeRef<'a>> {
        match self.gathered {
            Some(_) => None,
            None => Some(NodeRef::at(self.tree, self.node().target?)),
        }
    }

    /// The recursion nodes whose values are this node's, in schema order.
    pub(crate) fn recursions(self) -> impl Iterator<Item = NodeRef<'a>> {
        let recursions = match self.gathered {
            Some(_) => &[][..],
            None => {
                let all = &self.tree.recursions;
                let start = all.partition_point(|&(target, _)| target < self.id);
                let end = all.partition_point(|&(target, _)| target <= self.id);
                &all[start..end]
            }
        };
        recursions
            .iter()
            .map(move |&(_, id)| NodeRef::at(self.tree, id))
    }

    /// Whether a recursion node lies at or below this node.
    pub(crate) fn holds_recursion(self) -> bool {
        let below = self.subtree();
        (self.tree.recursions.iter()).any(|&(_, node)| below.contains(&node))
    }

    /// A recursion node at or below this node whose target lies above it, if any.
    pub(crate) fn recursion_from_above(self) -> Option<NodeRef<'a>> {
        let below = self.subtree();
        // Targets are ancestors of their recursion nodes: one numbered before this node is one
        // of its ancestors.
        (self.tree.recursions.iter())
            .find(|&&(target, node)| below.contains(&node) && target < self.id)
            .map(|&(_, node)| NodeRef::at(self.tree, node))
    }

    /// The branches of this node and of the nodes below it.
    pub(crate) fn subtree_branches(self) -> impl Iterator<Item = usize> + 'a {
        let tree = self.tree;
        self.subtree()
            .filter_map(move |id| tree.nodes[id as usize].branch)
    }

    /// The ids of this node and those below it: nodes are numbered in pre-order, so a node's
    /// subtree runs to its last descendant.
    fn subtree(self) -> std::ops::RangeInclusive<u32> {
        let mut last = self.id;
        while let Some(child) = self.tree.nodes[last as usize].children.clone().next_back() {
            last = self.tree.child_ids[child as usize];
        }
        self.id..=last
    }

    /// The spare void node of the same tree.
    pub(crate) fn void(self) -> NodeRef<'a> {
        self.tree.void()
    }

    /// An error for a node whose type does not fit the type being decoded.
    pub fn mismatch(self, expected: &str) -> DecodeError {
        DecodeError::new(
            DecodeErrorKind::SchemaMismatch,
            self.path(),
            format!(
                "the file has {} here, the type expects {expected}",
                self.node_type()
            ),
        )
    }
}

impl<'a> SchemaView<'a> for NodeRef<'a> {
    fn node_type(self) -> NodeType {
        NodeRef::node_type(self)
    }

    fn child_count(self) -> usize {
        NodeRef::child_count(self)
    }

    fn child(self, index: usize) -> Option<Self> {
        NodeRef::child(self, index)
    }

    fn name(self) -> Option<&'a str> {
        NodeRef::name(self)
    }

    fn canonical_name(self) -> Option<Cow<'a, str>> {
        NodeRef::canonical_name(self).map(Cow::Borrowed)
    }
}
