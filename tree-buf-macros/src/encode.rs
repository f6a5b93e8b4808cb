//! Generates `Encode`: an encoder struct holding one column encoder per written field (of every
//! variant, for enums), which takes values apart on `push` and writes the schema on `finish`.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::ast::{Container, Data, Style, Variant};
use crate::codegen::{discriminant, struct_slots, variant_slots, Coder, Generator, Slot, Trait};

pub fn expand(container: &Container<'_>) -> TokenStream {
    let generator = Generator::new(container, Trait::Encode);
    if let Some(converted) = generator.expand_converted() {
        return converted;
    }
    let parts = match &container.data {
        Data::Struct(Style::Unit, _) => {
            // Nothing to take apart: the shared unit encoder writes the unit node.
            let cmp = quote! {
                fn encoded_cmp(&self, _other: &Self) -> ::core::cmp::Ordering {
                    ::core::cmp::Ordering::Equal
                }
            };
            return generator.wrap(generator.trait_impl(quote!(__tb::UnitEncoder), cmp));
        }
        Data::Struct(style, fields) => struct_encoder(&generator, *style, &struct_slots(fields)),
        Data::Enum(variants) => enum_encoder(&generator, variants),
    };
    let EncoderParts {
        fields,
        new,
        push,
        reserve,
        bytes,
        finish,
        cmp,
    } = parts;
    let ty = &container.self_type;
    generator.expand(Coder {
        fields,
        methods: quote! {
            fn new(depth: usize) -> Self {
                #new
            }

            #[inline]
            fn push(&mut self, value: &#ty) {
                #push
            }

            fn reserve(&mut self, additional: usize) {
                #reserve
            }

            fn bytes(&self) -> usize {
                #bytes
            }

            fn finish(self, out: &mut __tb::SchemaWriter) -> __tb::EncodeResult {
                #finish
            }
        },
        trait_items: quote! {
            fn encoded_cmp(&self, other: &Self) -> ::core::cmp::Ordering {
                #cmp
            }
        },
    })
}

struct EncoderParts {
    fields: TokenStream,
    new: TokenStream,
    push: TokenStream,
    /// The body of `reserve`: room in the columns every value reaches.
    reserve: TokenStream,
    /// The body of `bytes`: the fields' column bytes, and the discriminants'.
    bytes: TokenStream,
    finish: TokenStream,
    /// The body of `encoded_cmp`: written fields compared in order.
    cmp: TokenStream,
}

