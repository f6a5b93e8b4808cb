//! What decoders read from: the branches of one chunk, and the budget that bounds decoded size.

use std::any::Any;
use std::fmt;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::encodings::budget::Budget;
use crate::encodings::float::FloatWord;
use crate::encodings::int::Word;
use crate::encodings::string::StrColumn;
use crate::encodings::{bool as bools, float, int, string};
use crate::error::{corrupt, DecodeError};
use crate::schema::NodeRef;
use crate::types::ValueDecoder;

/// A leaf branch's decoding, put off by a planning pass so that it can run on another thread.
type Task<'a> = Box<dyn FnOnce() -> Box<dyn Any + Send> + Send + 'a>;

/// How a context answers requests for branches.
enum Mode<'a> {
    /// Every branch is decoded when it is asked for.
    Direct,
    /// A first pass of a type's decoders: the streams that shape the value (lengths, presence,
    /// discriminants) are decoded and kept; leaf branches are recorded as tasks and answered with
    /// no values, which decoders only store while they are built.
    Plan(Vec<(usize, Task<'a>)>),
    /// The second pass: branches come from what the tasks decoded, or are decoded when asked.
    Serve,
}

/// The branches of the chunk being decoded and the remaining decoding budget. Generated code
/// passes it along through `tree_buf::__private`.
pub struct DecodeContext<'a> {
    branches: Vec<&'a [u8]>,
    budget: Budget,
    mode: Mode<'a>,
    /// Decoded branches by index, each a boxed `Result<column, DecodeError>`.
    decoded: FxHashMap<usize, Box<dyn Any + Send>>,
}

impl fmt::Debug for DecodeContext<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DecodeContext")
            .field("branches", &self.branches.len())
            .field("budget", &self.budget)
            .finish_non_exhaustive()
    }
}

/// Below this many bytes of leaf branches to decode, tasks run on the calling thread: starting
/// others would cost more than it saves.
const PARALLEL_MIN_BYTES: usize = 1 << 18;

impl<'a> DecodeContext<'a> {
    pub(crate) fn new(branches: Vec<&'a [u8]>, budget: u64) -> Self {
        DecodeContext {
            branches,
            budget: Budget::new(budget),
            mode: Mode::Direct,
            decoded: FxHashMap::default(),
        }
    }

    /// Decodes one `D` from `node`, which holds `count` values. With `parallel`, the leaf branches
    /// the decoders ask for are decoded on rayon's threads first (when they are large enough for
    /// that to pay), then the decoders are built again from them.
    pub(crate) fn decode_root<T, D: ValueDecoder<T>>(
        mut self,
        node: NodeRef<'_>,
        count: usize,
        parallel: bool,
    ) -> Result<D, DecodeError> {
        if !parallel {
            return D::new(node, count, &mut self);
        }
        self.mode = Mode::Plan(Vec::new());
        drop(D::new(node, count, &mut self)?);
        let tasks = match std::mem::replace(&mut self.mode, Mode::Serve) {
            Mode::Plan(tasks) => tasks,
            Mode::Direct | Mode::Serve => Vec::new(),
        };
        let bytes: usize = (tasks.iter())
            .map(|&(index, _)| self.branches.get(index).map_or(0, |branch| branch.len()))
            .sum();
        let run = |(index, task): (usize, Task<'a>)| (index, task());
        let decoded: Vec<(usize, Box<dyn Any + Send>)> = if bytes >= PARALLEL_MIN_BYTES {
            tasks.into_par_iter().map(run).collect()
        } else {
            tasks.into_iter().map(run).collect()
        };
        self.decoded.extend(decoded);
        D::new(node, count, &mut self)
    }

    /// Takes `count` values of `bytes_each` bytes (at least one, so that zero-sized values still
    /// bound the work) from the budget, failing once it runs out. Call it before allocating.
    /// While planning, decoders make no values, so nothing is charged.
    pub fn charge(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
        bytes_each: usize,
    ) -> Result<(), DecodeError> {
        if let Mode::Plan(_) = self.mode {
            return Ok(());
        }
        self.charge_stream(node, count, bytes_each)
    }

    /// Charges for a stream's `count` values of `bytes_each` bytes, in every mode.
    fn charge_stream(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
        bytes_each: usize,
    ) -> Result<(), DecodeError> {
        self.budget
            .charge(count, bytes_each)
            .map_err(|e| e.at_path_if_unset(|| node.path()))
    }

    fn branch(&self, node: NodeRef<'_>) -> &'a [u8] {
        node.branch()
            .and_then(|index| self.branches.get(index))
            .copied()
            .unwrap_or_default()
    }

    /// What a task decoded for `node`'s branch, if it is there and of type `T`.
    fn take_decoded<T: 'static>(&mut self, node: NodeRef<'_>) -> Option<Result<T, DecodeError>> {
        if !matches!(self.mode, Mode::Serve) {
            return None;
        }
        let decoded = self.decoded.remove(&node.branch()?)?;
        let result = decoded.downcast::<Result<T, DecodeError>>().ok()?;
        Some((*result).map_err(|e| e.at_path_if_unset(|| node.path())))
    }

    /// Charges for `count` values of `bytes_each` bytes, then decodes them with `decode`.
    fn read<T>(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
        bytes_each: usize,
        decode: impl FnOnce(&[u8], usize, &mut Budget) -> Result<T, DecodeError>,
        empty: impl FnOnce() -> T,
    ) -> Result<T, DecodeError> {
        if count == 0 {
            return Ok(empty());
        }
        self.charge_stream(node, count, bytes_each)?;
        let branch = self.branch(node);
        decode(branch, count, &mut self.budget).map_err(|e| e.at_path_if_unset(|| node.path()))
    }

    /// A stream that shapes the value (lengths, presence, discriminants): decoded now in every
    /// mode, and kept while planning for the second pass.
    fn shaping<T: Clone + Send + 'static>(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
        bytes_each: usize,
        decode: impl FnOnce(&[u8], usize, &mut Budget) -> Result<T, DecodeError>,
        empty: impl FnOnce() -> T,
    ) -> Result<T, DecodeError> {
        if let Some(decoded) = self.take_decoded(node) {
            return decoded;
        }
        let values = self.read(node, count, bytes_each, decode, empty)?;
        if let (Mode::Plan(_), Some(index)) = (&self.mode, node.branch()) {
            let kept: Result<T, DecodeError> = Ok(values.clone());
            self.decoded.insert(index, Box::new(kept));
        }
        Ok(values)
    }

