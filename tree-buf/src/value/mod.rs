//! `Value`: any tree-buf file, read without its Rust type; and any dynamic data (JSON, say),
//! written columnar with a schema inferred from the values.

mod decode;
mod encode;
#[cfg(feature = "json")]
mod json;
mod serde_support;
mod stream;

pub use decode::DynDecoder;
pub(crate) use encode::level_by_level;
pub use encode::{ArrayWriter, DynEncoder};
#[cfg(feature = "serde")]
pub(crate) use serde_support::type_spelling;
pub use stream::ValueWriter;

use crate::types::{Decode, Encode};

/// A dynamically typed value.
///
/// Every file decodes into a `Value`: structs become [`Value::Object`]s with their fields in file
/// order, tuples become [`Value::Array`]s, enum values [`Value::Variant`]s, byte sequences
/// [`Value::Bytes`], `Option::None` and unit values [`Value::Null`], except that a struct field
/// holding `None` is left out of its object. Integers are normalized:
/// [`Value::Unsigned`] for values at or above zero, [`Value::Signed`] for negative ones. Floats are
/// `f64` (an `f32` widens exactly).
///
/// A `Value` encodes columnar too: the schema is inferred from the data, so an array of similar
/// objects becomes one column per field; fields missing from some objects, and nulls, become
/// optional (a missing field and a field holding null stay distinct; fields come back in one
/// order per path, which keeps the order of objects whose keys come in a consistent order); values
/// of different types at one place become a union; arrays that always hold the same small number
/// of scalars (coordinate pairs) become tuples, one column per position.
///
/// `Value` implements serde's `Serialize` and `Deserialize`, so JSON text (or any self-describing
/// format) reads into it and writes from it with objects in their key order:
///
/// ```
/// use tree_buf::{decode, encode, Value};
///
/// let text = concat!(
///     r#"[{"name":"Aruba","area":180.0,"codes":["ABW","AW"]},"#,
///     r#"{"name":"Angola","area":1246700.0,"codes":["AGO","AO"],"landlocked":false}]"#,
/// );
/// let value: Value = serde_json::from_str(text)?;
/// let bytes = encode(&value);
/// let back: Value = decode(&bytes)?;
/// assert_eq!(back, value);
/// assert_eq!(serde_json::to_string(&back)?, text);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// The `json` feature (on by default) adds `From` conversions to and from `serde_json::Value`.
/// Its objects are `serde_json::Map`s, which keep their keys in order only when serde_json's
/// `preserve_order` feature is on somewhere in the program; otherwise they sort them. Going
/// through text as above keeps the order either way.
///
/// `Clone`, `PartialEq` and `Debug` go down as deep as a value nests without overflowing the
/// stack (they move to a fresh stack segment when it runs low), as decoding does. Dropping is
/// the one thing that recurses on the stack it is given: a value nested tens of thousands of
/// levels deep (a hostile file's, say) is dropped with [`Value::drop_deep`].
#[derive(Default)]
pub enum Value {
    /// No value: `None`, `()`, JSON `null`.
    #[default]
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer at or above zero.
    Unsigned(u128),
    /// A negative integer.
    Signed(i128),
    /// A floating-point number.
    Float(f64),
    /// A string.
    String(String),
    /// A byte sequence (`Vec<u8>`, `[u8; N]`).
    Bytes(Vec<u8>),
    /// A sequence, array or tuple.
    Array(Vec<Value>),
    /// A struct: named fields in order.
    Object(Vec<(String, Value)>),
    /// An enum value: the variant's name and its content (`Null` for unit variants).
    Variant(String, Box<Value>),
    /// A map with keys of any type.
    Map(Vec<(Value, Value)>),
}

