//! A serde `Serializer` that takes values apart into the columns the derive would give their
//! type.
//!
//! serde shows a value's type only as the value arrives, so every place of the schema (the root,
//! a struct field, the items of a sequence, …) starts empty and takes the shape of the first value
//! it sees: a `u32` makes it a `u32` column, a struct a struct node with a child per field. A later
//! value of another shape at the same place turns it into a union of both, as the columns of a
//! [`Value`](crate::Value) do; a struct field that some values leave out (`skip_serializing_if`,
//! internally tagged enums) gets a presence stream, as an `Option` field would.

use serde::ser::{self, Serialize};

use crate::branch::{EncodeResult, SchemaWriter};
use crate::error::{too_deep, EncodeError, EncodeErrorKind};
use crate::options::MAX_DEPTH;
use crate::schema::canonical::canonical_name;
use crate::schema::{NodeType, Segment};
use crate::types::{Encode, ValueEncoder};

/// The shape of the values at a place: a schema node type, with the length of a tuple or array
/// (0 for the others).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Kind {
    node_type: NodeType,
    len: usize,
}

impl Kind {
    /// A kind without a length.
    const fn of(node_type: NodeType) -> Kind {
        Kind { node_type, len: 0 }
    }

    /// The name of a union member of this kind: its type's, with a tuple's or array's length.
    fn name(self) -> String {
        match self.node_type {
            NodeType::Tuple | NodeType::Array => format!("{}_{}", self.node_type, self.len),
            other => other.name().to_owned(),
        }
    }
}

/// The encoder of primitive type `T`, the one its derived fields use.
type Leaf<T> = <T as Encode>::Encoder;

/// The values seen at one place so far.
#[derive(Debug)]
enum Node {
    /// No value yet: a `Void` node.
    Empty,
    Unit,
    Bool(Leaf<bool>),
    U8(Leaf<u8>),
    U16(Leaf<u16>),
    U32(Leaf<u32>),
    U64(Leaf<u64>),
    U128(Leaf<u128>),
    I8(Leaf<i8>),
    I16(Leaf<i16>),
    I32(Leaf<i32>),
    I64(Leaf<i64>),
    I128(Leaf<i128>),
    F32(Leaf<f32>),
    F64(Leaf<f64>),
    Char(Leaf<char>),
    Str(Leaf<str>),
    Option {
        presence: Vec<bool>,
        inner: Box<Place>,
    },
    Seq {
        lengths: Vec<u64>,
        items: Box<Place>,
    },
    Map {
        lengths: Vec<u64>,
        keys: Box<Place>,
        values: Box<Place>,
    },
    Tuple(Vec<Place>),
    /// Tuples taken for arrays: all elements of all values in one place.
    Array {
        len: usize,
        items: Box<Place>,
    },
    Struct(Struct),
    Enum(Enum),
    /// Values of several kinds: which member holds each value, and the members.
    Union {
        discriminants: Vec<u32>,
        members: Vec<(Kind, Place)>,
    },
}

/// The fields of the structs at a place.
#[derive(Debug)]
struct Struct {
    /// The depth of the fields' places.
    depth: usize,
    fields: Vec<Field>,
    /// The structs seen so far.
    records: usize,
    /// Where the next field is looked for first: fields come in the same order in every value.
    next: usize,
    /// The fields the struct being written was given so far.
    given: usize,
}

#[derive(Debug)]
struct Field {
    name: &'static str,
    place: Place,
    /// Whether each struct had the field; `None` while all of them did.
    presence: Option<Vec<bool>>,
    /// One more than the last struct that had the field, to find the structs that lack it.
    seen_in: usize,
}

impl Struct {
    /// The index of field `key`, found out of order, or added if no struct before had it.
    #[inline(never)]
    fn find_or_add(&mut self, key: &'static str) -> usize {
        match (self.fields.iter()).position(|field| same_name(field.name, key)) {
            Some(index) => index,
            None => {
                // The structs before this one lacked the field.
                let record = self.records;
                self.fields.push(Field {
                    name: key,
                    place: Place::new(self.depth),
                    presence: (record > 0).then(|| vec![false; record]),
                    seen_in: 0,
                });
                self.fields.len() - 1
            }
        }
    }
}

