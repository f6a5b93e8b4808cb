//! `tree-buf`: look inside tree-buf files and move data in and out of them without writing Rust.

mod convert;
mod demo;
mod inspect;
mod io;

use std::fmt;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tree_buf::DecodeOptions;

/// A one-line error for the user: what went wrong and where.
#[derive(Debug)]
pub struct CliError(String);

impl CliError {
    pub fn new(message: impl Into<String>) -> Self {
        CliError(message.into())
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // One line, whatever the cause's formatting.
        f.write_str(&self.0.replace('\n', " "))
    }
}

#[derive(Parser)]
#[command(
    name = "tree-buf",
    version,
    about = "Inspect tree-buf files, and convert JSON and CSV to and from them."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Shows where the bytes of a file go: by path, by type, and in total.
    SizeBreakdown {
        /// The tree-buf file (`-` for standard input; `.zst` is decompressed).
        file: PathBuf,
        /// Prints JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Also draws a chart of bytes by path into this SVG file.
        #[arg(long, value_name = "OUT.svg")]
        svg: Option<PathBuf>,
        /// Decompresses zstd frames to describe the streams inside (otherwise a frame is
        /// described by its header: the size of what it holds).
        #[arg(long)]
        decompress_zstd: bool,
    },
    /// Prints the schema tree with the type, encoding and bytes of every branch.
    Schema {
        /// The tree-buf file.
        file: PathBuf,
    },
    /// Converts JSON to tree-buf, inferring a columnar schema.
    FromJson {
        /// The JSON file (`-` for standard input; `.zst` is decompressed).
        input: PathBuf,
        /// Where to write the tree-buf file (`-` for standard output).
        #[arg(short, long)]
        output: PathBuf,
        /// Stores floats within 2^N of their value.
        #[arg(long, value_name = "N", allow_negative_numbers = true)]
        lossy_float_tolerance: Option<i32>,
    },
    /// Converts CSV to tree-buf: one column per CSV column, types inferred, blanks left out.
    FromCsv {
        /// The CSV file (`-` for standard input; `.zst` is decompressed).
        input: PathBuf,
        /// The first row is data, not column names.
        #[arg(long)]
        no_header: bool,
        /// The field separator: one ASCII character, or `\t` for tabs.
        #[arg(long, default_value = ",")]
        delimiter: String,
        /// Where to write the tree-buf file (`-` for standard output).
        #[arg(short, long)]
        output: PathBuf,
        /// Stores floats within 2^N of their value.
        #[arg(long, value_name = "N", allow_negative_numbers = true)]
        lossy_float_tolerance: Option<i32>,
    },
    /// Prints a file, or only the given paths, as JSON.
    ToJson {
        /// The tree-buf file (`-` for standard input).
        file: PathBuf,
        /// A path to export, such as `features.[].properties.ADMIN`; repeat for several. Names
        /// holding `.`, quotes or brackets go in double quotes: `rows.[]."a.b"`.
        #[arg(long = "path", value_name = "P")]
        paths: Vec<String>,
        /// Indents the output.
        #[arg(long)]
        pretty: bool,
        /// Fails rather than use more memory than this for the decoded data. The library's
        /// default (1 GiB) guards against hostile files; the file here is the user's own.
        #[arg(long, value_name = "BYTES", default_value_t = 8 << 30)]
        max_decoded_bytes: u64,
    },
    /// Encodes the real datasets (or generated data), decodes every file to check it, and compares
    /// sizes with JSON and MessagePack.
    Demo {
        /// Encode generated data even where the datasets are found.
        #[arg(long)]
        generated: bool,
    },
}

fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::SizeBreakdown {
            file,
            json,
            svg,
            decompress_zstd,
        } => inspect::size_breakdown(&file, json, svg.as_deref(), decompress_zstd),
        Command::Schema { file } => inspect::schema(&file),
        Command::FromJson {
            input,
            output,
            lossy_float_tolerance,
        } => convert::from_json(
            &input,
            &output,
            &convert::encode_options(lossy_float_tolerance),
        ),
        Command::FromCsv {
            input,
            no_header,
            delimiter,
            output,
            lossy_float_tolerance,
        } => convert::from_csv(
            &input,
            &output,
            &delimiter,
            !no_header,
            &convert::encode_options(lossy_float_tolerance),
        ),
        Command::ToJson {
            file,
            paths,
            pretty,
            max_decoded_bytes,
        } => convert::to_json(
            &file,
            &paths,
            pretty,
            DecodeOptions::default().max_decoded_bytes(max_decoded_bytes),
        ),
        Command::Demo { generated } => demo::demo(generated),
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
