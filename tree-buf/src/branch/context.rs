//! What decoders read from: the branches of one chunk, and the budget that bounds decoded size.

use crate::encodings::budget::Budget;
use crate::encodings::float::FloatWord;
use crate::encodings::int::Word;
use crate::encodings::string::StrColumn;
use crate::encodings::{bool as bools, float, int, string};
use crate::error::{corrupt, DecodeError};
use crate::schema::NodeRef;

/// The branches of the chunk being decoded and the remaining decoding budget. Generated code
/// passes it along through `tree_buf::__private`.
#[derive(Debug)]
pub struct DecodeContext<'a> {
    branches: Vec<&'a [u8]>,
    budget: Budget,
}

impl<'a> DecodeContext<'a> {
    pub(crate) fn new(branches: Vec<&'a [u8]>, budget: u64) -> Self {
        DecodeContext {
            branches,
            budget: Budget::new(budget),
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

    fn branch(&self, node: NodeRef<'_>) -> &'a [u8] {
        node.branch()
            .and_then(|index| self.branches.get(index))
            .copied()
            .unwrap_or_default()
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
        self.charge(node, count, bytes_each)?;
        let branch = self.branch(node);
        decode(branch, count, &mut self.budget).map_err(|e| e.at_path_if_unset(|| node.path()))
    }

    /// The `count` booleans of `node`'s branch.
    pub(crate) fn bools(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
    ) -> Result<Vec<bool>, DecodeError> {
        self.read(node, count, 1, bools::decode, Vec::new)
    }

    /// The `count` integer words of `node`'s branch.
    pub(crate) fn words<W: Word>(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
    ) -> Result<Vec<W>, DecodeError> {
        self.read(node, count, W::BYTES, int::decode::<W>, Vec::new)
    }

    /// The `count` float bit patterns of `node`'s branch.
    pub(crate) fn floats<W: FloatWord>(
        &mut self,
        node: NodeRef<'_>,
        count: usize,
    ) -> Result<Vec<W>, DecodeError> {
        self.read(node, count, W::BYTES, float::decode::<W>, Vec::new)
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
        self.read(
            node,
            count,
            2 * size_of::<usize>(),
            |bytes, count, budget| match source {
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
        let lengths = self.words::<u64>(node, count)?;
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
