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

/// What an error holds, boxed so that a `Result` carrying it stays as small as its value: a
/// decoder returns one per value read, and a wide error would make each return a copy.
#[derive(Clone, PartialEq, Eq)]
struct Details<Kind> {
    kind: Kind,
    path: String,
    message: String,
}

impl<Kind: fmt::Debug> Details<Kind> {
    /// Formats the error as a struct of its own name with the three fields, as if unboxed.
    fn debug(&self, name: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct(name)
            .field("kind", &self.kind)
            .field("path", &self.path)
            .field("message", &self.message)
            .finish()
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
#[derive(Clone, PartialEq, Eq)]
pub struct DecodeError(Box<Details<DecodeErrorKind>>);

impl fmt::Debug for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.debug("DecodeError", f)
    }
}

impl DecodeError {
    pub(crate) fn new(
        kind: DecodeErrorKind,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        DecodeError(Box::new(Details {
            kind,
            path: path.into(),
            message: message.into(),
        }))
    }

    /// The kind of failure.
    pub fn kind(&self) -> DecodeErrorKind {
        self.0.kind
    }

    /// The schema path where decoding failed, such as `data.orders.[].nft.bids.[].status`; empty
    /// for the root and for failures outside the schema (the header, say).
    pub fn path(&self) -> &str {
        &self.0.path
    }

    /// A human-readable description of the failure, without the kind and path.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The same error, placed at `path` if it has no path yet.
    pub(crate) fn at_path_if_unset(mut self, path: impl FnOnce() -> String) -> Self {
        if self.0.path.is_empty() {
            self.0.path = path();
        }
        self
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.kind.describe())?;
        if !self.0.path.is_empty() {
            write!(f, " at `{}`", self.0.path)?;
        }
        write!(f, ": {}", self.0.message)
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
#[derive(Clone, PartialEq, Eq)]
pub struct EncodeError(Box<Details<EncodeErrorKind>>);

impl fmt::Debug for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.debug("EncodeError", f)
    }
}

impl EncodeError {
    pub(crate) fn new(
        kind: EncodeErrorKind,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        EncodeError(Box::new(Details {
            kind,
            path: path.into(),
            message: message.into(),
        }))
    }

    /// The kind of failure.
    pub fn kind(&self) -> EncodeErrorKind {
        self.0.kind
    }

    /// The schema path where encoding failed.
    pub fn path(&self) -> &str {
        &self.0.path
    }

    /// A human-readable description of the failure.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The same error, one step further from the root: `step` is prepended to its path.
    #[cfg(feature = "serde")]
    pub(crate) fn within(mut self, step: impl fmt::Display) -> Self {
        self.0.path = if self.0.path.is_empty() {
            step.to_string()
        } else {
            format!("{step}.{}", self.0.path)
        };
        self
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.0.kind {
            EncodeErrorKind::DepthLimit => "nesting too deep",
            EncodeErrorKind::Custom => "cannot encode",
        };
        write!(f, "{kind}")?;
        if !self.0.path.is_empty() {
            write!(f, " at `{}`", self.0.path)?;
        }
        write!(f, ": {}", self.0.message)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Decoders and serde's visitors return a `Result` per value: an error one pointer wide keeps
    /// one of a small value in two registers.
    #[test]
    fn results_stay_as_small_as_their_values() {
        assert_eq!(size_of::<DecodeError>(), 8);
        assert_eq!(size_of::<EncodeError>(), 8);
        assert_eq!(size_of::<Result<(), EncodeError>>(), 8);
        assert!(size_of::<Result<u64, DecodeError>>() <= 16);
    }

    #[test]
    fn errors_keep_their_kind_path_and_message() {
        let error = corrupt("a bad tag").at_path_if_unset(|| "a.b".to_owned());
        assert_eq!(error.kind(), DecodeErrorKind::Corrupt);
        assert_eq!(error.path(), "a.b");
        assert_eq!(error.message(), "a bad tag");
        assert_eq!(error.to_string(), "corrupt at `a.b`: a bad tag");
        assert_eq!(
            format!("{error:?}"),
            r#"DecodeError { kind: Corrupt, path: "a.b", message: "a bad tag" }"#
        );
        let kept = error.clone().at_path_if_unset(|| "elsewhere".to_owned());
        assert_eq!(kept, error);
        let deep = format!("{:?}", too_deep("a"));
        assert!(
            deep.starts_with(r#"EncodeError { kind: DepthLimit, path: "a", message: "#),
            "{deep}"
        );
    }
}
