//! What decoders read from: the branches of one chunk, the budget that bounds decoded size, and
//! the leaf columns decoders asked for.
//!
//! Decoding takes one pass over a type's decoders:
//! - Building the decoders (`ValueDecoder::new`) decodes the streams that shape the value at once
//!   (presence flags, lengths, discriminants), since they give the counts below them.
//! - A leaf column (integers, floats, booleans, strings) is registered: its decoder gets a
//!   [`Leaf`] handle, charged to the budget then and there, and converted to the decoder's type
//!   by the decoding itself.
//! - On one thread, a leaf is decoded as it is registered. When the leaves may be spread over
//!   threads ([`DecodeContext::defer_leaves`]), they are only recorded, and
//!   [`DecodeContext::decode_leaves`] decodes all of them in one fallible batch, on rayon's threads
//!   when there is enough data, and fills the handles. Values are handed out only after that.
//!
//! Either way no count may depend on leaf values. A decoder that converts its values by a
//! conversion that can fail ([`crate::types::proxy`]) reads them while it is built: its leaves
//! are decoded as they are registered even when others wait ([`DecodeContext::eagerly`]), and if
//! they fail, a leaf that waits from before is run to see whether it fails first, as it would
//! have on one thread ([`DecodeContext::earlier_error`]).

use std::any::TypeId;
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

use crate::encodings::budget::Budget;
use crate::encodings::float::FloatWord;
use crate::encodings::int::Word;
use crate::encodings::string::DecodedStrings;
use crate::encodings::{bool as bools, float, int, recursion, string, Version};
use crate::error::{corrupt, limit_exceeded, DecodeError};
use crate::schema::{NodeRef, NodeType};

use super::{Kept, KeptBranch};

/// A leaf column a decoder registered: empty while the decoders are built, filled by the batch
/// before any value is handed out.
#[derive(Debug)]
pub struct Leaf<C> {
    /// Where the batch puts the column, until the first use takes it out.
    cell: Option<Arc<OnceLock<C>>>,
    column: C,
}

impl<C: Default> Leaf<C> {
    /// A column with no values, for a node that has none.
    pub(crate) fn empty() -> Self {
        Leaf::decoded(C::default())
    }

    /// A column decoded already.
    fn decoded(column: C) -> Self {
        Leaf { cell: None, column }
    }

    /// The decoded column. Asked for before a deferred batch has run (which decoders never do),
    /// it is empty.
    #[inline]
    pub(crate) fn column(&mut self) -> &mut C {
        if self.cell.is_some() {
            self.take_from_cell();
        }
        &mut self.column
    }

    /// The column, first taken from the batch's cell if `len` of it is no more than `index`: a
    /// decoder handing out value `index` then pays no more than the bounds check it makes anyway.
    #[inline]
    pub(crate) fn column_holding(&mut self, index: usize, len: impl FnOnce(&C) -> usize) -> &C {
        if index >= len(&self.column) {
            self.take_from_cell();
        }
        &self.column
    }

    /// The next item of an iterator column, first taken from the batch's cell once the column
    /// has none: a decoder handing out items pays no more than the check for the end.
    #[inline]
    pub(crate) fn next_item(&mut self) -> Option<C::Item>
    where
        C: Iterator,
    {
        match self.column.next() {
            Some(item) => Some(item),
            None => {
                self.take_from_cell();
                self.column.next()
            }
        }
    }

    #[cold]
    fn take_from_cell(&mut self) {
        if let Some(cell) = self.cell.take() {
            self.column = Arc::into_inner(cell)
                .and_then(OnceLock::into_inner)
                .unwrap_or_default();
        }
    }
}

/// The decoding of one registered leaf, run in the batch: it fills its handle.
type Task<'a> = Box<dyn FnOnce(&mut Budget) -> Result<(), DecodeError> + Send + 'a>;

/// A registered leaf column.
struct PendingLeaf<'a> {
    /// The schema node, by id, to name in errors.
    node: u32,
    /// The size of its branch, to decide whether the batch is worth spreading over threads.
    bytes: usize,
    task: Task<'a>,
}

