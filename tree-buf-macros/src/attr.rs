//! Parsing `#[tree_buf(...)]` attributes. A rejected item is reported and skipped, so every
//! problem in a list is reported, not only the first.

use proc_macro2::TokenTree;
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Attribute, LitStr, Path, Token, Type, WherePredicate};

use crate::ast::Errors;

/// Attributes of the type itself.
#[derive(Default)]
pub struct ContainerAttrs {
    /// `bound = "..."`: replaces the inferred bounds.
    pub bound: Option<Vec<WherePredicate>>,
    /// `crate = "..."`: the path the generated code reaches tree-buf by.
    pub crate_path: Option<Path>,
    /// `into = "..."`: the type a clone of each value converts into, which is written instead.
    pub into: Option<Type>,
    /// `from = "..."`: the type read instead, which each value converts from.
    pub from: Option<Type>,
    /// `try_from = "..."`: as `from`, by a conversion that can fail.
    pub try_from: Option<Type>,
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
    pub skip: Option<Path>,
    pub default: Option<Path>,
    /// `with = "module"`: the module whose `Stored`, `to_stored` and `from_stored` the field is
    /// written and read through.
    pub with: Option<Path>,
}

/// Gives every `key` or `key = value` item of the `#[tree_buf(...)]` attributes to `each`. An
/// item `each` rejects is reported, and the rest of it skipped so that the next item is read.
fn parse(
    attrs: &[Attribute],
    errors: &mut Errors,
    mut each: impl FnMut(&ParseNestedMeta<'_>) -> syn::Result<()>,
) {
    for attr in attrs.iter().filter(|a| a.path().is_ident("tree_buf")) {
        let result = attr.parse_nested_meta(|meta| {
            if let Err(error) = each(&meta) {
                errors.push(error);
                while !meta.input.is_empty() && !meta.input.peek(Token![,]) {
                    meta.input.parse::<TokenTree>()?;
                }
            }
            Ok(())
        });
        if let Err(error) = result {
            errors.push(error);
        }
    }
}

/// The error for a key that `place` does not take, listing the keys it does take.
fn unknown(meta: &ParseNestedMeta<'_>, place: &str, expected: &str) -> syn::Error {
    meta.error(format!(
        "unknown tree_buf attribute `{}` on {place}; expected {expected}",
        key(meta)
    ))
}

/// The key of `meta` as written.
fn key(meta: &ParseNestedMeta<'_>) -> String {
    meta.path.to_token_stream().to_string().replace(' ', "")
}

/// Stores `value` in `slot`, unless the key was given already.
fn set<T>(slot: &mut Option<T>, value: T, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if slot.is_some() {
        return Err(meta.error(format!("duplicate tree_buf attribute `{}`", key(meta))));
    }
    *slot = Some(value);
    Ok(())
}

/// Reads a key that stands alone, such as `skip`.
fn flag(meta: &ParseNestedMeta<'_>) -> syn::Result<Path> {
    if !(meta.input.is_empty() || meta.input.peek(Token![,])) {
        return Err(meta.error(format!("`{}` takes no value", key(meta))));
    }
    Ok(meta.path.clone())
}

/// Reads the `= "..."` of a key; `example` shows a value in the error.
fn string(meta: &ParseNestedMeta<'_>, example: &str) -> syn::Result<LitStr> {
    let key = key(meta);
    let expected = || format!("`{key}` takes a string: `{key} = \"{example}\"`");
    if !meta.input.peek(Token![=]) {
        return Err(meta.error(expected()));
    }
    meta.value()?
        .parse()
        .map_err(|error| syn::Error::new(error.span(), expected()))
}

/// Reads `= "..."` and parses the string with `parser`; `what` and `example` describe what the
/// string should hold.
fn parsed_string<T>(
    meta: &ParseNestedMeta<'_>,
    what: &str,
    example: &str,
    parser: impl Parser<Output = T>,
) -> syn::Result<T> {
    let text = string(meta, example)?;
    text.parse_with(parser).map_err(|error| {
        syn::Error::new(
            text.span(),
            format!("`{}` needs {what}, like \"{example}\": {error}", key(meta)),
        )
    })
}

/// Reads `rename = "..."`.
fn rename(meta: &ParseNestedMeta<'_>) -> syn::Result<LitStr> {
    let name = string(meta, "name")?;
    if name.value().trim().is_empty() {
        return Err(syn::Error::new(
            name.span(),
            "`rename` needs a non-empty name",
        ));
    }
    Ok(name)
}

/// Reads the type of `into`, `from` or `try_from`.
fn conversion_type(meta: &ParseNestedMeta<'_>) -> syn::Result<Type> {
    parsed_string(meta, "a type", "u64", <Type as syn::parse::Parse>::parse)
}

impl ContainerAttrs {
    pub fn parse(attrs: &[Attribute], errors: &mut Errors) -> Self {
        let mut out = ContainerAttrs::default();
        parse(attrs, errors, |meta| {
            if meta.path.is_ident("bound") {
                let predicates = parsed_string(
                    meta,
                    "where-clause predicates",
                    "T: Trait",
                    Punctuated::<WherePredicate, Token![,]>::parse_terminated,
                )?;
                set(&mut out.bound, predicates.into_iter().collect(), meta)
            } else if meta.path.is_ident("crate") {
                let path = parsed_string(
                    meta,
                    "a path to tree-buf",
                    "path::to::tree_buf",
                    Path::parse_mod_style,
                )?;
                set(&mut out.crate_path, path, meta)
            } else if meta.path.is_ident("into") {
                set(&mut out.into, conversion_type(meta)?, meta)
            } else if meta.path.is_ident("from") {
                set(&mut out.from, conversion_type(meta)?, meta)
            } else if meta.path.is_ident("try_from") {
                set(&mut out.try_from, conversion_type(meta)?, meta)
            } else {
                Err(unknown(
                    meta,
                    "a type",
                    "`bound`, `crate`, `into`, `from` or `try_from`",
                ))
            }
        });
        if let (Some(_), Some(try_from)) = (&out.from, &out.try_from) {
            errors.push(syn::Error::new_spanned(
                try_from,
                "`from` and `try_from` conflict: a type is read one way",
            ));
        }
        out
    }
}

impl VariantAttrs {
    pub fn parse(attrs: &[Attribute], errors: &mut Errors) -> Self {
        let mut out = VariantAttrs::default();
        parse(attrs, errors, |meta| {
            if meta.path.is_ident("rename") {
                set(&mut out.rename, rename(meta)?, meta)
            } else {
                Err(unknown(meta, "a variant", "`rename`"))
            }
        });
        out
    }
}

impl FieldAttrs {
    pub fn parse(attrs: &[Attribute], errors: &mut Errors) -> Self {
        let mut out = FieldAttrs::default();
        parse(attrs, errors, |meta| {
            if meta.path.is_ident("rename") {
                set(&mut out.rename, rename(meta)?, meta)
            } else if meta.path.is_ident("skip") {
                set(&mut out.skip, flag(meta)?, meta)
            } else if meta.path.is_ident("default") {
                set(&mut out.default, flag(meta)?, meta)
            } else if meta.path.is_ident("with") {
                let module = parsed_string(
                    meta,
                    "a module path",
                    "path::to::module",
                    Path::parse_mod_style,
                )?;
                set(&mut out.with, module, meta)
            } else {
                Err(unknown(
                    meta,
                    "a field",
                    "`rename`, `skip`, `default` or `with`",
                ))
            }
        });
        if let Some(skip) = &out.skip {
            if out.rename.is_some() {
                errors.push(syn::Error::new_spanned(
                    skip,
                    "`skip` conflicts with `rename`: a skipped field is not written",
                ));
            }
            if out.default.is_some() {
                errors.push(syn::Error::new_spanned(
                    skip,
                    "`skip` conflicts with `default`: a skipped field is always `Default::default()`",
                ));
            }
            if out.with.is_some() {
                errors.push(syn::Error::new_spanned(
                    skip,
                    "`skip` conflicts with `with`: a skipped field is not written",
                ));
            }
        }
        out
    }
}
