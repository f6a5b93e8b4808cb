//! What a branch's bytes hold, read as the stream family its node type stores.

use crate::encodings::describe::{Codec, Describer, Encoding};
use crate::encodings::{bool as bools, float, int, recursion, string};
use crate::schema::NodeType;

/// The encoding of the branch `bytes` of a `node_type` node, read as the stream family and word
/// width the type stores; `paths` holds the path of every branch, by which a keyed string branch
/// names its source.
pub(crate) fn branch_encoding(
    node_type: NodeType,
    bytes: &[u8],
    paths: &[String],
    at: Describer,
) -> Encoding {
    if bytes.is_empty() {
        return Encoding::empty();
    }
    let mut encoding = match node_type {
        NodeType::Bool | NodeType::Option => bools::describe(bytes, at),
        NodeType::U8 | NodeType::I8 => int::describe_branch::<u8>(bytes, at),
        NodeType::U16 | NodeType::I16 => int::describe_branch::<u16>(bytes, at),
        NodeType::U32 | NodeType::I32 => int::describe_branch::<u32>(bytes, at),
        NodeType::Char | NodeType::Enum | NodeType::Union => int::describe::<u32>(bytes, at),
        NodeType::U64 | NodeType::I64 => int::describe_branch::<u64>(bytes, at),
        NodeType::Seq | NodeType::Map => int::describe::<u64>(bytes, at),
        NodeType::U128 | NodeType::I128 => int::describe_branch::<u128>(bytes, at),
        NodeType::F32 => float::describe::<u32>(bytes, at),
        NodeType::F64 => float::describe::<u64>(bytes, at),
        NodeType::Str => string::describe(bytes, at),
        NodeType::Recursion => recursion::describe(bytes, at),
        // These own no branch.
        NodeType::Void | NodeType::Unit | NodeType::Array | NodeType::Tuple | NodeType::Struct => {
            Encoding::empty()
        }
    };
    if let Codec::Keyed {
        source_branch,
        source_path,
        ..
    }
    | Codec::KeyedInts {
        source_branch,
        source_path,
        ..
    } = &mut encoding.codec
    {
        *source_path = paths.get(*source_branch).cloned();
    }
    encoding
}
