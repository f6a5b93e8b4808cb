//! Hostile bytes read into record batches give errors, never panics: the fuzz seeds (files of
//! every kind of schema) read whole, cut short and with bits flipped, every sequence of each as
//! rows, in every string layout. The `arrow` fuzz target does the same with inputs it makes up.

use tree_buf::{DecodeOptions, NodeType, Reader};
use tree_buf_arrow::{record_batch_with, ArrowOptions, Selection, StringLayout};

/// Reads every sequence of `bytes` as rows, whole and a column at a time; how many batches came
/// out.
fn read_all(bytes: &[u8]) -> usize {
    let options = DecodeOptions::default()
        .verify_checksums(false)
        .max_decoded_bytes(1 << 24);
    let Ok(reader) = Reader::with_options(bytes, options) else {
        return 0;
    };
    let schema = reader.schema();
    let mut batches = 0;
    for node in schema.iter().filter(|node| node.node_type == NodeType::Seq) {
        let path = node.path.to_string();
        for layout in [StringLayout::Utf8View, StringLayout::Dictionary] {
            let options = ArrowOptions::default().strings(layout);
            let batch = record_batch_with(&reader, path.as_str(), &Selection::All, &options);
            batches += usize::from(batch.is_ok());
        }
        batches += usize::from(tree_buf_arrow::record_batch(&reader, path.as_str(), None).is_ok());
        for column in node.children.iter().flat_map(|items| &items.children) {
            let name = column.name.clone().unwrap_or_default();
            let projection = [name.as_str()];
            let batch = tree_buf_arrow::record_batch(&reader, path.as_str(), Some(&projection));
            batches += usize::from(batch.is_ok());
        }
    }
    batches
}

#[test]
fn seeds_cut_and_flipped_give_batches_or_errors() {
    let seeds = concat!(env!("CARGO_MANIFEST_DIR"), "/../fuzz/seeds/files");
    let mut whole = 0;
    for entry in std::fs::read_dir(seeds).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        whole += read_all(&bytes);
        // Cut at 32 places, and a bit flipped at 64.
        let step = bytes.len() / 32 + 1;
        for end in (0..bytes.len()).step_by(step) {
            read_all(&bytes[..end]);
        }
        let step = bytes.len() / 64 + 1;
        for at in (0..bytes.len()).step_by(step) {
            let mut flipped = bytes.clone();
            flipped[at] ^= 1 << (at % 8);
            read_all(&flipped);
        }
    }
    assert!(whole > 20, "the seeds read as {whole} batches");
}
