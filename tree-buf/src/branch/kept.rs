//! What a [`Reader`](crate::Reader) keeps of the columns it decoded, so that borrowed types can
//! borrow them: a string or byte branch that is not stored as it is (compressed, say) has no
//! bytes in the file to lend, so its decoded text is kept here instead, for as long as the reader.
//!
//! Each branch's column is kept once, however many times it is decoded: a reader asked again and
//! again for the same column holds one copy, so what it keeps is bounded by one decoding of each
//! branch, which the decoding budget limits.

use std::fmt;

use elsa::sync::FrozenMap;

/// Decoded text and bytes by branch, each added once and never moved or dropped until the whole
/// is: what it hands out lives as long as it does. Shared between the threads that decode leaves.
#[derive(Default)]
pub struct Kept {
    text: FrozenMap<usize, String>,
    bytes: FrozenMap<usize, Vec<u8>>,
}

impl Kept {
    /// Where the column of branch `branch` is kept.
    pub(crate) fn branch(&self, branch: usize) -> KeptBranch<'_> {
        KeptBranch { kept: self, branch }
    }
}

/// Where one branch's decoded column is kept.
#[derive(Clone, Copy)]
pub struct KeptBranch<'k> {
    kept: &'k Kept,
    branch: usize,
}

impl<'k> KeptBranch<'k> {
    /// Keeps `text`, the branch's decoded text, lending it for as long as the store lives; the
    /// copy kept before if the branch was decoded before (the same text).
    pub(crate) fn text(self, text: String) -> &'k str {
        self.kept.text.insert(self.branch, text)
    }

    /// Keeps `bytes`, the branch's decoded bytes, as [`Self::text`] keeps text.
    pub(crate) fn bytes(self, bytes: Vec<u8>) -> &'k [u8] {
        self.kept.bytes.insert(self.branch, bytes)
    }
}

impl fmt::Debug for Kept {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Kept")
            .field("texts", &self.text.len())
            .field("byte_columns", &self.bytes.len())
            .finish()
    }
}

impl fmt::Debug for KeptBranch<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeptBranch")
            .field("branch", &self.branch)
            .finish_non_exhaustive()
    }
}