/// The variants of the enums at a place, in the order they were first seen.
#[derive(Debug, Default)]
struct Enum {
    variants: Vec<EnumVariant>,
    /// The position in `variants` of each value's variant.
    discriminants: Vec<u32>,
}

#[derive(Debug)]
struct EnumVariant {
    /// The variant's index in its type, by which the file orders the variants, as the derive's
    /// files do.
    index: u32,
    name: &'static str,
    place: Place,
}

/// A place of the schema and the values it holds.
#[derive(Debug)]
pub(super) struct Place {
    node: Node,
    /// The values pushed here, of every kind.
    count: usize,
    /// The places between it and the root, to stop a recursive value before the stack does.
    depth: usize,
}

fn custom(message: impl Into<String>) -> EncodeError {
    EncodeError::new(EncodeErrorKind::Custom, "", message)
}

impl ser::Error for EncodeError {
    fn custom<T: std::fmt::Display>(message: T) -> Self {
        custom(message.to_string())
    }
}

impl Place {
    /// An empty place `depth` places below the root.
    pub(super) fn new(depth: usize) -> Place {
        Place {
            node: Node::Empty,
            count: 0,
            depth,
        }
    }

    fn child(&self) -> Box<Place> {
        Box::new(Place::new(self.depth + 1))
    }

    /// Counts one more value, of kind `kind`, and gives the node that takes it: this place's,
    /// made a union first if it held values of another kind.
    #[inline]
    fn take(&mut self, kind: Kind) -> Result<&mut Node, EncodeError> {
        // Most values are of the kind their place already holds (whose depth was checked when
        // it took its first one).
        if self.node.kind() == Some(kind) {
            self.count += 1;
            return Ok(&mut self.node);
        }
        self.take_n(kind, 1)
    }

    /// [`Self::take`] for `n` values of kind `kind` at once.
    fn take_n(&mut self, kind: Kind, n: usize) -> Result<&mut Node, EncodeError> {
        if self.depth >= MAX_DEPTH {
            return Err(too_deep(""));
        }
        let earlier_count = self.count;
        self.count += n;
        if matches!(self.node, Node::Empty) {
            self.node = self.new_node(kind);
            return Ok(&mut self.node);
        }
        match self.node.kind() {
            Some(existing) if existing == kind => return Ok(&mut self.node),
            Some(existing) => {
                let earlier = Place {
                    node: std::mem::replace(&mut self.node, Node::Empty),
                    count: earlier_count,
                    depth: self.depth + 1,
                };
                self.node = Node::Union {
                    discriminants: vec![0; earlier_count],
                    members: vec![(existing, earlier)],
                };
            }
            None => {}
        }
        let depth = self.depth;
        let Node::Union {
            discriminants,
            members,
        } = &mut self.node
        else {
            unreachable!("a node with no kind of its own is empty or a union")
        };
        let index = match members.iter().position(|(k, _)| *k == kind) {
            Some(index) => index,
            None => {
                members.push((kind, Place::new(depth + 1)));
                members.len() - 1
            }
        };
        discriminants.extend(std::iter::repeat_n(index as u32, n));
        members[index].1.take_n(kind, n)
    }

