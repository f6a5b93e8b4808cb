//! Code generation shared by `Encode` and `Decode`: the paths generated code reaches tree-buf by,
//! the slots holding the column coders of written fields, and the items every expansion consists
//! of.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote};
use syn::{
    parse_quote, GenericParam, Generics, Ident, Lifetime, LifetimeParam, Path, Type, WherePredicate,
};

use crate::ast::{Container, Data, Errors, Field, Variant};
use crate::attr::FieldAttrs;
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

    /// `tree_buf::Encode`, or `tree_buf::Decode<'__de>` of the bytes' lifetime.
    pub fn trait_path(&self) -> TokenStream {
        let Generator {
            crate_path,
            trait_name,
            ..
        } = self;
        match self.derived {
            Trait::Encode => quote!(#crate_path::#trait_name),
            Trait::Decode => {
                let de = bytes_lifetime();
                quote!(#crate_path::#trait_name<#de>)
            }
        }
    }

    /// `ValueEncoder<ty>` or `ValueDecoder<'__de, ty>`, through the hidden module.
    fn value_trait_path(&self, ty: &impl quote::ToTokens) -> TokenStream {
        let value_trait = &self.value_trait;
        match self.derived {
            Trait::Encode => quote!(__tb::#value_trait<#ty>),
            Trait::Decode => {
                let de = bytes_lifetime();
                quote!(__tb::#value_trait<#de, #ty>)
            }
        }
    }

    /// The generics of the generated impls and coder: the container's, led for `Decode` by the
    /// lifetime of the bytes, which outlives every lifetime of the container, so that its
    /// borrowed fields can borrow from them.
    fn impl_generics(&self) -> Generics {
        let mut generics = self.container.generics.clone();
        if self.derived == Trait::Decode {
            let mut param = LifetimeParam::new(bytes_lifetime());
            param.bounds = generics.lifetimes().map(|l| l.lifetime.clone()).collect();
            if !param.bounds.is_empty() {
                param.colon_token = Some(Default::default());
            }
            generics.params.insert(0, GenericParam::Lifetime(param));
        }
        generics
    }

    /// The column coder of `ty`: `<ty as tree_buf::Encode>::Encoder`.
    pub fn coder_type(&self, ty: &Type) -> TokenStream {
        let trait_path = self.trait_path();
        let coder = &self.coder;
        quote!(<#ty as #trait_path>::#coder)
    }

    /// The column coder of a slot: its type's, or for a `with` field a proxy's, converting
    /// through the field's module.
    pub fn slot_coder(&self, slot: &Slot<'_>) -> TokenStream {
        if slot.field.attrs.with.is_none() {
            return self.coder_type(&slot.field.ty);
        }
        let ty = &slot.field.ty;
        let proxy = self.with_proxy(slot);
        match self.derived {
            Trait::Encode => quote!(__tb::ProxyEncoder<#ty, #proxy>),
            Trait::Decode => {
                let de = bytes_lifetime();
                quote!(__tb::TryProxyDecoder<#de, #ty, #proxy>)
            }
        }
    }

    /// Calls a method of a slot's column coder, fully qualified, since one coder may serve
    /// several types.
    pub fn call_slot(&self, slot: &Slot<'_>, method: &str, args: TokenStream) -> TokenStream {
        let coder = self.slot_coder(slot);
        let value_trait = self.value_trait_path(&slot.field.ty);
        let method = format_ident!("{}", method);
        quote!(<#coder as #value_trait>::#method(#args))
    }

    /// The proxy type of a `with` field: generic over the container's parameters, so that the
    /// field's type may use them.
    pub fn with_proxy(&self, slot: &Slot<'_>) -> TokenStream {
        let name = format_ident!("__TreeBufWith_{}", slot.name);
        let (_, ty_generics, _) = self.container.generics.split_for_impl();
        quote!(#name #ty_generics)
    }

    /// The proxy types of the container's `with` fields, each converting through its module.
    fn with_proxies(&self) -> TokenStream {
        let slots: Vec<Slot<'_>> = match &self.container.data {
            Data::Struct(_, fields) => struct_slots(fields),
            Data::Enum(variants) => variant_slots(variants).into_iter().flatten().collect(),
        };
        let ty = &self.container.self_type;
        let generics = self.container.generics;
        let (impl_generics, ty_generics, _) = generics.split_for_impl();
        // A proxy's `Stored` type borrows nothing, so the decoding one is not bound by the
        // lifetime of the bytes.
        let where_clause = match self.derived {
            Trait::Encode => self.where_clause(),
            Trait::Decode => bound::own_where_clause(self.container),
        };
        let own_where = &generics.where_clause;
        let proxies = slots.iter().filter_map(|slot| {
            let module = slot.field.attrs.with.as_ref()?;
            let name = format_ident!("__TreeBufWith_{}", slot.name);
            let field_ty = &slot.field.ty;
            let conversion = match self.derived {
                Trait::Encode => quote! {
                    impl #impl_generics __tb::EncodeProxy<#field_ty> for #name #ty_generics #where_clause {
                        type Stored = #module::Stored;
                        #[inline]
                        fn to_stored(value: &#field_ty) -> Self::Stored {
                            #module::to_stored(value)
                        }
                    }
                },
                Trait::Decode => quote! {
                    impl #impl_generics __tb::TryDecodeProxy<#field_ty> for #name #ty_generics #where_clause {
                        type Stored = #module::Stored;
                        fn try_from_stored(stored: Self::Stored) -> __tb::Result<#field_ty, __tb::String> {
                            #module::from_stored(stored).map_err(|error| __tb::ToString::to_string(&error))
                        }
                    }
                },
            };
            Some(quote! {
                pub struct #name #impl_generics (__tb::PhantomData<fn() -> #ty>) #own_where;
                #conversion
            })
        });
        quote!(#(#proxies)*)
    }

    /// The errors of a type written or read as another: one converted only one way (it would not
    /// read what it writes), and attributes of its fields and variants, which conversion ignores.
    fn conversion_errors(&self) -> Option<TokenStream> {
        let attrs = &self.container.attrs;
        let read_as = attrs.from.as_ref().or(attrs.try_from.as_ref());
        let mut errors = Errors::default();
        match (self.derived, &attrs.into, read_as) {
            (Trait::Encode, None, Some(stored)) => errors.push(syn::Error::new_spanned(
                stored,
                "the type is read as another (`from` or `try_from`) but written field by field: add `into`",
            )),
            (Trait::Decode, Some(stored), None) => errors.push(syn::Error::new_spanned(
                stored,
                "the type is written as another (`into`) but read field by field: add `from` or `try_from`",
            )),
            _ => {}
        }
        let converts = match self.derived {
            Trait::Encode => attrs.into.is_some(),
            Trait::Decode => read_as.is_some(),
        };
        if converts {
            let mut ignored = |key: &str, at: &dyn quote::ToTokens| {
                errors.push(syn::Error::new_spanned(
                    at,
                    format!("`{key}` has no effect on a type written and read as another (`into`, `from`)"),
                ));
            };
            let fields: Vec<&Field> = match &self.container.data {
                Data::Struct(_, fields) => fields.iter().collect(),
                Data::Enum(variants) => {
                    for rename in variants.iter().filter_map(|v| v.attrs.rename.as_ref()) {
                        ignored("rename", rename);
                    }
                    variants.iter().flat_map(|v| &v.fields).collect()
                }
            };
            for FieldAttrs {
                rename,
                skip,
                default,
                with,
            } in fields.iter().map(|f| &f.attrs)
            {
                rename.iter().for_each(|at| ignored("rename", at));
                skip.iter().for_each(|at| ignored("skip", at));
                default.iter().for_each(|at| ignored("default", at));
                with.iter().for_each(|at| ignored("with", at));
            }
        }
        errors.finish().err().map(|error| error.to_compile_error())
    }

    /// `name: <T as Encode>::Encoder,` for a slot.
    pub fn declaration(&self, slot: &Slot<'_>) -> TokenStream {
        let name = &slot.name;
        let coder = self.slot_coder(slot);
        quote!(#name: #coder,)
    }

    /// The whole output for a type written (`into`) or read (`from`, `try_from`) as another
    /// type, if it is: the derived trait's impl, with the proxy's coder.
    pub fn expand_converted(&self) -> Option<TokenStream> {
        if let Some(errors) = self.conversion_errors() {
            return Some(errors);
        }
        let attrs = &self.container.attrs;
        let ty = &self.container.self_type;
        let trait_path = self.trait_path();
        let (coder, predicates, items): (_, Vec<WherePredicate>, _) = match self.derived {
            Trait::Encode => {
                let stored = attrs.into.as_ref()?;
                let proxy = quote!(__tb::ViaInto<#stored>);
                (
                    quote!(__tb::ProxyEncoder<Self, #proxy>),
                    vec![
                        parse_quote!(#ty: ::core::clone::Clone + ::core::convert::Into<#stored>),
                        parse_quote!(#stored: #trait_path),
                    ],
                    quote! {
                        fn encoded_cmp(&self, other: &Self) -> ::core::cmp::Ordering {
                            <#proxy as __tb::EncodeProxy<Self>>::encoded_cmp(self, other)
                        }
                    },
                )
            }
            Trait::Decode => match (&attrs.from, &attrs.try_from) {
                (Some(stored), _) => (
                    quote!(__tb::ProxyDecoder<'__de, Self, __tb::ViaFrom<#stored>>),
                    vec![
                        parse_quote!(#ty: ::core::convert::From<#stored>),
                        parse_quote!(#stored: __tb::DecodeOwned),
                    ],
                    TokenStream::new(),
                ),
                (None, Some(stored)) => (
                    quote!(__tb::TryProxyDecoder<'__de, Self, __tb::ViaTryFrom<#stored>>),
                    vec![
                        parse_quote!(#ty: ::core::convert::TryFrom<#stored>),
                        parse_quote!(<#ty as ::core::convert::TryFrom<#stored>>::Error: ::core::fmt::Display),
                        parse_quote!(#stored: __tb::DecodeOwned),
                    ],
                    TokenStream::new(),
                ),
                (None, None) => return None,
            },
        };
        let generics = self.impl_generics();
        let (impl_generics, _, _) = generics.split_for_impl();
        let mut where_clause = bound::own_where_clause(self.container);
        where_clause.predicates.extend(predicates);
        let coder_name = &self.coder;
        Some(self.wrap(quote! {
            #[automatically_derived]
            impl #impl_generics #trait_path for #ty #where_clause {
                type #coder_name = #coder;
                #items
            }
        }))
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
        let generics = self.impl_generics();
        let (impl_generics, ty_generics, _) = generics.split_for_impl();
        let where_clause = self.where_clause();
        let value_trait = self.value_trait_path(ty);
        let name = format_ident!("__TreeBuf{}", self.coder);
        // The coder only handles values of the type: it neither owns one nor makes it `!Send`.
        let marker = match self.derived {
            Trait::Encode => quote!(fn(&#ty)),
            Trait::Decode => {
                let de = bytes_lifetime();
                quote!(fn(&#de ()) -> #ty)
            }
        };
        let trait_impl = self.trait_impl(quote!(#name #ty_generics), trait_items);
        let with_proxies = self.with_proxies();
        // `ValueDecoder` is an unsafe trait: a derived decoder keeps its contract because it builds
        // each value from its fields' decoders (and plain functions: defaults, conversions), all
        // of which keep it. The lint `unsafe_code` does not reach derive output, so
        // `#![forbid(unsafe_code)]` crates can still derive.
        let unsafety = match self.derived {
            Trait::Encode => quote!(),
            Trait::Decode => quote!(unsafe),
        };
        self.wrap(quote! {
            #with_proxies

            pub struct #name #impl_generics #where_clause {
                #fields
                __marker: __tb::PhantomData<#marker>,
            }

            #[automatically_derived]
            #unsafety impl #impl_generics #value_trait for #name #ty_generics #where_clause {
                #methods
            }

            #trait_impl
        })
    }

    /// The derived trait's impl for the container, with `coder` as its coder type.
    pub fn trait_impl(&self, coder: TokenStream, items: TokenStream) -> TokenStream {
        let ty = &self.container.self_type;
        let generics = self.impl_generics();
        let (impl_generics, _, _) = generics.split_for_impl();
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

/// The lifetime of the bytes a derived `Decode` decodes from.
pub fn bytes_lifetime() -> Lifetime {
    Lifetime::new("'__de", Span::call_site())
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
