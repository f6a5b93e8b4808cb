//! Paths name a place in the schema: `data.orders.[].nft.bids.[].status`. This module holds their
//! syntax ([`Path`], [`Segment`]) and the one walker that resolves them, for every caller.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use super::canonical::canonical_name;
use super::tag::NodeType;
use crate::error::{DecodeError, DecodeErrorKind};

/// One step from a node to one of its children. See [`Path`] for how each is written and what it
/// means at each kind of node.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Segment {
    /// A struct field, enum variant or union member, by name: `name`, or `"a.b"` in quotes.
    Name(String),
    /// The items of a sequence or array: `[]`.
    Items,
    /// The keys of a map: `{key}`.
    Keys,
    /// The values of a map: `{value}`.
    Values,
    /// A tuple element, by position: `0`, `1`, ….
    Index(usize),
}

/// Whether a name cannot hold `c` unquoted: the separator, the quoting characters, the brackets
/// of `[]`, `{key}` and `{value}`, and control characters.
fn is_special(c: char) -> bool {
    matches!(c, '.' | '"' | '\\' | '[' | ']' | '{' | '}') || c.is_control()
}

/// Whether `name` must be written in quotes to read back as the same name.
fn needs_quotes(name: &str) -> bool {
    name.is_empty()
        || name.bytes().all(|b| b.is_ascii_digit())
        || name.starts_with(char::is_whitespace)
        || name.ends_with(char::is_whitespace)
        || name.contains(is_special)
}

impl fmt::Display for Segment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Segment::Name(name) if needs_quotes(name) => {
                f.write_str("\"")?;
                for c in name.chars() {
                    if c == '"' || c == '\\' {
                        f.write_str("\\")?;
                    }
                    write!(f, "{c}")?;
                }
                f.write_str("\"")
            }
            Segment::Name(name) => f.write_str(name),
            Segment::Items => f.write_str("[]"),
            Segment::Keys => f.write_str("{key}"),
            Segment::Values => f.write_str("{value}"),
            Segment::Index(i) => write!(f, "{i}"),
        }
    }
}

/// A place in a file's schema: the [`Segment`]s from the root to one node, such as
/// `features.[].properties.ADMIN`. [`Reader::decode_path`](crate::Reader::decode_path),
/// [`SchemaNode::find`](crate::SchemaNode::find) and the command line's `--path` take one (or its
/// text), and all resolve it with the same walker, so a path names the same node everywhere.
///
/// # Syntax
///
/// Segments are separated by `.`; the empty path is the root. A segment is written
///
/// - `[]` for the items of a sequence or array ([`Segment::Items`]),
/// - `{key}` and `{value}` for the keys and the values of a map ([`Segment::Keys`],
///   [`Segment::Values`]),
/// - a number without leading zeros, such as `0`, for a tuple element ([`Segment::Index`]),
/// - a name for a struct field, enum variant or union member ([`Segment::Name`]). A name is
///   written bare unless it is empty, all ASCII digits, starts or ends with whitespace, or holds a
///   control character or one of `.` `"` `\` `[` `]` `{` `}`; then it is written in double quotes,
///   with `"` and `\` escaped by a backslash. The JSON key `a.b` is `"a.b"`, the key `0` is `"0"`
///   and the key `say "hi"` is `"say \"hi\""`.
///
/// [`Path::parse`] reads exactly what `Display` writes: `parse(p.to_string()) == p` for every
/// path, and text that `Display` would not write (`a..b`, `007`, a bare `a[0]`) is an error.
///
/// # Meaning
///
/// The walk starts at the root and takes one segment at a time:
///
/// - Options are transparent: before each segment, the walk steps through any options to their
///   present values. A path that ends at an option names the option, whose values read as `None`
///   where absent.
/// - `[]` steps from a sequence or array to its items, `{key}` and `{value}` from a map to its
///   keys or values, and an index from a tuple to that element.
/// - A name steps from a struct to its field, and from an enum or union to that variant's values
///   (the values of the other variants are not on the path). Union members are the kinds of
///   schemaless values (JSON's, say) met at one place: `null`, `bool`, `integer`, `float`,
///   `string`, `object`, `array_of_string` and so on. A name matches a child named exactly so, or
///   else the one child whose name is the same in canonical `snake_case` (`ADMIN` finds `admin`).
/// - An index at a struct, enum or union names the child called by that number, as the quoted
///   name does: `years.2024` and `years."2024"` are the same place.
/// - Leaves (numbers, strings, `unit`, and `nothing` where no value was ever written) have
///   nothing below them. A string column stored keyed by another one is still one leaf; reading
///   it reads the other column too.
///
/// A path that names no node is a [`PathNotFound`](DecodeErrorKind::PathNotFound) error naming
/// the path and the longest prefix of it that exists.
///
/// ```
/// use tree_buf::{Path, Segment};
///
/// let path = Path::parse(r#"features.[].properties."name.en""#)?;
/// assert_eq!(path.segments()[1], Segment::Items);
/// assert_eq!(path.segments()[3], Segment::Name("name.en".into()));
/// assert_eq!(path.to_string(), r#"features.[].properties."name.en""#);
/// # Ok::<(), tree_buf::PathError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Path(Vec<Segment>);

