//! String arrays made from strings as the file stores them ([`StrValues`]): the text is copied
//! once, or not at all, and no Rust value is made per string.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

use arrow_array::builder::make_view;
use arrow_array::types::UInt32Type;
use arrow_array::{ArrayRef, DictionaryArray, StringArray, StringViewArray, UInt32Array};
use arrow_buffer::{Buffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::DataType;
use tree_buf::{ColumnNode, StrValues};

use crate::{unsupported, Error};

/// How string columns are laid out in Arrow, which has several layouts for them.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum StringLayout {
    /// `Utf8`: the strings back to back, with 32-bit offsets. Strings the file stores once each
    /// (a dictionary) are copied out for every value.
    #[default]
    Utf8,
    /// `Utf8View`: a 16-byte view per string, which holds strings of up to 12 bytes itself and
    /// points into the text for longer ones. Strings the file stores once each are not copied
    /// out: the values' views point at them. DataFusion reads Parquet's strings so too.
    Utf8View,
    /// `Dictionary(UInt32, Utf8)`: a key per value into the stored strings. Strings the file
    /// stores once each keep the file's dictionary as it is; others are their own dictionary,
    /// keyed in order.
    Dictionary,
}

impl StringLayout {
    /// The Arrow type of strings laid out so.
    pub fn data_type(self) -> DataType {
        match self {
            StringLayout::Utf8 => DataType::Utf8,
            StringLayout::Utf8View => DataType::Utf8View,
            StringLayout::Dictionary => {
                DataType::Dictionary(Box::new(DataType::UInt32), Box::new(DataType::Utf8))
            }
        }
    }

    /// An array of this layout of `strings`, the values of `node`.
    pub(crate) fn array(
        self,
        node: ColumnNode<'_>,
        strings: StrValues<'_>,
    ) -> Result<ArrayRef, Error> {
        let (text, ends, indices) = strings.into_parts();
        Ok(match (self, indices) {
            (StringLayout::Utf8, None) => Arc::new(utf8(node, text, ends)?),
            (StringLayout::Utf8, Some(indices)) => Arc::new(gathered(
                node,
                &text,
                &spans(&ends).collect::<Vec<_>>(),
                &indices,
            )?),
            (StringLayout::Utf8View, indices) => {
                Arc::new(views(node, &text, &ends, indices.as_deref())?)
            }
            (StringLayout::Dictionary, indices) => {
                let keys = match indices {
                    Some(indices) => indices,
                    None => (0..index_limit(node, ends.len())?).collect(),
                };
                let values = utf8(node, text, ends)?;
                Arc::new(DictionaryArray::<UInt32Type>::try_new(
                    UInt32Array::from(keys),
                    Arc::new(values),
                )?)
            }
        })
    }

    /// An array of this layout of `strings`: for characters, which the file stores as numbers.
    pub(crate) fn array_of(self, strings: &[String]) -> ArrayRef {
        match self {
            StringLayout::Utf8 => Arc::new(StringArray::from_iter_values(strings)),
            StringLayout::Utf8View => Arc::new(StringViewArray::from_iter_values(strings)),
            StringLayout::Dictionary => Arc::new(
                (strings.iter().map(String::as_str)).collect::<DictionaryArray<UInt32Type>>(),
            ),
        }
    }
}

/// Where each string is in the text, from where each ends.
fn spans(ends: &[usize]) -> impl Iterator<Item = Range<usize>> + '_ {
    let starts = std::iter::once(0).chain(ends.iter().copied());
    (starts.zip(ends)).map(|(start, &end)| start..end)
}

/// `0..count` as 32-bit keys: an error past them.
fn index_limit(node: ColumnNode<'_>, count: usize) -> Result<u32, Error> {
    u32::try_from(count).map_err(|_| unsupported(node, "more strings than 32-bit keys reach"))
}

/// The error for text longer than 32-bit offsets reach.
fn too_long(node: ColumnNode<'_>) -> Error {
    unsupported(
        node,
        "more string bytes than Arrow's 32-bit offsets reach: read them as views",
    )
}

/// A `Utf8` array of the strings of `text` that end at `ends`, which takes an owned text over
/// as its buffer.
fn utf8(node: ColumnNode<'_>, text: Cow<'_, str>, ends: Vec<usize>) -> Result<StringArray, Error> {
    i32::try_from(text.len()).map_err(|_| too_long(node))?;
    // Each end fits, being at most the text's length.
    let offsets: Vec<i32> = std::iter::once(0)
        .chain(ends.iter().map(|&end| end as i32))
        .collect();
    let values = match text {
        Cow::Owned(text) => Buffer::from_vec(text.into_bytes()),
        Cow::Borrowed(text) => Buffer::from(text.as_bytes()),
    };
    Ok(StringArray::try_new(
        OffsetBuffer::new(ScalarBuffer::from(offsets)),
        values,
        None,
    )?)
}

