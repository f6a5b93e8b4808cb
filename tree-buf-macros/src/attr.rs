//! Parsing `#[tree_buf(...)]` attributes.

use syn::{Attribute, LitStr, WherePredicate};

use crate::ast::Errors;

/// Attributes of the type itself.
#[derive(Default)]
pub struct ContainerAttrs {
    /// `bound = "..."`: replaces the inferred bounds.
    pub bound: Option<Vec<WherePredicate>>,
}

/// Attributes of an enum variant.
#[derive(Default)]
pub struct VariantAttrs {
    pub rename: Option<LitStr>,
}

/// Attributes of a field.
#[derive(Default)]
pub struct FieldAttrs {
    pub rename: Option<LitStr>,
    pub skip: Option<syn::Path>,
    pub default: Option<syn::Path>,
}

/// Calls `each` for every `key` or `key = value` inside `#[tree_buf(...)]` attributes.
fn parse(
    attrs: &[Attribute],
    errors: &mut Errors,
    mut each: impl FnMut(&syn::meta::ParseNestedMeta<'_>, &mut Errors) -> syn::Result<()>,
) {
    for attr in attrs.iter().filter(|a| a.path().is_ident("tree_buf")) {
        let result = attr.parse_nested_meta(|meta| each(&meta, errors));
        if let Err(error) = result {
            errors.push(error);
        }
    }
}

/// Stores `value` in `slot`, or reports a duplicate at `meta`.
fn set<T>(
    slot: &mut Option<T>,
    value: T,
    meta: &syn::meta::ParseNestedMeta<'_>,
    errors: &mut Errors,
) {
    if slot.is_some() {
        errors.push(meta.error(format!(
            "duplicate tree_buf attribute `{}`",
            path_name(&meta.path)
        )));
    } else {
        *slot = Some(value);
    }
}

fn path_name(path: &syn::Path) -> String {
    path.get_ident()
        .map_or_else(|| "?".into(), ToString::to_string)
}

fn rename_value(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<LitStr> {
    let name: LitStr = meta.value()?.parse()?;
    if name.value().trim().is_empty() {
        return Err(syn::Error::new(
            name.span(),
            "`rename` needs a non-empty name",
        ));
    }
    Ok(name)
}

impl ContainerAttrs {
    pub fn parse(attrs: &[Attribute], errors: &mut Errors) -> Self {
        let mut out = ContainerAttrs::default();
        parse(attrs, errors, |meta, errors| {
            if meta.path.is_ident("bound") {
                let text: LitStr = meta.value()?.parse()?;
                let predicates = text.parse_with(
                    syn::punctuated::Punctuated::<WherePredicate, syn::Token![,]>::parse_terminated,
                )?;
                set(
                    &mut out.bound,
                    predicates.into_iter().collect(),
                    meta,
                    errors,
                );
                Ok(())
            } else {
                Err(meta.error(format!(
                    "unknown tree_buf attribute `{}` on a type; expected `bound`",
                    path_name(&meta.path)
                )))
            }
        });
        out
    }
}

impl VariantAttrs {
    pub fn parse(attrs: &[Attribute], errors: &mut Errors) -> Self {
        let mut out = VariantAttrs::default();
        parse(attrs, errors, |meta, errors| {
            if meta.path.is_ident("rename") {
                set(&mut out.rename, rename_value(meta)?, meta, errors);
                Ok(())
            } else {
                Err(meta.error(format!(
                    "unknown tree_buf attribute `{}` on a variant; expected `rename`",
                    path_name(&meta.path)
                )))
            }
        });
        out
    }
}

impl FieldAttrs {
    pub fn parse(attrs: &[Attribute], errors: &mut Errors) -> Self {
        let mut out = FieldAttrs::default();
        parse(attrs, errors, |meta, errors| {
            if meta.path.is_ident("rename") {
                set(&mut out.rename, rename_value(meta)?, meta, errors);
            } else if meta.path.is_ident("skip") {
                set(&mut out.skip, meta.path.clone(), meta, errors);
            } else if meta.path.is_ident("default") {
                set(&mut out.default, meta.path.clone(), meta, errors);
            } else {
                return Err(meta.error(format!(
                    "unknown tree_buf attribute `{}` on a field; expected `rename`, `skip` or `default`",
                    path_name(&meta.path)
                )));
            }
            Ok(())
        });
        if let Some(skip) = &out.skip {
            if out.rename.is_some() {
                errors.push(syn::Error::new_spanned(
                    skip,
                    "`skip` conflicts with `rename`: a skipped field is not written",
                ));
            }
            if out.default.is_some() {
                errors.push(syn::Error::new_spanned(skip, "`skip` conflicts with `default`: a skipped field is always `Default::default()`"));
            }
        }
        out
    }
}
