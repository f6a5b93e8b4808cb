//! How often a single corrupted byte of a real file decodes silently into a wrong value, with the
//! checksums verified (the default) and without. Prints both shares; with checksums, none may.
//!
//! Tries 300 evenly spread positions of the GraphQL file by default; set
//! `TREE_BUF_CORRUPTION_POSITIONS=all` (best with `--release`) to try every byte.

use tree_buf::{decode_with_options, DecodeOptions};
use tree_buf_datasets::{datasets_dir, graphql};

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
fn checksums_catch_every_single_byte_corruption() {
    let (name, response) = if datasets_dir().is_some() {
        ("GraphQL", graphql::load().unwrap())
    } else {
        eprintln!("../shared/datasets not found (set TREE_BUF_DATASETS): look-alike GraphQL data");
        ("generated GraphQL", graphql::generate(200, 1))
    };
    let bytes = tree_buf::encode(&response);
    let positions: Vec<usize> = match std::env::var("TREE_BUF_CORRUPTION_POSITIONS").as_deref() {
        Ok("all") => (0..bytes.len()).collect(),
        _ => (0..300).map(|i| i * bytes.len() / 300).collect(),
    };
    let checked = DecodeOptions::default();
    let unchecked = DecodeOptions::default().verify_checksums(false);
    let (mut with, mut without) = (Outcomes::default(), Outcomes::default());
    let mut corrupted = bytes.clone();
    for (i, &position) in positions.iter().enumerate() {
        // A different byte each time: cycles through every nonzero xor mask.
        corrupted[position] ^= (i % 255 + 1) as u8;
        with.add(decode_with_options(&corrupted, &checked), &response);
        without.add(decode_with_options(&corrupted, &unchecked), &response);
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
        with.wrong + with.same,
        0,
        "checksums let a corruption through"
    );
}
