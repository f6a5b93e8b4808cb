//! Writing `Value`s columnar, with the schema inferred from the data.
//!
//! Each path gets a [`Slot`] that collects its values by kind. A path that saw a null becomes an
//! option, except for object fields: there a missing field makes the option, and an explicit
//! null is a kind of its own, so that both survive the round trip. A path that saw values of
//! several kinds becomes a union with one child per kind; objects keep one slot per field name,
//! in the order the objects give their keys (see [`Object`]).
//!
//! Values arrive whole, as [`Value`]s, or piece by piece from a serde `Deserializer` (see
//! `stream.rs`); both go through the same `Slot` and `Object` methods.
//!
//! Values may nest deeper than the schema may (JSON of arrays in arrays ten thousand deep): a
//! slot [`DEEP`] levels down holds the values of every depth below it too, each after those it
//! holds, and the slots below it are recursion nodes that name them by position (see
//! `docs/FORMAT.md`, Recursion). A value streamed piece by piece is read whole from that slot
//! down, since it must be placed after the values it holds.

use std::cell::{Cell, RefCell};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};

use super::Value;
use crate::branch::{Column, EncodeResult, SchemaWriter, Words};
use crate::encodings::string::StrColumn;
use crate::error::EncodeError;
use crate::options::{EncodeOptions, MAX_DEPTH};
use crate::schema::NodeType;
use crate::types::{new_anchor, post_order, Back, Placed, ValueEncoder};

/// Collects [`Value`]s into columns, inferring the schema.
#[derive(Debug)]
pub struct DynEncoder(Slot);

/// The depth of the slots that hold, of values that arrive whole, those of every depth below
/// them: deep enough that real data rarely reaches it, shallow enough that its schema (up to
/// three nodes a level: an option, a union and the kind) stays within `MAX_DEPTH`.
const DEEP: usize = 48;

/// Whether the slot at `depth` takes its values whole, as the anchor of every depth below.
fn whole_at(depth: usize) -> bool {
    depth == DEEP && !LEVEL_BY_LEVEL.with(Cell::get)
}

/// An anchor placing its values: its id, and where the values it placed so far went, for the
/// recursion slots below it to name them.
struct Placing {
    anchor: u64,
    placed: Placed<Value>,
}

thread_local! {
    static PLACING: RefCell<Option<Placing>> = const { RefCell::new(None) };
    /// Set while values go where recursion nodes may not (an archive that declares a format
    /// version before them): one slot per level, as streamed values get.
    static LEVEL_BY_LEVEL: Cell<bool> = const { Cell::new(false) };
}

/// Runs `push` with whole values given one slot per level, however deep, as before format
/// version 6.
pub(crate) fn level_by_level<R>(push: impl FnOnce() -> R) -> R {
    let outer = LEVEL_BY_LEVEL.with(|flag| flag.replace(true));
    let pushed = push();
    LEVEL_BY_LEVEL.with(|flag| flag.set(outer));
    pushed
}

/// Every value found at one path.
#[derive(Debug, Default)]
pub(super) struct Slot {
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
    /// For a slot [`DEEP`] levels down that took whole values: its anchor id and how many
    /// values it placed.
    anchor: Option<(u64, u64)>,
    /// For a slot below such an anchor: the back-reference its values go through.
    recursion: Option<Back>,
}

/// The values of one kind at one path.
#[derive(Debug)]
pub(super) enum Kind {
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
        of: ArrayOf,
        lengths: Vec<u64>,
        items: Box<Slot>,
    },
    Object(Object),
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

/// The kind of a value: which [`Kind`] of a slot takes it, and the name of its member where a
/// union holds several kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum KindName {
    Null,
    Bool,
    Integer,
    /// Unsigned integers above `i128::MAX`.
    Huge,
    Float,
    String,
    Bytes,
    Array(ArrayOf),
    Object,
    Variant,
    Map,
}

/// Arrays are told apart by the kind of their first item, so that `[x, y]` points and
/// `[[x, y], ...]` rings meeting at one place (GeoJSON polygons and multipolygons) keep separate
/// columns; empty arrays join any array kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ArrayOf {
    /// An empty array.
    Nothing,
    Bool,
    Integer,
    Float,
    String,
    Object,
    /// Arrays, nulls, bytes, variants or maps.
    Other,
}