/// The branches of the chunk being decoded, the remaining decoding budget, and the leaves
/// registered so far. Generated code passes it along through `tree_buf::__private`.
pub struct DecodeContext<'a> {
    branches: Vec<&'a [u8]>,
    /// The checksum of every branch, checked when the branch is read, where the file lists
    /// them (an archive's footer does).
    checksums: Vec<u32>,
    budget: Budget,
    /// Whether leaves wait for [`Self::decode_leaves`] instead of being decoded when registered.
    defer: bool,
    pending: Vec<PendingLeaf<'a>>,
    /// The number of values of the nodes [`Self::values_at`] has worked out, by node id.
    counts: HashMap<u32, usize>,
    /// By the id of an enum or union node: the number of its values these were worked out for,
    /// and how many of them each of its children holds (see [`Self::member_count`]).
    member_counts: HashMap<u32, (usize, Vec<usize>)>,
    /// The targets of recursion nodes read so far, by node id.
    recursions: HashMap<u32, Arc<Recursion>>,
    /// The pools of values that the anchors being built lend to recursion nodes below them: by
    /// target node id, the type of the values and the pool's address.
    pools: Vec<(u32, TypeId, usize)>,
    /// The deepest a recursive value may nest, from [`DecodeOptions::depth_limit`].
    ///
    /// [`DecodeOptions::depth_limit`]: crate::DecodeOptions::depth_limit
    depth_limit: usize,
    /// Where columns that the file does not hold as they are can be kept for borrowed types to
    /// borrow (a [`Reader`](crate::Reader)'s); without it, such types need the file's bytes.
    kept: Option<&'a Kept>,
    /// The parts of the values of the branches that keyed integer branches read so far, by
    /// source branch, each worked out once for all the branches keyed by it.
    source_parts: HashMap<usize, SourceParts<'a>>,
}

/// The source of keyed integer branches: its bytes, its node's type and number of values, and
/// the part of each of its values once a branch keyed by it has worked them out.
#[derive(Clone)]
struct SourceParts<'a> {
    bytes: &'a [u8],
    node_type: NodeType,
    count: usize,
    parts: Arc<OnceLock<Result<Arc<[u8]>, DecodeError>>>,
}

/// What a keyed integer branch reads its parts from: its source, and, for the present values of
/// an option, the option's presence flags, which pick the source values at their positions.
struct KeyedBy<'a> {
    source: SourceParts<'a>,
    presence: Option<Vec<bool>>,
}

impl KeyedBy<'_> {
    /// The part of each of the keyed branch's values.
    fn parts(&self, budget: &mut Budget) -> Result<Arc<[u8]>, DecodeError> {
        let parts = self.source.parts(budget)?;
        Ok(match &self.presence {
            None => parts,
            Some(presence) => (parts.iter().zip(presence))
                .filter_map(|(&part, &present)| present.then_some(part))
                .collect(),
        })
    }
}

impl SourceParts<'_> {
    /// The part of each of the source's values ([`int::keyed::parts_of`]), decoded by the first
    /// keyed branch that asks.
    fn parts(&self, budget: &mut Budget) -> Result<Arc<[u8]>, DecodeError> {
        let count = self.count;
        let decode = || -> Result<Arc<[u8]>, DecodeError> {
            fn parts<W: Word>(
                bytes: &[u8],
                count: usize,
                signed: bool,
                budget: &mut Budget,
            ) -> Result<Arc<[u8]>, DecodeError> {
                budget.charge(count, W::BYTES + 1)?;
                let words = int::decode::<W>(bytes, count, budget)?;
                Ok(int::keyed::parts_of(&words, signed).into())
            }
            let signed = self.node_type.integer_signedness() == Some(true);
            match self.node_type {
                NodeType::U8 | NodeType::I8 => parts::<u8>(self.bytes, count, signed, budget),
                NodeType::U16 | NodeType::I16 => parts::<u16>(self.bytes, count, signed, budget),
                NodeType::U32 | NodeType::I32 => parts::<u32>(self.bytes, count, signed, budget),
                NodeType::U64 | NodeType::I64 => parts::<u64>(self.bytes, count, signed, budget),
                _ => parts::<u128>(self.bytes, count, signed, budget),
            }
        };
        self.parts.get_or_init(decode).clone()
    }
}

/// How the values of a recursion target are laid out: its own (from its parent) and those of
/// every recursion node that returns to it, back to back, each after the values it holds.
#[derive(Debug)]
pub(crate) struct Recursion {
    /// The number of values from the target's parent.
    pub(crate) outer: usize,
    /// All the target's values.
    pub(crate) total: usize,
    /// The positions of the values from the parent, in order: those no value holds.
    pub(crate) roots: Vec<usize>,
    /// For each value, the position of the value holding it (always after it), or `usize::MAX`
    /// for the roots.
    parents: Vec<usize>,
    /// For each recursion node (by id), the positions of its values.
    positions: HashMap<u32, Vec<usize>>,
}

impl Recursion {
    /// The positions of the values of recursion node `node`, in order.
    pub(crate) fn positions_of(&self, node: NodeRef<'_>) -> &[usize] {
        self.positions.get(&node.id()).map_or(&[], Vec::as_slice)
    }
}

impl fmt::Debug for DecodeContext<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DecodeContext")
            .field("branches", &self.branches.len())
            .field("budget", &self.budget)
            .field("pending", &self.pending.len())
            .finish()
    }
}

