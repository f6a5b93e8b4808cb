//! How often a single corrupted byte of a GraphQL file decodes silently into a wrong value, with
//! the checksums verified (the default) and without. Prints both shares; with checksums, none may.
//!
//! The tests that run by default try 300 evenly spread positions, of look-alike data and of the
//! real file; trying every byte of the real file takes about a minute in a release build:
//! `cargo test --release -p tree-buf-datasets --test corruption -- --ignored --nocapture`.

use tree_buf::{decode_with_options, DecodeOptions};
use tree_buf_datasets::graphql;

/// What a corrupted file decoded to.
#[derive(Default, Debug)]
struct Outcomes {
    errors: usize,
    same: usize,
    wrong: usize,
}

impl Outcomes {
    fn add(
        &mut self,
        result: Result<graphql::Response, tree_buf::DecodeError>,
        original: &graphql::Response,
    ) {
        match result {
            Err(_) => self.errors += 1,
            Ok(value) if value == *original => self.same += 1,
            Ok(_) => self.wrong += 1,
        }
    }

    fn report(&self, label: &str) {
        let total = self.errors + self.same + self.wrong;
        eprintln!(
            "{label}: {} of {total} corruptions decode silently to a wrong value ({:.2}%); {} are \
             errors, {} decode to the original",
            self.wrong,
            100.0 * self.wrong as f64 / total as f64,
            self.errors,
            self.same
        );
    }
}

#[test]
fn checksums_catch_300_single_byte_corruptions_of_generated_data() {
    checksums_catch_single_byte_corruptions("generated GraphQL", &graphql::generate(200, 1), 300);
}

#[test]
#[cfg_attr(
    datasets_missing,
    ignore = "needs ../shared/datasets or $TREE_BUF_DATASETS"
)]
fn real_checksums_catch_300_single_byte_corruptions() {
    checksums_catch_single_byte_corruptions("GraphQL", &graphql::load().unwrap(), 300);
}

#[test]
#[ignore = "every byte of the real file: cargo test --release -p tree-buf-datasets --test corruption -- --ignored"]
fn real_checksums_catch_every_single_byte_corruption() {
    checksums_catch_single_byte_corruptions("GraphQL", &graphql::load().unwrap(), usize::MAX);
}

/// Corrupts one byte at a time, at `tries` evenly spread positions (every byte if the file is no
/// longer), and decodes with and without checksums.
fn checksums_catch_single_byte_corruptions(name: &str, response: &graphql::Response, tries: usize) {
    let bytes = tree_buf::encode(response);
    let positions: Vec<usize> = if tries >= bytes.len() {
        (0..bytes.len()).collect()
    } else {
        (0..tries).map(|i| i * bytes.len() / tries).collect()
    };
    let checked = DecodeOptions::default();
    let unchecked = DecodeOptions::default().verify_checksums(false);
    let (mut with, mut without) = (Outcomes::default(), Outcomes::default());
    let mut corrupted = bytes.clone();
    for (i, &position) in positions.iter().enumerate() {
        // A different byte each time: cycles through every nonzero xor mask.
        corrupted[position] ^= (i % 255 + 1) as u8;
        with.add(decode_with_options(&corrupted, &checked), response);
        without.add(decode_with_options(&corrupted, &unchecked), response);
        corrupted[position] = bytes[position];
    }
    eprintln!(
        "{name}: {} bytes, {} positions",
        bytes.len(),
        positions.len()
    );
    with.report("checksums on");
    without.report("checksums off");
    assert_eq!(
        with.errors,
        positions.len(),
        "checksums let a corruption through"
    );
}
