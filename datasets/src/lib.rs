//! The real datasets tree-buf is measured on, as typed Rust models that derive both tree-buf's
//! `Encode`/`Decode` and serde's `Serialize`/`Deserialize` (for the peer formats), with loaders
//! for the files in `../shared/datasets` and seeded generators of look-alike data for tests that
//! must run without them.
//!
//! | module         | data                                                   |
//! |----------------|--------------------------------------------------------|
//! | [`graphql`]    | a GraphQL response of 1,000 marketplace orders         |
//! | [`geojson`]    | every country's borders as GeoJSON                      |
//! | [`baseball`]   | Baseball Databank tables: batting, pitching, fielding, people, teams |
//! | [`retrosheet`] | Retrosheet game logs 1871-2018, 161 fields a game       |
//! | [`stocks`]     | a year of daily stock prices                           |
//! | [`noise`]      | generated floats with noise mantissas: a mesh and sensor readings |

pub mod baseball;
pub mod geojson;
pub mod graphql;
pub mod noise;
pub mod retrosheet;
pub mod stocks;

use std::fmt;
use std::path::{Path, PathBuf};

/// The folder with the datasets: `$TREE_BUF_DATASETS` if set, else `../shared/datasets` beside
/// the workspace. `None` when it does not exist.
pub fn datasets_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("TREE_BUF_DATASETS") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/datasets"),
    };
    dir.is_dir().then_some(dir)
}

/// Why a dataset could not be loaded.
#[derive(Debug)]
pub struct DatasetError {
    /// The file involved.
    pub path: PathBuf,
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for DatasetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for DatasetError {}

pub(crate) fn error(path: &Path, message: impl fmt::Display) -> DatasetError {
    DatasetError {
        path: path.to_owned(),
        message: message.to_string(),
    }
}

/// The bytes of a file in the datasets folder, decompressed when it ends in `.zst`.
pub fn read(relative: &str) -> Result<Vec<u8>, DatasetError> {
    let dir = datasets_dir().ok_or_else(|| {
        error(
            Path::new("../shared/datasets"),
            "not found; set TREE_BUF_DATASETS to the datasets folder",
        )
    })?;
    let path = dir.join(relative);
    let bytes = std::fs::read(&path).map_err(|e| error(&path, e))?;
    if relative.ends_with(".zst") {
        zstd::decode_all(bytes.as_slice()).map_err(|e| error(&path, e))
    } else {
        Ok(bytes)
    }
}

/// Rows of a CSV file with a header, through serde.
pub(crate) fn read_csv<T: serde::de::DeserializeOwned>(
    relative: &str,
) -> Result<Vec<T>, DatasetError> {
    let bytes = read(relative)?;
    csv::Reader::from_reader(bytes.as_slice())
        .deserialize()
        .collect::<Result<Vec<T>, _>>()
        .map_err(|e| error(Path::new(relative), e))
}

/// A seeded random generator for the look-alike data.
pub(crate) fn rng(seed: u64) -> rand::rngs::StdRng {
    rand::SeedableRng::seed_from_u64(seed)
}
