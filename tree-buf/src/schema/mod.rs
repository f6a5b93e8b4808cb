//! The schema: the tree of types written at the head of every file, and the paths that name its
//! nodes.

pub(crate) mod canonical;
mod path;
mod tag;
mod tree;

pub(crate) use path::{resolve, Route, SchemaView};
pub use path::{AsPath, Path, PathError, Segment};
pub use tag::NodeType;
pub use tree::NodeRef;
pub(crate) use tree::SchemaTree;