    fn new_node(&self, kind: Kind) -> Node {
        let depth = self.depth;
        match kind.node_type {
            NodeType::Unit => Node::Unit,
            NodeType::Bool => Node::Bool(ValueEncoder::new(depth)),
            NodeType::U8 => Node::U8(ValueEncoder::new(depth)),
            NodeType::U16 => Node::U16(ValueEncoder::new(depth)),
            NodeType::U32 => Node::U32(ValueEncoder::new(depth)),
            NodeType::U64 => Node::U64(ValueEncoder::new(depth)),
            NodeType::U128 => Node::U128(ValueEncoder::new(depth)),
            NodeType::I8 => Node::I8(ValueEncoder::new(depth)),
            NodeType::I16 => Node::I16(ValueEncoder::new(depth)),
            NodeType::I32 => Node::I32(ValueEncoder::new(depth)),
            NodeType::I64 => Node::I64(ValueEncoder::new(depth)),
            NodeType::I128 => Node::I128(ValueEncoder::new(depth)),
            NodeType::F32 => Node::F32(ValueEncoder::new(depth)),
            NodeType::F64 => Node::F64(ValueEncoder::new(depth)),
            NodeType::Char => Node::Char(ValueEncoder::new(depth)),
            NodeType::Str => Node::Str(ValueEncoder::<str>::new(depth)),
            NodeType::Option => Node::Option {
                presence: Vec::new(),
                inner: self.child(),
            },
            NodeType::Seq => Node::Seq {
                lengths: Vec::new(),
                items: self.child(),
            },
            NodeType::Map => Node::Map {
                lengths: Vec::new(),
                keys: self.child(),
                values: self.child(),
            },
            NodeType::Tuple => Node::Tuple((0..kind.len).map(|_| Place::new(depth + 1)).collect()),
            NodeType::Array => Node::Array {
                len: kind.len,
                items: self.child(),
            },
            NodeType::Struct => Node::Struct(Struct {
                depth: depth + 1,
                fields: Vec::new(),
                records: 0,
                next: 0,
                given: 0,
            }),
            NodeType::Enum => Node::Enum(Enum::default()),
            // No value asks for these: a place is empty until one comes, unions are made from
            // the kinds they hold, and serde values nest one schema level per depth.
            NodeType::Void | NodeType::Union | NodeType::Recursion => {
                unreachable!("a kind of value is asked for")
            }
        }
    }

    /// Writes the place's schema node and hands its columns to the writer.
    pub(super) fn finish(self, out: &mut SchemaWriter) -> EncodeResult {
        crate::stack::deeper(|| self.node.finish(out))
    }

    /// A sequence of bytes: a length and `u8` items, as `Vec<u8>` is written.
    fn push_bytes(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        let Node::Seq { lengths, items } = self.take(Kind::of(NodeType::Seq))? else {
            unreachable!("a place takes the kind asked for")
        };
        lengths.push(bytes.len() as u64);
        if bytes.is_empty() {
            return Ok(());
        }
        match items.take_n(Kind::of(NodeType::U8), bytes.len()) {
            Ok(Node::U8(encoder)) => encoder.push_all(bytes),
            Ok(_) => unreachable!("a place takes the kind asked for"),
            Err(error) => return Err(error.within(Segment::Items)),
        }
        Ok(())
    }
}

impl Node {
    /// The kind of values the node holds; `None` for an empty node or a union.
    #[inline]
    fn kind(&self) -> Option<Kind> {
        let node_type = match self {
            Node::Empty | Node::Union { .. } => return None,
            Node::Tuple(elements) => {
                return Some(Kind {
                    node_type: NodeType::Tuple,
                    len: elements.len(),
                })
            }
            Node::Array { len, .. } => {
                return Some(Kind {
                    node_type: NodeType::Array,
                    len: *len,
                })
            }
            Node::Unit => NodeType::Unit,
            Node::Bool(_) => NodeType::Bool,
            Node::U8(_) => NodeType::U8,
            Node::U16(_) => NodeType::U16,
            Node::U32(_) => NodeType::U32,
            Node::U64(_) => NodeType::U64,
            Node::U128(_) => NodeType::U128,
            Node::I8(_) => NodeType::I8,
            Node::I16(_) => NodeType::I16,
            Node::I32(_) => NodeType::I32,
            Node::I64(_) => NodeType::I64,
            Node::I128(_) => NodeType::I128,
            Node::F32(_) => NodeType::F32,
            Node::F64(_) => NodeType::F64,
            Node::Char(_) => NodeType::Char,
            Node::Str(_) => NodeType::Str,
            Node::Option { .. } => NodeType::Option,
            Node::Seq { .. } => NodeType::Seq,
            Node::Map { .. } => NodeType::Map,
            Node::Struct(_) => NodeType::Struct,
            Node::Enum(_) => NodeType::Enum,
        };
        Some(Kind::of(node_type))
    }