impl KindName {
    /// The kind of `value`.
    pub(super) fn of(value: &Value) -> KindName {
        match value {
            Value::Array(items) => KindName::array_of(items.first().map(|item| match item {
                // Arrays in arrays are `Other`, whatever they hold: not looked into, so that
                // arrays nested a million deep take one step, not a million.
                Value::Array(_) => KindName::Array(ArrayOf::Other),
                item => KindName::of(item),
            })),
            Value::Null => KindName::Null,
            Value::Bool(_) => KindName::Bool,
            Value::Unsigned(v) if *v > i128::MAX as u128 => KindName::Huge,
            Value::Unsigned(_) | Value::Signed(_) => KindName::Integer,
            Value::Float(_) => KindName::Float,
            Value::String(_) => KindName::String,
            Value::Bytes(_) => KindName::Bytes,
            Value::Object(_) => KindName::Object,
            Value::Variant(..) => KindName::Variant,
            Value::Map(_) => KindName::Map,
        }
    }

    /// The kind of an array whose first item is of kind `item` (`None` when it is empty).
    pub(super) fn array_of(item: Option<KindName>) -> KindName {
        KindName::Array(match item {
            None => ArrayOf::Nothing,
            Some(KindName::Bool) => ArrayOf::Bool,
            Some(KindName::Integer | KindName::Huge) => ArrayOf::Integer,
            Some(KindName::Float) => ArrayOf::Float,
            Some(KindName::String) => ArrayOf::String,
            Some(KindName::Object) => ArrayOf::Object,
            Some(_) => ArrayOf::Other,
        })
    }

    /// The name of this kind's member in a union, as the schema spells it.
    fn name(self) -> &'static str {
        match self {
            KindName::Null => "null",
            KindName::Bool => "bool",
            KindName::Integer => "integer",
            KindName::Huge => "huge",
            KindName::Float => "float",
            KindName::String => "string",
            KindName::Bytes => "bytes",
            KindName::Array(ArrayOf::Nothing) => "array",
            KindName::Array(ArrayOf::Bool) => "array_of_bool",
            KindName::Array(ArrayOf::Integer) => "array_of_integer",
            KindName::Array(ArrayOf::Float) => "array_of_float",
            KindName::Array(ArrayOf::String) => "array_of_string",
            KindName::Array(ArrayOf::Object) => "array_of_object",
            KindName::Array(ArrayOf::Other) => "array_of_array",
            KindName::Object => "object",
            KindName::Variant => "variant",
            KindName::Map => "map",
        }
    }
}

/// The objects at one path: one slot per field name.
///
/// Fields come out in an order that keeps the key order of every object, where the objects
/// agree on one: each object says which of its keys follows which, and the fields are sorted to
/// respect all of that, ties going to the field seen first.
#[derive(Debug)]
pub(super) struct Object {
    /// The depth of the slot holding the objects.
    depth: usize,
    len: usize,
    index: HashMap<String, usize>,
    /// In first-seen order.
    fields: Vec<(String, Slot)>,
    /// Pairs of fields seen one right after the other in some object.
    follows: HashSet<(usize, usize)>,
    /// The last field seen after each field, to skip the set for the usual repeats.
    last_next: Vec<usize>,
    /// While an object is pushed: its last field so far, and which fields it gave.
    previous: Option<usize>,
    written: Vec<bool>,
}

impl Object {
    fn new(depth: usize) -> Object {
        Object {
            depth,
            len: 0,
            index: HashMap::new(),
            fields: Vec::new(),
            follows: HashSet::new(),
            last_next: Vec::new(),
            previous: None,
            written: Vec::new(),
        }
    }

    /// Adds a field missing from every object so far.
    fn add(&mut self, name: &str) -> usize {
        let field = self.fields.len();
        self.fields
            .push((name.to_owned(), Slot::absent(self.len, self.depth + 1)));
        self.written.push(false);
        self.last_next.push(usize::MAX);
        self.index.insert(name.to_owned(), field);
        field
    }

