//! The canonical spelling of field and variant names.
//!
//! This file is compiled into both `tree-buf` and `tree-buf-macros` (through `#[path]`), so the
//! derive and the reader can never disagree on the rule.

/// Spells a name in `snake_case`, so that `field_name`, `fieldName`, `FieldName` and `FIELD_NAME`
/// all become `field_name`: a word starts at each upper-case letter that follows a lower-case letter
/// or digit, and at the last capital of an acronym followed by lower case (`HTTPServer` gives
/// `http_server`); `-`, `_` and spaces separate words; everything is lower-cased. A name that is
/// already canonical (the common case when matching fields) is borrowed, not copied.
pub fn canonical_name(name: &str) -> std::borrow::Cow<'_, str> {
    let already_canonical = !name.starts_with('_')
        && !name.ends_with('_')
        && !name.contains("__")
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if already_canonical {
        std::borrow::Cow::Borrowed(name)
    } else {
        std::borrow::Cow::Owned(spell_canonically(name))
    }
}

/// The rule of [`canonical_name`], applied letter by letter.
fn spell_canonically(name: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_spelled_in_snake_case() {
        for (name, canonical) in [
            ("field_name", "field_name"),
            ("fieldName", "field_name"),
            ("FieldName", "field_name"),
            ("FIELD_NAME", "field_name"),
            ("HTTPServer", "http_server"),
            ("ISO_A3", "iso_a3"),
            ("kebab-case name", "kebab_case_name"),
            ("_private", "private"),
            ("trailing__", "trailing"),
            ("double__underscore", "double_underscore"),
            ("v2", "v2"),
            ("élan", "élan"),
        ] {
            assert_eq!(canonical_name(name), canonical, "{name}");
        }
    }

    #[test]
    fn the_borrowing_shortcut_agrees_with_the_rule() {
        for name in [
            "a", "ab_c", "x1_y2", "_a", "a_", "a__b", "aB", "a-b", "a b", "", "_", "1a", "a1b",
        ] {
            assert_eq!(canonical_name(name), spell_canonically(name), "{name:?}");
        }
    }
}
