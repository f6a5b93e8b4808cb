//! Conversions between [`Value`] and `serde_json::Value` (the `json` feature). Their objects have
//! the key order of a `serde_json::Map`, which serde_json's `preserve_order` feature decides: the
//! `Value` documentation says how to keep the order without it.

use super::Value;

impl From<serde_json::Value> for Value {
    /// Lossless: JSON integers become `Unsigned` or `Signed`, other numbers `Float`, and objects
    /// keep the order of their `serde_json::Map` (see [`Value`] on key order).
    fn from(json: serde_json::Value) -> Value {
        // A `serde_json::Value` built in code may nest deeper than any parser allows.
        crate::stack::deeper(|| match json {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(b),
            serde_json::Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    Value::Unsigned(u.into())
                } else if let Some(i) = n.as_i64() {
                    Value::integer(i.into())
                } else {
                    Value::Float(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            serde_json::Value::String(s) => Value::String(s),
            serde_json::Value::Array(items) => {
                Value::Array(items.into_iter().map(Value::from).collect())
            }
            serde_json::Value::Object(fields) => Value::Object(
                fields
                    .into_iter()
                    .map(|(k, v)| (k, Value::from(v)))
                    .collect(),
            ),
        })
    }
}

impl From<Value> for serde_json::Value {
    /// Lossy where JSON has no equivalent, as [`Value`]'s `Serialize` implementation describes;
    /// objects get the key order of a `serde_json::Map` (see [`Value`] on key order).
    fn from(value: Value) -> serde_json::Value {
        // Cannot fail: every map this writes has string keys.
        serde_json::to_value(value).unwrap_or_default()
    }
}