    /// The field `name` of the object being pushed, to push its value into; `None` when the
    /// object already gave that name (of a repeated name, the first value counts).
    pub(super) fn field(&mut self, name: &str) -> Option<usize> {
        let field = match self.index.get(name) {
            Some(&field) => field,
            None => self.add(name),
        };
        if std::mem::replace(&mut self.written[field], true) {
            return None;
        }
        if let Some(previous) = self.previous.replace(field) {
            if std::mem::replace(&mut self.last_next[previous], field) != field {
                self.follows.insert((previous, field));
            }
        }
        Some(field)
    }

    pub(super) fn slot(&mut self, field: usize) -> &mut Slot {
        &mut self.fields[field].1
    }

    /// Completes the object being pushed: the fields it did not give are missing.
    pub(super) fn end(&mut self) {
        for ((_, slot), written) in self.fields.iter_mut().zip(&mut self.written) {
            if !std::mem::take(written) {
                slot.push_missing();
            }
        }
        self.previous = None;
        self.len += 1;
    }

    /// The fields in their final order (see [`Object`]).
    fn into_ordered_fields(self) -> Vec<(String, Slot)> {
        let n = self.fields.len();
        let mut before = vec![0usize; n];
        let mut after = vec![Vec::new(); n];
        for &(first, second) in &self.follows {
            before[second] += 1;
            after[first].push(second);
        }
        let mut ready: BinaryHeap<Reverse<usize>> =
            (0..n).filter(|&f| before[f] == 0).map(Reverse).collect();
        let mut placed = vec![false; n];
        let mut order = Vec::with_capacity(n);
        while order.len() < n {
            let field = match ready.pop() {
                Some(Reverse(field)) if placed[field] => continue,
                Some(Reverse(field)) => field,
                // Objects that disagree make a cycle: it breaks at its first-seen field.
                None => match placed.iter().position(|&p| !p) {
                    Some(field) => field,
                    None => break,
                },
            };
            placed[field] = true;
            order.push(field);
            for &next in &after[field] {
                before[next] = before[next].saturating_sub(1);
                if before[next] == 0 && !placed[next] {
                    ready.push(Reverse(next));
                }
            }
        }
        let mut fields = self.fields;
        order
            .into_iter()
            .map(|field| std::mem::take(&mut fields[field]))
            .collect()
    }
}

impl Kind {
    /// About how many bytes the columns of this kind's values take.
    fn bytes(&self) -> usize {
        match self {
            Kind::Null(_) => 0,
            Kind::Bool(values) => values.len(),
            Kind::Integer(values) => size_of_val(values.as_slice()),
            Kind::Huge(values) => size_of_val(values.as_slice()),
            Kind::Float(values) => size_of_val(values.as_slice()),
            Kind::String(column) => column.bytes(),
            Kind::Bytes { lengths, bytes } => size_of_val(lengths.as_slice()) + bytes.len(),
            Kind::Array { lengths, items, .. } => size_of_val(lengths.as_slice()) + items.bytes(),
            Kind::Object(object) => object.fields.iter().map(|(_, slot)| slot.bytes()).sum(),
            Kind::Variant {
                variants,
                discriminants,
                ..
            } => {
                size_of_val(discriminants.as_slice())
                    + variants.iter().map(|(_, slot)| slot.bytes()).sum::<usize>()
            }
            Kind::Map {
                lengths,
                keys,
                values,
            } => size_of_val(lengths.as_slice()) + keys.bytes() + values.bytes(),
        }
    }

    fn kind(&self) -> KindName {
        match self {
            Kind::Null(_) => KindName::Null,
            Kind::Bool(_) => KindName::Bool,
            Kind::Integer(_) => KindName::Integer,
            Kind::Huge(_) => KindName::Huge,
            Kind::Float(_) => KindName::Float,
            Kind::String(_) => KindName::String,
            Kind::Bytes { .. } => KindName::Bytes,
            Kind::Array { of, .. } => KindName::Array(*of),
            Kind::Object(_) => KindName::Object,
            Kind::Variant { .. } => KindName::Variant,
            Kind::Map { .. } => KindName::Map,
        }
    }

