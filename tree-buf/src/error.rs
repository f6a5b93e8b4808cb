//! Errors are values: every failure says what went wrong, where in the schema, and has a kind a
//! program can match on.

use std::fmt;

/// What kind of failure a [`DecodeError`] reports.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DecodeErrorKind {
    /// The bytes do not start with the tree-buf magic number.
    NotTreeBuf,
    /// A tree-buf file of a format version this library cannot read.
    UnsupportedVersion,
    /// The bytes end before the structure they describe does.
    Truncated,
    /// The bytes are inconsistent: a bad checksum, an unknown tag, a count that does not add up, an
    /// index out of range, invalid UTF-8 and the like.
    Corrupt,
    /// The file is well formed but holds data of another shape than the requested type, or a value
    /// that the requested type cannot hold without loss.
    SchemaMismatch,
    /// Decoding would exceed a limit of [`DecodeOptions`](crate::DecodeOptions): decoded size or
    /// nesting depth.
    LimitExceeded,
    /// A path given to a partial read does not exist in the file, or is not a valid path.
    PathNotFound,
}

impl DecodeErrorKind {
    fn describe(self) -> &'static str {
        match self {
            DecodeErrorKind::NotTreeBuf => "not a tree-buf file",
            DecodeErrorKind::UnsupportedVersion => "unsupported format version",
            DecodeErrorKind::Truncated => "truncated",
            DecodeErrorKind::Corrupt => "corrupt",
            DecodeErrorKind::SchemaMismatch => "schema mismatch",
            DecodeErrorKind::LimitExceeded => "limit exceeded",
            DecodeErrorKind::PathNotFound => "path not found",
        }
    }
}

/// Why decoding failed, and at which schema path.
///
/// ```
/// use tree_buf::{decode, encode, DecodeErrorKind};
///
/// let bytes = encode(&vec![1u32, 2, 300]);
/// let err = decode::<Vec<u8>>(&bytes).unwrap_err();
/// assert_eq!(err.kind(), DecodeErrorKind::SchemaMismatch);
/// assert_eq!(err.path(), "[]");
/// assert!(err.to_string().contains("u32"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    kind: DecodeErrorKind,
    path: String,
    message: String,
}

impl DecodeError {
    pub(crate) fn new(
        kind: DecodeErrorKind,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        DecodeError {
            kind,
            path: path.into(),
            message: message.into(),
        }
    }

    /// The kind of failure.
    pub fn kind(&self) -> DecodeErrorKind {
        self.kind
    }

    /// The schema path where decoding failed, such as `data.orders.[].nft.bids.[].status`; empty
    /// for the root and for failures outside the schema (the header, say).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// A human-readable description of the failure, without the kind and path.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The same error, placed at `path` if it has no path yet.
    pub(crate) fn at_path_if_unset(mut self, path: impl FnOnce() -> String) -> Self {
        if self.path.is_empty() {
            self.path = path();
        }
        self
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind.describe())?;
        if !self.path.is_empty() {
            write!(f, " at `{}`", self.path)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for DecodeError {}

/// A `Deserialize` implementation's own error, when it reads through `tree_buf::serde` or from a
/// [`Value`](crate::Value): the data does not fit the type.
impl serde::de::Error for DecodeError {
    fn custom<T: fmt::Display>(message: T) -> Self {
        DecodeError::new(DecodeErrorKind::SchemaMismatch, "", message.to_string())
    }
}

/// What kind of failure an [`EncodeError`] reports.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EncodeErrorKind {
    /// The value nests deeper than [`MAX_DEPTH`](crate::MAX_DEPTH) schema levels.
    DepthLimit,
    /// A value given through serde ([`crate::serde::to_vec`]) failed or cannot be stored: its
    /// `Serialize` implementation reported an error, or it changed shape where tree-buf needs one
    /// shape (a tuple of two elements where one of three was written before).
    Custom,
}

/// Why encoding failed, and at which schema path.
///
/// ```
/// # #[cfg(feature = "serde")] {
/// use tree_buf::{EncodeErrorKind, Value};
///
/// // Through serde, values take a schema level per level of nesting (the derive's recursive
/// // types and whole `Value`s do not).
/// let mut value = Value::Null;
/// for _ in 0..300 {
///     value = Value::Array(vec![value]);
/// }
/// let err = tree_buf::serde::to_vec(&value).unwrap_err();
/// assert_eq!(err.kind(), EncodeErrorKind::DepthLimit);
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodeError {
    kind: EncodeErrorKind,
    path: String,
    message: String,
}

impl EncodeError {
    pub(crate) fn new(
        kind: EncodeErrorKind,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        EncodeError {
            kind,
            path: path.into(),
            message: message.into(),
        }
    }

    /// The kind of failure.
    pub fn kind(&self) -> EncodeErrorKind {
        self.kind
    }

    /// The schema path where encoding failed.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// A human-readable description of the failure.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The same error, one step further from the root: `step` is prepended to its path.
    #[cfg(feature = "serde")]
    pub(crate) fn within(mut self, step: impl fmt::Display) -> Self {
        self.path = if self.path.is_empty() {
            step.to_string()
        } else {
            format!("{step}.{}", self.path)
        };
        self
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            EncodeErrorKind::DepthLimit => "nesting too deep",
            EncodeErrorKind::Custom => "cannot encode",
        };
        write!(f, "{kind}")?;
        if !self.path.is_empty() {
            write!(f, " at `{}`", self.path)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for EncodeError {}

/// The error for a value nested deeper than [`MAX_DEPTH`](crate::MAX_DEPTH) schema levels below
/// `path`.
pub(crate) fn too_deep(path: impl Into<String>) -> EncodeError {
    EncodeError::new(
        EncodeErrorKind::DepthLimit,
        path,
        format!(
            "the value nests deeper than the limit of {} schema levels",
            crate::MAX_DEPTH
        ),
    )
}

/// Shorthands for building decode errors inside the crate.
pub(crate) fn corrupt(message: impl Into<String>) -> DecodeError {
    DecodeError::new(DecodeErrorKind::Corrupt, "", message)
}

pub(crate) fn truncated(message: impl Into<String>) -> DecodeError {
    DecodeError::new(DecodeErrorKind::Truncated, "", message)
}

pub(crate) fn limit_exceeded(message: impl Into<String>) -> DecodeError {
    DecodeError::new(DecodeErrorKind::LimitExceeded, "", message)
}
