//! Reading a file column by column, with no Rust type for the whole: for readers that fill
//! columnar memory of their own (Arrow arrays, say) from the streams of each schema node, without
//! making a Rust value per row.

use std::borrow::Cow;

use crate::branch::DecodeContext;
use crate::encodings::string::{DecodedStrings, StrColumn, Strings};
use crate::error::DecodeError;
use crate::reader::Reader;
use crate::schema::{resolve, AsPath, NodeRef, NodeType};
use crate::types::{is_empty_void, Decode, Indirect, ValueDecoder};

/// The streams of a file's schema nodes as vectors, node by node: how many values each node
/// holds, the presence flags of options, the lengths of sequences and maps, the discriminants of
/// enums, and the values of leaves. Made by [`Reader::columns`].
///
/// The values of a node are those of every value above it, in file order: the items of all the
/// sequences at a path one after another, the present values of an option only. Every stream read
/// is validated and charged to one decoding budget, that of the reader's [`DecodeOptions`]; no
/// other branch is read.
///
/// [`DecodeOptions`]: crate::DecodeOptions
///
/// ```
/// use tree_buf::{encode, NodeType, Reader};
///
/// #[derive(tree_buf::Encode)]
/// struct Game { home: String, runs: Option<u8>, innings: Vec<u8> }
///
/// let games = vec![
///     Game { home: "BOS".into(), runs: Some(3), innings: vec![0, 2, 1] },
///     Game { home: "NYA".into(), runs: None, innings: vec![1] },
/// ];
/// let bytes = encode(&games);
/// let reader = Reader::new(&bytes)?;
/// let mut columns = reader.columns()?;
/// let rows = columns.find("[]")?;
/// assert_eq!(columns.count(rows)?, 2);
/// let runs = columns.find("[].runs")?;
/// assert_eq!(runs.node_type(), NodeType::Option);
/// assert_eq!(columns.presence(runs)?, [true, false]);
/// // The present values only, below the option.
/// assert_eq!(columns.values::<u8>(runs.child(0).unwrap())?, [3]);
/// let innings = columns.find("[].innings")?;
/// assert_eq!(columns.lengths(innings)?, [3, 1]);
/// assert_eq!(columns.values::<u8>(columns.find("[].innings.[]")?)?, [0, 2, 1, 1]);
/// // Strings borrow from the file, or from the reader where it compressed them.
/// assert_eq!(columns.values::<&str>(columns.find("[].home")?)?, ["BOS", "NYA"]);
/// # Ok::<(), tree_buf::DecodeError>(())
/// ```
pub struct Columns<'r> {
    root: NodeRef<'r>,
    ctx: DecodeContext<'r>,
}

/// A node of the file's schema, as [`Columns`] reads it.
#[derive(Debug, Clone, Copy)]
pub struct ColumnNode<'r>(NodeRef<'r>);

impl<'r> ColumnNode<'r> {
    /// What the node holds.
    pub fn node_type(self) -> NodeType {
        self.0.node_type()
    }

    /// The name its parent reaches it by (a field, variant or union member), if any.
    pub fn name(self) -> Option<&'r str> {
        self.0.name()
    }

    /// Its path from the root, as text (see [`Path`](crate::Path)).
    pub fn path(self) -> String {
        self.0.path()
    }

    /// Its children, in file order: an option's or sequence's one, a map's keys and values, a
    /// tuple's elements, a struct's fields, an enum's variants, a union's members.
    pub fn children(self) -> impl ExactSizeIterator<Item = ColumnNode<'r>> {
        self.0.children().map(ColumnNode)
    }

    /// Child `index`, in file order.
    pub fn child(self, index: usize) -> Option<ColumnNode<'r>> {
        self.0.child(index).map(ColumnNode)
    }

    /// For a recursion node, the ancestor whose type it holds again: its values are values of
    /// that node, counted there (see [`Columns::count`]). `None` for other nodes.
    pub fn returns_to(self) -> Option<ColumnNode<'r>> {
        self.0.recursion_target().map(ColumnNode)
    }

    /// The length of each value of a fixed-length array node; `None` for other nodes.
    pub fn array_len(self) -> Option<u64> {
        (self.node_type() == NodeType::Array).then(|| self.0.array_len())
    }
}

