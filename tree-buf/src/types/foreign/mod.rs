//! `Encode` and `Decode` for types of other crates, each behind the feature named after its crate.
//! Each is stored in the form that suits the column codecs: instants as whole seconds (which delta
//! encoding shrinks) beside their nanoseconds (mostly constant), decimals as scaled integers,
//! collections as the sequences and maps they are (`bytes`, `indexmap` and `smallvec` are beside
//! the std collections, in `seq` and `maps`).

#[cfg(feature = "chrono")]
mod chrono;
#[cfg(feature = "ordered-float")]
mod ordered_float;
#[cfg(feature = "rust_decimal")]
mod rust_decimal;
#[cfg(feature = "time")]
mod time;
#[cfg(feature = "uuid")]
mod uuid;