impl Path {
    /// The root: the path with no segments.
    pub fn root() -> Path {
        Path::default()
    }

    /// Reads a path written as its `Display` writes it (see [`Path`]).
    pub fn parse(text: &str) -> Result<Path, PathError> {
        let mut segments = Vec::new();
        if text.is_empty() {
            return Ok(Path(segments));
        }
        let mut rest = text;
        loop {
            let error = |at: &str, message| PathError {
                text: text.to_owned(),
                at: text.len() - at.len(),
                message,
            };
            let (segment, after) =
                parse_segment(rest).map_err(|(at, message)| error(at, message))?;
            segments.push(segment);
            if after.is_empty() {
                return Ok(Path(segments));
            }
            rest = after
                .strip_prefix('.')
                .ok_or_else(|| error(after, "a quoted name must be followed by `.` or the end"))?;
        }
    }

    /// The segments, from the root down.
    pub fn segments(&self) -> &[Segment] {
        &self.0
    }

    /// Whether this is the root.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Adds a segment at the end.
    pub fn push(&mut self, segment: Segment) {
        self.0.push(segment);
    }
}

/// Reads one segment from the start of `text`; returns it and the text after it, or where in
/// `text` it went wrong and why.
fn parse_segment(text: &str) -> Result<(Segment, &str), (&str, &'static str)> {
    if let Some(quoted) = text.strip_prefix('"') {
        let mut name = String::new();
        let mut chars = quoted.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                // One spelling per path: a name that reads back bare is written bare.
                '"' if !needs_quotes(&name) => {
                    return Err((text, "this name needs no quotes: write it bare"))
                }
                '"' => return Ok((Segment::Name(name), &quoted[i + 1..])),
                '\\' => match chars.next() {
                    Some((_, escaped @ ('"' | '\\'))) => name.push(escaped),
                    _ => return Err((&quoted[i..], "only `\\\"` and `\\\\` are escapes")),
                },
                c => name.push(c),
            }
        }
        return Err((text, "the quote is not closed"));
    }
    let end = text.find('.').unwrap_or(text.len());
    let (bare, after) = text.split_at(end);
    let segment = match bare {
        "" => return Err((text, "an empty segment (an empty name is written `\"\"`)")),
        "[]" => Segment::Items,
        "{key}" => Segment::Keys,
        "{value}" => Segment::Values,
        digits if digits.bytes().all(|b| b.is_ascii_digit()) => {
            if digits.len() > 1 && digits.starts_with('0') {
                return Err((text, "an index has no leading zeros (quote a name)"));
            }
            Segment::Index(
                digits
                    .parse()
                    .map_err(|_| (text, "the index is too large"))?,
            )
        }
        name if needs_quotes(name) => {
            return Err((
                text,
                "this name must be quoted (it holds a special character or outer whitespace)",
            ))
        }
        name => Segment::Name(name.to_owned()),
    };
    Ok((segment, after))
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            write!(f, "{segment}")?;
        }
        Ok(())
    }
}

impl FromStr for Path {
    type Err = PathError;

    fn from_str(text: &str) -> Result<Path, PathError> {
        Path::parse(text)
    }
}

impl From<Vec<Segment>> for Path {
    fn from(segments: Vec<Segment>) -> Path {
        Path(segments)
    }
}

impl Extend<Segment> for Path {
    fn extend<I: IntoIterator<Item = Segment>>(&mut self, segments: I) {
        self.0.extend(segments);
    }
}