    /// An empty kind.
    fn new(kind: KindName, depth: usize) -> Kind {
        let child = || Box::new(Slot::below(depth + 1));
        match kind {
            KindName::Null => Kind::Null(0),
            KindName::Bool => Kind::Bool(Vec::new()),
            KindName::Integer => Kind::Integer(Vec::new()),
            KindName::Huge => Kind::Huge(Vec::new()),
            KindName::Float => Kind::Float(Vec::new()),
            KindName::String => Kind::String(StrColumn::default()),
            KindName::Bytes => Kind::Bytes {
                lengths: Vec::new(),
                bytes: Vec::new(),
            },
            KindName::Object => Kind::Object(Object::new(depth)),
            KindName::Variant => Kind::Variant {
                index: HashMap::new(),
                variants: Vec::new(),
                discriminants: Vec::new(),
            },
            KindName::Map => Kind::Map {
                lengths: Vec::new(),
                keys: child(),
                values: child(),
            },
            KindName::Array(of) => Kind::Array {
                of,
                lengths: Vec::new(),
                items: child(),
            },
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
            Kind::Object(object) => object.len,
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
            Kind::Object(object) => {
                let fields = object.into_ordered_fields();
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

/// Arrays that always hold this many scalars or fewer, all of one length, are written as tuples.
const MAX_TUPLE: u64 = 8;

/// The first row of `n` of `values` if every row is the same (rows of `default` when there are
/// no values), or `None`.
fn same_in_every_row<T: Copy + PartialEq>(
    values: Option<&[T]>,
    n: usize,
    default: T,
) -> Option<Vec<T>> {
    let Some(values) = values else {
        return Some(vec![default; n]);
    };
    if n == 0 {
        return values.is_empty().then(Vec::new);
    }
    let first = values.get(..n)?;
    values
        .chunks(n)
        .all(|row| row == first)
        .then(|| first.to_vec())
}

/// The values `value` holds, in the order its push takes them: of an object's fields that repeat
/// a name, only the first (as [`Object::field`] takes them).
fn held(value: &Value) -> Vec<&Value> {
    match value {
        Value::Array(items) => items.iter().collect(),
        Value::Object(entries) => {
            let mut names = HashSet::new();
            (entries.iter())
                .filter(|(name, _)| names.insert(name.as_str()))
                .map(|(_, entry)| entry)
                .collect()
        }
        Value::Variant(_, content) => vec![&**content],
        Value::Map(entries) => (entries.iter())
            .flat_map(|(key, entry)| [key, entry])
            .collect(),
        _ => Vec::new(),
    }
}

impl Slot {
    /// About how many bytes the slot's columns take.
    pub(super) fn bytes(&self) -> usize {
        let presence = self.presence.as_ref().map_or(0, Vec::len);
        let discriminants = self.discriminants.as_deref().map_or(0, size_of_val);
        presence + discriminants + self.kinds.iter().map(Kind::bytes).sum::<usize>()
    }

    pub(super) fn new(depth: usize) -> Slot {
        Slot {
            depth,
            ..Slot::default()
        }
    }

    /// A slot whose values are to be objects whose fields come in the order of `fields`
    /// (those given first, the others after them).
    fn of_objects_with_fields<S: AsRef<str>>(
        depth: usize,
        fields: impl IntoIterator<Item = S>,
    ) -> Slot {
        let mut object = Object::new(depth);
        for name in fields {
            if !object.index.contains_key(name.as_ref()) {
                object.add(name.as_ref());
            }
        }
        let mut slot = Slot::new(depth);
        slot.kinds.push(Kind::Object(object));
        slot
    }

    /// A slot for a field that was missing from the first `len` objects.
    fn absent(len: usize, depth: usize) -> Slot {
        Slot {
            field: true,
            len,
            presence: (len > 0).then(|| vec![false; len]),
            ..Slot::below(depth)
        }
    }

    /// A slot for the values below those of a slot at `depth - 1`: a recursion slot if that
    /// slot is an anchor placing its values.
    fn below(depth: usize) -> Slot {
        let anchor = (depth == DEEP + 1)
            .then(|| PLACING.with(|placing| placing.borrow().as_ref().map(|p| p.anchor)))
            .flatten();
        Slot {
            depth,
            recursion: anchor.map(Back::new),
            ..Slot::default()
        }
    }

    /// Takes `root`, which arrived whole, and every value below it, each after those it holds:
    /// this slot is an anchor [`DEEP`] levels down.
    fn push_tree(&mut self, root: &Value) {
        let (anchor, mut placed) = *self.anchor.get_or_insert_with(|| (new_anchor(), 0));
        let order = post_order(root, held);
        let outer = PLACING.with(|placing| {
            placing.replace(Some(Placing {
                anchor,
                placed: Placed::new(),
            }))
        });
        for value in order {
            self.push_here(value);
            PLACING.with(|placing| {
                if let Some(placing) = placing.borrow_mut().as_mut() {
                    placing.placed.place(value, placed);
                }
            });
            placed += 1;
        }
        PLACING.with(|placing| placing.replace(outer));
        self.anchor = Some((anchor, placed));
    }

    /// Takes `value`, placed by this recursion slot's anchor, by its position.
    fn refer(&mut self, value: &Value) {
        self.len += 1;
        if let Some(presence) = &mut self.presence {
            presence.push(true);
        }
        let position = PLACING.with(|placing| {
            (placing.borrow_mut().as_mut()).and_then(|placing| placing.placed.take(value))
        });
        if let Some(recursion) = &mut self.recursion {
            recursion.record(position);
        }
    }

    /// Records a value that is not there: a missing field, or a null outside objects.
    fn push_missing(&mut self) {
        self.len += 1;
        self.presence
            .get_or_insert_with(|| vec![true; self.len - 1])
            .push(false);
    }

    /// This slot, unless it is nested too deep to hold values: then it is marked to fail on
    /// finish, and the value is to be skipped.
    pub(super) fn within_depth(&mut self) -> Option<&mut Slot> {
        if self.depth >= MAX_DEPTH {
            self.too_deep = true;
            return None;
        }
        Some(self)
    }

    /// Records a value of kind `name` and hands back the columns of that kind, to take the value.
    pub(super) fn begin(&mut self, name: KindName) -> &mut Kind {
        self.len += 1;
        if let Some(presence) = &mut self.presence {
            presence.push(true);
        }
        // An empty array goes with the arrays of any kind, and arrays so far all empty take the
        // kind of the first that is not: a sequence with some empty values is one kind.
        let same_kind = |kind: &Kind| match (name, kind) {
            (KindName::Array(ArrayOf::Nothing), Kind::Array { .. })
            | (
                KindName::Array(_),
                Kind::Array {
                    of: ArrayOf::Nothing,
                    ..
                },
            ) => true,
            _ => kind.kind() == name,
        };
        let index = match self.kinds.iter().position(same_kind) {
            Some(index) => index,
            None => {
                if self.kinds.len() == 1 {
                    // A second kind: every earlier value was of the first.
                    self.discriminants = Some(vec![0; self.kinds[0].len()]);
                }
                self.kinds.push(Kind::new(name, self.depth));
                self.kinds.len() - 1
            }
        };
        if let Some(discriminants) = &mut self.discriminants {
            discriminants.push(index as u32);
        }
        if let (KindName::Array(items), Kind::Array { of, .. }) = (name, &mut self.kinds[index]) {
            if *of == ArrayOf::Nothing {
                *of = items;
            }
        }
        &mut self.kinds[index]
    }

    /// The kind of the value begun last.
    pub(super) fn current(&mut self) -> Option<&mut Kind> {
        let index = self
            .discriminants
            .as_ref()
            .and_then(|d| d.last())
            .map_or(0, |&d| d as usize);
        self.kinds.get_mut(index)
    }

    pub(super) fn push_null(&mut self) {
        if !self.field {
            self.push_missing();
        } else if let Kind::Null(count) = self.begin(KindName::Null) {
            *count += 1;
        }
    }

    pub(super) fn push_bool(&mut self, value: bool) {
        if let Kind::Bool(values) = self.begin(KindName::Bool) {
            values.push(value);
        }
    }

    pub(super) fn push_integer(&mut self, value: i128) {
        // Unsigned integers of a path that has some above `i128::MAX` are one kind, `huge`, as
        // long as none is negative: a column of `u128` stays one column.
        let has = |kind: KindName| self.kinds.iter().any(|k| k.kind() == kind);
        if value >= 0 && has(KindName::Huge) && !has(KindName::Integer) {
            if let Kind::Huge(values) = self.begin(KindName::Huge) {
                values.push(value as u128);
            }
        } else if let Kind::Integer(values) = self.begin(KindName::Integer) {
            values.push(value);
        }
    }

    pub(super) fn push_unsigned(&mut self, value: u128) {
        let Err(_) = i128::try_from(value) else {
            return self.push_integer(value as i128);
        };
        // The integers before it join it, if none is negative (see `push_integer`).
        if let Some(kind) = (self.kinds.iter_mut()).find(|kind| kind.kind() == KindName::Integer) {
            if let Kind::Integer(values) = kind {
                if values.iter().all(|&v| v >= 0) {
                    *kind = Kind::Huge(values.iter().map(|&v| v as u128).collect());
                }
            }
        }
        if let Kind::Huge(values) = self.begin(KindName::Huge) {
            values.push(value);
        }
    }

    pub(super) fn push_float(&mut self, value: f64) {
        if let Kind::Float(values) = self.begin(KindName::Float) {
            values.push(value);
        }
    }

    pub(super) fn push_str(&mut self, value: &str) {
        if let Kind::String(column) = self.begin(KindName::String) {
            column.push(value);
        }
    }

    pub(super) fn push_bytes(&mut self, value: &[u8]) {
        if let Kind::Bytes { lengths, bytes } = self.begin(KindName::Bytes) {
            lengths.push(value.len() as u64);
            bytes.extend_from_slice(value);
        }
    }

    /// Whether this slot takes its values whole: it is the anchor [`DEEP`] levels down, where
    /// values placed children first hold those of every depth below. A value streamed piece by
    /// piece is read whole from here on.
    pub(super) fn takes_whole(&self) -> bool {
        whole_at(self.depth)
    }

    /// Whether the slot of this slot's arrays' items (made when the first begins) takes its
    /// values whole.
    pub(super) fn items_take_whole(&self) -> bool {
        whole_at(self.depth + 1)
    }

    pub(super) fn push(&mut self, value: &Value) {
        if self.recursion.is_some() {
            return self.refer(value);
        }
        if self.takes_whole() {
            return self.push_tree(value);
        }
        crate::stack::deeper(|| self.push_here(value));
    }

    fn push_here(&mut self, value: &Value) {
        let Some(slot) = self.within_depth() else {
            return;
        };
        match value {
            Value::Null => slot.push_null(),
            Value::Bool(v) => slot.push_bool(*v),
            Value::Unsigned(v) => slot.push_unsigned(*v),
            Value::Signed(v) => slot.push_integer(*v),
            Value::Float(v) => slot.push_float(*v),
            Value::String(v) => slot.push_str(v),
            Value::Bytes(v) => slot.push_bytes(v),
            Value::Array(values) => {
                if let Kind::Array { lengths, items, .. } = slot.begin(KindName::of(value)) {
                    lengths.push(values.len() as u64);
                    values.iter().for_each(|item| items.push(item));
                }
            }
            Value::Object(entries) => {
                if let Kind::Object(object) = slot.begin(KindName::Object) {
                    for (name, entry) in entries {
                        if let Some(field) = object.field(name) {
                            object.slot(field).push(entry);
                        }
                    }
                    object.end();
                }
            }
            Value::Variant(name, content) => {
                let depth = slot.depth;
                if let Kind::Variant {
                    index,
                    variants,
                    discriminants,
                } = slot.begin(KindName::Variant)
                {
                    let variant = *index.entry(name.clone()).or_insert_with(|| {
                        variants.push((name.clone(), Slot::below(depth + 1)));
                        variants.len() - 1
                    });
                    discriminants.push(variant as u32);
                    variants[variant].1.push(content);
                }
            }
            Value::Map(entries) => {
                if let Kind::Map {
                    lengths,
                    keys,
                    values,
                } = slot.begin(KindName::Map)
                {
                    lengths.push(entries.len() as u64);
                    for (key, value) in entries {
                        keys.push(key);
                        values.push(value);
                    }
                }
            }
        }
    }

    /// For the items of arrays that all have the same small length `n`, whose items at each
    /// position are all null or all of one scalar kind (not necessarily the kind of the other
    /// positions): one slot per position.
    fn split_fixed(&self, lengths: &[u64]) -> Option<Vec<Slot>> {
        let n = *lengths.first()?;
        if !(2..=MAX_TUPLE).contains(&n) || lengths.iter().any(|&len| len != n) {
            return None;
        }
        let n = n as usize;
        // Which positions hold values, and the kind of each of those.
        let present = same_in_every_row(self.presence.as_deref(), n, true)?;
        let held = present.iter().filter(|&&present| present).count();
        let kinds: Vec<u32> = match (&self.discriminants, self.kinds.len()) {
            (Some(discriminants), _) => same_in_every_row(Some(discriminants), held, 0)?,
            (None, 1) => vec![0; held],
            (None, _) => (held == 0).then(Vec::new)?,
        };
        // The number of positions before this one that hold values.
        let mut held_before = 0;
        (0..n)
            .map(|position| {
                if !present[position] {
                    // Nulls: an option that holds nothing.
                    return Some(Slot {
                        depth: self.depth,
                        len: lengths.len(),
                        presence: Some(vec![false; lengths.len()]),
                        ..Slot::default()
                    });
                }
                // The items of a kind are in order: those at each of its positions in turn.
                let at = held_before;
                held_before += 1;
                let kind = *kinds.get(at)?;
                let positions = kinds.iter().filter(|&&k| k == kind).count();
                let offset = kinds[..at].iter().filter(|&&k| k == kind).count();
                let kind = self.kinds.get(kind as usize)?.stride(offset, positions)?;
                Some(Slot {
                    depth: self.depth,
                    len: kind.len(),
                    kinds: vec![kind],
                    ..Slot::default()
                })
            })
            .collect()
    }

    pub(super) fn finish(self, out: &mut SchemaWriter) -> EncodeResult {
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
            anchor,
            recursion,
            ..
        } = self;
        if let Some(recursion) = recursion {
            return match presence {
                Some(presence) => out.option(presence, |out| recursion.finish(out)),
                None => recursion.finish(out),
            };
        }
        if let Some((anchor, _)) = anchor {
            let slot = Slot {
                presence,
                kinds,
                discriminants,
                ..Slot::default()
            };
            return out.recursion_target(anchor, |out| slot.finish_here(out));
        }
        let write_kinds = move |out: &mut SchemaWriter| match (kinds.len(), kinds.pop()) {
            (_, None) => out.void(),
            (1, Some(kind)) => kind.finish(out),
            (n, Some(last)) => out.union(n, discriminants.unwrap_or_default(), |out| {
                kinds
                    .into_iter()
                    .chain([last])
                    .try_for_each(|kind| out.variant(kind.kind().name(), |out| kind.finish(out)))
            }),
        };
        match presence {
            Some(presence) => out.option(presence, write_kinds),
            None => write_kinds(out),
        }
    }
}

impl DynEncoder {
    /// An encoder of objects whose fields the schema lists in the order of `fields`, as
    /// [`ArrayWriter::with_fields`] does.
    pub(crate) fn with_fields<S: AsRef<str>>(
        depth: usize,
        fields: impl IntoIterator<Item = S>,
    ) -> Self {
        DynEncoder(Slot::of_objects_with_fields(depth, fields))
    }
}

impl ValueEncoder<Value> for DynEncoder {
    fn new(depth: usize) -> Self {
        DynEncoder(Slot::new(depth))
    }

    fn push(&mut self, value: &Value) {
        self.0.push(value);
    }

    fn bytes(&self) -> usize {
        self.0.bytes()
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
            items: Slot::new(1),
            len: 0,
        }
    }

    /// An empty array of objects whose fields the schema lists in the order of `fields` (a CSV
    /// file's header, say) rather than in the order they are first seen.
    ///
    /// ```
    /// use tree_buf::{ArrayWriter, EncodeOptions, Reader, Value};
    ///
    /// let mut writer = ArrayWriter::with_fields(["year", "team"]);
    /// writer.push(&Value::Object(vec![("team".into(), Value::String("BOS".into()))]));
    /// writer.push(&Value::Object(vec![("year".into(), Value::Unsigned(1901))]));
    /// let bytes = writer.finish(&EncodeOptions::default())?;
    /// let reader = Reader::new(&bytes)?;
    /// let names: Vec<_> = reader.schema().find("[]").unwrap().children.iter()
    ///     .map(|field| field.name.clone().unwrap_or_default())
    ///     .collect();
    /// assert_eq!(names, ["year", "team"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_fields<S: AsRef<str>>(fields: impl IntoIterator<Item = S>) -> Self {
        ArrayWriter {
            items: Slot::of_objects_with_fields(1, fields),
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
