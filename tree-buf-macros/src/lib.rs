//! `#[derive(Encode, Decode)]` for tree-buf.
//!
//! The input is parsed into a model (`ast`, with attributes from `attr`), bounds are inferred
//! (`bound`), and code is generated (`encode`, `decode`, from the pieces both share in
//! `codegen`). Every problem found is reported, each at its culprit's span. Generated code sits in
//! `const _: () = { ... };`, its impls are `#[automatically_derived]`, and it reaches the runtime
//! only through the public traits and the hidden `__private` module, by the path the `crate`
//! attribute gives (`::tree_buf` by default).

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

/// Derives `tree_buf::Encode` for a struct or an enum: every path through the type becomes its own
/// branch of the file, and each branch is encoded on its own. A unit struct is a unit, a newtype is
/// its field, a tuple struct a tuple, a struct with named fields a struct whose fields are found by
/// name, and an enum a list of discriminants and, per variant, its fields.
///
#[doc = include_str!("attributes.md")]
#[proc_macro_derive(Encode, attributes(tree_buf))]
pub fn derive_encode(input: TokenStream) -> TokenStream {
    derive(input, encode::expand)
}

/// Derives `tree_buf::Decode` for a struct or an enum: the decoder finds the type's branches in the
/// file's schema by name, so it reads files written by `Encode` from the same type or from another
/// version of it, with fields in any order, missing fields that are `Option`s or marked `default`,
/// and extra fields; what it cannot read is a `DecodeError` naming the path, never a panic.
///
#[doc = include_str!("attributes.md")]
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The output of both derives, for every shape of type, is one `const _` block of
    /// `#[automatically_derived]` impls.
    #[test]
    fn output_is_one_unnamed_const_of_automatically_derived_impls() {
        let inputs = [
            "struct Named<T> { a: T, #[tree_buf(skip)] b: u8, #[tree_buf(default)] c: u8 }",
            "struct Pair(u8, String);",
            "struct Meters(f64);",
            "struct Marker;",
            "enum Shape { Empty, Circle(f64), Rect { w: f64, h: f64 } }",
        ];
        for input in inputs {
            let input: DeriveInput = syn::parse_str(input).unwrap();
            let container = ast::Container::from_ast(&input).unwrap_or_else(|e| panic!("{e}"));
            for expand in [encode::expand, decode::expand] {
                let file: syn::File = syn::parse2(expand(&container)).unwrap();
                let [syn::Item::Const(item)] = file.items.as_slice() else {
                    panic!("not one item");
                };
                assert_eq!(item.ident, "_");
                let syn::Expr::Block(block) = &*item.expr else {
                    panic!("not a block");
                };
                let impls: Vec<&syn::ItemImpl> = block
                    .block
                    .stmts
                    .iter()
                    .filter_map(|stmt| match stmt {
                        syn::Stmt::Item(syn::Item::Impl(item)) => Some(item),
                        _ => None,
                    })
                    .collect();
                assert!(!impls.is_empty());
                for item in impls {
                    assert!(item
                        .attrs
                        .iter()
                        .any(|attr| attr.path().is_ident("automatically_derived")));
                }
            }
        }
    }
}
