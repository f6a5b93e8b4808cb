//! A serde `Deserializer` over a file's schema and columns.
//!
//! Every schema node becomes a cursor over its columns the first time a value is read from it,
//! with the count its parent's shaping streams gave it (presence, lengths, discriminants), exactly
//! as the derive's decoders are built: a node the type never asks for (a field it lacks) is never
//! built, so its branches are never read. Values are then handed to serde's visitors in order,
//! one node's cursor at a time.

use std::vec::IntoIter;

use serde::de::{self, DeserializeSeed, Deserializer, IntoDeserializer, Visitor};

use crate::archive::Archive;
use crate::branch::{DecodeContext, Leaf};
use crate::encodings::budget::Budget;
use crate::encodings::int::Word;
use crate::encodings::string::DecodedStrings;
use crate::error::{corrupt, DecodeError, DecodeErrorKind};
use crate::schema::{NodeRef, NodeType};
use crate::types::{char_from_code, is_empty_void, read_lengths, Decode, Lengths, ValueDecoder};
use crate::value::{type_spelling, DynDecoder, Value};

/// A name (of a field or variant) for a visitor.
fn key(name: &str) -> de::value::StrDeserializer<'_, DecodeError> {
    name.into_deserializer()
}

/// A schema node and the values of it still to be read.
#[derive(Debug)]
pub(super) struct Slot<'t, 'a> {
    node: NodeRef<'t>,
    count: usize,
    /// The slots between it and the root: values nest no deeper than their slots do.
    depth: usize,
    /// The node's cursors, once a value is read.
    built: Option<Built<'t, 'a>>,
}

/// The strings of a string node, handed out in order: lent from the file where it holds them as
/// they are, so that a type may borrow them (`&'de str`).
#[derive(Debug, Default)]
struct Texts<'a> {
    strings: DecodedStrings<'a>,
    next: usize,
}

impl<'a> Texts<'a> {
    /// Hands the next string to `visitor`, lent from the file where it can be; "" past the end.
    fn visit<'de, V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, DecodeError>
    where
        'a: 'de,
    {
        let index = self.next;
        self.next += 1;
        match self.strings.lent(index) {
            Some(text) => visitor.visit_borrowed_str(text),
            None => visitor.visit_str(self.strings.get(index)),
        }
    }
}

#[derive(Debug)]
enum Built<'t, 'a> {
    /// Units, voids, and nodes with no values.
    Null,
    Bool(Leaf<IntoIter<bool>>),
    U8(Leaf<IntoIter<u8>>),
    U16(Leaf<IntoIter<u16>>),
    U32(Leaf<IntoIter<u32>>),
    U64(Leaf<IntoIter<u64>>),
    U128(Leaf<IntoIter<u128>>),
    I8(Leaf<IntoIter<u8>>),
    I16(Leaf<IntoIter<u16>>),
    I32(Leaf<IntoIter<u32>>),
    I64(Leaf<IntoIter<u64>>),
    I128(Leaf<IntoIter<u128>>),
    F32(Leaf<IntoIter<u32>>),
    F64(Leaf<IntoIter<u64>>),
    Char(Leaf<IntoIter<char>>),
    Str(Leaf<Texts<'a>>),
    Option {
        presence: IntoIter<bool>,
        inner: Box<Slot<'t, 'a>>,
    },
    /// Sequences and arrays.
    Seq {
        lengths: Lengths,
        items: Box<Slot<'t, 'a>>,
    },
    Map {
        lengths: IntoIter<u64>,
        keys: Box<Slot<'t, 'a>>,
        values: Box<Slot<'t, 'a>>,
    },
    Tuple(Vec<Slot<'t, 'a>>),
    Struct {
        fields: Vec<Slot<'t, 'a>>,
        /// Every field by its index and the file's name for it.
        all: Vec<(usize, &'t str)>,
        /// The fields of the type last read, by their names in the type: worked out for its
        /// first value only.
        named: Names<Wanted<'t>>,
    },
    /// The values of a recursive type (a node that recursion nodes return to), read whole.
    Whole(DynDecoder<'a>),
    /// Enums (`tagged`) and unions: the variant of each value, and the variants.
    Enum {
        discriminants: IntoIter<u32>,
        variants: Vec<Slot<'t, 'a>>,
        tagged: bool,
        /// The name in the type last read of each variant of the file.
        named: Names<Vec<&'t str>>,
    },
}

/// What a type's names (its fields, its variants) give for a node, kept for the next value: serde
/// hands the same `&'static` list for every value of a type.
#[derive(Debug)]
struct Names<T> {
    /// The names it was made for, and what they gave; `None` before the first value.
    made: Option<(&'static [&'static str], T)>,
}

impl<T> Names<T> {
    fn new() -> Self {
        Names { made: None }
    }

    /// What `names` give, made by `make` unless it was made for them last.
    #[inline]
    fn for_names(
        &mut self,
        names: &'static [&'static str],
        make: impl FnOnce() -> Result<T, DecodeError>,
    ) -> Result<&T, DecodeError> {
        if !matches!(&self.made, Some((of, _)) if std::ptr::eq(*of, names)) {
            self.made = Some((names, make()?));
        }
        let (_, made) = (self.made.as_ref()).unwrap_or_else(|| unreachable!("made above"));
        Ok(made)
    }
}

/// The fields of a type in a struct node: each by its index in the node and its name in the type,
/// and whether they are all the type's, none of them optional (so that they can be handed over
/// in order, without their names).
#[derive(Debug)]
struct Wanted<'t> {
    fields: Vec<(usize, &'t str)>,
    in_order: bool,
}

impl Built<'_, '_> {
    /// Whether the node is a leaf of numbers (up to 64 bits) or booleans.
    #[inline]
    fn is_primitive(&self) -> bool {
        matches!(
            self,
            Built::Bool(_)
                | Built::U8(_)
                | Built::U16(_)
                | Built::U32(_)
                | Built::U64(_)
                | Built::I8(_)
                | Built::I16(_)
                | Built::I32(_)
                | Built::I64(_)
                | Built::F32(_)
                | Built::F64(_)
        )
    }

