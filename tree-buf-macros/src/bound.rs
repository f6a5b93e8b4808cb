//! Generic bounds for the generated impls, inferred the way serde does: every type parameter used
//! by a written field must implement the derived trait. Bounds on the parameters rather than on
//! the field types keep recursive generic types (`struct Tree<T> { kids: Vec<Tree<T>> }`) from
//! sending the trait solver into a cycle.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use syn::visit::Visit;
use syn::{parse_quote, Ident, WhereClause};

use crate::ast::{Container, Data, Field};

/// Collects the type parameters a type mentions, outside `PhantomData<...>`.
struct Mentions<'p> {
    params: &'p [&'p Ident],
    found: BTreeSet<String>,
}

impl<'ast> Visit<'ast> for Mentions<'_> {
    fn visit_type_path(&mut self, path: &'ast syn::TypePath) {
        if path
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "PhantomData")
        {
            return;
        }
        if path.qself.is_none() {
            if let Some(first) = path.path.segments.first() {
                if self.params.iter().any(|p| **p == first.ident) {
                    self.found.insert(first.ident.to_string());
                }
            }
        }
        syn::visit::visit_type_path(self, path);
    }
}

fn mentioned<'f>(params: &[&Ident], fields: impl Iterator<Item = &'f Field>) -> BTreeSet<String> {
    let mut visitor = Mentions {
        params,
        found: BTreeSet::new(),
    };
    for field in fields {
        visitor.visit_type(&field.ty);
    }
    visitor.found
}

/// The type's own where clause and its `bound` attribute's predicates: what every generated impl
/// needs, before any inferred bound.
pub fn own_where_clause(container: &Container<'_>) -> WhereClause {
    let mut clause = container
        .generics
        .where_clause
        .clone()
        .unwrap_or_else(|| parse_quote!(where));
    if let Some(bound) = &container.attrs.bound {
        clause.predicates.extend(bound.iter().cloned());
    }
    clause
}

fn all_fields<'c>(container: &'c Container<'c>) -> Vec<&'c Field> {
    match &container.data {
        Data::Struct(_, fields) => fields.iter().collect(),
        Data::Enum(variants) => variants.iter().flat_map(|v| &v.fields).collect(),
    }
}

/// The where clause of the generated items: the type's own, plus `P: trait_path` for every type
/// parameter a written field uses (and `P: Default` for those only skipped fields use, when
/// `default_skipped`), or the container's `bound` attribute instead of the inferred ones.
pub fn where_clause(
    container: &Container<'_>,
    trait_path: &TokenStream,
    default_skipped: bool,
) -> WhereClause {
    let mut clause = own_where_clause(container);
    if container.attrs.bound.is_some() {
        return clause;
    }
    let params: Vec<&Ident> = container.generics.type_params().map(|p| &p.ident).collect();
    let fields = all_fields(container);
    // A field written through a `with` module needs no bound: the module's `Stored` type does.
    let written = mentioned(
        &params,
        (fields.iter().copied()).filter(|f| !f.skipped() && f.attrs.with.is_none()),
    );
    let skipped = mentioned(&params, fields.iter().copied().filter(|f| f.skipped()));
    for param in &params {
        let name = param.to_string();
        if written.contains(&name) {
            clause.predicates.push(parse_quote!(#param: #trait_path));
        } else if default_skipped && skipped.contains(&name) {
            clause
                .predicates
                .push(parse_quote!(#param: ::core::default::Default));
        }
    }
    clause
}
