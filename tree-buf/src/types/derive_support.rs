//! Building blocks that `#[derive(Encode, Decode)]` output and the std impls share: struct, tuple
//! and enum nodes on the decoding side.

use std::marker::PhantomData;

use super::{is_empty_void, ValueDecoder, ValueEncoder};
use crate::branch::{DecodeContext, EncodeResult, SchemaWriter};
use crate::error::{DecodeError, DecodeErrorKind};
use crate::schema::{NodeRef, NodeType};

/// The encoder of values that hold no data: `()`, unit structs, `PhantomData`.
#[derive(Debug, Default)]
pub struct UnitEncoder;

impl<T: ?Sized> ValueEncoder<T> for UnitEncoder {
    fn new(_depth: usize) -> Self {
        UnitEncoder
    }

    #[inline]
    fn push(&mut self, _value: &T) {}

    fn bytes(&self) -> usize {
        0
    }

    fn finish(self, out: &mut SchemaWriter) -> EncodeResult {
        out.unit()
    }
}

/// Checks that `node` can be read as a value without data: a unit, or an option that holds
/// nothing (how a `Value` writes the nulls it reads units as, so that a file read as `Value` and
/// written again still reads).
pub fn check_unit(
    node: NodeRef<'_>,
    count: usize,
    type_name: &str,
    ctx: &mut DecodeContext<'_>,
) -> Result<(), DecodeError> {
    if is_empty_void(node, count)? || node.node_type() == NodeType::Unit {
        return Ok(());
    }
    if node.node_type() == NodeType::Option {
        let presence = ctx.presence(node, count)?;
        if let Some(index) = presence.iter().position(|&present| present) {
            return Err(DecodeError::new(
                DecodeErrorKind::SchemaMismatch,
                node.path(),
                format!("the file has an option here, the type expects {type_name}, and value {index} is not null"),
            ));
        }
        return Ok(());
    }
    Err(node.mismatch(type_name))
}

/// A field the file does not have.
#[derive(Debug, Clone, Copy)]
pub struct Missing<'a> {
    parent: NodeRef<'a>,
    name: &'a str,
}

impl<'a> Missing<'a> {
    /// The schema-mismatch error for the missing field.
    pub fn error(self) -> DecodeError {
        let parent = self.parent.path();
        let path = if parent.is_empty() {
            self.name.to_owned()
        } else {
            format!("{parent}.{}", self.name)
        };
        DecodeError::new(
            DecodeErrorKind::SchemaMismatch,
            path,
            "the type has this field but the file does not; make it an Option or mark it \
             #[tree_buf(default)] to read such files",
        )
    }

    /// A void node of the same file, to build empty decoders from.
    pub fn void(self) -> NodeRef<'a> {
        self.parent.void()
    }
}

/// A struct node being decoded: hands out the decoders of its fields by name.
#[derive(Debug, Clone, Copy)]
pub struct StructNode<'a> {
    node: NodeRef<'a>,
    count: usize,
}

impl<'a> StructNode<'a> {
    /// Reads `node` as a struct named `type_name` with `count` values.
    pub fn new(node: NodeRef<'a>, count: usize, type_name: &str) -> Result<Self, DecodeError> {
        if is_empty_void(node, count)? || node.node_type() == NodeType::Struct {
            Ok(StructNode { node, count })
        } else {
            Err(node.mismatch(&format!("struct {type_name}")))
        }
    }

    fn child(&self, name: &str) -> Result<Option<NodeRef<'a>>, DecodeError> {
        Ok(self
            .node
            .find_child(name)?
            .and_then(|index| self.node.child(index)))
    }

    /// The decoder of field `name`; fields missing from the file follow [`ValueDecoder::absent`].
    pub fn field<'de, T, D: ValueDecoder<'de, T>>(
        &self,
        name: &'a str,
        ctx: &mut DecodeContext<'de>,
    ) -> Result<D, DecodeError> {
        match self.child(name)? {
            Some(child) => D::new(child, self.count, ctx),
            None => D::absent(
                Missing {
                    parent: self.node,
                    name,
                },
                self.count,
                ctx,
            ),
        }
    }

    /// The decoder of a `#[tree_buf(default)]` field: `Default::default()` when the file lacks it.
    pub fn field_or_default<'de, T: Default, D: ValueDecoder<'de, T>>(
        &self,
        name: &str,
        ctx: &mut DecodeContext<'de>,
    ) -> Result<OrDefault<T, D>, DecodeError> {
        Ok(OrDefault {
            decoder: match self.child(name)? {
                Some(child) => Some(D::new(child, self.count, ctx)?),
                None => None,
            },
            _type: PhantomData,
        })
    }
}

/// Decodes a field that may be absent from the file, giving `T::default()` then.
#[derive(Debug)]
pub struct OrDefault<T, D> {
    decoder: Option<D>,
    _type: PhantomData<fn() -> T>,
}

