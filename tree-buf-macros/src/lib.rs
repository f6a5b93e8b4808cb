//! `#[derive(Encode, Decode)]` for tree-buf.
//!
//! The input is parsed into a model (`ast`, with attributes from `attr`), bounds are inferred
//! (`bound`), and code is generated (`encode`, `decode`). Every problem found is reported, each at
//! its culprit's span. Generated code sits in `const _: () = { ... };` and reaches the runtime
//! only through the public traits and the hidden `tree_buf::__private` module.

mod ast;
mod attr;
mod bound;
#[path = "../../tree-buf/src/schema/canonical.rs"]
mod canonical;
mod decode;
mod encode;

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};

/// Derives `tree_buf::Encode`: every path through the type becomes its own branch.
///
/// Attributes: on fields `#[tree_buf(rename = "name")]`, `#[tree_buf(skip)]` and
/// `#[tree_buf(default)]`; on variants `#[tree_buf(rename = "name")]`; on the type
/// `#[tree_buf(bound = "T: Trait")]` to replace the inferred generic bounds.
#[proc_macro_derive(Encode, attributes(tree_buf))]
pub fn derive_encode(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    ast::Container::from_ast(&input)
        .map(|container| encode::expand(&container))
        .unwrap_or_else(|e| e.to_compile_error())
        .into()
}

/// Derives `tree_buf::Decode`, with the same attributes as `Encode`.
#[proc_macro_derive(Decode, attributes(tree_buf))]
pub fn derive_decode(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    ast::Container::from_ast(&input)
        .map(|container| decode::expand(&container))
        .unwrap_or_else(|e| e.to_compile_error())
        .into()
}
