//! Writing `Value`s columnar, with the schema inferred from the data.
//!
//! Each path gets a [`Slot`] that collects its values by kind. A path that saw a null becomes an
//! option, except for object fields: there a missing field makes the option, and an explicit
//! null is a kind of its own, so that both survive the round trip. A path that saw values of
//! several kinds becomes a union with one child per kind; objects keep one slot per field name,
//! written in an order that agrees with the key order of every object when one exists.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};

use super::Value;
use crate::branch::{Column, Words};
use crate::encodings::string::StrColumn;
use crate::error::EncodeError;
use crate::options::{EncodeOptions, MAX_DEPTH};
use crate::schema::{EncodeResult, NodeType, SchemaWriter};
use crate::types::ValueEncoder;

/// Collects [`Value`]s into columns, inferring the schema.
#[derive(Debug)]
pub struct DynEncoder(Slot);

/// Every value found at one path.
#[derive(Debug, Default)]
struct Slot {
    depth: usize,
    /// Whether this slot holds an object field, where missing and null differ.
    field: bool,
    /// Values pushed, nulls included.
    len: usize,
    /// One entry per value once a null was seen (`false` for nulls).
    presence: Option<Vec<bool>>,
    kinds: Vec<Kind>,
    /// The kind of each present value, once a second kind was seen.
    discriminants: Option<Vec<u32>>,
    /// Set when a value nested deeper than the limit; reported on finish.
    too_deep: bool,
}

/// The values of one kind at one path.
#[derive(Debug)]
enum Kind {
    /// Explicit nulls in object fields: a count.
    Null(usize),
    Bool(Vec<bool>),
    /// Integers that fit `i128`.
    Integer(Vec<i128>),
    /// Unsigned integers above `i128::MAX`.
    Huge(Vec<u128>),
    Float(Vec<f64>),
    String(StrColumn),
    Bytes {
        lengths: Vec<u64>,
        bytes: Vec<u8>,
    },
    Array {
        name: &'static str,
        lengths: Vec<u64>,
        items: Box<Slot>,
    },
    Object(Fields),
    Variant {
        index: HashMap<String, usize>,
        variants: Vec<(String, Slot)>,
        discriminants: Vec<u32>,
    },
    Map {
        lengths: Vec<u64>,
        keys: Box<Slot>,
        values: Box<Slot>,
    },
}

/// The kind a value belongs to, as a union variant name. Arrays are told apart by the kind of
/// their first item, so that `[x, y]` points and `[[x, y], ...]` rings meeting at one place
/// (GeoJSON polygons and multipolygons) keep separate columns; empty arrays join any array kind.
fn kind_name(value: &Value) -> &'static str {
    match value {
        Value::Array(items) => match items.first().map(kind_name) {
            None => "array",
            Some("bool") => "array_of_bool",
            Some("integer" | "huge") => "array_of_integer",
            Some("float") => "array_of_float",
            Some("string") => "array_of_string",
            Some("object") => "array_of_object",
            Some(_) => "array_of_array",
        },
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Unsigned(v) if *v > i128::MAX as u128 => "huge",
        Value::Unsigned(_) | Value::Signed(_) => "integer",
        Value::Float(_) => "float",
        Value::String(_) => "string",
        Value::Bytes(_) => "bytes",
        Value::Object(_) => "object",
        Value::Variant(..) => "variant",
        Value::Map(_) => "map",
    }
}