/// Below this many bytes of leaf branches, the batch runs on the calling thread: starting others
/// would cost more than it saves.
const PARALLEL_MIN_BYTES: usize = 1 << 18;

impl<'a> DecodeContext<'a> {
    /// A context drawing on `budget`, which may be shared with other chunks, checking each
    /// branch it reads against `checksums` (unless empty), and refusing recursive values nested
    /// deeper than `depth_limit`.
    pub(crate) fn with_budget(
        branches: Vec<&'a [u8]>,
        budget: Budget,
        checksums: Vec<u32>,
        depth_limit: usize,
    ) -> Self {
        DecodeContext {
            branches,
            checksums,
            budget,
            defer: false,
            pending: Vec::new(),
            counts: HashMap::new(),
            member_counts: HashMap::new(),
            recursions: HashMap::new(),
            pools: Vec::new(),
            depth_limit,
            kept: None,
            source_parts: HashMap::new(),
        }
    }

    /// The context, keeping in `kept` the columns that borrowed types borrow but the file does
    /// not hold as they are.
    pub(crate) fn keeping_in(self, kept: &'a Kept) -> Self {
        DecodeContext {
            kept: Some(kept),
            ..self
        }
    }

    /// Where the column of `node`'s branch is kept for borrowed types, if anywhere.
    pub(crate) fn kept(&self, node: NodeRef<'_>) -> Option<KeptBranch<'a>> {
        self.kept
            .zip(node.branch())
            .map(|(kept, branch)| kept.branch(branch))
    }

    /// Makes the leaves registered from now on wait for [`Self::decode_leaves`], which may spread
    /// them over threads.
    pub(crate) fn defer_leaves(&mut self) {
        self.defer = true;
    }

    /// Runs `build` with leaves decoded as they are registered, even where they are deferred
    /// otherwise: for a decoder that must read its values before it is built (one that converts
    /// them by a conversion that can fail).
    pub fn eagerly<T>(&mut self, build: impl FnOnce(&mut Self) -> T) -> T {
        let defer = std::mem::replace(&mut self.defer, false);
        let built = build(self);
        self.defer = defer;
        built
    }

    /// The first error of the leaves deferred so far, which are run now, in the order they were
    /// registered: a decoder whose build fails while leaves wait (one that converts its values
    /// as it is built) reports what decoding them at once would have reported first. `tree` is
    /// any node of the schema, to name the failing one.
    pub(crate) fn earlier_error(&mut self, tree: NodeRef<'_>) -> Option<DecodeError> {
        let budget = &self.budget;
        std::mem::take(&mut self.pending)
            .into_iter()
            .find_map(|leaf| {
                let node = leaf.node;
                (leaf.task)(&mut budget.clone())
                    .err()
                    .map(|error| error.at_path_if_unset(|| tree.with_id(node).path()))
            })
    }

    /// Runs every deferred leaf's task, on rayon's threads if `parallel` and they are large
    /// enough; the first failure, in the order they were registered, is the error. `tree` is any
    /// node of the schema, to name the failing one.
    pub(crate) fn decode_leaves(
        self,
        tree: NodeRef<'_>,
        parallel: bool,
    ) -> Result<(), DecodeError> {
        let DecodeContext {
            budget, pending, ..
        } = self;
        let run = |leaf: PendingLeaf<'a>| {
            let node = leaf.node;
            (leaf.task)(&mut budget.clone()).map_err(|e| (node, e))
        };
        let bytes: usize = pending.iter().map(|leaf| leaf.bytes).sum();
        let parallel = parallel && pending.len() > 1 && bytes >= PARALLEL_MIN_BYTES;
        let outcomes = crate::parallel::map(pending, parallel, run);
        match outcomes.into_iter().find_map(Result::err) {
            Some((node, error)) => Err(error.at_path_if_unset(|| tree.with_id(node).path())),
            None => Ok(()),
        }
    }

    /// Takes `count` values of `bytes_each` bytes (at least one, so that zero-sized values still
    /// bound the work) from the budget, failing once it runs out. Call it before allocating.
    pub fn charge(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
        bytes_each: usize,
    ) -> Result<(), DecodeError> {
        self.budget
            .charge(count, bytes_each)
            .map_err(|e| e.at_path_if_unset(|| node.path()))
    }

    /// The bytes of `node`'s branch, checked against its checksum if the context has them.
    fn branch(&self, node: NodeRef<'_>) -> Result<&'a [u8], DecodeError> {
        match node.branch() {
            Some(index) => self
                .checked(index)
                .map_err(|e| e.at_path_if_unset(|| node.path())),
            None => Ok(&[]),
        }
    }

    /// The bytes of branch `index` (none past the end), checked against its checksum.
    fn checked(&self, index: usize) -> Result<&'a [u8], DecodeError> {
        let bytes = self.branches.get(index).copied().unwrap_or_default();
        match self.checksums.get(index) {
            Some(&crc) if crc32fast::hash(bytes) != crc => Err(corrupt(format!(
                "the checksum of branch {index} does not match"
            ))),
            _ => Ok(bytes),
        }
    }