    fn finish(self, out: &mut SchemaWriter) -> EncodeResult {
        match self {
            Node::Empty => out.void(),
            Node::Unit => out.unit(),
            Node::Bool(e) => ValueEncoder::<bool>::finish(e, out),
            Node::U8(e) => ValueEncoder::<u8>::finish(e, out),
            Node::U16(e) => ValueEncoder::<u16>::finish(e, out),
            Node::U32(e) => ValueEncoder::<u32>::finish(e, out),
            Node::U64(e) => ValueEncoder::<u64>::finish(e, out),
            Node::U128(e) => ValueEncoder::<u128>::finish(e, out),
            Node::I8(e) => ValueEncoder::<i8>::finish(e, out),
            Node::I16(e) => ValueEncoder::<i16>::finish(e, out),
            Node::I32(e) => ValueEncoder::<i32>::finish(e, out),
            Node::I64(e) => ValueEncoder::<i64>::finish(e, out),
            Node::I128(e) => ValueEncoder::<i128>::finish(e, out),
            Node::F32(e) => ValueEncoder::<f32>::finish(e, out),
            Node::F64(e) => ValueEncoder::<f64>::finish(e, out),
            Node::Char(e) => ValueEncoder::<char>::finish(e, out),
            Node::Str(e) => ValueEncoder::<str>::finish(e, out),
            Node::Option { presence, inner } => out.option(presence, |out| inner.finish(out)),
            Node::Seq { lengths, items } => out.seq(lengths, |out| items.finish(out)),
            Node::Map {
                lengths,
                keys,
                values,
            } => out.map(lengths, |out| keys.finish(out), |out| values.finish(out)),
            Node::Tuple(elements) => out.tuple(elements.len(), |out| {
                for (index, element) in elements.into_iter().enumerate() {
                    out.element(index, |out| element.finish(out))?;
                }
                Ok(())
            }),
            Node::Array { len, items } => out.array(len, |out| items.finish(out)),
            Node::Struct(node) => {
                let names = canonical_names(node.fields.iter().map(|f| f.name), "fields")?;
                out.structure(node.fields.len(), |out| {
                    for (field, name) in node.fields.into_iter().zip(names) {
                        let Field {
                            place, presence, ..
                        } = field;
                        out.field(&name, |out| match (presence, place.node) {
                            (None, node) => Place { node, ..place }.finish(out),
                            // An option left out where it is `None` (`skip_serializing_if =
                            // "Option::is_none"`): one presence stream, as the derive writes.
                            (Some(field), Node::Option { presence, inner }) => {
                                let mut inner_presence = presence.into_iter();
                                let presence = (field.into_iter())
                                    .map(|had| had && inner_presence.next().unwrap_or(false))
                                    .collect();
                                out.option(presence, |out| inner.finish(out))
                            }
                            (Some(presence), node) => {
                                out.option(presence, |out| Place { node, ..place }.finish(out))
                            }
                        })?;
                    }
                    Ok(())
                })
            }
            Node::Enum(node) => {
                // The file lists the variants in their type's order, as the derive writes them.
                let mut variants: Vec<(usize, EnumVariant)> =
                    node.variants.into_iter().enumerate().collect();
                variants.sort_by_key(|(_, variant)| (variant.index, variant.name));
                let mut rank = vec![0u32; variants.len()];
                for (position, &(seen, _)) in variants.iter().enumerate() {
                    rank[seen] = position as u32;
                }
                let discriminants = (node.discriminants.iter())
                    .map(|&d| rank[d as usize])
                    .collect();
                let names = canonical_names(variants.iter().map(|(_, v)| v.name), "variants")?;
                out.enumeration(variants.len(), discriminants, |out| {
                    for ((_, variant), name) in variants.into_iter().zip(names) {
                        out.variant(&name, |out| variant.place.finish(out))?;
                    }
                    Ok(())
                })
            }
            Node::Union {
                discriminants,
                members,
            } => out.union(members.len(), discriminants, |out| {
                for (kind, place) in members {
                    out.variant(&kind.name(), |out| place.finish(out))?;
                }
                Ok(())
            }),
        }
    }
}

/// Tuples (not tuple structs) of at least this many elements are written as arrays, all their
/// elements in one place as the derive writes `[T; N]`: serde shows arrays as tuples, and a Rust
/// tuple that long is rare where arrays of that length are common.
const ARRAY_MIN_LEN: usize = 5;

/// The names of fields or variants as the file stores them, in canonical form as the derive
/// writes them; two that are one name in that form cannot be told apart when read.
fn canonical_names<'n>(
    names: impl Iterator<Item = &'n str>,
    what: &str,
) -> Result<Vec<String>, EncodeError> {
    let mut canonical: Vec<String> = Vec::new();
    for name in names {
        let written = canonical_name(name).into_owned();
        if canonical.contains(&written) {
            return Err(custom(format!(
                "two {what} have the canonical name `{written}`; tree-buf matches names in \
                 canonical case, so rename one"
            )));
        }
        canonical.push(written);
    }
    Ok(canonical)
}