impl Kind {
    fn name(&self) -> &'static str {
        match self {
            Kind::Null(_) => "null",
            Kind::Bool(_) => "bool",
            Kind::Integer(_) => "integer",
            Kind::Huge(_) => "huge",
            Kind::Float(_) => "float",
            Kind::String(_) => "string",
            Kind::Bytes { .. } => "bytes",
            Kind::Array { name, .. } => name,
            Kind::Object(_) => "object",
            Kind::Variant { .. } => "variant",
            Kind::Map { .. } => "map",
        }
    }

    fn new(value: &Value, depth: usize) -> Kind {
        let child = || {
            Box::new(Slot {
                depth: depth + 1,
                ..Slot::default()
            })
        };
        match value {
            Value::Null => Kind::Null(0),
            Value::Bool(_) => Kind::Bool(Vec::new()),
            Value::Unsigned(v) if *v > i128::MAX as u128 => Kind::Huge(Vec::new()),
            Value::Unsigned(_) | Value::Signed(_) => Kind::Integer(Vec::new()),
            Value::Float(_) => Kind::Float(Vec::new()),
            Value::String(_) => Kind::String(StrColumn::default()),
            Value::Bytes(_) => Kind::Bytes {
                lengths: Vec::new(),
                bytes: Vec::new(),
            },
            Value::Array(_) => Kind::Array {
                name: kind_name(value),
                lengths: Vec::new(),
                items: child(),
            },
            Value::Object(_) => Kind::Object(Fields::default()),
            Value::Variant(..) => Kind::Variant {
                index: HashMap::new(),
                variants: Vec::new(),
                discriminants: Vec::new(),
            },
            Value::Map(_) => Kind::Map {
                lengths: Vec::new(),
                keys: child(),
                values: child(),
            },
        }
    }

    fn push(&mut self, value: &Value, depth: usize) {
        match (self, value) {
            (Kind::Null(count), Value::Null) => *count += 1,
            (Kind::Bool(values), Value::Bool(v)) => values.push(*v),
            (Kind::Integer(values), Value::Unsigned(v)) => values.push(*v as i128),
            (Kind::Integer(values), Value::Signed(v)) => values.push(*v),
            (Kind::Huge(values), Value::Unsigned(v)) => values.push(*v),
            (Kind::Float(values), Value::Float(v)) => values.push(*v),
            (Kind::String(column), Value::String(v)) => column.push(v),
            (Kind::Bytes { lengths, bytes }, Value::Bytes(v)) => {
                lengths.push(v.len() as u64);
                bytes.extend_from_slice(v);
            }
            (Kind::Array { lengths, items, .. }, Value::Array(values)) => {
                lengths.push(values.len() as u64);
                for item in values {
                    items.push(item);
                }
            }
            (Kind::Object(fields), Value::Object(entries)) => fields.push(entries, depth),
            (
                Kind::Variant {
                    index,
                    variants,
                    discriminants,
                },
                Value::Variant(name, content),
            ) => {
                let slot = *index.entry(name.clone()).or_insert_with(|| {
                    variants.push((
                        name.clone(),
                        Slot {
                            depth: depth + 1,
                            ..Slot::default()
                        },
                    ));
                    variants.len() - 1
                });
                discriminants.push(slot as u32);
                variants[slot].1.push(content);
            }
            (
                Kind::Map {
                    lengths,
                    keys,
                    values,
                },
                Value::Map(entries),
            ) => {
                lengths.push(entries.len() as u64);
                for (key, value) in entries {
                    keys.push(key);
                    values.push(value);
                }
            }
            _ => {}
        }
    }

    /// How many values of this kind there are.
    fn len(&self) -> usize {
        match self {
            Kind::Null(count) => *count,
            Kind::Bool(v) => v.len(),
            Kind::Integer(v) => v.len(),
            Kind::Huge(v) => v.len(),
            Kind::Float(v) => v.len(),
            Kind::String(v) => v.len(),
            Kind::Bytes { lengths, .. }
            | Kind::Array { lengths, .. }
            | Kind::Map { lengths, .. } => lengths.len(),
            Kind::Object(fields) => fields.len,
            Kind::Variant { discriminants, .. } => discriminants.len(),
        }
    }

    /// The values at positions `offset, offset + stride, ...` as a kind of their own, for scalar
    /// kinds (used to split fixed-length arrays of scalars into one column per position).
    fn stride(&self, offset: usize, stride: usize) -> Option<Kind> {
        fn pick<T: Clone>(values: &[T], offset: usize, stride: usize) -> Vec<T> {
            values
                .iter()
                .skip(offset)
                .step_by(stride)
                .cloned()
                .collect()
        }
        Some(match self {
            Kind::Bool(v) => Kind::Bool(pick(v, offset, stride)),
            Kind::Integer(v) => Kind::Integer(pick(v, offset, stride)),
            Kind::Huge(v) => Kind::Huge(pick(v, offset, stride)),
            Kind::Float(v) => Kind::Float(pick(v, offset, stride)),
            Kind::String(column) => {
                let mut out = StrColumn::default();
                (offset..column.len())
                    .step_by(stride)
                    .for_each(|i| out.push(column.get(i)));
                Kind::String(out)
            }
            _ => return None,
        })
    }

    fn finish(self, out: &mut SchemaWriter) -> EncodeResult {
        match self {
            Kind::Null(_) => out.unit(),
            Kind::Bool(values) => out.leaf(NodeType::Bool, Column::Bool(values)),
            Kind::Integer(values) => {
                let negative = values.iter().any(|&v| v < 0);
                let fits_64 = values.iter().all(|&v| {
                    if negative {
                        i64::try_from(v).is_ok()
                    } else {
                        u64::try_from(v).is_ok()
                    }
                });
                match (negative, fits_64) {
                    (false, true) => out.leaf(
                        NodeType::U64,
                        Column::Int(Words::U64(values.iter().map(|&v| v as u64).collect())),
                    ),
                    (false, false) => out.leaf(
                        NodeType::U128,
                        Column::Int(Words::U128(values.iter().map(|&v| v as u128).collect())),
                    ),
                    (true, true) => out.leaf(
                        NodeType::I64,
                        Column::Int(Words::U64(
                            values.iter().map(|&v| v as i64 as u64).collect(),
                        )),
                    ),
                    (true, false) => out.leaf(
                        NodeType::I128,
                        Column::Int(Words::U128(values.iter().map(|&v| v as u128).collect())),
                    ),
                }
            }
            Kind::Huge(values) => out.leaf(NodeType::U128, Column::Int(Words::U128(values))),
            Kind::Float(values) => out.leaf(
                NodeType::F64,
                Column::Float(Words::U64(values.iter().map(|v| v.to_bits()).collect())),
            ),
            Kind::String(column) => out.leaf(NodeType::Str, Column::Str(column)),
            Kind::Bytes { lengths, bytes } => out.seq(lengths, |out| {
                out.leaf(NodeType::U8, Column::Int(Words::U8(bytes)))
            }),
            Kind::Array { lengths, items, .. } => match items.split_fixed(&lengths) {
                Some(columns) => out.tuple(columns.len(), |out| {
                    columns
                        .into_iter()
                        .enumerate()
                        .try_for_each(|(i, column)| out.element(i, |out| column.finish(out)))
                }),
                None => out.seq(lengths, |out| items.finish(out)),
            },
            Kind::Object(fields) => {
                let fields = fields.into_ordered();
                out.structure(fields.len(), |out| {
                    fields
                        .into_iter()
                        .try_for_each(|(name, slot)| out.field(&name, |out| slot.finish(out)))
                })
            }
            Kind::Variant {
                variants,
                discriminants,
                ..
            } => out.enumeration(variants.len(), discriminants, |out| {
                variants
                    .into_iter()
                    .try_for_each(|(name, slot)| out.variant(&name, |out| slot.finish(out)))
            }),
            Kind::Map {
                lengths,
                keys,
                values,
            } => out.map(lengths, |out| keys.finish(out), |out| values.finish(out)),
        }
    }
}

