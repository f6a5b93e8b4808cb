//! `tree-buf`: look inside tree-buf files and move data in and out of them without writing Rust.

mod convert;
mod demo;
mod export;
mod inspect;
mod io;
mod parquet;
mod query;

use std::fmt;
use std::ops::Range;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use tree_buf::archive::ArchiveOptions;
use tree_buf::{DecodeOptions, EncodeOptions, Preference};

use convert::{Chunking, CsvOptions, RowFormat};
use export::Open;

/// A one-line error for the user: what went wrong and where.
#[derive(Debug)]
pub struct CliError {
    message: String,
    /// Standard output's reader stopped reading (`| head`): that ends a command quietly, as it
    /// ends other programs.
    output_closed: bool,
}

impl CliError {
    pub fn new(message: impl Into<String>) -> Self {
        CliError {
            message: message.into(),
            output_closed: false,
        }
    }

    /// The end of a command whose standard output was closed by its reader.
    pub fn output_closed() -> Self {
        CliError {
            message: "standard output was closed".to_owned(),
            output_closed: true,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // One line, whatever the cause's formatting.
        f.write_str(&self.message.replace('\n', " "))
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
    /// Shows where the bytes of a file go: by path, by type, and in total (for an archive, the
    /// totals over its chunks).
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
    /// Prints the schema tree with the type, encoding and bytes of every branch; for an
    /// archive, each run of chunks that share a schema, with its first chunk's branches.
    Schema {
        /// The tree-buf file (`-` for standard input).
        file: PathBuf,
        #[command(flatten)]
        read: ReadArgs,
    },
    /// Converts JSON to tree-buf, inferring a columnar schema. A root array, or JSON lines (more
    /// than one value, one per line), becomes an archive of rows, written a chunk at a time as it
    /// is read; any other value becomes a file of that one value. Input whose first value is an
    /// array is read as a root array, unless --lines says its rows are arrays.
    FromJson {
        /// The JSON file (`-` for standard input; `.zst` is decompressed).
        input: PathBuf,
        /// Where to write the tree-buf file (`-` for standard output).
        #[arg(short, long)]
        output: PathBuf,
        /// Every value of the input is a row (JSON lines), even a single one, or arrays.
        #[arg(long)]
        lines: bool,
        #[command(flatten)]
        encode: EncodeArgs,
    },
    /// Converts CSV to an archive, one row per record and one field per column in the header's
    /// order; blank cells are left out. Column types (integer, float, boolean, else string) are
    /// inferred a chunk at a time, from the cells of that chunk and of the chunks before it:
    /// a type only widens as the file goes on, and a chunk whose types widened carries its own
    /// schema. Records are held until their chunk is complete: --chunk-rows of them, or a
    /// quarter of --chunk-bytes of CSV text.
    FromCsv {
        /// The CSV file (`-` for standard input; `.zst` is decompressed).
        input: PathBuf,
        #[command(flatten)]
        csv: CsvArgs,
        /// Where to write the tree-buf file (`-` for standard output).
        #[arg(short, long)]
        output: PathBuf,
        #[command(flatten)]
        encode: EncodeArgs,
    },
    /// Adds the rows of JSON (a root array, JSON lines, or one value as one row) or CSV to an
    /// archive, as new chunks after the ones it has: nothing in it is rewritten.
    Append {
        /// The archive.
        archive: PathBuf,
        /// The rows (`-` for standard input; `.zst` is decompressed).
        input: PathBuf,
        /// The input's format; by default its name's extension says (`.json`, `.jsonl`,
        /// `.ndjson`, `.csv`, `.tsv`).
        #[arg(long, value_enum)]
        format: Option<RowFormat>,
        /// JSON input: every value is a row (JSON lines), arrays too.
        #[arg(long)]
        lines: bool,
        #[command(flatten)]
        csv: CsvArgs,
        #[command(flatten)]
        encode: EncodeArgs,
    },
    /// Prints a file, some of its rows, or only the given paths, as JSON. An archive is read a
    /// chunk at a time, never held whole.
    ToJson {
        /// The tree-buf file (`-` for standard input).
        file: PathBuf,
        /// A path to export, such as `features.[].properties.ADMIN` (in an archive, rows are
        /// `[]`: `[].name`); repeat for several. Names holding `.`, quotes or brackets go in
        /// double quotes: `rows.[]."a.b"`.
        #[arg(long = "path", value_name = "P", conflicts_with_all = ["rows", "lines"])]
        paths: Vec<String>,
        /// Only these rows of an archive (or items of a file of one array): `A..B` (from row A
        /// up to, not including, B), `A..` or `..B`; only the chunks that hold them are read.
        #[arg(long, value_name = "A..B", value_parser = export::parse_rows)]
        rows: Option<Range<u64>>,
        /// Writes one row per line (JSON lines) instead of an array.
        #[arg(long, conflicts_with = "pretty")]
        lines: bool,
        /// Indents the output.
        #[arg(long)]
        pretty: bool,
        #[command(flatten)]
        read: ReadArgs,
    },
    /// Prints the rows of an archive (or the items of a file of one array) as CSV: a column per
    /// field, in the order fields first come; nested values as JSON text, absent fields and
    /// nulls blank. An archive is read a chunk at a time, twice: once for the header.
    ToCsv {
        /// The tree-buf file (`-` for standard input).
        file: PathBuf,
        /// Only these rows: `A..B`, `A..` or `..B`.
        #[arg(long, value_name = "A..B", value_parser = export::parse_rows)]
        rows: Option<Range<u64>>,
        #[command(flatten)]
        read: ReadArgs,
    },
    /// Describes a file: for an archive its metadata, its chunks (rows, offset, bytes) and its
    /// branches (path, type, bytes, values, least and greatest value, nulls); for a file of one
    /// value, its size and schema in short.
    Info {
        /// The tree-buf file (`-` for standard input).
        file: PathBuf,
        /// Prints JSON instead of text, with each chunk's branches.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        read: ReadArgs,
    },
    /// Encodes the real datasets (or generated data), decodes every file to check it, and compares
    /// sizes with JSON and MessagePack.
    Demo {
        /// Encode generated data even where the datasets are found.
        #[arg(long)]
        generated: bool,
    },
    /// Converts Parquet to an archive of its rows, a batch at a time: columns become fields,
    /// nulls absent fields, lists arrays, structs objects; the column types are inferred again
    /// from the values, as for JSON (so an `Int32` column may be stored narrower or wider), and
    /// the file's Arrow schema is kept in the archive's metadata for `to-parquet` and `query`.
    /// Needs the `parquet` feature (cargo install --path tools --features parquet).
    FromParquet {
        /// The Parquet file.
        input: PathBuf,
        /// Where to write the archive (`-` for standard output).
        #[arg(short, long)]
        output: PathBuf,
        #[command(flatten)]
        encode: EncodeArgs,
    },
    /// Writes an archive's rows as Parquet, a row group per chunk, with the columns Arrow gives
    /// them (enums with data become structs of one optional field per variant), or the types
    /// `from-parquet` kept in the archive's metadata. Needs the `parquet` feature.
    ToParquet {
        /// The archive.
        file: PathBuf,
        /// Where to write the Parquet file (`-` for standard output).
        #[arg(short, long)]
        output: PathBuf,
        /// The zstd level of the Parquet pages.
        #[arg(long, default_value_t = 3)]
        zstd_level: i32,
        #[command(flatten)]
        read: ReadArgs,
    },
    /// Answers SQL over archives with Apache DataFusion. Each `--table NAME=PATH` is an archive
    /// (or a directory of `*.tb` archives) as a table of its rows, whose columns are the rows'
    /// fields; nested fields read as `home['score']`. `CREATE EXTERNAL TABLE t STORED AS TREEBUF
    /// LOCATION 'path'` works too, and statements separated by `;` run in order. Needs the
    /// `query` feature (cargo install --path tools --features query).
    Query {
        /// The SQL statements.
        sql: String,
        /// An archive as a table.
        #[arg(long = "table", value_name = "NAME=PATH")]
        tables: Vec<query::TableArg>,
        /// How answers are printed.
        #[arg(long, value_enum, default_value_t = query::QueryFormat::Table)]
        format: query::QueryFormat,
    },
}

/// How the commands that write tree-buf files encode.
#[derive(Args)]
struct EncodeArgs {
    /// Stores floats within 2^N of their value.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    lossy_float_tolerance: Option<i32>,
    /// Trades encoding and decoding speed against size: `smaller` uses zstd level 19 wherever
    /// it saves a byte and stores integer columns by a related sibling's values; `faster` uses
    /// the column codecs, and zstd only on a branch it halves.
    #[arg(long, value_enum, default_value_t = Prefer::Balanced)]
    prefer: Prefer,
    /// Archives: ends a chunk after this many rows.
    #[arg(long, value_name = "N", default_value_t = ArchiveOptions::DEFAULT_CHUNK_ROWS)]
    chunk_rows: usize,
    /// Archives: ends a chunk once its columns take about this many bytes in memory, which
    /// bounds the memory used.
    #[arg(long, value_name = "BYTES", default_value_t = ArchiveOptions::DEFAULT_CHUNK_BYTES)]
    chunk_bytes: usize,
}

/// `--prefer`'s values: [`Preference`]'s.
#[derive(Clone, Copy, ValueEnum)]
enum Prefer {
    Balanced,
    Smaller,
    Faster,
}

impl EncodeArgs {
    fn options(&self) -> EncodeOptions {
        let options = EncodeOptions::default().prefer(match self.prefer {
            Prefer::Balanced => Preference::Balanced,
            Prefer::Smaller => Preference::Smaller,
            Prefer::Faster => Preference::Faster,
        });
        match self.lossy_float_tolerance {
            Some(exponent) => options.lossy_float_tolerance(exponent),
            None => options,
        }
    }

    fn chunking(&self) -> Chunking {
        Chunking {
            rows: self.chunk_rows.max(1),
            bytes: self.chunk_bytes,
        }
    }
}

/// How CSV is read.
#[derive(Args)]
struct CsvArgs {
    /// CSV: the first row is data, not column names.
    #[arg(long)]
    no_header: bool,
    /// CSV: the field separator, one ASCII character, or `\t` for tabs.
    #[arg(long, default_value = ",")]
    delimiter: String,
}

impl CsvArgs {
    fn options(&self) -> Result<CsvOptions, CliError> {
        Ok(CsvOptions {
            delimiter: convert::delimiter(&self.delimiter)?,
            header: !self.no_header,
        })
    }
}

/// How the commands that read tree-buf files read.
#[derive(Args)]
struct ReadArgs {
    /// Fails rather than use more memory than this for the decoded data. The library's
    /// default (1 GiB) guards against hostile files; the file here is the user's own.
    #[arg(long, value_name = "BYTES", default_value_t = 8 << 30)]
    max_decoded_bytes: u64,
    /// Fails rather than read a value of a recursive type (or JSON) nested deeper than this
    /// many levels. The library's default (100,000) guards against hostile files.
    #[arg(long, value_name = "LEVELS", default_value_t = 10_000_000)]
    max_depth: usize,
    /// Reads an archive whose writer stopped before finishing it: the complete chunks, found
    /// by scanning it, without the footer.
    #[arg(long)]
    recover: bool,
}

impl ReadArgs {
    fn open(&self) -> Open {
        Open {
            options: (DecodeOptions::default())
                .max_decoded_bytes(self.max_decoded_bytes)
                .depth_limit(self.max_depth),
            recover: self.recover,
        }
    }
}

fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::SizeBreakdown {
            file,
            json,
            svg,
            decompress_zstd,
        } => inspect::size_breakdown(&file, json, svg.as_deref(), decompress_zstd),
        Command::Schema { file, read } => inspect::schema(&file, &read.open()),
        Command::FromJson {
            input,
            output,
            lines,
            encode,
        } => convert::from_json(&input, &output, lines, &encode.chunking(), encode.options()),
        Command::FromCsv {
            input,
            csv,
            output,
            encode,
        } => convert::from_csv(
            &input,
            &output,
            &csv.options()?,
            &encode.chunking(),
            encode.options(),
        ),
        Command::Append {
            archive,
            input,
            format,
            lines,
            csv,
            encode,
        } => convert::append(
            &archive,
            &input,
            format,
            lines,
            &csv.options()?,
            &encode.chunking(),
            encode.options(),
        ),
        Command::ToJson {
            file,
            paths,
            rows,
            lines,
            pretty,
            read,
        } => export::to_json(
            &file,
            &paths,
            rows,
            &export::JsonOut { pretty, lines },
            &read.open(),
        ),
        Command::ToCsv { file, rows, read } => export::to_csv(&file, rows, &read.open()),
        Command::Info { file, json, read } => inspect::info(&file, json, &read.open()),
        Command::Demo { generated } => demo::demo(generated),
        Command::FromParquet {
            input,
            output,
            encode,
        } => parquet::from_parquet(&input, &output, &encode.chunking(), encode.options()),
        Command::ToParquet {
            file,
            output,
            zstd_level,
            read,
        } => parquet::to_parquet(&file, &output, zstd_level, &read.open()),
        Command::Query {
            sql,
            tables,
            format,
        } => query::query(&sql, &tables, format),
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.output_closed => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
