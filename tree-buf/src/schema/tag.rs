//! The type tags of schema nodes, as written in the file.

use std::fmt;

/// The type of a schema node.
///
/// Leaves (`Bool` through `Str`) hold values; the others arrange their children. `Void` stands for
/// a place the writer never saw a value in (the items of sequences that were all empty, say): it
/// holds nothing and reads as any type.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeType {
    /// No value was ever written here.
    Void,
    /// `()`, unit structs, unit variants, `PhantomData`.
    Unit,
    /// `bool`.
    Bool,
    /// `u8`.
    U8,
    /// `u16`.
    U16,
    /// `u32`.
    U32,
    /// `u64` and `usize`.
    U64,
    /// `u128`.
    U128,
    /// `i8`.
    I8,
    /// `i16`.
    I16,
    /// `i32`.
    I32,
    /// `i64` and `isize`.
    I64,
    /// `i128`.
    I128,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// `char`.
    Char,
    /// UTF-8 strings.
    Str,
    /// `Option<T>`: a presence stream, and the present values in the child.
    Option,
    /// Variable-length sequences (`Vec<T>`, sets, slices): a length stream, and all items in the
    /// child.
    Seq,
    /// Fixed-length arrays `[T; N]`: all items in the child, no length stream.
    Array,
    /// Maps: a length stream, keys in the first child, values in the second.
    Map,
    /// Tuples and tuple structs: one child per element.
    Tuple,
    /// Structs with named fields: one named child per field.
    Struct,
    /// Enums: a discriminant stream, and one named child per variant with only its values.
    Enum,
    /// Values of several types at one place (from schemaless data such as JSON): laid out like an
    /// enum whose variants are the types, but read back untagged.
    Union,
    /// A place where a recursive type holds itself again (`Box<List>` inside `List`): its values
    /// are values of an ancestor node, stored in that node's branches with those of every depth.
    /// Its branch says which of the ancestor's values each one is.
    Recursion,
}

impl NodeType {
    /// For an integer type (`U8` to `I128`), whether it is signed; `None` for any other.
    pub(crate) fn integer_signedness(self) -> Option<bool> {
        use NodeType::*;
        match self {
            U8 | U16 | U32 | U64 | U128 => Some(false),
            I8 | I16 | I32 | I64 | I128 => Some(true),
            _ => None,
        }
    }

    pub(crate) const ALL: [NodeType; 26] = [
        NodeType::Void,
        NodeType::Unit,
        NodeType::Bool,
        NodeType::U8,
        NodeType::U16,
        NodeType::U32,
        NodeType::U64,
        NodeType::U128,
        NodeType::I8,
        NodeType::I16,
        NodeType::I32,
        NodeType::I64,
        NodeType::I128,
        NodeType::F32,
        NodeType::F64,
        NodeType::Char,
        NodeType::Str,
        NodeType::Option,
        NodeType::Seq,
        NodeType::Array,
        NodeType::Map,
        NodeType::Tuple,
        NodeType::Struct,
        NodeType::Enum,
        NodeType::Union,
        NodeType::Recursion,
    ];

    /// The byte that stands for this type in the file.
    pub(crate) fn tag(self) -> u8 {
        NodeType::ALL.iter().position(|&t| t == self).unwrap_or(0) as u8
    }

    pub(crate) fn from_tag(tag: u8) -> Option<NodeType> {
        NodeType::ALL.get(usize::from(tag)).copied()
    }

    /// Whether nodes of this type own a stream of data (a branch).
    pub fn has_branch(self) -> bool {
        !matches!(
            self,
            NodeType::Void | NodeType::Unit | NodeType::Array | NodeType::Tuple | NodeType::Struct
        )
    }

    /// The name used in messages and listings: `u32`, `string`, `struct` and so on.
    pub fn name(self) -> &'static str {
        match self {
            NodeType::Void => "nothing",
            NodeType::Unit => "unit",
            NodeType::Bool => "bool",
            NodeType::U8 => "u8",
            NodeType::U16 => "u16",
            NodeType::U32 => "u32",
            NodeType::U64 => "u64",
            NodeType::U128 => "u128",
            NodeType::I8 => "i8",
            NodeType::I16 => "i16",
            NodeType::I32 => "i32",
            NodeType::I64 => "i64",
            NodeType::I128 => "i128",
            NodeType::F32 => "f32",
            NodeType::F64 => "f64",
            NodeType::Char => "char",
            NodeType::Str => "string",
            NodeType::Option => "option",
            NodeType::Seq => "sequence",
            NodeType::Array => "array",
            NodeType::Map => "map",
            NodeType::Tuple => "tuple",
            NodeType::Struct => "struct",
            NodeType::Enum => "enum",
            NodeType::Union => "union",
            NodeType::Recursion => "recursion",
        }
    }
}

impl fmt::Display for NodeType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_round_trip() {
        for t in NodeType::ALL {
            assert_eq!(NodeType::from_tag(t.tag()), Some(t));
        }
        assert_eq!(NodeType::from_tag(26), None);
    }
}