    /// Whether the node's values hold other values (it is not a leaf).
    fn holds_values(&self) -> bool {
        matches!(
            self,
            Built::Option { .. }
                | Built::Seq { .. }
                | Built::Map { .. }
                | Built::Tuple(_)
                | Built::Struct { .. }
                | Built::Enum { .. }
                | Built::Whole(_)
        )
    }
}

fn words<'a, W: Word + 'a>(
    node: NodeRef<'_>,
    count: usize,
    ctx: &mut DecodeContext<'a>,
) -> Result<Leaf<IntoIter<W>>, DecodeError> {
    ctx.words::<W, _>(node, count, 0, |words| Ok(words.into_iter()))
}

impl<'t, 'a> Slot<'t, 'a> {
    /// The `count` values under `node`, the root of the values read.
    pub(super) fn root(node: NodeRef<'t>, count: usize) -> Self {
        Slot {
            node,
            count,
            depth: 0,
            built: None,
        }
    }

    /// The `count` values under `node`, a child of this slot's node.
    fn child(&self, node: NodeRef<'t>, count: usize) -> Self {
        Slot {
            node,
            count,
            depth: self.depth + 1,
            built: None,
        }
    }

    /// The node's cursors, built now if this is its first value.
    #[inline]
    fn built(&mut self, ctx: &mut DecodeContext<'a>) -> Result<&mut Built<'t, 'a>, DecodeError> {
        if self.built.is_none() {
            self.build(ctx)?;
        }
        Ok(self
            .built
            .as_mut()
            .unwrap_or_else(|| unreachable!("built above")))
    }