impl<'de, T: Default, D: ValueDecoder<'de, T>> OrDefault<T, D> {
    /// The next value.
    #[inline]
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> T {
        match &mut self.decoder {
            Some(decoder) => decoder.next(),
            None => T::default(),
        }
    }
}

/// A tuple node being decoded: hands out the decoders of its elements by position.
#[derive(Debug, Clone, Copy)]
pub struct TupleNode<'a> {
    node: NodeRef<'a>,
    count: usize,
}

impl<'a> TupleNode<'a> {
    /// Reads `node` as a tuple of `len` elements, named `type_name` in errors, with `count` values.
    pub fn new(
        node: NodeRef<'a>,
        count: usize,
        len: usize,
        type_name: &str,
    ) -> Result<Self, DecodeError> {
        if is_empty_void(node, count)?
            || (node.node_type() == NodeType::Tuple && node.children().len() == len)
        {
            Ok(TupleNode { node, count })
        } else if node.node_type() == NodeType::Tuple {
            Err(DecodeError::new(
                DecodeErrorKind::SchemaMismatch,
                node.path(),
                format!("the file has a tuple of {} elements here, the type expects {type_name} of {len}", node.children().len()),
            ))
        } else {
            Err(node.mismatch(&format!("{type_name} (a tuple of {len})")))
        }
    }

    /// The decoder of element `index`.
    pub fn element<'de, T, D: ValueDecoder<'de, T>>(
        &self,
        index: usize,
        ctx: &mut DecodeContext<'de>,
    ) -> Result<D, DecodeError> {
        let child = self.node.child(index).unwrap_or_else(|| self.node.void());
        D::new(child, self.count, ctx)
    }
}

/// An enum node being decoded: its discriminants, translated to the type's variant order, and
/// the node and value count of every variant of the type.
#[derive(Debug)]
pub struct EnumNode<'a> {
    variants: Vec<(NodeRef<'a>, usize)>,
    discriminants: Vec<u32>,
}

impl<'a> EnumNode<'a> {
    /// Reads `node` as the enum `type_name` whose variants are `variant_names` (canonical), with
    /// `count` values. File variants are matched to the type's by name, so a type with more
    /// variants, or in another order, reads the file; a value of a variant the type lacks is an
    /// error.
    pub fn new(
        node: NodeRef<'a>,
        count: usize,
        variant_names: &[&str],
        type_name: &str,
        ctx: &mut DecodeContext<'_>,
    ) -> Result<Self, DecodeError> {
        let mut variants = vec![(node.void(), 0usize); variant_names.len()];
        if is_empty_void(node, count)? {
            return Ok(EnumNode {
                variants,
                discriminants: Vec::new(),
            });
        }
        if node.node_type() != NodeType::Enum {
            return Err(node.mismatch(&format!("enum {type_name}")));
        }
        let mut file_to_type: Vec<Option<u32>> = vec![None; node.children().len()];
        for (type_index, name) in variant_names.iter().enumerate() {
            if let Some(file_index) = node.find_child(name)? {
                file_to_type[file_index] = Some(type_index as u32);
                variants[type_index].0 = node.child(file_index).unwrap_or_else(|| node.void());
            }
        }
        let (mut discriminants, counts) = ctx.discriminants_and_counts(node, count)?;
        for (file_index, &values) in counts.iter().enumerate().filter(|(_, &n)| n > 0) {
            match file_to_type[file_index] {
                Some(type_index) => variants[type_index as usize].1 = values,
                None => {
                    let name = node
                        .child(file_index)
                        .and_then(|c| c.name())
                        .unwrap_or_default();
                    return Err(DecodeError::new(
                        DecodeErrorKind::SchemaMismatch,
                        node.path(),
                        format!("the file has values of variant `{name}`, which enum {type_name} does not have"),
                    ));
                }
            }
        }
        // Mostly the file's variants are the type's first ones, in its order (the file was
        // written from this type): then each discriminant stands as it is.
        let in_order = (file_to_type.iter().enumerate()).all(|(file, &ty)| ty == Some(file as u32));
        if !in_order {
            // Every discriminant is in range and of a variant the type has: checked above.
            let to_type: Vec<u32> = file_to_type
                .iter()
                .map(|ty| ty.unwrap_or_default())
                .collect();
            for discriminant in &mut discriminants {
                *discriminant = to_type
                    .get(*discriminant as usize)
                    .copied()
                    .unwrap_or_default();
            }
        }
        Ok(EnumNode {
            variants,
            discriminants,
        })
    }

    /// The node and value count of the type's variant `index`.
    pub fn variant(&self, index: usize) -> (NodeRef<'a>, usize) {
        self.variants[index]
    }

    /// The type's variant index of every value, in order.
    pub fn into_discriminants(self) -> Discriminants {
        Discriminants(self.discriminants.into_iter())
    }
}

/// The variant index of every value of an enum, in order.
#[derive(Debug)]
pub struct Discriminants(std::vec::IntoIter<u32>);

impl Discriminants {
    /// The variant index of the next value.
    #[inline]
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u32 {
        self.0.next().unwrap_or_default()
    }
}