/// The fields of the objects at one path, and the orders their keys came in.
#[derive(Debug, Default)]
struct Fields {
    /// Objects pushed.
    len: usize,
    index: HashMap<String, usize>,
    /// One slot per field name, in first-seen order.
    slots: Vec<(String, Slot)>,
    /// `(a, b)` when field `a` came right before field `b` in some object.
    follows: HashSet<(usize, usize)>,
    /// The fields of the last object, in its order: objects of one shape record their order once.
    last: Vec<usize>,
}

impl Fields {
    fn push(&mut self, entries: &[(String, Value)], depth: usize) {
        for (name, _) in entries {
            if !self.index.contains_key(name) {
                // A field first seen now was missing from every earlier object.
                self.index.insert(name.clone(), self.slots.len());
                self.slots
                    .push((name.clone(), Slot::absent(self.len, depth + 1)));
            }
        }
        let mut written = vec![false; self.slots.len()];
        let mut sequence = Vec::with_capacity(entries.len());
        for (name, entry) in entries {
            let slot = self.index[name];
            // Of a name repeated within one object, the first value counts.
            if !written[slot] {
                written[slot] = true;
                sequence.push(slot);
                self.slots[slot].1.push(entry);
            }
        }
        for ((_, slot), written) in self.slots.iter_mut().zip(written) {
            if !written {
                slot.push_missing();
            }
        }
        if sequence != self.last {
            self.follows
                .extend(sequence.windows(2).map(|pair| (pair[0], pair[1])));
            self.last = sequence;
        }
        self.len += 1;
    }