    #[cold]
    fn build(&mut self, ctx: &mut DecodeContext<'a>) -> Result<(), DecodeError> {
        let built = build(self, ctx).map_err(|e| e.at_path_if_unset(|| self.node.path()))?;
        self.built = Some(built);
        Ok(())
    }
}

fn build<'t, 'a>(
    slot: &Slot<'t, 'a>,
    ctx: &mut DecodeContext<'a>,
) -> Result<Built<'t, 'a>, DecodeError> {
    let (node, count) = (slot.node, slot.count);
    if count == 0 || is_empty_void(node, count)? {
        return Ok(Built::Null);
    }
    if node.node_type() == NodeType::Recursion || node.recursions().next().is_some() {
        // The file stores a recursive type's values children first, where serde visits the
        // parent first: they are read whole, as `Value`s, and handed out from those.
        return Ok(Built::Whole(<Value as Decode<'a>>::Decoder::new(
            node, count, ctx,
        )?));
    }
    // Every value is visited, whatever it holds: a value without data still costs its visit.
    ctx.charge(node, count, 1)?;
    let child = |index: usize| node.child(index).unwrap_or_else(|| node.void());
    Ok(match node.node_type() {
        NodeType::Void | NodeType::Unit => Built::Null,
        NodeType::Bool => Built::Bool(ctx.bools(node, count, |bools| Ok(bools.into_iter()))?),
        NodeType::U8 => Built::U8(words(node, count, ctx)?),
        NodeType::U16 => Built::U16(words(node, count, ctx)?),
        NodeType::U32 => Built::U32(words(node, count, ctx)?),
        NodeType::U64 => Built::U64(words(node, count, ctx)?),
        NodeType::U128 => Built::U128(words(node, count, ctx)?),
        NodeType::I8 => Built::I8(words(node, count, ctx)?),
        NodeType::I16 => Built::I16(words(node, count, ctx)?),
        NodeType::I32 => Built::I32(words(node, count, ctx)?),
        NodeType::I64 => Built::I64(words(node, count, ctx)?),
        NodeType::I128 => Built::I128(words(node, count, ctx)?),
        NodeType::F32 => {
            Built::F32(ctx.floats::<u32, _>(node, count, 0, |bits| Ok(bits.into_iter()))?)
        }
        NodeType::F64 => {
            Built::F64(ctx.floats::<u64, _>(node, count, 0, |bits| Ok(bits.into_iter()))?)
        }
        NodeType::Char => Built::Char(ctx.words::<u32, _>(node, count, 0, |codes| {
            let chars = codes.into_iter().map(char_from_code);
            Ok(chars.collect::<Result<Vec<char>, _>>()?.into_iter())
        })?),
        NodeType::Str => {
            Built::Str(ctx.strings(node, count, 0, |strings| Ok(Texts { strings, next: 0 }))?)
        }
        NodeType::Option => {
            let presence = ctx.presence(node, count)?;
            let present = presence.iter().filter(|&&p| p).count();
            Built::Option {
                presence: presence.into_iter(),
                inner: Box::new(slot.child(child(0), present)),
            }
        }
        NodeType::Seq | NodeType::Array => {
            let (lengths, total) = read_lengths(node, count, ctx, "a sequence")?;
            Built::Seq {
                lengths,
                items: Box::new(slot.child(child(0), total)),
            }
        }
        NodeType::Map => {
            let (lengths, total) = ctx.lengths(node, count)?;
            Built::Map {
                lengths: lengths.into_iter(),
                keys: Box::new(slot.child(child(0), total)),
                values: Box::new(slot.child(child(1), total)),
            }
        }
        NodeType::Tuple => Built::Tuple(node.children().map(|c| slot.child(c, count)).collect()),
        NodeType::Struct => Built::Struct {
            fields: node.children().map(|c| slot.child(c, count)).collect(),
            all: (node.children())
                .map(|c| c.name().unwrap_or_default())
                .enumerate()
                .collect(),
            named: Names::new(),
        },
        NodeType::Enum | NodeType::Union => {
            let (discriminants, counts) = ctx.discriminants_and_counts(node, count)?;
            Built::Enum {
                discriminants: discriminants.into_iter(),
                variants: node
                    .children()
                    .zip(counts)
                    .map(|(c, n)| slot.child(c, n))
                    .collect(),
                tagged: node.node_type() == NodeType::Enum,
                named: Names::new(),
            }
        }
        // Turned away above.
        NodeType::Recursion => Built::Null,
    })
}

/// Reads a unit variant from its name (as JSON writes one), for a visitor of an enum.
struct UnitVariant<V>(V);

impl<'de, V: Visitor<'de>> Visitor<'de> for UnitVariant<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.expecting(f)
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<V::Value, E> {
        let name = de::value::StringDeserializer::<E>::new(name.to_owned());
        self.0.visit_enum(name)
    }

    fn visit_borrowed_str<E: de::Error>(self, name: &'de str) -> Result<V::Value, E> {
        self.0
            .visit_enum(de::value::BorrowedStrDeserializer::<E>::new(name))
    }
}

/// The rows of an archive, chunk after chunk, as one sequence: the `Deserializer` a type's
/// `Deserialize` is given for an archive.
pub(super) struct Rows<'x, 'a> {
    archive: &'x Archive<'a>,
    budget: Budget,
    next_chunk: usize,
    /// The rows of the chunk being read, a context for its branches, and how many are left.
    chunk: Option<(Slot<'x, 'a>, DecodeContext<'a>, usize)>,
    /// The rows not read yet.
    left: u64,
}

impl<'x, 'a> Rows<'x, 'a> {
    pub(super) fn new(archive: &'x Archive<'a>) -> Result<Self, DecodeError> {
        Ok(Rows {
            budget: archive.whole_budget_checked()?,
            archive,
            next_chunk: 0,
            chunk: None,
            left: archive.rows(),
        })
    }
}

impl<'de, 'a: 'de> Deserializer<'de> for Rows<'_, 'a> {
    type Error = DecodeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        visitor.visit_seq(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}

impl<'de, 'a: 'de> de::SeqAccess<'de> for Rows<'_, 'a> {
    type Error = DecodeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DecodeError> {
        loop {
            if let Some((slot, ctx, left)) = &mut self.chunk {
                if *left > 0 {
                    *left -= 1;
                    self.left = self.left.saturating_sub(1);
                    return seed.deserialize(At::new(slot, ctx)).map(Some);
                }
            }
            if self.next_chunk == self.archive.chunk_count() {
                return Ok(None);
            }
            let (items, rows, ctx) =
                (self.archive).chunk_rows(self.next_chunk, self.budget.clone())?;
            self.next_chunk += 1;
            self.chunk = Some((Slot::root(items, rows), ctx, rows));
        }
    }

