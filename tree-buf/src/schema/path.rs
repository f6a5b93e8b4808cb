//! Paths name a place in the schema: `data.orders.[].nft.bids.[].status`.

use std::fmt;

/// One step from a node to one of its children.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Segment {
    /// A struct field, by name.
    Field(String),
    /// An enum variant, by name.
    Variant(String),
    /// The items of a sequence or array, written `[]`.
    Items,
    /// The keys of a map, written `{key}`.
    Keys,
    /// The values of a map, written `{value}`.
    Values,
    /// A tuple element, by position.
    Index(usize),
    /// The present values of an option; it adds nothing to the written path.
    Some,
}

impl fmt::Display for Segment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Segment::Field(name) | Segment::Variant(name) => f.write_str(name),
            Segment::Items => f.write_str("[]"),
            Segment::Keys => f.write_str("{key}"),
            Segment::Values => f.write_str("{value}"),
            Segment::Index(i) => write!(f, "{i}"),
            Segment::Some => Ok(()),
        }
    }
}

/// Renders segments as a dotted path, leaving out the ones that add nothing.
pub(crate) fn render<'a>(segments: impl IntoIterator<Item = &'a Segment>) -> String {
    let mut out = String::new();
    for segment in segments {
        if *segment == Segment::Some {
            continue;
        }
        if !out.is_empty() {
            out.push('.');
        }
        out.push_str(&segment.to_string());
    }
    out
}