impl FromIterator<Segment> for Path {
    fn from_iter<I: IntoIterator<Item = Segment>>(segments: I) -> Path {
        Path(segments.into_iter().collect())
    }
}

/// Text that is not a valid [`Path`]: what is wrong, and at which byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathError {
    text: String,
    at: usize,
    message: &'static str,
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid path `{}`: {} (at byte {})",
            self.text, self.message, self.at
        )
    }
}

impl std::error::Error for PathError {}

/// Reading with an invalid path is reading a path that is not there.
impl From<PathError> for DecodeError {
    fn from(error: PathError) -> DecodeError {
        DecodeError::new(
            DecodeErrorKind::PathNotFound,
            error.text,
            format!("not a valid path: {} (at byte {})", error.message, error.at),
        )
    }
}

/// What the methods that take a path accept: a [`Path`], or text to parse as one (`&str`,
/// `String`).
pub trait AsPath {
    /// This as a path: borrowed if it is one, parsed if it is text.
    fn as_path(&self) -> Result<Cow<'_, Path>, PathError>;
}

impl AsPath for Path {
    fn as_path(&self) -> Result<Cow<'_, Path>, PathError> {
        Ok(Cow::Borrowed(self))
    }
}

impl AsPath for str {
    fn as_path(&self) -> Result<Cow<'_, Path>, PathError> {
        Path::parse(self).map(Cow::Owned)
    }
}

impl AsPath for String {
    fn as_path(&self) -> Result<Cow<'_, Path>, PathError> {
        self.as_str().as_path()
    }
}

impl<P: AsPath + ?Sized> AsPath for &P {
    fn as_path(&self) -> Result<Cow<'_, Path>, PathError> {
        (**self).as_path()
    }
}

/// What the walker needs of a schema node; both the file's tree ([`super::NodeRef`]) and the
/// listing built from it ([`crate::SchemaNode`]) provide it, so both resolve paths alike.
pub(crate) trait SchemaView<'a>: Copy {
    fn node_type(self) -> NodeType;
    fn child_count(self) -> usize;
    fn child(self, index: usize) -> Option<Self>;
    /// The name by which the parent reaches this node, as written.
    fn name(self) -> Option<&'a str>;
    /// That name in canonical form.
    fn canonical_name(self) -> Option<Cow<'a, str>>;
}

/// Where a path leads.
#[derive(Debug)]
pub(crate) struct Route<N> {
    /// The node the path names.
    pub(crate) node: N,
    /// Every step from the root, options stepped through included: the node stepped from and the
    /// index of the child stepped to.
    pub(crate) steps: Vec<(N, usize)>,
}

/// Resolves `path` from `root` by the rules documented on [`Path`].
pub(crate) fn resolve<'a, N: SchemaView<'a>>(
    root: N,
    path: &Path,
) -> Result<Route<N>, DecodeError> {
    let mut node = root;
    let mut steps = Vec::new();
    for (depth, segment) in path.0.iter().enumerate() {
        while let Some(present) = node
            .child(0)
            .filter(|_| node.node_type() == NodeType::Option)
        {
            steps.push((node, 0));
            node = present;
        }
        let (index, child) = child_index(node, segment)
            .and_then(|index| match node.child(index) {
                Some(child) => Ok((index, child)),
                None => Err("the schema lists nothing there".to_owned()),
            })
            .map_err(|why| {
                let prefix = Path(path.0[..depth].to_vec());
                let node_type = node.node_type();
                let place = if prefix.is_empty() {
                    format!("the root ({node_type}) has")
                } else {
                    format!("the path exists up to `{prefix}` ({node_type}), which has")
                };
                DecodeError::new(
                    DecodeErrorKind::PathNotFound,
                    path.to_string(),
                    format!("{place} no `{segment}`: {why}"),
                )
            })?;
        steps.push((node, index));
        node = child;
    }
    Ok(Route { node, steps })
}