/// Pushes a primitive value of the given kind.
macro_rules! primitive {
    ($($method:ident($t:ty) => $kind:ident),* $(,)?) => {$(
        #[inline]
        fn $method(self, value: $t) -> Result<(), EncodeError> {
            match self.take(Kind::of(NodeType::$kind))? {
                Node::$kind(encoder) => encoder.push(&value),
                _ => unreachable!("a place takes the kind asked for"),
            }
            Ok(())
        }
    )*};
}

impl<'p> ser::Serializer for &'p mut Place {
    type Ok = ();
    type Error = EncodeError;
    type SerializeSeq = Items<'p>;
    type SerializeTuple = Elements<'p>;
    type SerializeTupleStruct = Elements<'p>;
    type SerializeTupleVariant = Elements<'p>;
    type SerializeMap = Entries<'p>;
    type SerializeStruct = Fields<'p>;
    type SerializeStructVariant = Fields<'p>;

    primitive! {
        serialize_bool(bool) => Bool,
        serialize_u8(u8) => U8,
        serialize_u16(u16) => U16,
        serialize_u32(u32) => U32,
        serialize_u64(u64) => U64,
        serialize_u128(u128) => U128,
        serialize_i8(i8) => I8,
        serialize_i16(i16) => I16,
        serialize_i32(i32) => I32,
        serialize_i64(i64) => I64,
        serialize_i128(i128) => I128,
        serialize_f32(f32) => F32,
        serialize_f64(f64) => F64,
        serialize_char(char) => Char,
    }

    #[inline]
    fn serialize_str(self, value: &str) -> Result<(), EncodeError> {
        match self.take(Kind::of(NodeType::Str))? {
            Node::Str(encoder) => encoder.push(value),
            _ => unreachable!("a place takes the kind asked for"),
        }
        Ok(())
    }

    fn serialize_bytes(self, value: &[u8]) -> Result<(), EncodeError> {
        self.push_bytes(value)
    }

    fn serialize_none(self) -> Result<(), EncodeError> {
        match self.take(Kind::of(NodeType::Option))? {
            Node::Option { presence, .. } => presence.push(false),
            _ => unreachable!("a place takes the kind asked for"),
        }
        Ok(())
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<(), EncodeError> {
        match self.take(Kind::of(NodeType::Option))? {
            Node::Option { presence, inner } => {
                presence.push(true);
                value.serialize(&mut **inner)
            }
            _ => unreachable!("a place takes the kind asked for"),
        }
    }

    fn serialize_unit(self) -> Result<(), EncodeError> {
        self.take(Kind::of(NodeType::Unit)).map(drop)
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), EncodeError> {
        self.serialize_unit()
    }

    #[inline]
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        index: u32,
        variant: &'static str,
    ) -> Result<(), EncodeError> {
        self.variant(index, variant)?.serialize_unit()
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        (value.serialize(self.variant(index, variant)?)).map_err(|e| e.within(name(variant)))
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Items<'p>, EncodeError> {
        match self.take(Kind::of(NodeType::Seq))? {
            Node::Seq { lengths, items } => Ok(Items {
                lengths,
                items,
                len: 0,
            }),
            _ => unreachable!("a place takes the kind asked for"),
        }
    }