    fn size_hint(&self) -> Option<usize> {
        usize::try_from(self.left).ok()
    }
}

/// How many levels of slots apart the stack left is checked.
const STACK_CHECK_LEVELS: usize = 4;

/// Whether reading a value of `built`, a slot `depth` levels deep, looks at the stack first.
/// Only a value that holds others recurses, and only as deep as the slots nest: the stack is
/// looked at every few levels, which leaves each level a generous share of the red zone.
#[inline]
fn checks_stack(depth: usize, built: &Built<'_, '_>) -> bool {
    depth.is_multiple_of(STACK_CHECK_LEVELS) && built.holds_values()
}

/// Reads the next value of a slot: the `Deserializer` a type's `Deserialize` is given.
pub(super) struct At<'s, 't, 'a> {
    slot: &'s mut Slot<'t, 'a>,
    ctx: &'s mut DecodeContext<'a>,
}

impl<'s, 't, 'a> At<'s, 't, 'a> {
    pub(super) fn new(slot: &'s mut Slot<'t, 'a>, ctx: &'s mut DecodeContext<'a>) -> Self {
        At { slot, ctx }
    }

    /// Runs `read` on the built slot, naming the node in an error that has no path yet.
    #[inline]
    fn read<R>(
        self,
        read: impl FnOnce(&mut Built<'t, 'a>, &mut DecodeContext<'a>) -> Result<R, DecodeError>,
    ) -> Result<R, DecodeError> {
        let At { slot, ctx } = self;
        let node = slot.node;
        let depth = slot.depth;
        let result = match &mut slot.built {
            // Most values are of a slot built already, and most need no look at the stack.
            Some(built) if !checks_stack(depth, built) => read(built, ctx),
            _ => At::read_first_or_deeper(slot, ctx, read),
        };
        result.map_err(|e| e.at_path_if_unset(|| node.path()))
    }

    /// [`Self::read`] of a slot not built yet, or of a value that may recurse at a level where
    /// the stack is looked at.
    #[cold]
    #[inline(never)]
    fn read_first_or_deeper<R>(
        slot: &mut Slot<'t, 'a>,
        ctx: &mut DecodeContext<'a>,
        read: impl FnOnce(&mut Built<'t, 'a>, &mut DecodeContext<'a>) -> Result<R, DecodeError>,
    ) -> Result<R, DecodeError> {
        let depth = slot.depth;
        let built = slot.built(ctx)?;
        if checks_stack(depth, built) {
            crate::stack::deeper(|| read(built, ctx))
        } else {
            read(built, ctx)
        }
    }

    /// The reader of the next value itself: for a union, of the member that holds it.
    #[inline]
    fn member(self) -> Result<Self, DecodeError> {
        match &self.slot.built {
            Some(Built::Enum { tagged: false, .. }) | None => self.member_of_union_or_unbuilt(),
            Some(_) => Ok(self),
        }
    }

    /// [`Self::member`] of a slot not built yet, or of a union.
    #[cold]
    #[inline(never)]
    fn member_of_union_or_unbuilt(self) -> Result<Self, DecodeError> {
        let At { slot, ctx } = self;
        if matches!(slot.built(ctx)?, Built::Enum { tagged: false, .. }) {
            At { slot, ctx }.union_member()
        } else {
            Ok(At { slot, ctx })
        }
    }

    /// [`Self::member`] of a union.
    fn union_member(self) -> Result<Self, DecodeError> {
        let At { slot, ctx } = self;
        match At::next_variant(slot.built(ctx)?) {
            Some((member, _)) => At::new(member, ctx).member(),
            None => Err(corrupt("a union value has no member")),
        }
    }

    /// The variant of the next value of an enum or union, and its slot.
    fn next_variant<'b>(built: &'b mut Built<'t, 'a>) -> Option<(&'b mut Slot<'t, 'a>, bool)> {
        let Built::Enum {
            discriminants,
            variants,
            tagged,
            ..
        } = built
        else {
            return None;
        };
        let index = discriminants.next().unwrap_or(0) as usize;
        let tagged = *tagged;
        variants.get_mut(index).map(|slot| (slot, tagged))
    }
}

/// Hands the next value of `built` to `visitor`, by the type the file stores.
fn visit_any<'de, 't, 'a: 'de, V: Visitor<'de>>(
    built: &mut Built<'t, 'a>,
    ctx: &mut DecodeContext<'a>,
    visitor: V,
) -> Result<V::Value, DecodeError> {
    match built {
        Built::Null => visitor.visit_unit(),
        Built::Bool(values) => visitor.visit_bool(values.next_item().unwrap_or_default()),
        Built::U8(values) => visitor.visit_u8(values.next_item().unwrap_or_default()),
        Built::U16(values) => visitor.visit_u16(values.next_item().unwrap_or_default()),
        Built::U32(values) => visitor.visit_u32(values.next_item().unwrap_or_default()),
        Built::U64(values) => visitor.visit_u64(values.next_item().unwrap_or_default()),
        // 128-bit values that fit 64 bits go as such: most visitors take nothing wider (serde's
        // own for the smaller integers among them), as JSON's reader does.
        Built::U128(values) => {
            let value = values.next_item().unwrap_or_default();
            match u64::try_from(value) {
                Ok(value) => visitor.visit_u64(value),
                Err(_) => visitor.visit_u128(value),
            }
        }
        Built::I8(values) => visitor.visit_i8(values.next_item().unwrap_or_default() as i8),
        Built::I16(values) => visitor.visit_i16(values.next_item().unwrap_or_default() as i16),
        Built::I32(values) => visitor.visit_i32(values.next_item().unwrap_or_default() as i32),
        Built::I64(values) => visitor.visit_i64(values.next_item().unwrap_or_default() as i64),
        Built::I128(values) => {
            let value = values.next_item().unwrap_or_default() as i128;
            if let Ok(value) = i64::try_from(value) {
                visitor.visit_i64(value)
            } else if let Ok(value) = u64::try_from(value) {
                // Above i64 but within u64: as the derive reads it into a `u64`.
                visitor.visit_u64(value)
            } else {
                visitor.visit_i128(value)
            }
        }
        Built::F32(values) => {
            visitor.visit_f32(f32::from_bits(values.next_item().unwrap_or_default()))
        }
        Built::F64(values) => {
            visitor.visit_f64(f64::from_bits(values.next_item().unwrap_or_default()))
        }
        Built::Char(values) => visitor.visit_char(values.next_item().unwrap_or_default()),
        Built::Str(texts) => texts.column().visit(visitor),
        Built::Whole(values) => values.next().deserialize_any(visitor),
        Built::Option { presence, inner } => {
            if presence.next().unwrap_or(false) {
                visitor.visit_some(At::new(inner, ctx))
            } else {
                visitor.visit_none()
            }
        }
        Built::Seq { lengths, items } => {
            let left = lengths.next();
            visitor.visit_seq(Items { items, ctx, left })
        }
        Built::Map {
            lengths,
            keys,
            values,
        } => {
            let left = lengths.next().unwrap_or(0) as usize;
            visitor.visit_map(Entries {
                keys,
                values,
                ctx,
                left,
            })
        }
        Built::Tuple(elements) => visitor.visit_seq(Elements {
            elements: elements.iter_mut(),
            ctx,
        }),
        Built::Struct { fields, all, .. } => visitor.visit_map(Fields {
            wanted: all.iter(),
            fields,
            ctx,
            value: None,
        }),
        built @ Built::Enum { .. } => match At::next_variant(built) {
            // An enum read without its type is a map of one entry: the variant's name to its
            // content, as serde's externally tagged enums are written in JSON.
            Some((slot, true)) => visitor.visit_map(Variant {
                name: Some(slot.node.name().unwrap_or_default()),
                slot,
                ctx,
            }),
            Some((slot, false)) => At::new(slot, ctx).read(|b, ctx| visit_any(b, ctx, visitor)),
            None => Err(corrupt("an enum value has no variant")),
        },
    }
}

macro_rules! forward_to_any {
    ($($method:ident),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
            self.deserialize_any(visitor)
        }
    )*};
}

