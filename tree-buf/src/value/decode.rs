//! Reading any schema into `Value`s.

use std::vec::IntoIter;

use super::Value;
use crate::branch::{DecodeContext, Leaf};
use crate::encodings::int::Word;
use crate::error::DecodeError;
use crate::schema::{NodeRef, NodeType};
use crate::types::{char_from_code, is_empty_void, read_lengths, Indirect, Lengths, ValueDecoder};

/// Hands back the values under a schema node as [`Value`]s, whatever their type.
#[derive(Debug)]
pub struct DynDecoder<'de>(Dyn<'de>);

#[derive(Debug)]
enum Dyn<'de> {
    /// Unit, void, or no values at all.
    Null,
    /// Leaves, turned into values in the batch that decodes them.
    Leaf(Leaf<IntoIter<Value>>),
    Option {
        presence: IntoIter<bool>,
        inner: Box<Dyn<'de>>,
    },
    Seq {
        lengths: Lengths,
        items: Box<Dyn<'de>>,
    },
    Bytes {
        lengths: Lengths,
        bytes: Leaf<Vec<u8>>,
        position: usize,
    },
    Map {
        lengths: Lengths,
        keys: Box<Dyn<'de>>,
        values: Box<Dyn<'de>>,
    },
    Tuple(Vec<Dyn<'de>>),
    Struct(Vec<(String, Dyn<'de>)>),
    Enum {
        discriminants: IntoIter<u32>,
        variants: Vec<(String, Dyn<'de>)>,
        tagged: bool,
    },
    /// The values of a recursion target or of a recursion node.
    Recursive(Box<Indirect<'de, Value>>),
}

/// Registers a leaf column of integer words, each made a value by `to_value` in the batch.
fn ints<'de, W: Word>(
    node: NodeRef<'_>,
    count: usize,
    ctx: &mut DecodeContext<'de>,
    to_value: fn(W) -> Value,
) -> Result<Dyn<'de>, DecodeError> {
    let values = ctx.words::<W, _>(node, count, 0, move |words| {
        Ok(words
            .into_iter()
            .map(to_value)
            .collect::<Vec<_>>()
            .into_iter())
    })?;
    Ok(Dyn::Leaf(values))
}

fn unsigned(value: u128) -> Value {
    Value::Unsigned(value)
}

/// The decoder of the `count` values of `node`, a child: through the pool of a recursion target
/// where the file has one.
fn build<'de>(
    node: NodeRef<'_>,
    count: usize,
    ctx: &mut DecodeContext<'de>,
) -> Result<Dyn<'de>, DecodeError> {
    if count > 0 && (node.node_type() == NodeType::Recursion || node.recursions().next().is_some())
    {
        return Ok(Dyn::Recursive(Box::new(Indirect::new(node, count, ctx)?)));
    }
    crate::stack::deeper(|| build_here(node, count, ctx))
}

