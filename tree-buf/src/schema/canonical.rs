//! The canonical spelling of field and variant names.
//!
//! This file is compiled into both `tree-buf` and `tree-buf-macros` (through `#[path]`), so the
//! derive and the reader can never disagree on the rule.

/// Spells a name in `snake_case`, so that `field_name`, `fieldName`, `FieldName` and `FIELD_NAME`
/// all become `field_name`: a word starts at each upper-case letter that follows a lower-case letter
/// or digit, and at the last capital of an acronym followed by lower case (`HTTPServer` gives
/// `http_server`); `-`, `_` and spaces separate words; everything is lower-cased.
pub fn canonical_name(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c == '_' || c == '-' || c == ' ' {
            if !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
            continue;
        }
        if c.is_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_is_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let starts_word =
                prev.is_lowercase() || prev.is_numeric() || (prev.is_uppercase() && next_is_lower);
            if starts_word && !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
        }
        out.extend(c.to_lowercase());
    }
    while out.ends_with('_') {
        out.pop();
    }
    out
}
