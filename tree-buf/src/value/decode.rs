//! Reading any schema into `Value`s.

use super::Value;
use crate::branch::DecodeContext;
use crate::error::{corrupt, DecodeError};
use crate::schema::{NodeRef, NodeType};
use crate::types::{is_empty_void, ValueDecoder};

/// Hands back the values under a schema node as [`Value`]s, whatever their type.
#[derive(Debug)]
pub struct DynDecoder(Dyn);

#[derive(Debug)]
enum Dyn {
    /// Unit, void, or no values at all.
    Null,
    /// Leaves, already turned into values.
    Leaf(std::vec::IntoIter<Value>),
    Option {
        presence: std::vec::IntoIter<bool>,
        inner: Box<Dyn>,
    },
    Seq {
        lengths: Lengths,
        items: Box<Dyn>,
    },
    Bytes {
        lengths: Lengths,
        bytes: Vec<u8>,
        position: usize,
    },
    Map {
        lengths: std::vec::IntoIter<u64>,
        keys: Box<Dyn>,
        values: Box<Dyn>,
    },
    Tuple(Vec<Dyn>),
    Struct(Vec<(String, Dyn)>),
    Enum {
        discriminants: std::vec::IntoIter<u32>,
        variants: Vec<(String, Dyn)>,
        tagged: bool,
    },
}

#[derive(Debug)]
enum Lengths {
    Stream(std::vec::IntoIter<u64>),
    Fixed(usize),
}

impl Lengths {
    fn next(&mut self) -> usize {
        match self {
            Lengths::Stream(lengths) => lengths.next().unwrap_or(0) as usize,
            Lengths::Fixed(len) => *len,
        }
    }
}

/// Reads a leaf column of `count` values of any type and converts each with `to_value`.
fn leaf<T>(values: Vec<T>, to_value: impl Fn(T) -> Value) -> Dyn {
    Dyn::Leaf(
        values
            .into_iter()
            .map(to_value)
            .collect::<Vec<_>>()
            .into_iter(),
    )
}

fn unsigned(value: u128) -> Value {
    Value::Unsigned(value)
}

fn build(node: NodeRef<'_>, count: usize, ctx: &mut DecodeContext<'_>) -> Result<Dyn, DecodeError> {
    crate::stack::deeper(|| build_here(node, count, ctx))
}

fn build_here(
    node: NodeRef<'_>,
    count: usize,
    ctx: &mut DecodeContext<'_>,
) -> Result<Dyn, DecodeError> {
    if count == 0 || is_empty_void(node, count)? {
        return Ok(Dyn::Null);
    }
    ctx.charge(node, count, size_of::<Value>())?;
    let child = |index: usize| node.child(index).unwrap_or_else(|| node.void());
    Ok(match node.node_type() {
        NodeType::Void | NodeType::Unit => Dyn::Null,
        NodeType::Bool => leaf(ctx.bools(node, count)?, Value::Bool),
        NodeType::U8 => leaf(ctx.words::<u8>(node, count)?, |v| unsigned(v.into())),
        NodeType::U16 => leaf(ctx.words::<u16>(node, count)?, |v| unsigned(v.into())),
        NodeType::U32 => leaf(ctx.words::<u32>(node, count)?, |v| unsigned(v.into())),
        NodeType::U64 => leaf(ctx.words::<u64>(node, count)?, |v| unsigned(v.into())),
        NodeType::U128 => leaf(ctx.words::<u128>(node, count)?, unsigned),
        NodeType::I8 => leaf(ctx.words::<u8>(node, count)?, |v| {
            Value::integer((v as i8).into())
        }),
        NodeType::I16 => leaf(ctx.words::<u16>(node, count)?, |v| {
            Value::integer((v as i16).into())
        }),
        NodeType::I32 => leaf(ctx.words::<u32>(node, count)?, |v| {
            Value::integer((v as i32).into())
        }),
        NodeType::I64 => leaf(ctx.words::<u64>(node, count)?, |v| {
            Value::integer((v as i64).into())
        }),
        NodeType::I128 => leaf(ctx.words::<u128>(node, count)?, |v| {
            Value::integer(v as i128)
        }),
        NodeType::F32 => leaf(ctx.floats::<u32>(node, count)?, |v| {
            Value::Float(f32::from_bits(v).into())
        }),
        NodeType::F64 => leaf(ctx.floats::<u64>(node, count)?, |v| {
            Value::Float(f64::from_bits(v))
        }),
        NodeType::Char => {
            let chars = ctx.words::<u32>(node, count)?;
            let strings = chars
                .into_iter()
                .map(|code| char::from_u32(code).map(|c| Value::String(c.to_string())))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| {
                    corrupt("a char is not a Unicode scalar value").at_path_if_unset(|| node.path())
                })?;
            Dyn::Leaf(strings.into_iter())
        }
        NodeType::Str => {
            let column = ctx.strings(node, count)?;
            Dyn::Leaf(
                (0..column.len())
                    .map(|i| Value::String(column.get(i).to_owned()))
                    .collect::<Vec<_>>()
                    .into_iter(),
            )
        }
        NodeType::Option => {
            let presence = ctx.presence(node, count)?;
            let present = presence.iter().filter(|&&p| p).count();
            Dyn::Option {
                presence: presence.into_iter(),
                inner: Box::new(build(child(0), present, ctx)?),
            }
        }
        NodeType::Seq | NodeType::Array => {
            let (lengths, total) = if node.node_type() == NodeType::Seq {
                let (lengths, total) = ctx.lengths(node, count)?;
                (Lengths::Stream(lengths.into_iter()), total)
            } else {
                let len = usize::try_from(node.array_len()).unwrap_or(usize::MAX);
                let total = len.checked_mul(count).ok_or_else(|| {
                    crate::error::limit_exceeded(
                        "the array items add up to more than memory can address",
                    )
                    .at_path_if_unset(|| node.path())
                })?;
                (Lengths::Fixed(len), total)
            };
            if child(0).node_type() == NodeType::U8 {
                Dyn::Bytes {
                    lengths,
                    bytes: ctx.words::<u8>(child(0), total)?,
                    position: 0,
                }
            } else {
                Dyn::Seq {
                    lengths,
                    items: Box::new(build(child(0), total, ctx)?),
                }
            }
        }
        NodeType::Map => {
            let (lengths, total) = ctx.lengths(node, count)?;
            Dyn::Map {
                lengths: lengths.into_iter(),
                keys: Box::new(build(child(0), total, ctx)?),
                values: Box::new(build(child(1), total, ctx)?),
            }
        }
        NodeType::Tuple => Dyn::Tuple(
            node.children()
                .map(|c| build(c, count, ctx))
                .collect::<Result<_, _>>()?,
        ),
        NodeType::Struct => {
            // Every object gets its own copy of every field name.
            let names = node.children().map(|c| c.name().map_or(0, str::len)).sum();
            ctx.charge(node, count, names)?;
            Dyn::Struct(
                node.children()
                    .map(|c| {
                        Ok((
                            c.name().unwrap_or_default().to_owned(),
                            build(c, count, ctx)?,
                        ))
                    })
                    .collect::<Result<_, DecodeError>>()?,
            )
        }
        NodeType::Enum | NodeType::Union => {
            let discriminants = ctx.discriminants(node, count)?;
            let variant_count = node.children().len();
            let mut counts = vec![0usize; variant_count];
            for &d in &discriminants {
                *counts.get_mut(d as usize).ok_or_else(|| {
                    corrupt(format!(
                        "discriminant {d} is out of range for {variant_count} variants"
                    ))
                    .at_path_if_unset(|| node.path())
                })? += 1;
            }
            let tagged = node.node_type() == NodeType::Enum;
            let variants = node
                .children()
                .zip(counts)
                .map(|(c, n)| {
                    let name = c.name().unwrap_or_default();
                    // Every value of a tagged variant gets its own copy of the variant's name.
                    if tagged {
                        ctx.charge(c, n, name.len())?;
                    }
                    Ok((name.to_owned(), build(c, n, ctx)?))
                })
                .collect::<Result<_, DecodeError>>()?;
            Dyn::Enum {
                discriminants: discriminants.into_iter(),
                variants,
                tagged,
            }
        }
    })
}