impl Reader<'_> {
    /// The file's streams, node by node, as [`Columns`] reads them.
    pub fn columns(&self) -> Result<Columns<'_>, DecodeError> {
        let (root, ctx) = self.root_and_context()?;
        Ok(Columns { root, ctx })
    }
}

impl<'r> Columns<'r> {
    /// The root node.
    pub fn root(&self) -> ColumnNode<'r> {
        ColumnNode(self.root)
    }

    /// The node at `path`; a [`PathNotFound`](crate::DecodeErrorKind::PathNotFound) error if
    /// there is none.
    pub fn find(&self, path: impl AsPath) -> Result<ColumnNode<'r>, DecodeError> {
        let path = path.as_path()?;
        Ok(ColumnNode(resolve(self.root, &path)?.node))
    }

    /// How many values `node` holds. A node that recursion nodes return to holds their values
    /// too, after its parent's, each written after the values it holds (see the format's
    /// "Recursion").
    pub fn count(&mut self, node: ColumnNode<'r>) -> Result<usize, DecodeError> {
        self.ctx.values_at(node.0)
    }

    /// The presence flag of each value of an option node: whether it is `Some`.
    pub fn presence(&mut self, node: ColumnNode<'r>) -> Result<Vec<bool>, DecodeError> {
        self.expect(node, &[NodeType::Option], "an option")?;
        let count = self.count(node)?;
        self.ctx.presence(node.0, count)
    }

    /// The presence flags of an option node as packed bits: bit `i % 8` of byte `i / 8` (least
    /// significant first) says whether value `i` is present, and the bits past the last are 0.
    /// That is the layout of Arrow's validity bitmaps, and the one files store flags in where
    /// they do not run-length code them, so those are lent without a copy.
    ///
    /// ```
    /// use tree_buf::Reader;
    ///
    /// let hits = vec![Some(3u16), None, Some(7), Some(1)];
    /// let bytes = tree_buf::encode(&hits);
    /// let reader = Reader::new(&bytes)?;
    /// let mut columns = reader.columns()?;
    /// let bits = columns.presence_bits(columns.find("[]")?)?;
    /// assert_eq!(*bits, [0b1101]);
    /// # Ok::<(), tree_buf::DecodeError>(())
    /// ```
    pub fn presence_bits(&mut self, node: ColumnNode<'r>) -> Result<Cow<'r, [u8]>, DecodeError> {
        self.expect(node, &[NodeType::Option], "an option")?;
        let count = self.count(node)?;
        self.ctx.presence_bits(node.0, count)
    }

    /// The length of each value of a sequence or map node.
    pub fn lengths(&mut self, node: ColumnNode<'r>) -> Result<Vec<u64>, DecodeError> {
        self.expect(node, &[NodeType::Seq, NodeType::Map], "a sequence or map")?;
        let count = self.count(node)?;
        Ok(self.ctx.lengths(node.0, count)?.0)
    }

    /// The discriminant of each value of an enum or union node: the index of its variant or
    /// member among the node's children, each checked to be one.
    pub fn discriminants(&mut self, node: ColumnNode<'r>) -> Result<Vec<u32>, DecodeError> {
        self.expect(node, &[NodeType::Enum, NodeType::Union], "an enum or union")?;
        let count = self.count(node)?;
        Ok(self.ctx.discriminants_and_counts(node.0, count)?.0)
    }

    /// Every value of `node` as `T`, read as [`Reader::decode_path`] reads its values: numbers
    /// into any type that holds them, strings into `String`, `&str` (borrowed) and the like.
    pub fn values<T: Decode<'r>>(&mut self, node: ColumnNode<'r>) -> Result<Vec<T>, DecodeError> {
        let count = self.count(node)?;
        let mut decoder: Indirect<'r, T> = Indirect::new(node.0, count, &mut self.ctx)?;
        Ok(decoder.next_vec(count))
    }

    /// The strings of a string node as the file stores them, without a Rust value per string:
    /// for readers that fill string arrays of their own (Arrow's, say) with a copy of the text
    /// or none. [`Columns::values`] reads them as `&str`, `String` and the like instead.
    ///
    /// ```
    /// use tree_buf::Reader;
    ///
    /// let teams = vec!["BOS".to_owned(), "NYA".to_owned(), "BOS".to_owned()];
    /// let bytes = tree_buf::encode(&teams);
    /// let reader = Reader::new(&bytes)?;
    /// let mut columns = reader.columns()?;
    /// let strings = columns.strings(columns.find("[]")?)?;
    /// assert_eq!(strings.len(), 3);
    /// assert_eq!(strings.get(2), Some("BOS"));
    /// // Stored one by one or once each, the values are the same.
    /// let stored = |i: usize| {
    ///     let start = i.checked_sub(1).map_or(0, |before| strings.ends()[before]);
    ///     &strings.text()[start..strings.ends()[i]]
    /// };
    /// let values: Vec<&str> = match strings.indices() {
    ///     Some(indices) => indices.iter().map(|&i| stored(i as usize)).collect(),
    ///     None => (0..strings.len()).map(stored).collect(),
    /// };
    /// assert_eq!(values, teams);
    /// # Ok::<(), tree_buf::DecodeError>(())
    /// ```
    pub fn strings(&mut self, node: ColumnNode<'r>) -> Result<StrValues<'r>, DecodeError> {
        let count = self.count(node)?;
        // As for `values`: a place no value was written to holds no strings.
        if is_empty_void(node.0, count)? {
            return Ok(StrValues(Strings::default()));
        }
        self.expect(node, &[NodeType::Str], "strings")?;
        let mut column = self.ctx.strings(node.0, count, 0, Ok)?;
        Ok(StrValues(std::mem::take(column.column())))
    }

    /// An error unless `node` is of one of `types`.
    fn expect(
        &self,
        node: ColumnNode<'r>,
        types: &[NodeType],
        expected: &str,
    ) -> Result<(), DecodeError> {
        match types.contains(&node.node_type()) {
            true => Ok(()),
            false => Err(node.0.mismatch(expected)),
        }
    }
}

