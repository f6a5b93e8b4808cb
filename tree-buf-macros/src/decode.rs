//! Generates `Decode`: a decoder struct holding one column decoder per written field (of every
//! variant, for enums), built and validated from the file's schema in `new`, and putting values
//! together in `next`.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote, ToTokens};

use crate::ast::{Container, Data, Field, Style, Variant};
use crate::codegen::{discriminant, struct_slots, variant_slots, Coder, Generator, Slot, Trait};

pub fn expand(container: &Container<'_>) -> TokenStream {
    let generator = Generator::new(container, Trait::Decode);
    if let Some(converted) = generator.expand_converted() {
        return converted;
    }
    let ty = &container.self_type;
    let (fields, new, next, absent) = match &container.data {
        Data::Struct(style, fields) => {
            let slots = struct_slots(fields);
            let build = build_fields(
                &generator,
                *style,
                &slots,
                &quote!(node),
                &quote!(count),
                &container.ident.to_string(),
            );
            let names = slots.iter().map(|slot| &slot.name);
            let new = quote! {
                #build
                __tb::Ok(Self { #(#names,)* __marker: __tb::PhantomData })
            };
            // A newtype over an optional value stays optional when the file lacks it.
            let absent = (*style == Style::Newtype).then(|| {
                let name = &slots[0].name;
                let absent = generator.call_slot(&slots[0], "absent", quote!(missing, count, ctx));
                quote! {
                    fn absent(missing: __tb::Missing<'_>, count: usize, ctx: &mut __tb::DecodeContext<'__de>) -> __tb::Result<Self, __tb::DecodeError> {
                        __tb::Ok(Self { #name: #absent?, __marker: __tb::PhantomData })
                    }
                }
            });
            let ident = container.ident;
            (
                slots
                    .iter()
                    .map(|slot| declaration(&generator, slot))
                    .collect(),
                new,
                construct(&generator, quote!(#ident), fields, &slots),
                absent,
            )
        }
        Data::Enum(variants) => {
            let (fields, new, next) = enum_decoder(&generator, variants);
            (fields, new, next, None)
        }
    };
    generator.expand(Coder {
        fields,
        methods: quote! {
            fn new(node: __tb::NodeRef<'_>, count: usize, ctx: &mut __tb::DecodeContext<'__de>) -> __tb::Result<Self, __tb::DecodeError> {
                #new
            }

            #absent

            #[inline]
            fn next(&mut self) -> #ty {
                #next
            }

            #[inline]
            fn next_vec(&mut self, n: usize) -> __tb::Vec<#ty> {
                __tb::collect_values(n, || { #next })
            }
        },
        trait_items: TokenStream::new(),
    })
}

/// The decoder of a slot: `OrDefault` for a `#[tree_buf(default)]` field.
fn declaration(generator: &Generator<'_>, slot: &Slot<'_>) -> TokenStream {
    if slot.field.attrs.default.is_some() {
        let name = &slot.name;
        let ty = &slot.field.ty;
        let coder = generator.slot_coder(slot);
        quote!(#name: __tb::OrDefault<#ty, #coder>,)
    } else {
        generator.declaration(slot)
    }
}

/// Builds each field's decoder as a local variable named after its slot, from `node` and
/// `count`, read as `style`; `type_name` names the type in errors.
fn build_fields(
    generator: &Generator<'_>,
    style: Style,
    slots: &[Slot<'_>],
    node: &TokenStream,
    count: &TokenStream,
    type_name: &str,
) -> TokenStream {
    let len = Literal::usize_unsuffixed(slots.len());
    match style {
        Style::Unit => quote!(__tb::check_unit(#node, #count, #type_name, ctx)?;),
        Style::Newtype => {
            let slot = &slots[0];
            let name = &slot.name;
            let new = generator.call_slot(slot, "new", quote!(#node, #count, ctx));
            quote!(let #name = #new?;)
        }
        Style::Tuple => {
            let elements = slots.iter().enumerate().map(|(i, slot)| {
                let name = &slot.name;
                let ty = &slot.field.ty;
                let coder = generator.slot_coder(slot);
                let index = Literal::usize_unsuffixed(i);
                quote!(let #name = __tuple.element::<#ty, #coder>(#index, ctx)?;)
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
                let coder = generator.slot_coder(slot);
                let field_name = &slot.field.name;
                if slot.field.attrs.default.is_some() {
                    quote!(let #name = __struct.field_or_default::<#ty, #coder>(#field_name, ctx)?;)
                } else {
                    quote!(let #name = __struct.field::<#ty, #coder>(#field_name, ctx)?;)
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
fn construct(
    generator: &Generator<'_>,
    path: TokenStream,
    fields: &[Field],
    slots: &[Slot<'_>],
) -> TokenStream {
    let members = fields.iter().map(|field| {
        let member = &field.member;
        match slots.iter().find(|slot| std::ptr::eq(slot.field, field)) {
            Some(slot) if field.attrs.default.is_some() => {
                let name = &slot.name;
                quote!(#member: self.#name.next())
            }
            Some(slot) => {
                let name = &slot.name;
                let next = generator.call_slot(slot, "next", quote!(&mut self.#name));
                quote!(#member: #next)
            }
            None => quote!(#member: __tb::Default::default()),
        }
    });
    quote!(#path { #(#members),* })
}

fn enum_decoder(
    generator: &Generator<'_>,
    variants: &[Variant<'_>],
) -> (TokenStream, TokenStream, TokenStream) {
    let ident = generator.container.ident;
    let type_name = ident.to_string();
    let per_variant = variant_slots(variants);
    let declarations = per_variant
        .iter()
        .flatten()
        .map(|slot| declaration(generator, slot));
    let names = per_variant.iter().flatten().map(|slot| &slot.name);
    let variant_names = variants.iter().map(|variant| &variant.name);
    let builds = variants
        .iter()
        .zip(&per_variant)
        .enumerate()
        .map(|(index, (variant, slots))| {
            let node = format_ident!("__node_{}", index);
            let count = format_ident!("__count_{}", index);
            let build = build_fields(
                generator,
                variant.style,
                slots,
                &quote!(#node),
                &quote!(#count),
                &format!("{type_name}::{}", variant.ident),
            );
            let index = Literal::usize_unsuffixed(index);
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
        .map(|(index, (variant, slots))| {
            let variant_ident = variant.ident;
            let value = construct(
                generator,
                quote!(#ident::#variant_ident),
                &variant.fields,
                slots,
            );
            // The last variant takes every other discriminant, so there is no panicking arm; the
            // discriminants were all checked when the decoder was built.
            let pattern = if index == last {
                quote!(_)
            } else {
                discriminant(index).into_token_stream()
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