    /// A stream that shapes the value (lengths, presence, discriminants): charged and decoded now.
    fn shaping<T: Default>(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
        bytes_each: usize,
        decode: impl FnOnce(&'a [u8], usize, &mut Budget) -> Result<T, DecodeError>,
    ) -> Result<T, DecodeError> {
        // The branch of a node with no values is never read (FORMAT.md, "Streams of no values").
        if count == 0 {
            return Ok(T::default());
        }
        self.charge(node, count, bytes_each)?;
        let branch = self.branch(node)?;
        decode(branch, count, &mut self.budget).map_err(|e| e.at_path_if_unset(|| node.path()))
    }

    /// Registers a leaf column of `count` values of `bytes_each` bytes: charged now, decoded from
    /// `node`'s branch by `decode` now, or in the batch if leaves are deferred.
    fn leaf<C: Default + Send + Sync + 'a>(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
        bytes_each: usize,
        decode: impl FnOnce(&'a [u8], usize, &mut Budget) -> Result<C, DecodeError> + Send + 'a,
    ) -> Result<Leaf<C>, DecodeError> {
        if count == 0 {
            return Ok(Leaf::empty());
        }
        self.charge(node, count, bytes_each)?;
        let branch = self.branch(node)?;
        if !self.defer {
            let column = decode(branch, count, &mut self.budget)
                .map_err(|e| e.at_path_if_unset(|| node.path()))?;
            return Ok(Leaf { cell: None, column });
        }
        let cell = Arc::new(OnceLock::new());
        let leaf = Leaf {
            cell: Some(Arc::clone(&cell)),
            column: C::default(),
        };
        self.pending.push(PendingLeaf {
            node: node.id(),
            bytes: branch.len(),
            task: Box::new(move |budget| {
                let _ = cell.set(decode(branch, count, budget)?);
                Ok(())
            }),
        });
        Ok(leaf)
    }

    /// The `count` presence flags of an option node.
    pub(crate) fn presence(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
    ) -> Result<Vec<bool>, DecodeError> {
        self.shaping(node, count, 1, bools::decode)
    }

    /// The presence flags of an option node with `count` values as packed bits, least
    /// significant first (Arrow's validity bitmaps): lent from the branch where it stores them
    /// so.
    pub(crate) fn presence_bits(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
    ) -> Result<Cow<'a, [u8]>, DecodeError> {
        self.shaping(node, count, 1, bools::decode_bits)
    }

    /// The `count` discriminants of an enum or union node.
    pub(crate) fn discriminants(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
    ) -> Result<Vec<u32>, DecodeError> {
        self.shaping(node, count, 4, int::decode::<u32>)
    }

    /// How many of the `count` values of an enum or union `node` are of its child `index`. The
    /// discriminants are read once for all its children, however many of them are asked about.
    pub(crate) fn member_count(
        &mut self,
        node: NodeRef<'_>,
        index: usize,
        count: usize,
    ) -> Result<usize, DecodeError> {
        if (self.member_counts.get(&node.id())).is_none_or(|(of, _)| *of != count) {
            let (_, counts) = self.discriminants_and_counts(node, count)?;
            self.member_counts.insert(node.id(), (count, counts));
        }
        let (_, counts) = &self.member_counts[&node.id()];
        Ok(counts.get(index).copied().unwrap_or(0))
    }

    /// The `count` discriminants of an enum or union node read as they are written, and how
    /// many values each of its children holds.
    pub(crate) fn discriminants_and_counts(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
    ) -> Result<(Vec<u32>, Vec<usize>), DecodeError> {
        let discriminants = self.discriminants(node, count)?;
        let variant_count = node.children().len();
        let mut counts = vec![0usize; variant_count];
        for &d in &discriminants {
            *counts.get_mut(d as usize).ok_or_else(|| {
                corrupt(format!(
                    "discriminant {d} is out of range for {variant_count} variants"
                ))
                .at_path_if_unset(|| node.path())
            })? += 1;
        }
        Ok((discriminants, counts))
    }

    /// The `count` lengths of a sequence or map node, and their sum.
    pub(crate) fn lengths(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
    ) -> Result<(Vec<u64>, usize), DecodeError> {
        let lengths = self.shaping(node, count, 8, int::decode::<u64>)?;
        let total = lengths
            .iter()
            .try_fold(0usize, |sum, &len| {
                usize::try_from(len)
                    .ok()
                    .and_then(|len| sum.checked_add(len))
            })
            .ok_or_else(|| {
                limit_exceeded("the lengths add up to more than memory can address")
                    .at_path_if_unset(|| node.path())
            })?;
        Ok((lengths, total))
    }

