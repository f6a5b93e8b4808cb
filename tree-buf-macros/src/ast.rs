//! The model of a derive input: container, variants and fields with their attributes and the
//! canonical names written to the file. Building it checks everything and collects every error.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::visit_mut::VisitMut;
use syn::{Data as SynData, DeriveInput, Fields, Generics, Ident, Member, Type};

use crate::attr::{ContainerAttrs, FieldAttrs, VariantAttrs};
use crate::canonical::canonical_name;

/// Errors collected while reading the input, so that all of them are reported at once.
#[derive(Default)]
pub struct Errors(Option<syn::Error>);

impl Errors {
    pub fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(error),
            None => self.0 = Some(error),
        }
    }

    fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}

/// How a struct or variant holds its fields.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// `{ a: A, b: B }`: a struct node of named fields.
    Named,
    /// `(A, B)`: a tuple node.
    Tuple,
    /// `(A)`: transparent, the schema of `A`.
    Newtype,
    /// No fields: a unit node.
    Unit,
}

pub struct Container<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    pub attrs: ContainerAttrs,
    pub data: Data<'a>,
}

pub enum Data<'a> {
    Struct(Style, Vec<Field<'a>>),
    Enum(Vec<Variant<'a>>),
}

pub struct Variant<'a> {
    pub ident: &'a Ident,
    /// The canonical name written to the file.
    pub name: String,
    pub style: Style,
    pub fields: Vec<Field<'a>>,
}

pub struct Field<'a> {
    /// `self.name` or `self.0`.
    pub member: Member,
    /// The field's type, with `Self` replaced by the container type.
    pub ty: Type,
    /// The canonical name written to the file (named fields only).
    pub name: String,
    pub attrs: FieldAttrs,
    pub original: &'a syn::Field,
}

impl Field<'_> {
    pub fn skipped(&self) -> bool {
        self.attrs.skip.is_some()
    }
}

/// Replaces `Self` in field types: inside the generated encoder, `Self` would mean the encoder.
struct ReplaceSelf<'a>(&'a Type);

impl VisitMut for ReplaceSelf<'_> {
    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let Type::Path(path) = ty {
            if path.qself.is_none() && path.path.is_ident("Self") {
                *ty = self.0.clone();
                return;
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

impl<'a> Container<'a> {
    pub fn from_ast(input: &'a DeriveInput) -> syn::Result<Self> {
        let mut errors = Errors::default();
        let attrs = ContainerAttrs::parse(&input.attrs, &mut errors);
        let ident = &input.ident;
        let (_, ty_generics, _) = input.generics.split_for_impl();
        let self_type: Type = syn::parse_quote!(#ident #ty_generics);
        let data = match &input.data {
            SynData::Struct(data) => {
                let fields = fields(&data.fields, &self_type, &mut errors);
                let style = style(&data.fields, &fields, &mut errors);
                check_names(
                    fields
                        .iter()
                        .filter(|f| !f.skipped() && style == Style::Named)
                        .map(|f| {
                            (
                                f.name.as_str(),
                                f.original
                                    .ident
                                    .as_ref()
                                    .map_or(Span::call_site(), Ident::span),
                            )
                        }),
                    "fields",
                    &mut errors,
                );
                Some(Data::Struct(style, fields))
            }
            SynData::Enum(data) => {
                if data.variants.is_empty() {
                    errors.push(syn::Error::new(ident.span(), "tree-buf cannot derive for an enum without variants: it has no values to encode"));
                }
                let variants: Vec<Variant<'a>> = data
                    .variants
                    .iter()
                    .map(|variant| {
                        let variant_attrs = VariantAttrs::parse(&variant.attrs, &mut errors);
                        let fields = fields(&variant.fields, &self_type, &mut errors);
                        let style = style(&variant.fields, &fields, &mut errors);
                        if style == Style::Named {
                            check_names(
                                fields.iter().filter(|f| !f.skipped()).map(|f| {
                                    (
                                        f.name.as_str(),
                                        f.original
                                            .ident
                                            .as_ref()
                                            .map_or(Span::call_site(), Ident::span),
                                    )
                                }),
                                "fields",
                                &mut errors,
                            );
                        }
                        let name = match &variant_attrs.rename {
                            Some(rename) => canonical_name(&rename.value()).into_owned(),
                            None => canonical_name(&variant.ident.to_string()).into_owned(),
                        };
                        Variant {
                            ident: &variant.ident,
                            name,
                            style,
                            fields,
                        }
                    })
                    .collect();
                check_names(
                    variants.iter().map(|v| (v.name.as_str(), v.ident.span())),
                    "variants",
                    &mut errors,
                );
                Some(Data::Enum(variants))
            }
            SynData::Union(data) => {
                errors.push(syn::Error::new(
                    data.union_token.span,
                    "tree-buf cannot derive for unions: which field holds the value is not known",
                ));
                None
            }
        };
        errors.finish()?;
        let data = data.ok_or_else(|| syn::Error::new(ident.span(), "unsupported input"))?;
        Ok(Container {
            ident,
            generics: &input.generics,
            attrs,
            data,
        })
    }
}

fn fields<'a>(fields: &'a Fields, self_type: &Type, errors: &mut Errors) -> Vec<Field<'a>> {
    fields
        .iter()
        .enumerate()
        .map(|(index, field)| {
            let attrs = FieldAttrs::parse(&field.attrs, errors);
            let mut ty = field.ty.clone();
            ReplaceSelf(self_type).visit_type_mut(&mut ty);
            let (member, name) = match &field.ident {
                Some(ident) => {
                    let written = attrs.rename.as_ref().map_or_else(|| ident.to_string().trim_start_matches("r#").to_owned(), |r| r.value());
                    (Member::Named(ident.clone()), canonical_name(&written).into_owned())
                }
                None => {
                    if let Some(default) = &attrs.default {
                        errors.push(syn::Error::new_spanned(default, "`default` applies to named fields only: tuple elements are matched by position"));
                    }
                    if let Some(rename) = &attrs.rename {
                        errors.push(syn::Error::new(rename.span(), "`rename` applies to named fields only: tuple elements have no names"));
                    }
                    (Member::Unnamed(index.into()), index.to_string())
                }
            };
            Field { member, ty, name, attrs, original: field }
        })
        .collect()
}

fn style(syn_fields: &Fields, fields: &[Field<'_>], errors: &mut Errors) -> Style {
    match syn_fields {
        Fields::Named(_) => Style::Named,
        Fields::Unit => Style::Unit,
        Fields::Unnamed(_) if fields.is_empty() => Style::Unit,
        Fields::Unnamed(_) if fields.len() == 1 => {
            if let Some(skip) = &fields[0].attrs.skip {
                errors.push(syn::Error::new_spanned(
                    skip,
                    "cannot skip the only field of a newtype: nothing would be left to encode",
                ));
            }
            Style::Newtype
        }
        Fields::Unnamed(_) => Style::Tuple,
    }
}

/// Reports names whose canonical forms collide, at the second of each pair.
fn check_names<'n>(names: impl Iterator<Item = (&'n str, Span)>, what: &str, errors: &mut Errors) {
    let mut seen: HashMap<&str, ()> = HashMap::new();
    for (name, span) in names {
        if seen.insert(name, ()).is_some() {
            errors.push(syn::Error::new(
                span,
                format!("two {what} have the canonical name `{name}`; tree-buf matches names in canonical case, so rename one"),
            ));
        }
    }
}
