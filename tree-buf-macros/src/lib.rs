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
mod codegen;
mod decode;
mod encode;

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};

/// Derives `tree_buf::Encode`: every path through the type becomes its own branch.
#[proc_macro_derive(Encode, attributes(tree_buf))]
pub fn derive_encode(input: TokenStream) -> TokenStream {
    derive(input, encode::expand)
}

/// Derives `tree_buf::Decode`, with the same attributes as `Encode`.
#[proc_macro_derive(Decode, attributes(tree_buf))]
pub fn derive_decode(input: TokenStream) -> TokenStream {
    derive(input, decode::expand)
}

/// Reads `input` into the model and generates code with `expand`, or reports every problem found.
fn derive(
    input: TokenStream,
    expand: fn(&ast::Container<'_>) -> proc_macro2::TokenStream,
) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    ast::Container::from_ast(&input)
        .map_or_else(
            |errors| errors.to_compile_error(),
            |container| expand(&container),
        )
        .into()
}
