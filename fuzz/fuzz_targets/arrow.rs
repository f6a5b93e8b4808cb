#![no_main]

//! Hostile bytes read into Arrow record batches: every sequence's items as rows, whole (in every
//! string layout) and one column at a time. Reading may fail; it must never panic.

use tree_buf::{DecodeOptions, NodeType, Reader};
use tree_buf_arrow::{ArrowOptions, Selection, StringLayout};

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| {
    let options = DecodeOptions::default()
        .verify_checksums(false)
        .max_decoded_bytes(1 << 24);
    let Ok(reader) = Reader::with_options(bytes, options) else {
        return;
    };
    let schema = reader.schema();
    let sequences = (schema.iter())
        .filter(|node| node.node_type == NodeType::Seq)
        .take(16);
    for node in sequences {
        let path = node.path.to_string();
        let _ = tree_buf_arrow::schema(&reader, path.as_str());
        let _ = tree_buf_arrow::record_batch(&reader, path.as_str(), None);
        for layout in [StringLayout::Utf8View, StringLayout::Dictionary] {
            let options = ArrowOptions::default().strings(layout);
            let _ = tree_buf_arrow::record_batch_with(
                &reader,
                path.as_str(),
                &Selection::All,
                &options,
            );
        }
        for column in node.children.iter().flat_map(|items| &items.children).take(16) {
            let name = column.name.clone().unwrap_or_default();
            let _ = tree_buf_arrow::record_batch(&reader, path.as_str(), Some(&[&name]));
        }
    }
});