macro_rules! primitive_first {
    ($($method:ident),* $(,)?) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
            next_value(self.slot, self.ctx, VisitWith(visitor))
        }
    )*};
}

/// A visitor as a seed that asks for any value.
struct VisitWith<V>(V);

impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for VisitWith<V> {
    type Value = V::Value;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        deserializer.deserialize_any(self.0)
    }
}

impl<'de, 'a: 'de> Deserializer<'de> for At<'_, '_, 'a> {
    type Error = DecodeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.read(|built, ctx| visit_any(built, ctx, visitor))
    }

    // A type that asks for a number or boolean mostly finds a leaf of them: its value goes
    // straight to the visitor, as a sequence's items do.
    primitive_first! {
        deserialize_bool, deserialize_u8, deserialize_u16, deserialize_u32, deserialize_u64,
        deserialize_i8, deserialize_i16, deserialize_i32, deserialize_i64, deserialize_f32,
        deserialize_f64,
    }

    forward_to_any! {
        deserialize_u128, deserialize_i128, deserialize_char, deserialize_seq, deserialize_map,
        deserialize_identifier, deserialize_ignored_any,
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        // Mostly a leaf of strings: its value goes to the visitor without `visit_any`'s dispatch.
        self.read(|built, ctx| match built {
            Built::Str(texts) => texts.column().visit(visitor),
            _ => visit_any(built, ctx, visitor),
        })
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.member()?.read(|built, ctx| match built {
            Built::Seq { lengths, items } if items.node.node_type() == NodeType::U8 => {
                let len = lengths.next();
                let Built::U8(values) = items.built(ctx)? else {
                    return visitor.visit_byte_buf(Vec::new());
                };
                let values = values.column();
                let bytes: Vec<u8> = values.take(len).collect();
                visitor.visit_byte_buf(bytes)
            }
            Built::Whole(values) => values.next().deserialize_bytes(visitor),
            built => visit_any(built, ctx, visitor),
        })
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        let At { slot, ctx } = self.member()?;
        let node = slot.node;
        match slot.built(ctx)? {
            Built::Null => visitor.visit_none(),
            Built::Option { .. } => At { slot, ctx }.deserialize_any(visitor),
            Built::Whole(values) => values.next().deserialize_option(visitor),
            // A plain value where the type has an option: always present.
            _ => visitor.visit_some(At { slot, ctx }),
        }
        .map_err(|e| e.at_path_if_unset(|| node.path()))
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.member()?.read(|built, ctx| match built {
            // An option that holds nothing reads as a unit, as `Value` writes its nulls.
            Built::Option { presence, .. } => match presence.next() {
                Some(true) => Err(DecodeError::new(
                    DecodeErrorKind::SchemaMismatch,
                    "",
                    "the file has a value here, the type expects a unit",
                )),
                _ => visitor.visit_unit(),
            },
            built => visit_any(built, ctx, visitor),
        })
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        self.deserialize_any(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        self.deserialize_any(visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        let this = self.member()?;
        let node = this.slot.node;
        this.read(|built, ctx| match built {
            // Only the fields the type has are read: the others' branches are never touched.
            Built::Struct {
                fields: slots,
                named,
                ..
            } => {
                let wanted = named.for_names(fields, || {
                    let mut wanted = Vec::with_capacity(fields.len());
                    for &name in fields {
                        if let Some(index) = node.find_child(name)? {
                            wanted.push((index, name));
                        }
                    }
                    // Every field there and none optional: in order, without their names.
                    let in_order = wanted.len() == fields.len()
                        && (wanted.iter())
                            .all(|&(index, _)| slots[index].node.node_type() != NodeType::Option);
                    Ok(Wanted {
                        fields: wanted,
                        in_order,
                    })
                })?;
                if wanted.in_order {
                    return visitor.visit_seq(InOrder {
                        wanted: wanted.fields.iter(),
                        fields: slots,
                        ctx,
                    });
                }
                visitor.visit_map(Fields {
                    wanted: wanted.fields.iter(),
                    fields: slots,
                    ctx,
                    value: None,
                })
            }
            Built::Whole(values) => values.next().deserialize_struct(name, fields, visitor),
            built => visit_any(built, ctx, visitor),
        })
    }

    #[inline]
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        self.member()?.read(|built, ctx| match built {
            Built::Enum {
                tagged: true,
                discriminants,
                variants: slots,
                named,
            } => {
                // The type's spelling of each variant, matched canonically.
                let names = named.for_names(variants, || {
                    let names = slots.iter().map(|slot| {
                        let written = slot.node.name().unwrap_or_default();
                        type_spelling(written, variants).unwrap_or(written)
                    });
                    Ok(names.collect())
                })?;
                let index = discriminants.next().unwrap_or(0) as usize;
                match (slots.get_mut(index), names.get(index)) {
                    (Some(slot), Some(name)) => visitor.visit_enum(Variant {
                        name: Some(name),
                        slot,
                        ctx,
                    }),
                    _ => Err(corrupt("an enum value has no variant")),
                }
            }
            // Unit variants written as their names (from JSON, say).
            Built::Str(texts) => texts.column().visit(UnitVariant(visitor)),
            Built::Whole(values) => values.next().deserialize_enum(name, variants, visitor),
            built => visit_any(built, ctx, visitor),
        })
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}

/// Reads the next item of a sequence or element of a tuple through `seed`: a number or boolean
/// of a leaf built already goes straight to it, past the dispatch of [`At`] (the bytes of an
/// array, the coordinates of a point), others through `At`. (Struct fields go through `At`:
/// measured, the check cost more than it saved on structs of strings and enums.)
#[inline]
fn next_value<'de, 'a: 'de, S: DeserializeSeed<'de>>(
    slot: &mut Slot<'_, 'a>,
    ctx: &mut DecodeContext<'a>,
    seed: S,
) -> Result<S::Value, DecodeError> {
    match &mut slot.built {
        Some(built) if built.is_primitive() => next_primitive(slot.node, built, seed),
        _ => seed.deserialize(At::new(slot, ctx)),
    }
}

/// [`next_value`] of a leaf of numbers or booleans.
fn next_primitive<'de, S: DeserializeSeed<'de>>(
    node: NodeRef<'_>,
    built: &mut Built<'_, '_>,
    seed: S,
) -> Result<S::Value, DecodeError> {
    macro_rules! primitive {
        ($values:ident, $word:ident => $value:expr) => {{
            let $word = $values.next_item().unwrap_or_default();
            seed.deserialize(Primitive($value))
        }};
    }
    let result = match built {
        Built::Bool(values) => primitive!(values, value => value),
        Built::U8(values) => primitive!(values, word => word),
        Built::U16(values) => primitive!(values, word => word),
        Built::U32(values) => primitive!(values, word => word),
        Built::U64(values) => primitive!(values, word => word),
        Built::I8(values) => primitive!(values, word => word as i8),
        Built::I16(values) => primitive!(values, word => word as i16),
        Built::I32(values) => primitive!(values, word => word as i32),
        Built::I64(values) => primitive!(values, word => word as i64),
        Built::F32(values) => primitive!(values, bits => f32::from_bits(bits)),
        Built::F64(values) => primitive!(values, bits => f64::from_bits(bits)),
        _ => unreachable!("asked for leaves of numbers or booleans only"),
    };
    result.map_err(|e| e.at_path_if_unset(|| node.path()))
}

/// A value of a leaf of numbers or booleans, read as [`At`] reads one: by its own type, and as
/// present where the type has an option.
struct Primitive<T>(T);

/// Hands a number or boolean to a visitor by its type.
trait Visit: Copy {
    fn visit<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError>;
}

macro_rules! visit {
    ($($type:ty => $method:ident),* $(,)?) => {$(
        impl Visit for $type {
            #[inline]
            fn visit<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
                visitor.$method(self)
            }
        }
    )*};
}