    fn serialize_tuple(self, len: usize) -> Result<Elements<'p>, EncodeError> {
        if len < ARRAY_MIN_LEN {
            return self.serialize_tuple_struct("", len);
        }
        match self.take(Kind {
            node_type: NodeType::Array,
            len,
        })? {
            Node::Array { items, .. } => Ok(Elements {
                into: Target::Array { items, len },
                next: 0,
                variant: None,
            }),
            _ => unreachable!("a place takes the kind asked for"),
        }
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Elements<'p>, EncodeError> {
        match self.take(Kind {
            node_type: NodeType::Tuple,
            len,
        })? {
            Node::Tuple(elements) => Ok(Elements {
                into: Target::Tuple(elements),
                next: 0,
                variant: None,
            }),
            _ => unreachable!("a place takes the kind asked for"),
        }
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Elements<'p>, EncodeError> {
        let mut elements = (self
            .variant(index, variant)?
            .serialize_tuple_struct(variant, len))
        .map_err(|e| e.within(name(variant)))?;
        elements.variant = Some(variant);
        Ok(elements)
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Entries<'p>, EncodeError> {
        match self.take(Kind::of(NodeType::Map))? {
            Node::Map {
                lengths,
                keys,
                values,
            } => Ok(Entries {
                lengths,
                keys,
                values,
                len: 0,
            }),
            _ => unreachable!("a place takes the kind asked for"),
        }
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Fields<'p>, EncodeError> {
        match self.take(Kind::of(NodeType::Struct))? {
            Node::Struct(node) => Ok(Fields {
                node,
                variant: None,
            }),
            _ => unreachable!("a place takes the kind asked for"),
        }
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Fields<'p>, EncodeError> {
        let mut fields = (self.variant(index, variant)?.serialize_struct(variant, len))
            .map_err(|e| e.within(name(variant)))?;
        fields.variant = Some(variant);
        Ok(fields)
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}

/// Whether two names of serde's are the same: mostly the very same `&'static str`, which is
/// cheaper to see than equal bytes.
#[inline]
fn same_name(a: &'static str, b: &'static str) -> bool {
    std::ptr::eq(a, b) || a == b
}

/// `error` one step further from the root for a struct or tuple variant: the variant's name.
fn within_variant(variant: Option<&'static str>, error: EncodeError) -> EncodeError {
    match variant {
        Some(variant) => error.within(name(variant)),
        None => error,
    }
}

/// A path step for a field or variant name.
fn name(name: &str) -> Segment {
    Segment::Name(name.to_owned())
}

impl Place {
    /// Counts an enum value of variant `variant` (index `index` in its type), and gives the
    /// place of that variant's content.
    #[inline]
    fn variant(&mut self, index: u32, variant: &'static str) -> Result<&mut Place, EncodeError> {
        let depth = self.depth;
        let Node::Enum(node) = self.take(Kind::of(NodeType::Enum))? else {
            unreachable!("a place takes the kind asked for")
        };
        // The index tells most variants apart before their names are compared.
        let position = match (node.variants.iter())
            .position(|v| v.index == index && same_name(v.name, variant))
        {
            Some(position) => position,
            None => {
                node.variants.push(EnumVariant {
                    index,
                    name: variant,
                    place: Place::new(depth + 1),
                });
                node.variants.len() - 1
            }
        };
        node.discriminants.push(position as u32);
        Ok(&mut node.variants[position].place)
    }
}

/// The items of a sequence being written.
pub(super) struct Items<'p> {
    lengths: &'p mut Vec<u64>,
    items: &'p mut Place,
    len: u64,
}

impl ser::SerializeSeq for Items<'_> {
    type Ok = ();
    type Error = EncodeError;

    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), EncodeError> {
        self.len += 1;
        (value.serialize(&mut *self.items)).map_err(|e| e.within(Segment::Items))
    }

    fn end(self) -> Result<(), EncodeError> {
        self.lengths.push(self.len);
        Ok(())
    }
}

/// The elements of a tuple, tuple struct or tuple variant being written.
pub(super) struct Elements<'p> {
    into: Target<'p>,
    next: usize,
    /// The variant, for a tuple variant: the first step of error paths.
    variant: Option<&'static str>,
}

/// Where the elements of a tuple go.
enum Target<'p> {
    /// A place for each.
    Tuple(&'p mut Vec<Place>),
    /// The items of an array.
    Array { items: &'p mut Place, len: usize },
}

impl Elements<'_> {
    fn len(&self) -> usize {
        match &self.into {
            Target::Tuple(elements) => elements.len(),
            Target::Array { len, .. } => *len,
        }
    }

    fn element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), EncodeError> {
        let index = self.next;
        self.next += 1;
        let result = match &mut self.into {
            Target::Tuple(elements) => match elements.get_mut(index) {
                Some(place) => {
                    (value.serialize(place)).map_err(|e| e.within(Segment::Index(index)))
                }
                None => Err(custom(format!(
                    "a tuple of {} elements was given more",
                    elements.len()
                ))),
            },
            Target::Array { items, len } if index < *len => {
                (value.serialize(&mut **items)).map_err(|e| e.within(Segment::Items))
            }
            Target::Array { len, .. } => {
                Err(custom(format!("a tuple of {len} elements was given more")))
            }
        };
        result.map_err(|e| self.within_variant(e))
    }

    fn end(self) -> Result<(), EncodeError> {
        if self.next != self.len() {
            let error = custom(format!(
                "a tuple of {} elements was given {}",
                self.len(),
                self.next
            ));
            return Err(self.within_variant(error));
        }
        Ok(())
    }

    fn within_variant(&self, error: EncodeError) -> EncodeError {
        within_variant(self.variant, error)
    }
}