    /// The slots in an order that keeps every recorded `follows` pair, the earliest seen field
    /// first among those free to go next; where objects disagree, the earliest seen field wins.
    fn into_ordered(self) -> Vec<(String, Slot)> {
        let n = self.slots.len();
        let mut successors = vec![Vec::new(); n];
        let mut predecessors = vec![0usize; n];
        for &(before, after) in &self.follows {
            successors[before].push(after);
            predecessors[after] += 1;
        }
        let mut ready: BinaryHeap<Reverse<usize>> = (0..n)
            .filter(|&i| predecessors[i] == 0)
            .map(Reverse)
            .collect();
        let mut slots: Vec<Option<(String, Slot)>> = self.slots.into_iter().map(Some).collect();
        let mut ordered = Vec::with_capacity(n);
        let mut first_unplaced = 0;
        while ordered.len() < n {
            let field = match ready.pop() {
                Some(Reverse(field)) => field,
                None => {
                    // A cycle: break it at the earliest seen field not placed yet.
                    while slots[first_unplaced].is_none() {
                        first_unplaced += 1;
                    }
                    first_unplaced
                }
            };
            let Some(slot) = slots[field].take() else {
                continue;
            };
            ordered.push(slot);
            for &after in &successors[field] {
                predecessors[after] -= 1;
                if predecessors[after] == 0 {
                    ready.push(Reverse(after));
                }
            }
        }
        ordered
    }
}

/// Arrays that always hold this many scalars or fewer, all of one length, are written as tuples.
const MAX_TUPLE: u64 = 8;

impl Slot {
    /// A slot for a field that was missing from the first `len` objects.
    fn absent(len: usize, depth: usize) -> Slot {
        Slot {
            depth,
            field: true,
            len,
            presence: (len > 0).then(|| vec![false; len]),
            ..Slot::default()
        }
    }

    /// Records a value that is not there: a missing field, or a null outside objects.
    fn push_missing(&mut self) {
        self.len += 1;
        self.presence
            .get_or_insert_with(|| vec![true; self.len - 1])
            .push(false);
    }

    fn push(&mut self, value: &Value) {
        crate::stack::deeper(|| self.push_here(value));
    }

    fn push_here(&mut self, value: &Value) {
        if self.depth >= MAX_DEPTH {
            self.too_deep = true;
            return;
        }
        if let (Value::Null, false) = (value, self.field) {
            self.push_missing();
            return;
        }
        self.len += 1;
        if let Some(presence) = &mut self.presence {
            presence.push(true);
        }
        let name = kind_name(value);
        let same_kind = |kind: &Kind| {
            kind.name() == name || (name == "array" && matches!(kind, Kind::Array { .. }))
        };
        let index = match self.kinds.iter().position(same_kind) {
            Some(index) => index,
            None => {
                if self.kinds.len() == 1 {
                    // A second kind: every earlier value was of the first.
                    self.discriminants = Some(vec![0; self.kinds[0].len()]);
                }
                self.kinds.push(Kind::new(value, self.depth));
                self.kinds.len() - 1
            }
        };
        if let Some(discriminants) = &mut self.discriminants {
            discriminants.push(index as u32);
        }
        self.kinds[index].push(value, self.depth);
    }

