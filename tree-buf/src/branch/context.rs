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

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

use crate::encodings::budget::Budget;
use crate::encodings::float::FloatWord;
use crate::encodings::int::Word;
use crate::encodings::string::Strings;
use crate::encodings::{bool as bools, float, int, string, Version};
use crate::error::{corrupt, limit_exceeded, DecodeError};
use crate::schema::{NodeRef, NodeType};

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
    /// A context drawing on `budget`, which may be shared with other chunks, and checking each
    /// branch it reads against `checksums` (unless empty).
    pub(crate) fn with_budget(
        branches: Vec<&'a [u8]>,
        budget: Budget,
        checksums: Vec<u32>,
    ) -> Self {
        DecodeContext {
            branches,
            checksums,
            budget,
            defer: false,
            pending: Vec::new(),
            counts: HashMap::new(),
        }
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
        decode: impl FnOnce(&[u8], usize, &mut Budget) -> Result<T, DecodeError>,
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

    /// The `count` discriminants of an enum or union node.
    pub(crate) fn discriminants(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
    ) -> Result<Vec<u32>, DecodeError> {
        self.shaping(node, count, 4, int::decode::<u32>)
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
        self.leaf(node, count, bytes_each, move |bytes, count, budget| {
            then(int::decode::<W>(bytes, count, budget)?)
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
        then: impl FnOnce(Strings) -> Result<C, DecodeError> + Send + 'a,
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

    /// The `count` strings of `node`'s branch where they stand in the file, if the branch holds
    /// them as they are (a plain stream: not compressed, not keyed); `None` otherwise.
    #[cfg(feature = "serde")]
    pub(crate) fn strings_in_place(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
    ) -> Result<Option<(&'a str, Vec<usize>)>, DecodeError> {
        self.charge(node, count, size_of::<usize>())?;
        let branch = self.branch(node)?;
        string::decode_in_place(branch, count, &mut self.budget)
            .map_err(|e| e.at_path_if_unset(|| node.path()))
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

    /// The number of values of `node`, worked out from the root down by reading the streams on
    /// the way (presence, lengths, discriminants), as a keyed stream's source needs. The root
    /// holds one value, as in every file decoded (`rows` is 1).
    fn values_at(&mut self, node: NodeRef<'_>) -> Result<usize, DecodeError> {
        if let Some(&count) = self.counts.get(&node.id()) {
            return Ok(count);
        }
        let count = match node.parent() {
            None => 1,
            Some((parent, index)) => {
                let count = self.values_at(parent)?;
                crate::reader::values_below(parent, index, count, self)?
            }
        };
        self.counts.insert(node.id(), count);
        Ok(count)
    }
}