/// Implements serde's compound serializers whose every element or field goes to `$method` and
/// whose end is `$end`.
macro_rules! compound {
    ($type:ident: $($trait:ident::$add:ident($($key:ident: $key_type:ty,)?) => $method:ident),* $(,)?) => {$(
        impl ser::$trait for $type<'_> {
            type Ok = ();
            type Error = EncodeError;

            #[inline]
            fn $add<T: ?Sized + Serialize>(
                &mut self,
                $($key: $key_type,)?
                value: &T,
            ) -> Result<(), EncodeError> {
                self.$method($($key,)? value)
            }

            fn end(self) -> Result<(), EncodeError> {
                $type::end(self)
            }
        }
    )*};
}

compound! {
    Elements:
    SerializeTuple::serialize_element() => element,
    SerializeTupleStruct::serialize_field() => element,
    SerializeTupleVariant::serialize_field() => element,
}

/// The entries of a map being written.
pub(super) struct Entries<'p> {
    lengths: &'p mut Vec<u64>,
    keys: &'p mut Place,
    values: &'p mut Place,
    len: u64,
}

impl ser::SerializeMap for Entries<'_> {
    type Ok = ();
    type Error = EncodeError;

    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), EncodeError> {
        self.len += 1;
        (key.serialize(&mut *self.keys)).map_err(|e| e.within(Segment::Keys))
    }

    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), EncodeError> {
        (value.serialize(&mut *self.values)).map_err(|e| e.within(Segment::Values))
    }

    fn end(self) -> Result<(), EncodeError> {
        self.lengths.push(self.len);
        Ok(())
    }
}

/// The fields of a struct or struct variant being written.
pub(super) struct Fields<'p> {
    node: &'p mut Struct,
    /// The variant, for a struct variant: the first step of error paths.
    variant: Option<&'static str>,
}

impl Fields<'_> {
    #[inline]
    fn field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        let node = &mut *self.node;
        let record = node.records;
        // Mostly the field after the last one given: fields come in the same order in every
        // struct.
        let index = match node.fields.get(node.next) {
            Some(field) if same_name(field.name, key) => node.next,
            _ => node.find_or_add(key),
        };
        node.next = index + 1;
        let field = &mut node.fields[index];
        if field.seen_in == record + 1 {
            return Err(self.given_twice(key));
        }
        field.seen_in = record + 1;
        node.given += 1;
        if let Some(presence) = &mut field.presence {
            presence.push(true);
        }
        let variant = self.variant;
        (value.serialize(&mut field.place))
            .map_err(|e| within_variant(variant, e.within(name(key))))
    }

    fn end(self) -> Result<(), EncodeError> {
        let node = self.node;
        let record = node.records;
        // A struct given every field lacks none.
        if node.given < node.fields.len() {
            for field in &mut node.fields {
                if field.seen_in != record + 1 {
                    (field.presence.get_or_insert_with(|| vec![true; record])).push(false);
                }
            }
        }
        node.records += 1;
        node.next = 0;
        node.given = 0;
        Ok(())
    }

    #[cold]
    fn given_twice(&self, key: &str) -> EncodeError {
        let error = custom(format!("the struct was given the field `{key}` twice"));
        self.within_variant(error)
    }

    fn within_variant(&self, error: EncodeError) -> EncodeError {
        within_variant(self.variant, error)
    }
}

compound! {
    Fields:
    SerializeStruct::serialize_field(key: &'static str,) => field,
    SerializeStructVariant::serialize_field(key: &'static str,) => field,
}