    /// A leaf branch: while planning, charged and recorded as a task, with no values for now;
    /// otherwise what the task decoded, or decoded now.
    fn leaf<T: Send + 'static>(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
        bytes_each: usize,
        decode: impl FnOnce(&[u8], usize, &mut Budget) -> Result<T, DecodeError> + Send + 'a,
        empty: impl FnOnce() -> T,
    ) -> Result<T, DecodeError> {
        if let Some(decoded) = self.take_decoded(node) {
            return decoded;
        }
        if let (Mode::Plan(_), Some(index)) = (&self.mode, node.branch()) {
            if count > 0 {
                self.charge_stream(node, count, bytes_each)?;
                let branch = self.branch(node);
                let mut budget = self.budget.clone();
                let task: Task<'a> = Box::new(move || Box::new(decode(branch, count, &mut budget)));
                if let Mode::Plan(tasks) = &mut self.mode {
                    tasks.push((index, task));
                }
            }
            return Ok(empty());
        }
        self.read(node, count, bytes_each, decode, empty)
    }

    /// The `count` presence flags of an option node.
    pub(crate) fn presence(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
    ) -> Result<Vec<bool>, DecodeError> {
        self.shaping(node, count, 1, bools::decode, Vec::new)
    }

    /// The `count` discriminants of an enum or union node.
    pub(crate) fn discriminants(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
    ) -> Result<Vec<u32>, DecodeError> {
        self.shaping(node, count, 4, int::decode::<u32>, Vec::new)
    }

    /// The `count` booleans of `node`'s branch.
    pub(crate) fn bools(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
    ) -> Result<Vec<bool>, DecodeError> {
        self.leaf(node, count, 1, bools::decode, Vec::new)
    }

    /// The `count` integer words of `node`'s branch.
    pub(crate) fn words<W: Word>(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
    ) -> Result<Vec<W>, DecodeError> {
        self.leaf(node, count, W::BYTES, int::decode::<W>, Vec::new)
    }

    /// The `count` float bit patterns of `node`'s branch.
    pub(crate) fn floats<W: FloatWord>(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
    ) -> Result<Vec<W>, DecodeError> {
        self.leaf(node, count, W::BYTES, float::decode::<W>, Vec::new)
    }

    /// The `count` strings of `node`'s branch. A keyed branch first decodes its source branch,
    /// which must come earlier and not be keyed itself, so that sources never chain.
    pub(crate) fn strings(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
    ) -> Result<StrColumn, DecodeError> {
        let source = string::keyed_source(self.branch(node)).map(|source| {
            let source = source?;
            let bytes = node
                .branch()
                .filter(|&own| source < own)
                .and_then(|_| self.branches.get(source).copied())
                .ok_or_else(|| {
                    corrupt(format!(
                        "a keyed string stream names branch {source}, not an earlier branch"
                    ))
                })?;
            match string::keyed_source(bytes) {
                Some(_) => Err(corrupt(format!(
                    "a keyed string stream names branch {source}, which is keyed too"
                ))),
                None => Ok(bytes),
            }
        });
        self.leaf(
            node,
            count,
            2 * size_of::<usize>(),
            move |bytes, count, budget| match source {
                None => string::decode(bytes, count, budget),
                Some(source) => {
                    let source = source?;
                    budget.charge(count, 2 * size_of::<usize>())?;
                    let keys = string::decode(source, count, budget)?;
                    string::decode_keyed(bytes, &keys, count, budget)
                }
            },
            StrColumn::default,
        )
    }

    /// The `count` lengths of a sequence or map node, and their sum.
    pub(crate) fn lengths(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
    ) -> Result<(Vec<u64>, usize), DecodeError> {
        let lengths = self.shaping(node, count, 8, int::decode::<u64>, Vec::new)?;
        let total = lengths
            .iter()
            .try_fold(0usize, |sum, &len| {
                usize::try_from(len)
                    .ok()
                    .and_then(|len| sum.checked_add(len))
            })
            .ok_or_else(|| {
                crate::error::limit_exceeded("the lengths add up to more than memory can address")
                    .at_path_if_unset(|| node.path())
            })?;
        Ok((lengths, total))
    }
}