fn build_here<'de>(
    node: NodeRef<'_>,
    count: usize,
    ctx: &mut DecodeContext<'de>,
) -> Result<Dyn<'de>, DecodeError> {
    if count == 0 || is_empty_void(node, count)? {
        return Ok(Dyn::Null);
    }
    ctx.charge(node, count, size_of::<Value>())?;
    let child = |index: usize| node.child(index).unwrap_or_else(|| node.void());
    Ok(match node.node_type() {
        NodeType::Void | NodeType::Unit => Dyn::Null,
        NodeType::Bool => Dyn::Leaf(ctx.bools(node, count, |bools| {
            Ok(bools
                .into_iter()
                .map(Value::Bool)
                .collect::<Vec<_>>()
                .into_iter())
        })?),
        NodeType::U8 => ints::<u8>(node, count, ctx, |v| unsigned(v.into()))?,
        NodeType::U16 => ints::<u16>(node, count, ctx, |v| unsigned(v.into()))?,
        NodeType::U32 => ints::<u32>(node, count, ctx, |v| unsigned(v.into()))?,
        NodeType::U64 => ints::<u64>(node, count, ctx, |v| unsigned(v.into()))?,
        NodeType::U128 => ints::<u128>(node, count, ctx, unsigned)?,
        NodeType::I8 => ints::<u8>(node, count, ctx, |v| Value::integer((v as i8).into()))?,
        NodeType::I16 => ints::<u16>(node, count, ctx, |v| Value::integer((v as i16).into()))?,
        NodeType::I32 => ints::<u32>(node, count, ctx, |v| Value::integer((v as i32).into()))?,
        NodeType::I64 => ints::<u64>(node, count, ctx, |v| Value::integer((v as i64).into()))?,
        NodeType::I128 => ints::<u128>(node, count, ctx, |v| Value::integer(v as i128))?,
        NodeType::F32 => Dyn::Leaf(ctx.floats::<u32, _>(node, count, 0, |bits| {
            let values = bits
                .into_iter()
                .map(|v| Value::Float(f32::from_bits(v).into()));
            Ok(values.collect::<Vec<_>>().into_iter())
        })?),
        NodeType::F64 => Dyn::Leaf(ctx.floats::<u64, _>(node, count, 0, |bits| {
            let values = bits.into_iter().map(|v| Value::Float(f64::from_bits(v)));
            Ok(values.collect::<Vec<_>>().into_iter())
        })?),
        NodeType::Char => Dyn::Leaf(ctx.words::<u32, _>(node, count, 0, |codes| {
            let values = codes
                .into_iter()
                .map(|code| Ok(Value::String(char_from_code(code)?.to_string())));
            Ok(values.collect::<Result<Vec<_>, DecodeError>>()?.into_iter())
        })?),
        NodeType::Str => Dyn::Leaf(ctx.strings(node, count, 0, |column| {
            let values = (0..column.len()).map(|i| Value::String(column.get(i).to_owned()));
            Ok(values.collect::<Vec<_>>().into_iter())
        })?),
        NodeType::Option => {
            let presence = ctx.presence(node, count)?;
            let present = presence.iter().filter(|&&p| p).count();
            Dyn::Option {
                presence: presence.into_iter(),
                inner: Box::new(build(child(0), present, ctx)?),
            }
        }
        NodeType::Seq | NodeType::Array => {
            let (lengths, total) = read_lengths(node, count, ctx, "a sequence")?;
            if child(0).node_type() == NodeType::U8 {
                Dyn::Bytes {
                    lengths,
                    bytes: ctx.words::<u8, _>(child(0), total, 0, Ok)?,
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
                lengths: Lengths::Stream(lengths.into_iter()),
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
            let (discriminants, counts) = ctx.discriminants_and_counts(node, count)?;
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
        // With values, `build` takes them out of the target's pool.
        NodeType::Recursion => Dyn::Null,
    })
}

impl Dyn<'_> {
    fn next(&mut self) -> Value {
        crate::stack::deeper(|| self.next_here())
    }

    fn next_here(&mut self) -> Value {
        match self {
            Dyn::Null => Value::Null,
            Dyn::Leaf(values) => values.next_item().unwrap_or_default(),
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
                let bytes = bytes.column();
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
                let len = lengths.next();
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
            Dyn::Recursive(values) => values.next(),
        }
    }
}

// SAFETY: a `Value` owns everything it holds.
#[allow(unsafe_code)]
unsafe impl<'de> ValueDecoder<'de, Value> for DynDecoder<'de> {
    fn new(
        node: NodeRef<'_>,
        count: usize,
        ctx: &mut DecodeContext<'de>,
    ) -> Result<Self, DecodeError> {
        // A recursion target's values are pooled, unless this is the decoder of all of them
        // that the pool's `Indirect` builds.
        Ok(DynDecoder(match ctx.lends_pool_for(node) {
            true => crate::stack::deeper(|| build_here(node, count, ctx))?,
            false => build(node, count, ctx)?,
        }))
    }

    fn next(&mut self) -> Value {
        self.0.next()
    }
}
