//! Generates `Encode`: an encoder struct holding one column encoder per written field (of every
//! variant, for enums), which takes values apart on `push` and writes the schema on `finish`.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use syn::Type;

use crate::ast::{Container, Data, Field, Style, Variant};
use crate::bound;

/// `<T as Encode>::Encoder`.
fn encoder_type(ty: &Type) -> TokenStream {
    quote!(<#ty as ::tree_buf::Encode>::Encoder)
}

/// Calls a `ValueEncoder<T>` method fully qualified, since one encoder may implement it for
/// several `T`.
fn call(ty: &Type, method: &str, args: TokenStream) -> TokenStream {
    let encoder = encoder_type(ty);
    let method = format_ident!("{}", method);
    quote!(<#encoder as __tb::ValueEncoder<#ty>>::#method(#args))
}

/// A written field and the name of its encoder in the generated struct.
struct Slot<'f> {
    field: &'f Field<'f>,
    name: syn::Ident,
}

fn slots<'f>(fields: &'f [Field<'f>], prefix: &str) -> Vec<Slot<'f>> {
    fields
        .iter()
        .enumerate()
        .filter(|(_, f)| !f.skipped())
        .map(|(i, field)| Slot {
            field,
            name: format_ident!("{}{}", prefix, i),
        })
        .collect()
}

/// Writes the fields' schema and columns in the layout of `style`.
fn finish_fields(style: Style, slots: &[Slot<'_>]) -> TokenStream {
    let finish = |slot: &Slot<'_>| {
        let name = &slot.name;
        call(&slot.field.ty, "finish", quote!(self.#name, out))
    };
    let len = Literal::usize_unsuffixed(slots.len());
    match style {
        Style::Unit => quote!(out.unit()),
        Style::Newtype => slots.first().map_or_else(|| quote!(out.unit()), finish),
        Style::Tuple => {
            let elements = slots.iter().enumerate().map(|(i, slot)| {
                let index = Literal::usize_unsuffixed(i);
                let finish = finish(slot);
                quote!(out.element(#index, |out| #finish)?;)
            });
            quote!(out.tuple(#len, |out| { #(#elements)* __tb::Ok(()) }))
        }
        Style::Named => {
            let fields = slots.iter().map(|slot| {
                let name = &slot.field.name;
                let finish = finish(slot);
                quote!(out.field(#name, |out| #finish)?;)
            });
            quote!(out.structure(#len, |out| { #(#fields)* __tb::Ok(()) }))
        }
    }
}

pub fn expand(container: &Container<'_>) -> TokenStream {
    let trait_path = quote!(::tree_buf::Encode);
    let where_clause = bound::where_clause(container, &trait_path, false);
    let impl_generics = bound::impl_generics(container);
    let (_, ty_generics, _) = container.generics.split_for_impl();
    let ty = bound::self_type(container);
    let body = match &container.data {
        Data::Struct(Style::Unit, _) => {
            return quote! {
                const _: () = {
                    impl #impl_generics ::tree_buf::Encode for #ty #where_clause {
                        type Encoder = ::tree_buf::__private::UnitEncoder;
                        fn encoded_cmp(&self, _other: &Self) -> ::core::cmp::Ordering {
                            ::core::cmp::Ordering::Equal
                        }
                    }
                };
            };
        }
        Data::Struct(style, fields) => struct_encoder(*style, fields),
        Data::Enum(variants) => enum_encoder(container, variants),
    };
    let EncoderParts {
        fields,
        new,
        push,
        finish,
        cmp,
    } = body;
    quote! {
        const _: () = {
            use ::tree_buf::__private as __tb;

            pub struct __TreeBufEncoder #impl_generics #where_clause {
                #fields
                __marker: __tb::PhantomData<fn(&#ty)>,
            }

            impl #impl_generics __tb::ValueEncoder<#ty> for __TreeBufEncoder #ty_generics #where_clause {
                fn new(depth: usize) -> Self {
                    #new
                }

                #[inline]
                fn push(&mut self, value: &#ty) {
                    #push
                }

                fn finish(self, out: &mut __tb::SchemaWriter) -> __tb::EncodeResult {
                    #finish
                }
            }

            impl #impl_generics ::tree_buf::Encode for #ty #where_clause {
                type Encoder = __TreeBufEncoder #ty_generics;

                fn encoded_cmp(&self, other: &Self) -> ::core::cmp::Ordering {
                    #cmp
                }
            }
        };
    }
}

struct EncoderParts {
    fields: TokenStream,
    new: TokenStream,
    push: TokenStream,
    finish: TokenStream,
    /// The body of `encoded_cmp`: written fields compared in order.
    cmp: TokenStream,
}

/// Compares the written fields bound to `a_<slot>` and `b_<slot>`, in order.
fn compare_fields(slots: &[Slot<'_>], a: &str, b: &str) -> TokenStream {
    let comparisons = slots.iter().map(|slot| {
        let ty = &slot.field.ty;
        let a = format_ident!("{}{}", a, slot.name);
        let b = format_ident!("{}{}", b, slot.name);
        quote!(.then_with(|| <#ty as ::tree_buf::Encode>::encoded_cmp(#a, #b)))
    });
    quote!(::core::cmp::Ordering::Equal #(#comparisons)*)
}

/// `member: binding` patterns for the written fields, bindings named `<prefix><slot>`.
fn bindings(slots: &[Slot<'_>], prefix: &str) -> TokenStream {
    let bindings = slots.iter().map(|slot| {
        let member = &slot.field.member;
        let binding = format_ident!("{}{}", prefix, slot.name);
        quote!(#member: #binding,)
    });
    quote!(#(#bindings)* ..)
}

fn declarations(slots: &[Slot<'_>]) -> TokenStream {
    let declarations = slots.iter().map(|slot| {
        let name = &slot.name;
        let encoder = encoder_type(&slot.field.ty);
        quote!(#name: #encoder,)
    });
    quote!(#(#declarations)*)
}

fn initializers(slots: &[Slot<'_>], depth: &TokenStream) -> TokenStream {
    let initializers = slots.iter().map(|slot| {
        let name = &slot.name;
        let new = call(&slot.field.ty, "new", depth.clone());
        quote!(#name: #new,)
    });
    quote!(#(#initializers)*)
}

fn struct_encoder(style: Style, fields: &[Field<'_>]) -> EncoderParts {
    let slots = slots(fields, "field_");
    let depth = if style == Style::Newtype {
        quote!(depth)
    } else {
        quote!(depth + 1)
    };
    let initializers = initializers(&slots, &depth);
    let pushes = slots.iter().map(|slot| {
        let name = &slot.name;
        let member = &slot.field.member;
        call(
            &slot.field.ty,
            "push",
            quote!(&mut self.#name, &value.#member),
        )
    });
    let (a, b) = (bindings(&slots, "__a_"), bindings(&slots, "__b_"));
    let compare = compare_fields(&slots, "__a_", "__b_");
    EncoderParts {
        fields: declarations(&slots),
        new: quote!(Self { #initializers __marker: __tb::PhantomData }),
        push: quote!(#(#pushes;)*),
        finish: finish_fields(style, &slots),
        cmp: quote! {
            let Self { #a } = self;
            let Self { #b } = other;
            #compare
        },
    }
}

fn enum_encoder(container: &Container<'_>, variants: &[Variant<'_>]) -> EncoderParts {
    let ident = container.ident;
    let per_variant: Vec<Vec<Slot<'_>>> = variants
        .iter()
        .enumerate()
        .map(|(vi, variant)| slots(&variant.fields, &format!("variant_{vi}_field_")))
        .collect();
    let all_slots: Vec<&Slot<'_>> = per_variant.iter().flatten().collect();

    let declarations = all_slots.iter().map(|slot| {
        let name = &slot.name;
        let encoder = encoder_type(&slot.field.ty);
        quote!(#name: #encoder,)
    });
    let initializers = variants.iter().zip(&per_variant).map(|(variant, slots)| {
        // Newtype content is the variant node itself; other fields sit one level below it.
        let depth = if variant.style == Style::Newtype {
            quote!(depth + 1)
        } else {
            quote!(depth + 2)
        };
        initializers(slots, &depth)
    });
    let arms = variants
        .iter()
        .zip(&per_variant)
        .enumerate()
        .map(|(vi, (variant, slots))| {
            let variant_ident = variant.ident;
            let discriminant = Literal::u32_unsuffixed(vi as u32);
            let bindings = slots.iter().map(|slot| {
                let member = &slot.field.member;
                let binding = format_ident!("__{}", slot.name);
                quote!(#member: #binding)
            });
            let pushes = slots.iter().map(|slot| {
                let name = &slot.name;
                let binding = format_ident!("__{}", slot.name);
                call(&slot.field.ty, "push", quote!(&mut self.#name, #binding))
            });
            quote! {
                #ident::#variant_ident { #(#bindings,)* .. } => {
                    self.__discriminants.push(#discriminant);
                    #(#pushes;)*
                }
            }
        });
    let finishes = variants.iter().zip(&per_variant).map(|(variant, slots)| {
        let name = &variant.name;
        let finish = finish_fields(variant.style, slots);
        quote!(out.variant(#name, |out| #finish)?;)
    });
    let indices = variants.iter().enumerate().map(|(vi, variant)| {
        let variant_ident = variant.ident;
        let index = Literal::u32_unsuffixed(vi as u32);
        quote!(#ident::#variant_ident { .. } => #index,)
    });
    let same_variant = variants.iter().zip(&per_variant).map(|(variant, slots)| {
        let variant_ident = variant.ident;
        let (a, b) = (bindings(slots, "__a_"), bindings(slots, "__b_"));
        let compare = compare_fields(slots, "__a_", "__b_");
        quote!((#ident::#variant_ident { #a }, #ident::#variant_ident { #b }) => #compare,)
    });
    let cmp = quote! {
        let index = |value: &Self| -> u32 { match value { #(#indices)* } };
        #[allow(unreachable_patterns)]
        match (self, other) {
            #(#same_variant)*
            _ => index(self).cmp(&index(other)),
        }
    };
    let count = Literal::usize_unsuffixed(variants.len());
    EncoderParts {
        cmp,
        fields: quote!(__discriminants: ::std::vec::Vec<u32>, #(#declarations)*),
        new: quote!(Self { __discriminants: ::std::vec::Vec::new(), #(#initializers)* __marker: __tb::PhantomData }),
        push: quote!(match value { #(#arms)* }),
        finish: quote!(out.enumeration(#count, self.__discriminants, |out| { #(#finishes)* __tb::Ok(()) })),
    }
}
