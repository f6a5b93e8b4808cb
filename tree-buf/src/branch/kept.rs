//! What a [`Reader`](crate::Reader) keeps of the columns it decoded, so that borrowed types can
//! borrow them: a string or byte branch that is not stored as it is (compressed, say) has no
//! bytes in the file to lend, so its decoded text is kept here instead, for as long as the reader.

use std::fmt;

use elsa::sync::FrozenVec;

/// Decoded text and bytes, each added once and never moved or dropped until the whole is: what
/// it hands out lives as long as it does. Shared between the threads that decode leaves.
#[derive(Default)]
pub struct Kept {
    text: FrozenVec<String>,
    bytes: FrozenVec<Vec<u8>>,
}

impl Kept {
    /// Keeps `text`, lending it for as long as `self` lives.
    pub(crate) fn text(&self, text: String) -> &str {
        self.text.push_get(text)
    }

    /// Keeps `bytes`, lending them for as long as `self` lives.
    pub(crate) fn bytes(&self, bytes: Vec<u8>) -> &[u8] {
        self.bytes.push_get(bytes)
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
