//! Code generation shared by `Encode` and `Decode`: the paths generated code reaches tree-buf by,
//! the slots holding the column coders of written fields, and the items every expansion consists
//! of.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use syn::{Ident, Path, Type};

use crate::ast::{Container, Field, Variant};
use crate::bound;

/// The trait being derived.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Trait {
    Encode,
    Decode,
}

/// Generates code for one derive of one container.
pub struct Generator<'c> {
    pub container: &'c Container<'c>,
    derived: Trait,
    /// Where tree-buf is: every path to it in the output starts here.
    crate_path: Path,
    /// `Encode` or `Decode`.
    trait_name: Ident,
    /// The trait's associated type: `Encoder` or `Decoder`.
    coder: Ident,
    /// The trait that type implements: `ValueEncoder` or `ValueDecoder`.
    value_trait: Ident,
}

/// The parts of a generated column coder (`__TreeBufEncoder` or `__TreeBufDecoder`).
pub struct Coder {
    /// The struct's fields, each followed by a comma.
    pub fields: TokenStream,
    /// The methods of its `ValueEncoder` or `ValueDecoder` impl.
    pub methods: TokenStream,
    /// Items of the derived trait's impl besides the coder type.
    pub trait_items: TokenStream,
}

impl<'c> Generator<'c> {
    pub fn new(container: &'c Container<'c>, derived: Trait) -> Self {
        let (trait_name, coder, value_trait) = match derived {
            Trait::Encode => ("Encode", "Encoder", "ValueEncoder"),
            Trait::Decode => ("Decode", "Decoder", "ValueDecoder"),
        };
        Generator {
            container,
            derived,
            crate_path: container.crate_path(),
            trait_name: format_ident!("{}", trait_name),
            coder: format_ident!("{}", coder),
            value_trait: format_ident!("{}", value_trait),
        }
    }

    /// `tree_buf::Encode` or `tree_buf::Decode`.
    pub fn trait_path(&self) -> TokenStream {
        let Generator {
            crate_path,
            trait_name,
            ..
        } = self;
        quote!(#crate_path::#trait_name)
    }

    /// The column coder of `ty`: `<ty as tree_buf::Encode>::Encoder`.
    pub fn coder_type(&self, ty: &Type) -> TokenStream {
        let trait_path = self.trait_path();
        let coder = &self.coder;
        quote!(<#ty as #trait_path>::#coder)
    }

    /// Calls a method of the column coder of `ty`, fully qualified, since one coder may serve
    /// several types.
    pub fn call(&self, ty: &Type, method: &str, args: TokenStream) -> TokenStream {
        let coder = self.coder_type(ty);
        let value_trait = &self.value_trait;
        let method = format_ident!("{}", method);
        quote!(<#coder as __tb::#value_trait<#ty>>::#method(#args))
    }

    /// `name: <T as Encode>::Encoder,` for a slot.
    pub fn declaration(&self, slot: &Slot<'_>) -> TokenStream {
        let name = &slot.name;
        let coder = self.coder_type(&slot.field.ty);
        quote!(#name: #coder,)
    }

    /// The whole output: the coder struct, its `ValueEncoder`/`ValueDecoder` impl, and the
    /// derived trait's impl naming it.
    pub fn expand(&self, coder: Coder) -> TokenStream {
        let Coder {
            fields,
            methods,
            trait_items,
        } = coder;
        let ty = &self.container.self_type;
        let (impl_generics, ty_generics, _) = self.container.generics.split_for_impl();
        let where_clause = self.where_clause();
        let value_trait = &self.value_trait;
        let name = format_ident!("__TreeBuf{}", self.coder);
        // The coder only handles values of the type: it neither owns one nor makes it `!Send`.
        let marker = match self.derived {
            Trait::Encode => quote!(fn(&#ty)),
            Trait::Decode => quote!(fn() -> #ty),
        };
        let trait_impl = self.trait_impl(quote!(#name #ty_generics), trait_items);
        self.wrap(quote! {
            pub struct #name #impl_generics #where_clause {
                #fields
                __marker: __tb::PhantomData<#marker>,
            }

            #[automatically_derived]
            impl #impl_generics __tb::#value_trait<#ty> for #name #ty_generics #where_clause {
                #methods
            }

            #trait_impl
        })
    }

    /// The derived trait's impl for the container, with `coder` as its coder type.
    pub fn trait_impl(&self, coder: TokenStream, items: TokenStream) -> TokenStream {
        let ty = &self.container.self_type;
        let (impl_generics, _, _) = self.container.generics.split_for_impl();
        let where_clause = self.where_clause();
        let trait_path = self.trait_path();
        let coder_name = &self.coder;
        quote! {
            #[automatically_derived]
            impl #impl_generics #trait_path for #ty #where_clause {
                type #coder_name = #coder;
                #items
            }
        }
    }

    /// Puts `items` in an unnamed constant, so that their names do not leak into the user's
    /// scope, with tree-buf's hidden module in reach as `__tb`.
    pub fn wrap(&self, items: TokenStream) -> TokenStream {
        let crate_path = &self.crate_path;
        quote! {
            const _: () = {
                use #crate_path::__private as __tb;
                #items
            };
        }
    }

    fn where_clause(&self) -> syn::WhereClause {
        bound::where_clause(
            self.container,
            &self.trait_path(),
            self.derived == Trait::Decode,
        )
    }
}

/// A written field and the name of its column coder in the generated struct.
pub struct Slot<'f> {
    pub field: &'f Field,
    pub name: Ident,
}

/// The slots of a struct's written fields.
pub fn struct_slots(fields: &[Field]) -> Vec<Slot<'_>> {
    slots(fields, "field_")
}

/// The slots of each variant's written fields, named apart across variants.
pub fn variant_slots<'v>(variants: &'v [Variant<'_>]) -> Vec<Vec<Slot<'v>>> {
    variants
        .iter()
        .enumerate()
        .map(|(index, variant)| slots(&variant.fields, &format!("variant_{index}_field_")))
        .collect()
}

fn slots<'f>(fields: &'f [Field], prefix: &str) -> Vec<Slot<'f>> {
    fields
        .iter()
        .enumerate()
        .filter(|(_, field)| !field.skipped())
        .map(|(index, field)| Slot {
            field,
            name: format_ident!("{}{}", prefix, index),
        })
        .collect()
}

/// The discriminant a variant is written with: its index.
pub fn discriminant(index: usize) -> Literal {
    Literal::u32_unsuffixed(index as u32)
}