visit! {
    bool => visit_bool, u8 => visit_u8, u16 => visit_u16, u32 => visit_u32, u64 => visit_u64,
    i8 => visit_i8, i16 => visit_i16, i32 => visit_i32, i64 => visit_i64, f32 => visit_f32,
    f64 => visit_f64,
}

impl<'de, T: Visit> Deserializer<'de> for Primitive<T> {
    type Error = DecodeError;

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.0.visit(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        visitor.visit_newtype_struct(self)
    }

    fn is_human_readable(&self) -> bool {
        false
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

/// The items of one sequence.
struct Items<'s, 't, 'a> {
    items: &'s mut Slot<'t, 'a>,
    ctx: &'s mut DecodeContext<'a>,
    left: usize,
}

impl<'de, 'a: 'de> de::SeqAccess<'de> for Items<'_, '_, 'a> {
    type Error = DecodeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DecodeError> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        next_value(self.items, self.ctx, seed).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

/// The elements of one tuple.
struct Elements<'s, 't, 'a> {
    elements: std::slice::IterMut<'s, Slot<'t, 'a>>,
    ctx: &'s mut DecodeContext<'a>,
}

impl<'de, 'a: 'de> de::SeqAccess<'de> for Elements<'_, '_, 'a> {
    type Error = DecodeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DecodeError> {
        match self.elements.next() {
            Some(slot) => next_value(slot, self.ctx, seed).map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.elements.len())
    }
}

