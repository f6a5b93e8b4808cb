//! Generates `Decode`: a decoder struct holding one column decoder per written field (of every
//! variant, for enums), built and validated from the file's schema in `new`, and putting values
//! together in `next`.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::Type;

use crate::ast::{Container, Data, Field, Style, Variant};
use crate::bound;

/// `<T as Decode>::Decoder`.
fn decoder_type(ty: &Type) -> TokenStream {
    quote!(<#ty as ::tree_buf::Decode>::Decoder)
}

/// Calls a `ValueDecoder<T>` method fully qualified.
fn call(ty: &Type, method: &str, args: TokenStream) -> TokenStream {
    let decoder = decoder_type(ty);
    let method = format_ident!("{}", method);
    quote!(<#decoder as __tb::ValueDecoder<#ty>>::#method(#args))
}

/// A written field and the name of its decoder in the generated struct.
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

fn declaration(slot: &Slot<'_>) -> TokenStream {
    let name = &slot.name;
    let ty = &slot.field.ty;
    if slot.field.attrs.default.is_some() {
        quote!(#name: __tb::OrDefault<#ty>,)
    } else {
        let decoder = decoder_type(ty);
        quote!(#name: #decoder,)
    }
}

/// Builds each field's decoder as a local variable named after its slot, from `node` and
/// `count`, read as `style`; `type_name` names the type in errors.
fn build_fields(
    style: Style,
    slots: &[Slot<'_>],
    node: &TokenStream,
    count: &TokenStream,
    type_name: &str,
) -> TokenStream {
    let len = Literal::usize_unsuffixed(slots.len());
    match style {
        Style::Unit => quote!(__tb::check_unit(#node, #count, #type_name)?;),
        Style::Newtype => {
            let slot = &slots[0];
            let name = &slot.name;
            let new = call(&slot.field.ty, "new", quote!(#node, #count, ctx));
            quote!(let #name = #new?;)
        }
        Style::Tuple => {
            let elements = slots.iter().enumerate().map(|(i, slot)| {
                let name = &slot.name;
                let ty = &slot.field.ty;
                let index = Literal::usize_unsuffixed(i);
                quote!(let #name = __tuple.element::<#ty>(#index, ctx)?;)
            });
            quote! {
                let __tuple = __tb::TupleNode::new(#node, #count, #len, #type_name)?;
                #(#elements)*
            }
        }
        Style::Named => {
            let fields = slots.iter().map(|slot| {
                let name = &slot.name;
                let ty = &slot.field.ty;
                let field_name = &slot.field.name;
                if slot.field.attrs.default.is_some() {
                    quote!(let #name = __struct.field_or_default::<#ty>(#field_name, ctx)?;)
                } else {
                    quote!(let #name = __struct.field::<#ty>(#field_name, ctx)?;)
                }
            });
            quote! {
                let __struct = __tb::StructNode::new(#node, #count, #type_name)?;
                #(#fields)*
            }
        }
    }
}

/// The expression that puts a value of `path` together from its fields' decoders.
fn construct(path: TokenStream, fields: &[Field<'_>], slots: &[Slot<'_>]) -> TokenStream {
    let members = fields.iter().map(|field| {
        let member = &field.member;
        match slots.iter().find(|slot| std::ptr::eq(slot.field, field)) {
            Some(slot) if field.attrs.default.is_some() => {
                let name = &slot.name;
                quote!(#member: self.#name.next())
            }
            Some(slot) => {
                let name = &slot.name;
                let next = call(&field.ty, "next", quote!(&mut self.#name));
                quote!(#member: #next)
            }
            None => quote!(#member: __tb::Default::default()),
        }
    });
    quote!(#path { #(#members),* })
}

pub fn expand(container: &Container<'_>) -> TokenStream {
    let trait_path = quote!(::tree_buf::Decode);
    let where_clause = bound::where_clause(container, &trait_path, true);
    let impl_generics = bound::impl_generics(container);
    let (_, ty_generics, _) = container.generics.split_for_impl();
    let ty = bound::self_type(container);
    let ident = container.ident;
    let type_name = ident.to_string();

    let (fields, new, next, absent) = match &container.data {
        Data::Struct(style, fields) => {
            let slots = slots(fields, "field_");
            let declarations = slots.iter().map(declaration);
            let build = build_fields(*style, &slots, &quote!(node), &quote!(count), &type_name);
            let names = slots.iter().map(|s| &s.name);
            let new = quote! {
                #build
                __tb::Ok(Self { #(#names,)* __marker: __tb::PhantomData })
            };
            // A newtype over an optional value stays optional when the file lacks it.
            let absent = (*style == Style::Newtype).then(|| {
                let slot = &slots[0];
                let name = &slot.name;
                let absent = call(&slot.field.ty, "absent", quote!(missing, count, ctx));
                quote! {
                    fn absent(missing: __tb::Missing<'_>, count: usize, ctx: &mut __tb::DecodeContext<'_>) -> __tb::Result<Self, __tb::DecodeError> {
                        __tb::Ok(Self { #name: #absent?, __marker: __tb::PhantomData })
                    }
                }
            });
            (
                quote!(#(#declarations)*),
                new,
                construct(quote!(#ident), fields, &slots),
                absent,
            )
        }
        Data::Enum(variants) => {
            let (fields, new, next) = enum_decoder(container, variants);
            (fields, new, next, None)
        }
    };

    quote! {
        const _: () = {
            use ::tree_buf::__private as __tb;

            pub struct __TreeBufDecoder #impl_generics #where_clause {
                #fields
                __marker: __tb::PhantomData<fn() -> #ty>,
            }

            impl #impl_generics __tb::ValueDecoder<#ty> for __TreeBufDecoder #ty_generics #where_clause {
                fn new(node: __tb::NodeRef<'_>, count: usize, ctx: &mut __tb::DecodeContext<'_>) -> __tb::Result<Self, __tb::DecodeError> {
                    #new
                }

                #absent

                #[inline]
                fn next(&mut self) -> #ty {
                    #next
                }
            }

            impl #impl_generics ::tree_buf::Decode for #ty #where_clause {
                type Decoder = __TreeBufDecoder #ty_generics;
            }
        };
    }
}

fn enum_decoder(
    container: &Container<'_>,
    variants: &[Variant<'_>],
) -> (TokenStream, TokenStream, TokenStream) {
    let ident = container.ident;
    let type_name = ident.to_string();
    let per_variant: Vec<Vec<Slot<'_>>> = variants
        .iter()
        .enumerate()
        .map(|(vi, variant)| slots(&variant.fields, &format!("variant_{vi}_field_")))
        .collect();
    let declarations = per_variant.iter().flatten().map(declaration);
    let names: Vec<&syn::Ident> = per_variant.iter().flatten().map(|s| &s.name).collect();
    let variant_names = variants.iter().map(|v| &v.name);
    let builds = variants
        .iter()
        .zip(&per_variant)
        .enumerate()
        .map(|(vi, (variant, slots))| {
            let index = Literal::usize_unsuffixed(vi);
            let node = format_ident!("__node_{}", vi);
            let count = format_ident!("__count_{}", vi);
            let build = build_fields(
                variant.style,
                slots,
                &quote!(#node),
                &quote!(#count),
                &format!("{type_name}::{}", variant.ident),
            );
            quote! {
                let (#node, #count) = __enum.variant(#index);
                #build
            }
        });
    let new = quote! {
        let __enum = __tb::EnumNode::new(node, count, &[#(#variant_names),*], #type_name, ctx)?;
        #(#builds)*
        __tb::Ok(Self { __discriminants: __enum.into_discriminants(), #(#names,)* __marker: __tb::PhantomData })
    };
    let last = variants.len() - 1;
    let arms = variants
        .iter()
        .zip(&per_variant)
        .enumerate()
        .map(|(vi, (variant, slots))| {
            let variant_ident = variant.ident;
            let value = construct(quote!(#ident::#variant_ident), &variant.fields, slots);
            // The last variant takes every other discriminant, so there is no panicking arm; the
            // discriminants were all checked when the decoder was built.
            let pattern = if vi == last {
                quote!(_)
            } else {
                Literal::u32_unsuffixed(vi as u32).into_token_stream()
            };
            quote!(#pattern => #value,)
        });
    let next = quote!(match self.__discriminants.next() { #(#arms)* });
    (
        quote!(__discriminants: __tb::Discriminants, #(#declarations)*),
        new,
        next,
    )
}
