//! The model of a derive input: container, variants and fields with their attributes and the
//! canonical names written to the file. Building it checks everything and collects every error.

use std::collections::HashSet;

use syn::ext::IdentExt;
use syn::visit_mut::VisitMut;
use syn::{
    parse_quote, Data as SynData, DeriveInput, Fields, Generics, Ident, LitStr, Member, Path, Type,
};

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

    pub fn finish(self) -> syn::Result<()> {
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
    /// The container type, as `Name<'a, T, N>`.
    pub self_type: Type,
    pub attrs: ContainerAttrs,
    pub data: Data<'a>,
}

pub enum Data<'a> {
    Struct(Style, Vec<Field>),
    Enum(Vec<Variant<'a>>),
}

pub struct Variant<'a> {
    pub ident: &'a Ident,
    pub attrs: VariantAttrs,
    /// The canonical name written to the file.
    pub name: String,
    pub style: Style,
    pub fields: Vec<Field>,
}

pub struct Field {
    /// `self.name` or `self.0`.
    pub member: Member,
    /// The field's type, with `Self` replaced by the container type.
    pub ty: Type,
    /// The canonical name written to the file (named fields only).
    pub name: String,
    pub attrs: FieldAttrs,
}

impl Field {
    pub fn skipped(&self) -> bool {
        self.attrs.skip.is_some()
    }
}

impl Container<'_> {
    /// The path generated code reaches tree-buf by: the `crate` attribute, or `::tree_buf`.
    pub fn crate_path(&self) -> Path {
        self.attrs
            .crate_path
            .clone()
            .unwrap_or_else(|| parse_quote!(::tree_buf))
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
        let self_type: Type = parse_quote!(#ident #ty_generics);
        let data = match &input.data {
            SynData::Struct(data) => {
                let (style, fields) = fields(&data.fields, &self_type, &mut errors);
                Some(Data::Struct(style, fields))
            }
            SynData::Enum(data) => {
                if data.variants.is_empty() {
                    errors.push(syn::Error::new(
                        ident.span(),
                        "tree-buf cannot derive for an enum without variants: it has no values to encode",
                    ));
                }
                let variants: Vec<Variant<'a>> = data
                    .variants
                    .iter()
                    .map(|variant| {
                        let attrs = VariantAttrs::parse(&variant.attrs, &mut errors);
                        let (style, fields) = fields(&variant.fields, &self_type, &mut errors);
                        Variant {
                            ident: &variant.ident,
                            name: written_name(&variant.ident, attrs.rename.as_ref()),
                            attrs,
                            style,
                            fields,
                        }
                    })
                    .collect();
                check_names(
                    variants.iter().map(|v| (v.name.as_str(), v.ident)),
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
            self_type,
            attrs,
            data,
        })
    }
}

/// The canonical name a field or variant is written under: its `rename`, or its own name.
fn written_name(ident: &Ident, rename: Option<&LitStr>) -> String {
    let name = rename.map_or_else(|| ident.unraw().to_string(), LitStr::value);
    canonical_name(&name).into_owned()
}

/// The fields of a struct or variant and how it holds them, checked.
fn fields(fields: &Fields, self_type: &Type, errors: &mut Errors) -> (Style, Vec<Field>) {
    let model: Vec<Field> = fields
        .iter()
        .enumerate()
        .map(|(index, field)| {
            let attrs = FieldAttrs::parse(&field.attrs, errors);
            let mut ty = field.ty.clone();
            ReplaceSelf(self_type).visit_type_mut(&mut ty);
            let (member, name) = match &field.ident {
                Some(ident) => (
                    Member::Named(ident.clone()),
                    written_name(ident, attrs.rename.as_ref()),
                ),
                None => {
                    if let Some(default) = &attrs.default {
                        errors.push(syn::Error::new_spanned(
                            default,
                            "`default` applies to named fields only: tuple elements are matched by position",
                        ));
                    }
                    if let Some(rename) = &attrs.rename {
                        errors.push(syn::Error::new(
                            rename.span(),
                            "`rename` applies to named fields only: tuple elements have no names",
                        ));
                    }
                    (Member::Unnamed(index.into()), index.to_string())
                }
            };
            Field {
                member,
                ty,
                name,
                attrs,
            }
        })
        .collect();
    let style = match fields {
        Fields::Named(_) => Style::Named,
        Fields::Unit => Style::Unit,
        Fields::Unnamed(_) => match model.as_slice() {
            [] => Style::Unit,
            [only] => {
                if let Some(skip) = &only.attrs.skip {
                    errors.push(syn::Error::new_spanned(
                        skip,
                        "cannot skip the only field of a newtype: nothing would be left to encode",
                    ));
                }
                Style::Newtype
            }
            _ => Style::Tuple,
        },
    };
    if style == Style::Named {
        check_names(
            model
                .iter()
                .filter(|f| !f.skipped())
                .filter_map(|f| match &f.member {
                    Member::Named(ident) => Some((f.name.as_str(), ident)),
                    Member::Unnamed(_) => None,
                }),
            "fields",
            errors,
        );
    }
    (style, model)
}

/// Reports names whose canonical forms collide, at the second of each pair.
fn check_names<'n>(
    names: impl Iterator<Item = (&'n str, &'n Ident)>,
    what: &str,
    errors: &mut Errors,
) {
    let mut seen = HashSet::new();
    for (name, ident) in names {
        if !seen.insert(name) {
            errors.push(syn::Error::new(
                ident.span(),
                format!("two {what} have the canonical name `{name}`; tree-buf matches names in canonical case, so rename one"),
            ));
        }
    }
}