    /// For the items of arrays that all have the same small length `n` and hold one scalar kind
    /// without nulls: one slot per position.
    fn split_fixed(&self, lengths: &[u64]) -> Option<Vec<Slot>> {
        let n = *lengths.first()?;
        if !(2..=MAX_TUPLE).contains(&n)
            || lengths.iter().any(|&len| len != n)
            || self.presence.is_some()
            || self.kinds.len() != 1
        {
            return None;
        }
        (0..n as usize)
            .map(|offset| {
                let kind = self.kinds[0].stride(offset, n as usize)?;
                Some(Slot {
                    depth: self.depth,
                    len: kind.len(),
                    kinds: vec![kind],
                    ..Slot::default()
                })
            })
            .collect()
    }

    fn finish(self, out: &mut SchemaWriter) -> EncodeResult {
        crate::stack::deeper(|| self.finish_here(out))
    }

    fn finish_here(self, out: &mut SchemaWriter) -> EncodeResult {
        if self.too_deep {
            return Err(out.too_deep());
        }
        let Slot {
            presence,
            mut kinds,
            discriminants,
            ..
        } = self;
        let write_kinds = move |out: &mut SchemaWriter| match (kinds.len(), kinds.pop()) {
            (_, None) => out.void(),
            (1, Some(kind)) => kind.finish(out),
            (n, Some(last)) => out.union(n, discriminants.unwrap_or_default(), |out| {
                kinds
                    .into_iter()
                    .chain([last])
                    .try_for_each(|kind| out.variant(kind.name(), |out| kind.finish(out)))
            }),
        };
        match presence {
            Some(presence) => out.option(presence, write_kinds),
            None => write_kinds(out),
        }
    }
}

impl ValueEncoder<Value> for DynEncoder {
    fn new(depth: usize) -> Self {
        DynEncoder(Slot {
            depth,
            ..Slot::default()
        })
    }

    fn push(&mut self, value: &Value) {
        self.0.push(value);
    }

    fn finish(self, out: &mut SchemaWriter) -> EncodeResult {
        self.0.finish(out)
    }
}

/// Encodes a root array whose items arrive one at a time (the rows of a CSV file, the records
/// of a log), without holding them all as [`Value`]s: only their columns are kept.
///
/// ```
/// use tree_buf::{decode, ArrayWriter, EncodeOptions, Value};
///
/// let mut writer = ArrayWriter::new();
/// for i in 0..3u8 {
///     writer.push(&Value::Object(vec![("n".into(), Value::Unsigned(i.into()))]));
/// }
/// let bytes = writer.finish(&EncodeOptions::default())?;
/// let rows: Value = decode(&bytes)?;
/// assert_eq!(rows, Value::Array((0..3u8).map(|i| Value::Object(vec![("n".into(), Value::Unsigned(i.into()))])).collect()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Default)]
pub struct ArrayWriter {
    items: Slot,
    len: u64,
}

impl ArrayWriter {
    /// An empty array.
    pub fn new() -> Self {
        ArrayWriter {
            items: Slot {
                depth: 1,
                ..Slot::default()
            },
            len: 0,
        }
    }

    /// Appends an item.
    pub fn push(&mut self, item: &Value) {
        self.items.push(item);
        self.len += 1;
    }

    /// The number of items pushed.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether no item was pushed.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Encodes the array as a file, the same bytes `encode(&Value::Array(items))` gives.
    pub fn finish(self, options: &EncodeOptions) -> Result<Vec<u8>, EncodeError> {
        let ArrayWriter { items, len } = self;
        crate::file::write_with(options, |out| out.seq(vec![len], |out| items.finish(out)))
    }
}