/// The index of the child `segment` names at `node`, or why there is none.
fn child_index<'a, N: SchemaView<'a>>(node: N, segment: &Segment) -> Result<usize, String> {
    let node_type = node.node_type();
    match (node_type, segment) {
        (NodeType::Seq | NodeType::Array, Segment::Items) | (NodeType::Map, Segment::Keys) => Ok(0),
        (NodeType::Map, Segment::Values) => Ok(1),
        (NodeType::Tuple, &Segment::Index(index)) if index < node.child_count() => Ok(index),
        (NodeType::Struct | NodeType::Enum | NodeType::Union, Segment::Name(name)) => {
            named_child(node, name)
        }
        (NodeType::Struct | NodeType::Enum | NodeType::Union, Segment::Index(index)) => {
            named_child(node, &index.to_string())
        }
        (NodeType::Seq | NodeType::Array, _) => Err("its items are `[]`".into()),
        (NodeType::Map, _) => Err("its parts are `{key}` and `{value}`".into()),
        (NodeType::Tuple, _) => Err(match node.child_count() {
            0 => "it has no elements".into(),
            n => format!("its elements are `0` to `{}`", n - 1),
        }),
        (NodeType::Struct, _) => Err("its fields are named".into()),
        (NodeType::Enum | NodeType::Union, _) => Err(variant_list(node)),
        (NodeType::Void, _) => Err("no value was ever written there".into()),
        (NodeType::Recursion, _) => Err("a recursive type's values of every depth are at the \
             paths of the node it returns to, which has the same fields"
            .into()),
        _ => Err("nothing is below it".into()),
    }
}

/// The index of the child named `name`: exactly, or else in canonical form by only one child.
fn named_child<'a, N: SchemaView<'a>>(node: N, name: &str) -> Result<usize, String> {
    let children = || (0..node.child_count()).filter_map(|i| Some((i, node.child(i)?)));
    if let Some((index, _)) = children().find(|(_, child)| child.name() == Some(name)) {
        return Ok(index);
    }
    let wanted = canonical_name(name);
    let mut matches =
        children().filter(|(_, child)| child.canonical_name().as_deref() == Some(&*wanted));
    match (matches.next(), matches.next()) {
        (Some((index, _)), None) => Ok(index),
        (Some((_, first)), Some((_, second))) => Err(format!(
            "`{}` and `{}` both match it in canonical form; write one exactly",
            Segment::Name(first.name().unwrap_or_default().to_owned()),
            Segment::Name(second.name().unwrap_or_default().to_owned()),
        )),
        (None, _) if node.node_type() == NodeType::Struct => Err("no field has that name".into()),
        (None, _) => Err(variant_list(node)),
    }
}

/// The variants of an enum or union, for a message.
fn variant_list<'a, N: SchemaView<'a>>(node: N) -> String {
    let names: Vec<String> = (0..node.child_count())
        .filter_map(|i| node.child(i)?.name())
        .map(|name| format!("`{}`", Segment::Name(name.to_owned())))
        .collect();
    if names.is_empty() {
        "it has no variants".into()
    } else {
        format!("its variants are {}", names.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(name: &str) -> Segment {
        Segment::Name(name.to_owned())
    }

    #[test]
    fn ordinary_names_print_bare_and_special_ones_quoted() {
        let path: Path = [
            name("features"),
            Segment::Items,
            name("ISO_A3"),
            name("Adj Close"),
            name("名前"),
            Segment::Keys,
            Segment::Index(12),
            name("a.b"),
            name(""),
            name("0"),
            name(" padded"),
            name("say \"hi\" \\"),
            name("[]"),
        ]
        .into_iter()
        .collect();
        let text = r#"features.[].ISO_A3.Adj Close.名前.{key}.12."a.b".""."0"." padded"."say \"hi\" \\"."[]""#;
        assert_eq!(path.to_string(), text);
        assert_eq!(Path::parse(text).unwrap(), path);
        assert_eq!(Path::parse("").unwrap(), Path::root());
    }

    #[test]
    fn text_that_display_would_not_write_is_an_error() {
        for (text, at) in [
            ("a..b", 2),
            (".a", 0),
            ("a.", 2),
            ("007", 0),
            ("a.b[0]", 2),
            ("\"open", 0),
            ("\"a.b\"c", 5),
            ("x.\"a\"", 2),
            ("\"\\n\"", 1),
            ("a.99999999999999999999999", 2),
            ("a. b", 2),
        ] {
            let error = Path::parse(text).unwrap_err();
            assert_eq!(error.at, at, "{text}: {error}");
            assert!(error.to_string().contains(text), "{error}");
        }
    }
}
