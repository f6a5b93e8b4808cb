//! Reading inputs (files, `.zst` files, standard input) and writing outputs atomically.

use std::fs;
use std::io::{self, IsTerminal, Read, Write};
use std::path::Path;

use indicatif::{ProgressBar, ProgressStyle};

use crate::CliError;

/// Inputs larger than this get a progress bar, when standard error is a terminal.
const PROGRESS_MIN_BYTES: u64 = 8 << 20;

/// A progress bar over `total` units, drawn only when standard error is a terminal and the work
/// is large, so that pipes and logs stay clean.
pub fn progress(total: u64, what: &str) -> ProgressBar {
    if total < PROGRESS_MIN_BYTES || !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {bytes}/{total_bytes} ({eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message(what.to_owned());
    bar
}

/// The bytes of `path` (`-` for standard input), decompressed if the name ends in `.zst`.
pub fn read_input(path: &Path) -> Result<Vec<u8>, CliError> {
    let name = path.display().to_string();
    let raw = if name == "-" {
        let mut bytes = Vec::new();
        io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| CliError::new(format!("standard input: {e}")))?;
        bytes
    } else {
        let file = fs::File::open(path).map_err(|e| CliError::new(format!("{name}: {e}")))?;
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        let bar = progress(len, "reading");
        let mut bytes = Vec::with_capacity(len as usize);
        bar.wrap_read(file)
            .read_to_end(&mut bytes)
            .map_err(|e| CliError::new(format!("{name}: {e}")))?;
        bar.finish_and_clear();
        bytes
    };
    if name.ends_with(".zst") {
        zstd::decode_all(raw.as_slice())
            .map_err(|e| CliError::new(format!("{name}: not a valid zstd file: {e}")))
    } else {
        Ok(raw)
    }
}

/// Writes `bytes` to `path` (`-` for standard output): to a temporary file beside it first, renamed
/// into place once complete, so that a failure never leaves a partial file behind.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let name = path.display().to_string();
    if name == "-" {
        let mut stdout = io::stdout().lock();
        return stdout
            .write_all(bytes)
            .and_then(|()| stdout.flush())
            .map_err(|e| CliError::new(format!("standard output: {e}")));
    }
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut temp =
        tempfile::NamedTempFile::new_in(dir).map_err(|e| CliError::new(format!("{name}: {e}")))?;
    temp.write_all(bytes)
        .map_err(|e| CliError::new(format!("{name}: {e}")))?;
    temp.persist(path)
        .map_err(|e| CliError::new(format!("{name}: {}", e.error)))?;
    Ok(())
}
