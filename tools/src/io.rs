//! Reading inputs (files, `.zst` files, standard input) and writing outputs atomically.

use std::fs;
use std::io::{self, BufRead, BufReader, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};

use crate::CliError;

/// Inputs larger than this get a progress bar, when standard error is a terminal.
const PROGRESS_MIN_BYTES: u64 = 8 << 20;

/// A progress bar over `total` bytes, drawn only when standard error is a terminal and the work
/// is large, so that pipes and logs stay clean.
fn progress(total: u64, what: &str) -> ProgressBar {
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

pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Names the failures of a `.zst` input's decompression for what they are.
struct Zstd<R>(R);

impl<R: Read> Read for Zstd<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0
            .read(buf)
            .map_err(|e| io::Error::new(e.kind(), format!("not a valid zstd file: {e}")))
    }
}

/// Reads `path` (`-` for standard input) as a stream, decompressing it if the name ends in
/// `.zst`, with a progress bar labelled `what` over a file's bytes; the bar clears when the
/// stream is dropped.
pub fn open_input(path: &Path, what: &str) -> Result<Box<dyn BufRead>, CliError> {
    let name = path.display().to_string();
    let raw: Box<dyn Read> = if is_stdio(path) {
        Box::new(io::stdin().lock())
    } else {
        let file = fs::File::open(path).map_err(|e| CliError::new(format!("{name}: {e}")))?;
        let len = file.metadata().map_or(0, |m| m.len());
        Box::new(Progress {
            read: file,
            bar: progress(len, what),
        })
    };
    Ok(if name.ends_with(".zst") {
        let decoder = zstd::Decoder::new(raw)
            .map_err(|e| CliError::new(format!("{name}: not a valid zstd file: {e}")))?;
        Box::new(BufReader::new(Zstd(decoder)))
    } else {
        Box::new(BufReader::new(raw))
    })
}

/// A reader that moves a progress bar, cleared when the reader is dropped.
struct Progress<R> {
    read: R,
    bar: ProgressBar,
}

impl<R: Read> Read for Progress<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.read.read(buf)?;
        self.bar.inc(n as u64);
        Ok(n)
    }
}

impl<R> Drop for Progress<R> {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// The bytes of `path` (`-` for standard input), decompressed if the name ends in `.zst`.
pub fn read_input(path: &Path) -> Result<Vec<u8>, CliError> {
    let mut bytes = Vec::new();
    open_input(path, "reading")?
        .read_to_end(&mut bytes)
        .map_err(|e| CliError::new(format!("{}: {e}", path.display())))?;
    Ok(bytes)
}

/// Why writing to standard output stopped: the output failed, or the work did.
pub enum Stop {
    Write(io::Error),
    Fail(CliError),
}

impl From<io::Error> for Stop {
    fn from(error: io::Error) -> Self {
        Stop::Write(error)
    }
}

impl From<CliError> for Stop {
    fn from(error: CliError) -> Self {
        Stop::Fail(error)
    }
}

/// Writes to standard output, buffered. A reader that stops early (`| head`) ends the output
/// quietly, as it does for other programs.
pub fn write_stdout(
    write: impl FnOnce(&mut dyn Write) -> Result<(), Stop>,
) -> Result<(), CliError> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    match write(&mut out).and_then(|()| Ok(out.flush()?)) {
        Err(Stop::Write(e)) if e.kind() != io::ErrorKind::BrokenPipe => {
            Err(CliError::new(format!("standard output: {e}")))
        }
        Err(Stop::Fail(e)) => Err(e),
        _ => Ok(()),
    }
}

/// Writes `bytes` to `path` (`-` for standard output), as [`Output`] does.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let mut output = Output::create(path)?;
    output.write_all(bytes).map_err(|e| output.error(&e))?;
    output.commit()
}

/// An output written as it is made: to standard output, or to a temporary file beside its path,
/// renamed into place by [`Output::commit`] once complete, so that a failure (or a drop without
/// commit) never leaves a partial file behind.
pub struct Output {
    name: String,
    sink: Sink,
}

enum Sink {
    Stdout(io::BufWriter<io::Stdout>),
    File {
        temp: io::BufWriter<tempfile::NamedTempFile>,
        path: PathBuf,
    },
}

impl Output {
    pub fn create(path: &Path) -> Result<Output, CliError> {
        let name = path.display().to_string();
        if is_stdio(path) {
            return Ok(Output {
                name,
                sink: Sink::Stdout(io::BufWriter::new(io::stdout())),
            });
        }
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let mut builder = tempfile::Builder::new();
        builder.prefix(".tree-buf-");
        // Like any new file (less the umask), not the owner-only mode of temporary files.
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let temp = builder
            .tempfile_in(dir)
            .map_err(|e| CliError::new(format!("{name}: {e}")))?;
        Ok(Output {
            name,
            sink: Sink::File {
                temp: io::BufWriter::new(temp),
                path: path.to_owned(),
            },
        })
    }

    /// The error of a failed write, naming the output. A reader of standard output that stops
    /// early (`| head`) is no error: see [`write_stdout`].
    pub fn error(&self, error: &io::Error) -> CliError {
        match (&self.sink, error.kind()) {
            (Sink::Stdout(_), io::ErrorKind::BrokenPipe) => CliError::output_closed(),
            _ => CliError::new(format!("{}: {error}", self.name)),
        }
    }

    /// Flushes the output and puts a file in place.
    pub fn commit(self) -> Result<(), CliError> {
        let name = self.name;
        let error = |e: &dyn std::fmt::Display| CliError::new(format!("{name}: {e}"));
        match self.sink {
            Sink::Stdout(mut out) => match out.flush() {
                Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(error(&e)),
                _ => Ok(()),
            },
            Sink::File { temp, path } => {
                let temp = temp.into_inner().map_err(|e| error(e.error()))?;
                temp.persist(path).map_err(|e| error(&e.error))?;
                Ok(())
            }
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.sink {
            Sink::Stdout(out) => out.write(buf),
            Sink::File { temp, .. } => temp.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.sink {
            Sink::Stdout(out) => out.flush(),
            Sink::File { temp, .. } => temp.flush(),
        }
    }
}