/// Writes the fields' schema and columns in the layout of `style`.
fn finish_fields(generator: &Generator<'_>, style: Style, slots: &[Slot<'_>]) -> TokenStream {
    let finish = |slot: &Slot<'_>| {
        let name = &slot.name;
        generator.call_slot(slot, "finish", quote!(self.#name, out))
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

/// `member: binding` patterns for the written fields, bindings named `<prefix><slot>`.
fn bindings(slots: &[Slot<'_>], prefix: &str) -> TokenStream {
    let bindings = slots.iter().map(|slot| {
        let member = &slot.field.member;
        let binding = format_ident!("{}{}", prefix, slot.name);
        quote!(#member: #binding,)
    });
    quote!(#(#bindings)* ..)
}

/// Compares the written fields bound by `bindings(slots, "__a_")` and `bindings(slots, "__b_")`,
/// in order.
fn compare_fields(generator: &Generator<'_>, slots: &[Slot<'_>]) -> TokenStream {
    let trait_path = generator.trait_path();
    let comparisons = slots.iter().map(|slot| {
        let ty = &slot.field.ty;
        let a = format_ident!("__a_{}", slot.name);
        let b = format_ident!("__b_{}", slot.name);
        let compare = match slot.field.attrs.with {
            Some(_) => {
                let proxy = generator.with_proxy(slot);
                quote!(<#proxy as __tb::EncodeProxy<#ty>>::encoded_cmp)
            }
            None => quote!(<#ty as #trait_path>::encoded_cmp),
        };
        quote!(.then_with(|| #compare(#a, #b)))
    });
    quote!(::core::cmp::Ordering::Equal #(#comparisons)*)
}

/// The sum of the slots' column bytes, after `start`.
fn sum_bytes<'a>(
    generator: &Generator<'_>,
    slots: impl IntoIterator<Item = &'a Slot<'a>>,
    start: TokenStream,
) -> TokenStream {
    let terms = slots.into_iter().map(|slot| {
        let name = &slot.name;
        generator.call_slot(slot, "bytes", quote!(&self.#name))
    });
    quote!(#start #(+ #terms)*)
}

/// `slot: <encoder>::new(depth),` for each slot.
fn initializers(generator: &Generator<'_>, slots: &[Slot<'_>], depth: TokenStream) -> TokenStream {
    let initializers = slots.iter().map(|slot| {
        let name = &slot.name;
        let new = generator.call_slot(slot, "new", depth.clone());
        quote!(#name: #new,)
    });
    quote!(#(#initializers)*)
}

fn struct_encoder(generator: &Generator<'_>, style: Style, slots: &[Slot<'_>]) -> EncoderParts {
    // A newtype's content is the struct's own node; other fields sit one level below it.
    let depth = if style == Style::Newtype {
        quote!(depth)
    } else {
        quote!(depth + 1)
    };
    let initializers = initializers(generator, slots, depth);
    let pushes = slots.iter().map(|slot| {
        let name = &slot.name;
        let member = &slot.field.member;
        generator.call_slot(slot, "push", quote!(&mut self.#name, &value.#member))
    });
    let reserves = slots.iter().map(|slot| {
        let name = &slot.name;
        generator.call_slot(slot, "reserve", quote!(&mut self.#name, additional))
    });
    let (a, b) = (bindings(slots, "__a_"), bindings(slots, "__b_"));
    let compare = compare_fields(generator, slots);
    EncoderParts {
        fields: slots
            .iter()
            .map(|slot| generator.declaration(slot))
            .collect(),
        new: quote!(Self { #initializers __marker: __tb::PhantomData }),
        push: quote!(#(#pushes;)*),
        reserve: quote!(let _ = additional; #(#reserves;)*),
        bytes: sum_bytes(generator, slots, quote!(0)),
        finish: finish_fields(generator, style, slots),
        cmp: quote! {
            let Self { #a } = self;
            let Self { #b } = other;
            #compare
        },
    }
}

fn enum_encoder(generator: &Generator<'_>, variants: &[Variant<'_>]) -> EncoderParts {
    let ident = generator.container.ident;
    let per_variant = variant_slots(variants);
    let declarations = per_variant
        .iter()
        .flatten()
        .map(|slot| generator.declaration(slot));
    let initializers = variants.iter().zip(&per_variant).map(|(variant, slots)| {
        // A newtype's content is the variant's own node; other fields sit one level below it.
        let depth = if variant.style == Style::Newtype {
            quote!(depth + 1)
        } else {
            quote!(depth + 2)
        };
        initializers(generator, slots, depth)
    });
    let arms = variants
        .iter()
        .zip(&per_variant)
        .enumerate()
        .map(|(index, (variant, slots))| {
            let variant_ident = variant.ident;
            let discriminant = discriminant(index);
            let bindings = bindings(slots, "__");
            let pushes = slots.iter().map(|slot| {
                let name = &slot.name;
                let binding = format_ident!("__{}", slot.name);
                generator.call_slot(slot, "push", quote!(&mut self.#name, #binding))
            });
            quote! {
                #ident::#variant_ident { #bindings } => {
                    self.__discriminants.push(#discriminant);
                    #(#pushes;)*
                }
            }
        });
    let finishes = variants.iter().zip(&per_variant).map(|(variant, slots)| {
        let name = &variant.name;
        let finish = finish_fields(generator, variant.style, slots);
        quote!(out.variant(#name, |out| #finish)?;)
    });
    let indices = variants.iter().enumerate().map(|(index, variant)| {
        let variant_ident = variant.ident;
        let discriminant = discriminant(index);
        quote!(#ident::#variant_ident { .. } => #discriminant,)
    });
    let same_variant = variants.iter().zip(&per_variant).map(|(variant, slots)| {
        let variant_ident = variant.ident;
        let (a, b) = (bindings(slots, "__a_"), bindings(slots, "__b_"));
        let compare = compare_fields(generator, slots);
        quote!((#ident::#variant_ident { #a }, #ident::#variant_ident { #b }) => #compare,)
    });
    let cmp = quote! {
        let index = |value: &Self| -> u32 { match value { #(#indices)* } };
        #[allow(unreachable_patterns)]
        match (self, other) {
            #(#same_variant)*
            _ => ::core::cmp::Ord::cmp(&index(self), &index(other)),
        }
    };
    let count = Literal::usize_unsuffixed(variants.len());
    EncoderParts {
        cmp,
        fields: quote!(__discriminants: ::std::vec::Vec<u32>, #(#declarations)*),
        new: quote!(Self { __discriminants: ::std::vec::Vec::new(), #(#initializers)* __marker: __tb::PhantomData }),
        push: quote!(match value { #(#arms)* }),
        // The variants' fields are reached by some values only.
        reserve: quote!(self.__discriminants.reserve(additional)),
        bytes: sum_bytes(
            generator,
            per_variant.iter().flatten(),
            quote!(::core::mem::size_of_val(self.__discriminants.as_slice())),
        ),
        finish: quote!(out.enumeration(#count, self.__discriminants, |out| { #(#finishes)* __tb::Ok(()) })),
    }
}