/// An error unless every index picks one of `count` strings: checked once, so that the values
/// are then taken without a check each.
fn check_indices(node: ColumnNode<'_>, indices: &[u32], count: usize) -> Result<(), Error> {
    match indices.iter().max() {
        Some(&max) if max as usize >= count => Err(unsupported(
            node,
            format!("string index {max} past the {count} strings"),
        )),
        _ => Ok(()),
    }
}

/// A `Utf8` array of string `indices[i]` of `text` for each `i`, the strings at `spans`.
fn gathered(
    node: ColumnNode<'_>,
    text: &str,
    spans: &[Range<usize>],
    indices: &[u32],
) -> Result<StringArray, Error> {
    check_indices(node, indices, spans.len())?;
    let total = (indices.iter()).fold(0usize, |total, &index| {
        total.saturating_add(spans[index as usize].len())
    });
    i32::try_from(total).map_err(|_| too_long(node))?;
    let mut values = Vec::with_capacity(total);
    let mut offsets = Vec::with_capacity(indices.len() + 1);
    offsets.push(0i32);
    for &index in indices {
        values.extend_from_slice(&text.as_bytes()[spans[index as usize].clone()]);
        // At most `total`, which fits.
        offsets.push(values.len() as i32);
    }
    Ok(StringArray::try_new(
        OffsetBuffer::new(ScalarBuffer::from(offsets)),
        Buffer::from_vec(values),
        None,
    )?)
}

/// A `Utf8View` array of the strings of `text` that end at `ends`, or of string `indices[i]` for
/// each `i`, pointing into one copy of the text.
fn views(
    node: ColumnNode<'_>,
    text: &str,
    ends: &[usize],
    indices: Option<&[u32]>,
) -> Result<StringViewArray, Error> {
    u32::try_from(text.len()).map_err(|_| {
        unsupported(
            node,
            "more string bytes than Arrow's 32-bit view offsets reach",
        )
    })?;
    let mut long = false;
    let mut stored = Vec::with_capacity(ends.len());
    for span in spans(ends) {
        let string = text.get(span.clone()).unwrap_or_default();
        long |= string.len() > 12;
        // The offset fits: it is below the text's length.
        stored.push(make_view(string.as_bytes(), 0, span.start as u32));
    }
    let views = match indices {
        None => stored,
        Some(indices) => {
            check_indices(node, indices, stored.len())?;
            indices
                .iter()
                .map(|&index| stored[index as usize])
                .collect()
        }
    };
    // Strings of up to 12 bytes are held in their views: no buffer is needed unless one is
    // longer.
    let buffers = match long {
        true => vec![Buffer::from(text.as_bytes())],
        false => Vec::new(),
    };
    // SAFETY: each view is `make_view` of a `&str` sliced from `text` (so valid UTF-8 on its
    // own) at its offset in `text`; the only buffer, 0, is a copy of `text`, and it is there
    // whenever a view is long enough to point into it.
    Ok(unsafe { StringViewArray::new_unchecked(ScalarBuffer::from(views), buffers, None) })
}

#[cfg(test)]
mod tests {
    use arrow_array::Array;
    use tree_buf::Reader;

    use super::*;

    /// `strings` through every layout, checked against arrays Arrow builds itself.
    fn check(strings: &[String], indexed: bool) {
        let bytes = tree_buf::encode(&strings.to_vec());
        let reader = Reader::new(&bytes).unwrap();
        let mut columns = reader.columns().unwrap();
        let node = columns.find("[]").unwrap();
        let expected_utf8: ArrayRef = Arc::new(StringArray::from_iter_values(strings));
        let expected_views: ArrayRef = Arc::new(StringViewArray::from_iter_values(strings));
        for layout in [
            StringLayout::Utf8,
            StringLayout::Utf8View,
            StringLayout::Dictionary,
        ] {
            let stored = columns.strings(node).unwrap();
            assert_eq!(stored.indices().is_some(), indexed);
            let array = layout.array(node, stored).unwrap();
            array.to_data().validate_full().unwrap();
            assert_eq!(array.data_type(), &layout.data_type());
            let array = arrow_cast::cast(&array, &DataType::Utf8).unwrap();
            assert_eq!(&array, &expected_utf8, "{layout:?}");
            if layout == StringLayout::Utf8View {
                let views = layout.array(node, columns.strings(node).unwrap()).unwrap();
                assert_eq!(&views, &expected_views);
            }
        }
    }

    #[test]
    fn layouts_match_arrows_own_arrays() {
        let plain: Vec<String> = (0..300).map(|i| format!("player number {i} ✓")).collect();
        check(&plain, false);
        let repeated: Vec<String> = (0..3000)
            .map(|i| ["BOS", "a name longer than twelve bytes", "", "é"][i % 4].to_owned())
            .collect();
        check(&repeated, true);
        check(&[], false);
        check(&["short".to_owned()], false);
    }
}