impl Value {
    /// Drops the value level by level. A `Value` nested thousands deep (as a file of a recursive
    /// type decodes, up to [`DecodeOptions::depth_limit`](crate::DecodeOptions::depth_limit))
    /// would overflow the stack in its own `Drop`, which recurses once per level.
    ///
    /// ```
    /// use tree_buf::Value;
    ///
    /// let mut deep = Value::Null;
    /// for _ in 0..100_000 {
    ///     deep = Value::Array(vec![deep]);
    /// }
    /// deep.drop_deep();
    /// ```
    pub fn drop_deep(self) {
        let mut stack = vec![self];
        while let Some(value) = stack.pop() {
            match value {
                Value::Array(items) => stack.extend(items),
                Value::Object(fields) => stack.extend(fields.into_iter().map(|(_, value)| value)),
                Value::Variant(_, content) => stack.push(*content),
                Value::Map(entries) => stack.extend(entries.into_iter().flat_map(|(k, v)| [k, v])),
                _ => {}
            }
        }
    }

    /// An integer value, normalized: `Unsigned` at or above zero, `Signed` below.
    pub fn integer(value: i128) -> Value {
        if value >= 0 {
            Value::Unsigned(value as u128)
        } else {
            Value::Signed(value)
        }
    }

    /// The field `name` of an object.
    pub fn get(&self, name: &str) -> Option<&Value> {
        match self {
            Value::Object(fields) => fields.iter().find(|(n, _)| n == name).map(|(_, v)| v),
            _ => None,
        }
    }
}

impl Clone for Value {
    fn clone(&self) -> Self {
        crate::stack::deeper(|| match self {
            Value::Null => Value::Null,
            Value::Bool(value) => Value::Bool(*value),
            Value::Unsigned(value) => Value::Unsigned(*value),
            Value::Signed(value) => Value::Signed(*value),
            Value::Float(value) => Value::Float(*value),
            Value::String(value) => Value::String(value.clone()),
            Value::Bytes(value) => Value::Bytes(value.clone()),
            Value::Array(items) => Value::Array(items.clone()),
            Value::Object(fields) => Value::Object(fields.clone()),
            Value::Variant(name, content) => Value::Variant(name.clone(), content.clone()),
            Value::Map(entries) => Value::Map(entries.clone()),
        })
    }
}

impl PartialEq for Value {
    /// Equal variants with equal contents; floats compare as `f64`s do (`NaN` is unequal to
    /// itself).
    fn eq(&self, other: &Self) -> bool {
        crate::stack::deeper(|| match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Unsigned(a), Value::Unsigned(b)) => a == b,
            (Value::Signed(a), Value::Signed(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a == b,
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Bytes(a), Value::Bytes(b)) => a == b,
            (Value::Array(a), Value::Array(b)) => a == b,
            (Value::Object(a), Value::Object(b)) => a == b,
            (Value::Variant(a, x), Value::Variant(b, y)) => a == b && x == y,
            (Value::Map(a), Value::Map(b)) => a == b,
            _ => false,
        })
    }
}

impl std::fmt::Debug for Value {
    /// As a derived `Debug` writes it: `Array([Unsigned(1), Null])`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::stack::deeper(|| match self {
            Value::Null => f.write_str("Null"),
            Value::Bool(value) => f.debug_tuple("Bool").field(value).finish(),
            Value::Unsigned(value) => f.debug_tuple("Unsigned").field(value).finish(),
            Value::Signed(value) => f.debug_tuple("Signed").field(value).finish(),
            Value::Float(value) => f.debug_tuple("Float").field(value).finish(),
            Value::String(value) => f.debug_tuple("String").field(value).finish(),
            Value::Bytes(value) => f.debug_tuple("Bytes").field(value).finish(),
            Value::Array(items) => f.debug_tuple("Array").field(items).finish(),
            Value::Object(fields) => f.debug_tuple("Object").field(fields).finish(),
            Value::Variant(name, content) => {
                f.debug_tuple("Variant").field(name).field(content).finish()
            }
            Value::Map(entries) => f.debug_tuple("Map").field(entries).finish(),
        })
    }
}

impl Encode for Value {
    type Encoder = DynEncoder;
}

impl<'de> Decode<'de> for Value {
    type Decoder = DynDecoder<'de>;

    /// An archive's chunks are arrays of its rows: one array of them all.
    fn join_chunks(parts: Vec<Self>) -> Option<Self> {
        let mut rows = Vec::new();
        for part in parts {
            match part {
                Value::Array(items) => rows.extend(items),
                _ => return None,
            }
        }
        Some(Value::Array(rows))
    }
}