    /// The `count` booleans of `node`'s branch, made into a column by `then` when they
    /// are decoded.
    pub(crate) fn bools<C: Default + Send + Sync + 'a>(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
        then: impl FnOnce(Vec<bool>) -> Result<C, DecodeError> + Send + 'a,
    ) -> Result<Leaf<C>, DecodeError> {
        self.leaf(node, count, 1, move |bytes, count, budget| {
            then(bools::decode(bytes, count, budget)?)
        })
    }

    /// The `count` integer words of `node`'s branch, made into a column by `then` when they
    /// are decoded, which takes `extra_bytes_each` more a value than the words.
    pub(crate) fn words<W: Word, C: Default + Send + Sync + 'a>(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
        extra_bytes_each: usize,
        then: impl FnOnce(Vec<W>) -> Result<C, DecodeError> + Send + 'a,
    ) -> Result<Leaf<C>, DecodeError> {
        let bytes_each = W::BYTES + extra_bytes_each;
        let source = self.keyed_int_source(node, count)?;
        self.leaf(node, count, bytes_each, move |bytes, count, budget| {
            let words = match source {
                None => int::decode::<W>(bytes, count, budget)?,
                Some(keyed_by) => {
                    let parts = keyed_by.parts(budget)?;
                    int::keyed::decode::<W>(bytes, &parts, count, budget)?
                }
            };
            then(words)
        })
    }

    /// What `node`'s branch of `count` integers is keyed by, if it is keyed: an integer leaf's
    /// branch, not keyed itself (so that sources never chain), with as many values as the node
    /// or, when the node is the present values of an option, as the option.
    fn keyed_int_source(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
    ) -> Result<Option<KeyedBy<'a>>, DecodeError> {
        let Some(source) = int::keyed::source(self.branch(node)?) else {
            return Ok(None);
        };
        let at_node = |e: DecodeError| e.at_path_if_unset(|| node.path());
        (self.budget)
            .require(Version::KEYED_INTS, "a keyed integer stream")
            .map_err(at_node)?;
        let source = source.map_err(at_node)?;
        if node.node_type().integer_signedness().is_none() {
            return Err(at_node(corrupt(format!(
                "a keyed integer stream in the branch of a {} node",
                node.node_type()
            ))));
        }
        let source = match self.source_parts.get(&source) {
            Some(known) => known.clone(),
            None => {
                let known = self.int_source(node, source).map_err(at_node)?;
                self.source_parts.insert(source, known.clone());
                known
            }
        };
        if source.count == count {
            return Ok(Some(KeyedBy {
                source,
                presence: None,
            }));
        }
        // The present values of an option as many as the source's.
        let option = node
            .parent()
            .map(|(parent, _)| parent)
            .filter(|parent| parent.node_type() == NodeType::Option);
        if let Some(option) = option {
            if self.values_at(option)? == source.count {
                let presence = self.presence(option, source.count)?;
                return Ok(Some(KeyedBy {
                    source,
                    presence: Some(presence),
                }));
            }
        }
        Err(at_node(corrupt(format!(
            "a keyed integer stream of {count} values names a branch that holds {}",
            source.count
        ))))
    }

    /// The source branch `source` of `node`'s keyed integer branch: another integer leaf's
    /// branch, not keyed itself.
    fn int_source(
        &mut self,
        node: NodeRef<'_>,
        source: usize,
    ) -> Result<SourceParts<'a>, DecodeError> {
        let owner = (node.branch())
            .filter(|&own| own != source)
            .and_then(|_| node.owner_of_branch(source))
            .ok_or_else(|| {
                corrupt(format!(
                    "a keyed integer stream names branch {source}, not another branch"
                ))
            })?;
        let bytes = self.branch(owner)?;
        if owner.node_type().integer_signedness().is_none() {
            return Err(corrupt(format!(
                "a keyed integer stream names branch {source}, which holds {}, not integers",
                owner.node_type()
            )));
        }
        if int::keyed::source(bytes).is_some() {
            return Err(corrupt(format!(
                "a keyed integer stream names branch {source}, which is keyed too"
            )));
        }
        Ok(SourceParts {
            bytes,
            node_type: owner.node_type(),
            count: self.values_at(owner)?,
            parts: Arc::default(),
        })
    }

    /// The `count` float bit patterns of `node`'s branch, made into a column by `then` when they
    /// are decoded, which takes `extra_bytes_each` more a value than the words.
    pub(crate) fn floats<W: FloatWord, C: Default + Send + Sync + 'a>(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
        extra_bytes_each: usize,
        then: impl FnOnce(Vec<W>) -> Result<C, DecodeError> + Send + 'a,
    ) -> Result<Leaf<C>, DecodeError> {
        let bytes_each = W::BYTES + extra_bytes_each;
        self.leaf(node, count, bytes_each, move |bytes, count, budget| {
            then(float::decode::<W>(bytes, count, budget)?)
        })
    }

    /// The `count` strings of `node`'s branch, made into a column by `then` when they are
    /// decoded, which takes `extra_bytes_each` more a value. A keyed branch also decodes its source branch,
    /// which must come earlier and not be keyed itself, so that sources never chain.
    pub(crate) fn strings<C: Default + Send + Sync + 'a>(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
        extra_bytes_each: usize,
        then: impl FnOnce(DecodedStrings<'a>) -> Result<C, DecodeError> + Send + 'a,
    ) -> Result<Leaf<C>, DecodeError> {
        let source = match string::keyed_source(self.branch(node)?) {
            None => None,
            Some(source) => {
                (self.budget.require(Version::KEYED, "a keyed string stream"))
                    .map_err(|e| e.at_path_if_unset(|| node.path()))?;
                Some(self.keyed_source(node, count, source?)?)
            }
        };
        let bytes_each = 2 * size_of::<usize>() + extra_bytes_each;
        self.leaf(node, count, bytes_each, move |bytes, count, budget| {
            let column = match source {
                None => string::decode(bytes, count, budget)?,
                Some(source) => {
                    budget.charge(count, 2 * size_of::<usize>())?;
                    let keys = string::decode(source, count, budget)?;
                    string::decode_keyed(bytes, &keys, count, budget)?
                }
            };
            then(column)
        })
    }

    /// The `count` values of `node`'s branch of integers as bytes for as long as the context's
    /// bytes: lent from the branch if it holds `u8`s as they are, else made by `decode` (of
    /// `bytes_each` bytes a value while it works) and kept where the context keeps columns; an
    /// error if it keeps none.
    pub(crate) fn lent_bytes(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
        bytes_each: usize,
        decode: impl FnOnce(&[u8], usize, &mut Budget) -> Result<Vec<u8>, DecodeError> + Send + 'a,
    ) -> Result<Leaf<&'a [u8]>, DecodeError> {
        let kept = self.kept(node);
        let as_they_are = node.node_type() == NodeType::U8;
        self.leaf(node, count, bytes_each, move |branch, count, budget| {
            if let Some(bytes) = as_they_are
                .then(|| int::bytes_as_they_are(branch, count))
                .flatten()
            {
                return Ok(bytes);
            }
            let bytes = decode(branch, count, budget)?;
            kept.map(|kept| kept.bytes(bytes))
                .ok_or_else(|| string::not_lent("bytes"))
        })
    }

    /// The bytes of branch `source`, which `node`'s keyed string branch of `count` strings
    /// names: an earlier branch, of a string node with as many values, not keyed itself.
    fn keyed_source(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
        source: usize,
    ) -> Result<&'a [u8], DecodeError> {
        let owner = node
            .branch()
            .filter(|&own| source < own)
            .and_then(|_| node.owner_of_branch(source))
            .ok_or_else(|| {
                corrupt(format!(
                    "a keyed string stream names branch {source}, not an earlier branch"
                ))
                .at_path_if_unset(|| node.path())
            })?;
        let bytes = self.branch(owner)?;
        let problem = if owner.node_type() != NodeType::Str {
            Some(format!(
                "a keyed string stream names branch {source}, which holds {}, not strings",
                owner.node_type()
            ))
        } else if string::keyed_source(bytes).is_some() {
            Some(format!(
                "a keyed string stream names branch {source}, which is keyed too"
            ))
        } else {
            let values = self.values_at(owner)?;
            (values != count).then(|| {
                format!(
                    "a keyed string stream of {count} strings names branch {source}, \
                     which holds {values}"
                )
            })
        };
        match problem {
            Some(message) => Err(corrupt(message).at_path_if_unset(|| node.path())),
            None => Ok(bytes),
        }
    }

    /// How the values of `target`, a node that recursion nodes return to, are laid out, given
    /// the `outer` values its parent gives it; read once, checked whole: every value but the
    /// outer ones is held by exactly one value after it, and none nests deeper than the limit.
    pub(crate) fn recursion(
        &mut self,
        target: NodeRef<'_>,
        outer: usize,
    ) -> Result<Arc<Recursion>, DecodeError> {
        if let Some(known) = self.recursions.get(&target.id()) {
            return match known.outer == outer {
                true => Ok(Arc::clone(known)),
                false => Err(corrupt(format!(
                    "{outer} values reach a recursive node that was read with {}",
                    known.outer
                ))
                .at_path_if_unset(|| target.path())),
            };
        }
        let recursion = Arc::new(
            crate::stack::deeper(|| self.read_recursion(target, outer))
                .map_err(|e| e.at_path_if_unset(|| target.path()))?,
        );
        self.recursions.insert(target.id(), Arc::clone(&recursion));
        Ok(recursion)
    }

    /// The number of values of `node`, given the `outer` values its parent gives it: more if
    /// recursion nodes return to it.
    pub(crate) fn values_with_recursions(
        &mut self,
        node: NodeRef<'_>,
        outer: usize,
    ) -> Result<usize, DecodeError> {
        match outer > 0 && node.recursions().next().is_some() {
            true => Ok(self.recursion(node, outer)?.total),
            false => Ok(outer),
        }
    }

    /// The layout of `target` if [`Self::recursion`] has read it.
    pub(crate) fn known_recursion(&self, target: NodeRef<'_>) -> Option<Arc<Recursion>> {
        self.recursions.get(&target.id()).cloned()
    }

    fn read_recursion(
        &mut self,
        target: NodeRef<'_>,
        outer: usize,
    ) -> Result<Recursion, DecodeError> {
        self.budget
            .require(Version::RECURSION, "a recursion node")?;
        let mut total = outer;
        for node in target.recursions() {
            let count = recursion::count(self.branch(node)?)
                .map_err(|e| e.at_path_if_unset(|| node.path()))?;
            total = total.checked_add(count).ok_or_else(|| {
                limit_exceeded("the recursion counts add up to more than memory can address")
            })?;
        }
        self.charge(target, total, 3 * size_of::<usize>())?;
        let mut owners = HashMap::new();
        self.owners_below(target, target, (0..total).collect(), &mut owners)?;
        let mut parents = vec![usize::MAX; total];
        let mut positions = HashMap::new();
        for node in target.recursions() {
            let branch = self.branch(node)?;
            let held = recursion::decode(branch, total, &mut self.budget)
                .map_err(|e| e.at_path_if_unset(|| node.path()))?;
            let holders = owners.remove(&node.id()).unwrap_or_default();
            if holders.len() != held.len() {
                return Err(corrupt(format!(
                    "a recursion node holds {} values where its parents give {}",
                    held.len(),
                    holders.len()
                ))
                .at_path_if_unset(|| node.path()));
            }
            for (&value, &holder) in held.iter().zip(&holders) {
                let problem = if parents[value] != usize::MAX {
                    Some("is held twice")
                } else if value >= holder {
                    Some("is held by a value that does not come after it")
                } else {
                    None
                };
                if let Some(problem) = problem {
                    return Err(corrupt(format!("recursive value {value} {problem}"))
                        .at_path_if_unset(|| node.path()));
                }
                parents[value] = holder;
            }
            positions.insert(node.id(), held);
        }
        let roots: Vec<usize> = (0..total).filter(|&i| parents[i] == usize::MAX).collect();
        if roots.len() != outer {
            return Err(corrupt(format!(
                "{} recursive values are held by none, where {outer} come from the parent",
                roots.len()
            )));
        }
        // Depths from the roots down: every value's holder comes after it.
        let mut depths = vec![0usize; total];
        for value in (0..total).rev() {
            if let Some(&depth) = depths.get(parents[value]) {
                depths[value] = depth + 1;
                if depth + 1 > self.depth_limit {
                    return Err(DecodeError::new(
                        crate::DecodeErrorKind::LimitExceeded,
                        target.path(),
                        format!(
                            "a recursive value nests deeper than the limit of {} levels \
                             (DecodeOptions::depth_limit)",
                            self.depth_limit
                        ),
                    ));
                }
            }
        }
        Ok(Recursion {
            outer,
            total,
            roots,
            parents,
            positions,
        })
    }

    /// Works out, for every recursion node below `node` that returns to `target`, which value of
    /// `target` holds each of its values, given `owners`, the holder of each value of `node`.
    fn owners_below(
        &mut self,
        target: NodeRef<'_>,
        node: NodeRef<'_>,
        owners: Vec<usize>,
        found: &mut HashMap<u32, Vec<usize>>,
    ) -> Result<(), DecodeError> {
        if node.node_type() == NodeType::Recursion {
            if node.recursion_target().map(NodeRef::id) == Some(target.id()) {
                found.insert(node.id(), owners);
            }
            return Ok(());
        }
        if !node.holds_recursion() {
            return Ok(());
        }
        let owners = match node.id() != target.id() && node.recursions().next().is_some() {
            // A target of its own: its values are these, then those of its recursion nodes,
            // each held by a value after it.
            true => {
                let inner = self.recursion(node, owners.len())?;
                let mut all = vec![0; inner.total];
                for (&root, &owner) in inner.roots.iter().zip(&owners) {
                    all[root] = owner;
                }
                for value in (0..inner.total).rev() {
                    if let Some(&owner) = all.get(inner.parents[value]) {
                        all[value] = owner;
                    }
                }
                // Its values are built as the outer target's values ask for them, so they must
                // come in the order of the outer values that hold them.
                if all.windows(2).any(|pair| pair[0] > pair[1]) {
                    return Err(corrupt(
                        "the values of a recursive type nested in another's are out of order",
                    )
                    .at_path_if_unset(|| node.path()));
                }
                all
            }
            false => owners,
        };
        let count = owners.len();
        let child = |index: usize| node.child(index).unwrap_or_else(|| node.void());
        match node.node_type() {
            NodeType::Option => {
                let presence = self.presence(node, count)?;
                let present = (owners.iter().zip(presence))
                    .filter_map(|(&owner, present)| present.then_some(owner))
                    .collect();
                crate::stack::deeper(|| self.owners_below(target, child(0), present, found))
            }
            NodeType::Seq | NodeType::Map | NodeType::Array => {
                let (lengths, total) = match node.node_type() {
                    NodeType::Array => (vec![node.array_len(); count], node.array_items(count)?),
                    _ => self.lengths(node, count)?,
                };
                self.charge(node, total, size_of::<usize>())?;
                let items: Vec<usize> = (owners.iter().zip(lengths))
                    .flat_map(|(&owner, len)| std::iter::repeat_n(owner, len as usize))
                    .collect();
                for index in 0..node.children().len() {
                    let items = items.clone();
                    crate::stack::deeper(|| self.owners_below(target, child(index), items, found))?;
                }
                Ok(())
            }
            NodeType::Tuple | NodeType::Struct => {
                for index in 0..node.children().len() {
                    let owners = owners.clone();
                    crate::stack::deeper(|| {
                        self.owners_below(target, child(index), owners, found)
                    })?;
                }
                Ok(())
            }
            NodeType::Enum | NodeType::Union => {
                let (discriminants, _) = self.discriminants_and_counts(node, count)?;
                for index in 0..node.children().len() {
                    let variant = (owners.iter().zip(&discriminants))
                        .filter_map(|(&owner, &d)| (d as usize == index).then_some(owner))
                        .collect();
                    crate::stack::deeper(|| {
                        self.owners_below(target, child(index), variant, found)
                    })?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Lends the pool at `address`, of values of type `values`, to the recursion nodes that
    /// return to `target`, while `build` builds the decoders below it.
    pub(crate) fn lending_pool<R>(
        &mut self,
        target: NodeRef<'_>,
        values: TypeId,
        address: usize,
        build: impl FnOnce(&mut Self) -> R,
    ) -> R {
        self.pools.push((target.id(), values, address));
        let built = build(self);
        self.pools.pop();
        built
    }

    /// Whether the pool of `node`'s values is being lent: its anchor is building the decoder of
    /// all of them.
    pub(crate) fn lends_pool_for(&self, node: NodeRef<'_>) -> bool {
        self.pools.last().is_some_and(|&(id, ..)| id == node.id())
    }

    /// The address of the pool lent for the values of `target`, if its values are of type
    /// `values`; an error if none is lent or it holds another type.
    pub(crate) fn lent_pool(
        &self,
        node: NodeRef<'_>,
        target: NodeRef<'_>,
        values: TypeId,
    ) -> Result<usize, DecodeError> {
        match self.pools.iter().rev().find(|&&(id, ..)| id == target.id()) {
            Some(&(_, lent, address)) if lent == values => Ok(address),
            found => Err(DecodeError::new(
                crate::DecodeErrorKind::SchemaMismatch,
                node.path(),
                format!(
                    "the file's recursive type returns here to `{}`, which the type {}",
                    target.path(),
                    match found {
                        Some(_) => "reads as another type than this place",
                        None => "does not read through a pointer, sequence or map",
                    }
                ),
            )),
        }
    }

    /// The number of values of `node`, worked out from the root down by reading the streams on
    /// the way (presence, lengths, discriminants), as a keyed stream's source needs. The root
    /// holds one value, as in every file decoded (`rows` is 1).
    pub(crate) fn values_at(&mut self, node: NodeRef<'_>) -> Result<usize, DecodeError> {
        if let Some(&count) = self.counts.get(&node.id()) {
            return Ok(count);
        }
        let count = match node.parent() {
            None => self.values_with_recursions(node, 1)?,
            Some((parent, index)) => {
                let count = self.values_at(parent)?;
                let count = crate::reader::values_below(parent, index, count, self)?;
                self.values_with_recursions(node, count)?
            }
        };
        self.counts.insert(node.id(), count);
        Ok(count)
    }
}