/// The entries of one map.
struct Entries<'s, 't, 'a> {
    keys: &'s mut Slot<'t, 'a>,
    values: &'s mut Slot<'t, 'a>,
    ctx: &'s mut DecodeContext<'a>,
    left: usize,
}

impl<'de, 'a: 'de> de::MapAccess<'de> for Entries<'_, '_, 'a> {
    type Error = DecodeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DecodeError> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(At::new(self.keys, self.ctx)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, DecodeError> {
        seed.deserialize(At::new(self.values, self.ctx))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

/// The fields of one struct, every one of the type's, in the type's order.
struct InOrder<'s, 't, 'a, I> {
    wanted: I,
    fields: &'s mut [Slot<'t, 'a>],
    ctx: &'s mut DecodeContext<'a>,
}

impl<'de, 'w, 't: 'w, 'a: 'de, I: Iterator<Item = &'w (usize, &'t str)>> de::SeqAccess<'de>
    for InOrder<'_, 't, 'a, I>
{
    type Error = DecodeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DecodeError> {
        match self
            .wanted
            .next()
            .and_then(|&(index, _)| self.fields.get_mut(index))
        {
            Some(field) => seed.deserialize(At::new(field, self.ctx)).map(Some),
            None => Ok(None),
        }
    }
}

/// The fields of one struct, as a map from their names to their values.
struct Fields<'s, 't, 'a, I> {
    /// The fields to hand out: their index in the node, and their name (the type's spelling
    /// when the type named its fields, the file's otherwise).
    wanted: I,
    fields: &'s mut [Slot<'t, 'a>],
    ctx: &'s mut DecodeContext<'a>,
    /// The slot of the value whose key was handed out last.
    value: Option<usize>,
}