impl Dyn {
    fn next(&mut self) -> Value {
        crate::stack::deeper(|| self.next_here())
    }

    fn next_here(&mut self) -> Value {
        match self {
            Dyn::Null => Value::Null,
            Dyn::Leaf(values) => values.next().unwrap_or_default(),
            Dyn::Option { presence, inner } => {
                if presence.next().unwrap_or(false) {
                    inner.next()
                } else {
                    Value::Null
                }
            }
            Dyn::Seq { lengths, items } => {
                let len = lengths.next();
                Value::Array((0..len).map(|_| items.next()).collect())
            }
            Dyn::Bytes {
                lengths,
                bytes,
                position,
            } => {
                let start = (*position).min(bytes.len());
                let end = position.saturating_add(lengths.next()).min(bytes.len());
                *position = end;
                Value::Bytes(bytes[start..end].to_vec())
            }
            Dyn::Map {
                lengths,
                keys,
                values,
            } => {
                let len = lengths.next().unwrap_or(0) as usize;
                Value::Map((0..len).map(|_| (keys.next(), values.next())).collect())
            }
            Dyn::Tuple(elements) => Value::Array(elements.iter_mut().map(Dyn::next).collect()),
            Dyn::Struct(fields) => Value::Object(
                fields
                    .iter_mut()
                    .filter_map(|(name, field)| match field {
                        // An absent optional field is left out of the object.
                        Dyn::Option { presence, inner } => presence
                            .next()
                            .unwrap_or(false)
                            .then(|| (name.clone(), inner.next())),
                        field => Some((name.clone(), field.next())),
                    })
                    .collect(),
            ),
            Dyn::Enum {
                discriminants,
                variants,
                tagged,
            } => {
                let index = discriminants.next().unwrap_or(0) as usize;
                match variants.get_mut(index) {
                    Some((name, variant)) if *tagged => {
                        Value::Variant(name.clone(), Box::new(variant.next()))
                    }
                    Some((_, variant)) => variant.next(),
                    None => Value::Null,
                }
            }
        }
    }
}

impl ValueDecoder<Value> for DynDecoder {
    fn new(
        node: NodeRef<'_>,
        count: usize,
        ctx: &mut DecodeContext<'_>,
    ) -> Result<Self, DecodeError> {
        Ok(DynDecoder(build(node, count, ctx)?))
    }

    fn next(&mut self) -> Value {
        self.0.next()
    }
}