/// The strings of a string node as the file stores them, read by [`Columns::strings`]: stored
/// strings back to back in one text and, where the file stores each distinct string once (as a
/// dictionary, or keyed to another column's strings), which stored string each value is.
///
/// Each stored string is valid UTF-8 on its own: the [`ends`](Self::ends) ascend, each on a
/// character boundary of the [`text`](Self::text), the last at its end.
#[derive(Debug)]
pub struct StrValues<'r>(DecodedStrings<'r>);

impl<'r> StrValues<'r> {
    /// How many values the node holds.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the node holds no value.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Value `index`; `None` past the end.
    pub fn get(&self, index: usize) -> Option<&str> {
        (index < self.len()).then(|| self.0.get(index))
    }

    /// The stored strings, back to back.
    pub fn text(&self) -> &str {
        self.stored().text()
    }

    /// Where each stored string ends in the [`text`](Self::text): stored string `i` runs from
    /// the end of string `i - 1` (or 0) to `ends()[i]`.
    pub fn ends(&self) -> &[usize] {
        self.stored().ends()
    }

    /// Which stored string each value is, where the file stores each distinct string once; each
    /// index is below the number of stored strings. `None` where it stores the values
    /// themselves, in order.
    pub fn indices(&self) -> Option<&[u32]> {
        match &self.0 {
            Strings::Plain(_) => None,
            Strings::Indexed { indices, .. } => Some(indices),
        }
    }

    /// The [`text`](Self::text) (lent from the file where the file holds it as it is, owned
    /// where it was decompressed), the [`ends`](Self::ends) and the
    /// [`indices`](Self::indices).
    pub fn into_parts(self) -> (Cow<'r, str>, Vec<usize>, Option<Vec<u32>>) {
        match self.0 {
            Strings::Plain(column) => {
                let (text, ends) = column.into_parts();
                (text, ends, None)
            }
            Strings::Indexed { table, indices } => {
                let (text, ends) = table.into_parts();
                (text, ends, Some(indices))
            }
        }
    }

    fn stored(&self) -> &StrColumn<Cow<'r, str>> {
        match &self.0 {
            Strings::Plain(column) | Strings::Indexed { table: column, .. } => column,
        }
    }
}