impl<'de, 'w, 't: 'w, 'a: 'de, I: Iterator<Item = &'w (usize, &'t str)>> de::MapAccess<'de>
    for Fields<'_, 't, 'a, I>
{
    type Error = DecodeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DecodeError> {
        for &(index, name) in self.wanted.by_ref() {
            let Some(field) = self.fields.get_mut(index) else {
                continue;
            };
            // A field that some structs lack is an option: those structs leave its key out, so
            // that the type's default (`None` for an `Option` field) applies.
            if let Built::Option { presence, .. } = field.built(self.ctx)? {
                if !presence.next().unwrap_or(false) {
                    continue;
                }
            }
            self.value = Some(index);
            return seed.deserialize(key(name)).map(Some);
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, DecodeError> {
        let field = (self.value.take())
            .and_then(|index| self.fields.get_mut(index))
            .ok_or_else(|| corrupt("a struct field's value was asked for before its name"))?;
        if let Some(Built::Option { inner, .. }) = &mut field.built {
            // The presence was read with the key.
            return seed.deserialize(At::new(inner, self.ctx));
        }
        seed.deserialize(At::new(field, self.ctx))
    }
}

/// The variant of one enum value: an `EnumAccess` for a type that knows the enum, and a map of
/// one entry for one that does not.
struct Variant<'s, 't, 'a, 'n> {
    name: Option<&'n str>,
    slot: &'s mut Slot<'t, 'a>,
    ctx: &'s mut DecodeContext<'a>,
}

impl<'de, 's, 't, 'a: 'de> de::EnumAccess<'de> for Variant<'s, 't, 'a, '_> {
    type Error = DecodeError;
    type Variant = At<'s, 't, 'a>;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self::Variant), DecodeError> {
        let name = self.name.unwrap_or_default();
        let value = seed.deserialize(key(name))?;
        Ok((value, At::new(self.slot, self.ctx)))
    }
}

impl<'de, 'a: 'de> de::MapAccess<'de> for Variant<'_, '_, 'a, '_> {
    type Error = DecodeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DecodeError> {
        match self.name.take() {
            Some(name) => seed.deserialize(key(name)).map(Some),
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, DecodeError> {
        seed.deserialize(At::new(self.slot, self.ctx))
    }
}

impl<'a> At<'_, '_, 'a> {
    /// [`de::VariantAccess::unit_variant`] of a variant not read before, or one the file gives
    /// values.
    #[cold]
    #[inline(never)]
    fn unit_variant_read(self) -> Result<(), DecodeError> {
        if matches!(self.slot.built(self.ctx)?, Built::Null) {
            return Ok(());
        }
        de::Deserialize::deserialize(self)
    }
}

impl<'de, 'a: 'de> de::VariantAccess<'de> for At<'_, '_, 'a> {
    type Error = DecodeError;

    #[inline]
    fn unit_variant(self) -> Result<(), DecodeError> {
        // Most unit variants are unit nodes, which hold nothing to read.
        if matches!(self.slot.built, Some(Built::Null)) {
            return Ok(());
        }
        self.unit_variant_read()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<T::Value, DecodeError> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        Deserializer::deserialize_tuple(self, len, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        Deserializer::deserialize_struct(self, "", fields, visitor)
    }
}
