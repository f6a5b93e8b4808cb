//! What decoders read from: the branches of one chunk, and the budget that bounds decoded size.

use crate::encodings::string::StrColumn;
use crate::encodings::{bool as bools, int, string};
use crate::error::{limit_exceeded, DecodeError};
use crate::schema::NodeRef;

/// The branches of the chunk being decoded and the remaining decoding budget. Generated code
/// passes it along through `tree_buf::__private`.
#[derive(Debug)]
pub struct DecodeContext<'a> {
    branches: Vec<&'a [u8]>,
    budget: u64,
}

impl<'a> DecodeContext<'a> {
    pub(crate) fn new(branches: Vec<&'a [u8]>, budget: u64) -> Self {
        DecodeContext { branches, budget }
    }

    /// Takes `count` values of `bytes_each` bytes (at least one, so that zero-sized values still
    /// bound the work) from the budget, failing once it runs out. Call it before allocating.
    pub fn charge(&mut self, node: NodeRef<'_>, count: usize, bytes_each: usize) -> Result<(), DecodeError> {
        let cost = (count as u64).saturating_mul(bytes_each.max(1) as u64);
        if cost > self.budget {
            return Err(limit_exceeded(format!(
                "{count} values would exceed the remaining decoding budget of {} bytes; raise \
                 DecodeOptions::max_decoded_bytes to decode it",
                self.budget
            ))
            .at_path_if_unset(|| node.path()));
        }
        self.budget -= cost;
        Ok(())
    }

    fn branch(&self, node: NodeRef<'_>) -> &'a [u8] {
        node.branch().and_then(|index| self.branches.get(index)).copied().unwrap_or_default()
    }

    /// The `count` booleans of `node`'s branch.
    pub(crate) fn bools(&mut self, node: NodeRef<'_>, count: usize) -> Result<Vec<bool>, DecodeError> {
        if count == 0 {
            return Ok(Vec::new());
        }
        self.charge(node, count, 1)?;
        bools::decode(self.branch(node), count).map_err(|e| e.at_path_if_unset(|| node.path()))
    }

    /// The `count` integer words of `node`'s branch.
    pub(crate) fn words<W: int::Word>(&mut self, node: NodeRef<'_>, count: usize) -> Result<Vec<W>, DecodeError> {
        if count == 0 {
            return Ok(Vec::new());
        }
        self.charge(node, count, size_of::<W>())?;
        int::decode::<W>(self.branch(node), count).map_err(|e| e.at_path_if_unset(|| node.path()))
    }

    /// The `count` strings of `node`'s branch.
    pub(crate) fn strings(&mut self, node: NodeRef<'_>, count: usize) -> Result<StrColumn, DecodeError> {
        if count == 0 {
            return Ok(StrColumn::default());
        }
        let branch = self.branch(node);
        self.charge(node, count, size_of::<usize>() + size_of::<u64>())?;
        self.charge(node, branch.len(), 1)?;
        string::decode(branch, count).map_err(|e| e.at_path_if_unset(|| node.path()))
    }

    /// The `count` lengths of a sequence or map node, and their sum.
    pub(crate) fn lengths(&mut self, node: NodeRef<'_>, count: usize) -> Result<(Vec<u64>, usize), DecodeError> {
        let lengths = self.words::<u64>(node, count)?;
        let total = lengths
            .iter()
            .try_fold(0usize, |sum, &len| usize::try_from(len).ok().and_then(|len| sum.checked_add(len)))
            .ok_or_else(|| limit_exceeded("the lengths add up to more than memory can address").at_path_if_unset(|| node.path()))?;
        Ok((lengths, total))
    }
}
