//! Runs the built `tree-buf` program on the real datasets and on bad input, as a user would.
//!
//! The tests on the real files are named `real_*`; without the datasets they are listed as
//! ignored, with the reason (see `build.rs`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn tree_buf(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tree-buf"))
        .args(args)
        .output()
        .expect("the tree-buf binary runs")
}

/// Runs the program with `input` on its standard input, capturing standard output.
fn with_stdin(args: &[&str], input: &[u8]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tree-buf"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(input)?;
            child.wait_with_output()
        })
        .expect("the tree-buf binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[track_caller]
fn succeeds(args: &[&str]) -> Output {
    let output = tree_buf(args);
    assert!(
        output.status.success(),
        "tree-buf {args:?} failed: {}",
        stderr(&output)
    );
    output
}

/// Fails with exit status 1 and exactly one line of error text containing `needle`.
#[track_caller]
fn fails(args: &[&str], needle: &str) {
    let output = tree_buf(args);
    assert!(!output.status.success(), "tree-buf {args:?} should fail");
    let error = stderr(&output);
    assert_eq!(error.lines().count(), 1, "one line, not: {error}");
    assert!(
        error.starts_with("error: ") && error.contains(needle),
        "{needle:?} not in {error}"
    );
    assert!(!error.contains("panicked"), "{error}");
}

/// The datasets folder; the tests that call this are ignored where it is missing.
fn datasets() -> PathBuf {
    tree_buf_datasets::datasets_dir().expect("../shared/datasets or $TREE_BUF_DATASETS")
}

fn scratch(name: &str) -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("tree-buf-cli-{}", std::process::id()));
        // An earlier test process with the same id (ids are reused) may have left its files
        // there, which tests that check a file was not written would see.
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    });
    dir.join(name)
}

/// A scratch file in the scratch folder's subfolder `folder`: a test that looks for leftover
/// temporary files looks in a folder of its own, where the tests running beside it write nothing.
fn scratch_in(folder: &str, name: &str) -> PathBuf {
    let folder = scratch(folder);
    std::fs::create_dir_all(&folder).unwrap();
    folder.join(name)
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn json_of(file: &Path) -> serde_json::Value {
    let bytes = std::fs::read(file).unwrap();
    let bytes = if file.extension().is_some_and(|e| e == "zst") {
        zstd::decode_all(bytes.as_slice()).unwrap()
    } else {
        bytes
    };
    serde_json::from_slice(&bytes).unwrap()
}

#[test]
#[cfg_attr(
    datasets_missing,
    ignore = "needs ../shared/datasets or $TREE_BUF_DATASETS"
)]
fn real_json_files_round_trip_through_tree_buf() {
    let dir = datasets();
    for (input, name) in [
        ("graphql/decentraland_response.json.zst", "graphql.tb"),
        ("geojson/countries.geojson.zst", "geo.tb"),
    ] {
        let input = dir.join(input);
        let output = scratch(name);
        succeeds(&["from-json", path(&input), "-o", path(&output)]);
        let back: serde_json::Value =
            serde_json::from_str(&stdout(&succeeds(&["to-json", path(&output)]))).unwrap();
        assert_eq!(back, json_of(&input), "{}", input.display());
        // Same keys in the same order, not only equal as maps.
        assert_eq!(
            serde_json::to_string(&back).unwrap(),
            serde_json::to_string(&json_of(&input)).unwrap()
        );
    }
}

#[test]
#[cfg_attr(
    datasets_missing,
    ignore = "needs ../shared/datasets or $TREE_BUF_DATASETS"
)]
fn real_paths_export_and_inspection() {
    let dir = datasets();
    let output = scratch("countries.tb");
    succeeds(&[
        "from-json",
        path(&dir.join("geojson/countries.geojson.zst")),
        "-o",
        path(&output),
    ]);
    let names: serde_json::Value = serde_json::from_str(&stdout(&succeeds(&[
        "to-json",
        path(&output),
        "--path",
        "features.[].properties.ADMIN",
        "--path",
        "features.[].properties.ISO_A3",
    ])))
    .unwrap();
    assert_eq!(
        names["features.[].properties.ADMIN"]
            .as_array()
            .unwrap()
            .len(),
        250
    );
    let schema = stdout(&succeeds(&["schema", path(&output)]));
    assert!(schema.contains("ADMIN: string"), "{schema}");
    let breakdown = stdout(&succeeds(&["size-breakdown", path(&output)]));
    assert!(
        breakdown.contains("Largest by path") && breakdown.contains("Total"),
        "{breakdown}"
    );
    let json: serde_json::Value = serde_json::from_str(&stdout(&succeeds(&[
        "size-breakdown",
        path(&output),
        "--json",
    ])))
    .unwrap();
    assert_eq!(
        json["total_bytes"],
        std::fs::metadata(&output).unwrap().len()
    );
    assert!(json["branches"][0]["encoding_tree"]["codec"].is_string());
    // zstd stages are described from their headers, unless asked to decompress.
    let decompressed = stdout(&succeeds(&[
        "size-breakdown",
        path(&output),
        "--decompress-zstd",
    ]));
    assert!(
        breakdown.contains("bytes inside, not decompressed)"),
        "{breakdown}"
    );
    assert!(
        decompressed.contains("zstd(") && !decompressed.contains("not decompressed"),
        "{decompressed}"
    );
    let svg = scratch("breakdown.svg");
    succeeds(&["size-breakdown", path(&output), "--svg", path(&svg)]);
    let svg = std::fs::read_to_string(svg).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("coordinates"),
        "{svg}"
    );
    let lossy = scratch("countries-lossy.tb");
    succeeds(&[
        "from-json",
        path(&dir.join("geojson/countries.geojson.zst")),
        "-o",
        path(&lossy),
        "--lossy-float-tolerance",
        "-12",
    ]);
    assert!(
        std::fs::metadata(&lossy).unwrap().len() * 2 < std::fs::metadata(&output).unwrap().len()
    );
}

#[test]
#[cfg_attr(
    datasets_missing,
    ignore = "needs ../shared/datasets or $TREE_BUF_DATASETS"
)]
fn real_csv_files_convert_with_inferred_types() {
    let dir = datasets();
    let stocks = scratch("aapl.tb");
    succeeds(&[
        "from-csv",
        path(&dir.join("stocks/AAPL_2016.csv")),
        "-o",
        path(&stocks),
    ]);
    let rows: serde_json::Value =
        serde_json::from_str(&stdout(&succeeds(&["to-json", path(&stocks)]))).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 252);
    assert_eq!(rows[0]["Date"], "2016-01-04");
    assert_eq!(rows[0]["Open"], 102.610001);
    assert_eq!(rows[0]["Volume"], 67_649_400);
    let batting = scratch("batting.tb");
    succeeds(&[
        "from-csv",
        path(&dir.join("baseball/Batting.csv.zst")),
        "-o",
        path(&batting),
    ]);
    let info = stdout(&succeeds(&["info", path(&batting)]));
    let has = |path: &str, node_type: &str| {
        info.lines().any(|line| {
            let cells: Vec<&str> = line.split_whitespace().collect();
            cells.len() > 1 && cells[0] == path && cells[1] == node_type
        })
    };
    assert!(
        has("[].yearID", "u64") && has("[].playerID", "string"),
        "{info}"
    );
    // Columns blank in the early rows keep their place in the header.
    let last: serde_json::Value = serde_json::from_str(&stdout(&succeeds(&[
        "to-json",
        path(&batting),
        "--path",
        "[]",
    ])))
    .unwrap();
    let last = last["[]"].as_array().unwrap().last().unwrap().clone();
    let keys: Vec<&String> = last.as_object().unwrap().keys().collect();
    assert_eq!(
        keys[keys.len() - 6..],
        ["SO", "IBB", "HBP", "SH", "SF", "GIDP"]
    );
    // The same rows written smaller read back the same.
    let smaller = scratch("batting-smaller.tb");
    succeeds(&[
        "from-csv",
        path(&dir.join("baseball/Batting.csv.zst")),
        "-o",
        path(&smaller),
        "--prefer",
        "smaller",
    ]);
    let size = |file: &Path| std::fs::metadata(file).unwrap().len();
    assert!(size(&smaller) < size(&batting) * 9 / 10);
    let rows = |file: &Path| stdout(&succeeds(&["to-csv", path(file)]));
    assert!(rows(&smaller) == rows(&batting));
    let games = scratch("gl2018.tb");
    succeeds(&[
        "from-csv",
        path(&dir.join("retrosheet/GL2018.TXT.zst")),
        "--no-header",
        "-o",
        path(&games),
    ]);
    let first: serde_json::Value = serde_json::from_str(&stdout(&succeeds(&[
        "to-json",
        path(&games),
        "--path",
        "[].column_1",
    ])))
    .unwrap();
    assert_eq!(first["[].column_1"].as_array().unwrap().len(), 2431);
}

#[test]
fn demo_checks_its_round_trips_on_generated_data() {
    let output = stdout(&succeeds(&["demo", "--generated"]));
    assert!(output.starts_with("Encoding generated data"), "{output}");
    let row = (output.lines())
        .find(|line| line.starts_with("| Generated weather readings |"))
        .unwrap_or_else(|| panic!("no row for the generated data in {output}"));
    // JSON, MessagePack and tree-buf bytes, in that order: tree-buf is the smallest.
    let sizes: Vec<usize> = (row.split('|').skip(2).take(3))
        .map(|cell| cell.trim().parse().unwrap())
        .collect();
    assert!(sizes[2] < sizes[1] && sizes[1] < sizes[0], "{row}");
    assert!(
        output.contains("Every file decoded to the value it was encoded from (1 checked)"),
        "{output}"
    );
    assert!(output.contains("Where the bytes of"), "{output}");
}

#[test]
fn demo_names_a_datasets_folder_that_is_not_there() {
    let output = Command::new(env!("CARGO_BIN_EXE_tree-buf"))
        .arg("demo")
        .env("TREE_BUF_DATASETS", "no/such/folder")
        .output()
        .expect("the tree-buf binary runs");
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("no/such/folder"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn standard_input_and_output_work() {
    let output = with_stdin(&["from-json", "-", "-o", "-"], br#"{"a": [1, 2, 3]}"#);
    assert!(output.status.success());
    let file = scratch("stdin.tb");
    std::fs::write(&file, &output.stdout).unwrap();
    assert_eq!(
        stdout(&succeeds(&["to-json", path(&file)])).trim(),
        r#"{"a":[1,2,3]}"#
    );
}

/// Bytes print as `{"$bytes": base64}` (the JSON view of docs/FORMAT.md), apart from arrays of
/// small integers.
#[test]
fn bytes_print_apart_from_arrays_of_integers() {
    let file = scratch("bytes.tb");
    let value = (vec![0xdeu8, 0xad, 0xbe, 0xef], vec![1u32, 2]);
    std::fs::write(&file, tree_buf::encode(&value)).unwrap();
    assert_eq!(
        stdout(&succeeds(&["to-json", path(&file)])).trim(),
        r#"[{"$bytes":"3q2+7w=="},[1,2]]"#
    );
}

#[test]
fn paths_reach_keys_that_need_quotes() {
    let output = with_stdin(
        &["from-json", "-", "-o", "-"],
        br#"[{"a.b": 1, "a": {"b": 2}}, {"a.b": 3, "a": {"b": 4}}]"#,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let file = scratch("quoted.tb");
    std::fs::write(&file, &output.stdout).unwrap();
    let columns = stdout(&succeeds(&[
        "to-json",
        path(&file),
        "--path",
        r#"[]."a.b""#,
        "--path",
        "[].a.b",
    ]));
    assert_eq!(columns.trim(), r#"{"[].\"a.b\"":[1,3],"[].a.b":[2,4]}"#);
    fails(
        &["to-json", path(&file), "--path", "[].a..b"],
        "invalid path `[].a..b`",
    );
    fails(
        &["to-json", path(&file), "--path", "[].b"],
        "the path exists up to `[]` (struct)",
    );
}

#[test]
fn csv_from_standard_input_with_tabs() {
    let output = with_stdin(
        &["from-csv", "-", "--delimiter", "\\t", "-o", "-"],
        b"n\tn\tok\n1\t2.5\ttrue\n\t-3\tfalse\n",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let file = scratch("tabs.tb");
    std::fs::write(&file, &output.stdout).unwrap();
    // A repeated column name gets a suffix instead of losing its cells; blank cells are left out.
    assert_eq!(
        stdout(&succeeds(&["to-json", path(&file)])).trim(),
        r#"[{"n":1,"n_2":2.5,"ok":true},{"n_2":-3.0,"ok":false}]"#
    );
}

#[test]
fn bad_input_gives_one_line_errors_and_no_output_file() {
    let not_json = scratch_in("bad-input", "bad.json");
    std::fs::write(&not_json, "{\"a\": [1, 2,}").unwrap();
    let output = scratch_in("bad-input", "never.tb");
    fails(
        &["from-json", path(&not_json), "-o", path(&output)],
        "not valid JSON",
    );
    assert!(!output.exists());

    let ragged = scratch_in("bad-input", "ragged.csv");
    std::fs::write(&ragged, "a,b\n1,2\n3\n").unwrap();
    fails(&["from-csv", path(&ragged), "-o", path(&output)], "line 3");
    assert!(!output.exists());

    fails(&["schema", path(&not_json)], "not a tree-buf file");

    let json = scratch_in("bad-input", "good.json");
    std::fs::write(&json, r#"{"names": ["a", "b"], "sizes": [1, 2]}"#).unwrap();
    let good = scratch_in("bad-input", "good.tb");
    succeeds(&["from-json", path(&json), "-o", path(&good)]);
    let bytes = std::fs::read(&good).unwrap();
    let truncated = scratch_in("bad-input", "truncated.tb");
    std::fs::write(&truncated, &bytes[..bytes.len() - 7]).unwrap();
    fails(&["to-json", path(&truncated)], "truncated");
    fails(&["size-breakdown", path(&truncated)], "truncated");
    fails(
        &["to-json", path(&good), "--path", "names.[].first"],
        "path not found",
    );
    fails(
        &["to-json", path(&good), "--max-decoded-bytes", "10"],
        "--max-decoded-bytes",
    );
    fails(
        &["to-json", path(&scratch_in("bad-input", "missing.tb"))],
        "missing.tb",
    );

    let truncated_zst = scratch_in("bad-input", "truncated.json.zst");
    let compressed = zstd::encode_all(&br#"{"a": [1, 2, 3]}"#[..], 3).unwrap();
    std::fs::write(&truncated_zst, &compressed[..compressed.len() - 4]).unwrap();
    fails(
        &["from-json", path(&truncated_zst), "-o", path(&output)],
        "truncated.json.zst",
    );
    fails(
        &[
            "from-json",
            path(&json),
            "-o",
            path(&scratch_in("bad-input", "no/such/dir/out.tb")),
        ],
        "out.tb",
    );
    fails(
        &[
            "from-csv",
            path(&ragged),
            "--delimiter",
            "ab",
            "-o",
            path(&output),
        ],
        "delimiter",
    );
    assert!(!output.exists());
    let leftovers: Vec<_> = std::fs::read_dir(output.parent().unwrap())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".tree-buf-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// Writes `text` to a scratch file named `name`.
fn scratch_file(name: &str, text: &str) -> PathBuf {
    let file = scratch(name);
    std::fs::write(&file, text).unwrap();
    file
}

/// Writes `text` to the scratch file `input` and converts it with `command` (`from-json` or
/// `from-csv`) into an archive of chunks of two rows, which it returns.
fn archive_in_pairs(command: &str, input: &str, text: &str) -> PathBuf {
    let source = scratch_file(input, text);
    let archive = source.with_extension("tb");
    succeeds(&[
        command,
        path(&source),
        "-o",
        path(&archive),
        "--chunk-rows",
        "2",
    ]);
    archive
}

fn json_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn json_lines_round_trip_through_an_archive_whose_schema_widens() {
    // An integer field that later holds floats, and a field that first comes in the last chunk.
    let lines = concat!(
        "{\"id\":1,\"score\":3,\"name\":\"a\"}\n",
        "{\"id\":2,\"score\":4,\"name\":\"b\"}\n",
        "{\"id\":3,\"score\":4.5,\"name\":\"c\"}\n",
        "{\"id\":4,\"score\":5,\"name\":\"d\",\"tags\":[\"x\",\"y\"]}\n",
        "{\"id\":5,\"score\":-1.25,\"tags\":[]}\n",
    );
    let archive = archive_in_pairs("from-json", "rows.jsonl", lines);
    let back = stdout(&succeeds(&["to-json", path(&archive), "--lines"]));
    assert_eq!(back, lines);
    // Each chunk whose schema widened is shown with its own.
    let schema = stdout(&succeeds(&["schema", path(&archive)]));
    let headings: Vec<&str> = (schema.lines())
        .filter(|line| line.starts_with("chunk"))
        .collect();
    assert_eq!(
        headings,
        [
            "chunk 0 (rows 0..2):",
            "chunk 1 (rows 2..4):",
            "chunk 2 (rows 4..5):"
        ],
        "{schema}"
    );
    assert!(schema.contains("score: union"), "{schema}");
    // The same rows as one array, compact or indented as serde_json indents it.
    let array: serde_json::Value =
        serde_json::from_str(&stdout(&succeeds(&["to-json", path(&archive)]))).unwrap();
    assert_eq!(array, serde_json::Value::Array(json_lines(lines)));
    assert_eq!(
        stdout(&succeeds(&["to-json", path(&archive), "--pretty"])),
        serde_json::to_string_pretty(&array).unwrap() + "\n"
    );
    // Some rows: only the chunks that hold them.
    let some = stdout(&succeeds(&[
        "to-json",
        path(&archive),
        "--rows",
        "1..4",
        "--lines",
    ]));
    assert_eq!(
        some,
        lines.lines().skip(1).take(3).collect::<Vec<_>>().join("\n") + "\n"
    );
    assert_eq!(
        stdout(&succeeds(&["to-json", path(&archive), "--rows", "9.."])).trim(),
        "[]"
    );
    let bad = tree_buf(&["to-json", path(&archive), "--rows", "x..2"]);
    assert!(!bad.status.success() && stderr(&bad).contains("not a row number"));
    // Paths across chunks, the late field's too.
    let columns: serde_json::Value = serde_json::from_str(&stdout(&succeeds(&[
        "to-json",
        path(&archive),
        "--path",
        "[].score",
        "--path",
        "[].tags",
    ])))
    .unwrap();
    // A chunk without the field has no values there; one with it has null where a row lacks it.
    assert_eq!(
        columns,
        serde_json::json!({"[].score": [3, 4, 4.5, 5, -1.25], "[].tags": [null, ["x", "y"], []]})
    );
    let info: serde_json::Value =
        serde_json::from_str(&stdout(&succeeds(&["info", path(&archive), "--json"]))).unwrap();
    assert_eq!(info["rows"], 5);
    assert_eq!(info["chunks"].as_array().unwrap().len(), 3);
}

#[test]
fn json_input_kinds_are_told_apart() {
    // A root array: an archive of its items.
    let output = with_stdin(&["from-json", "-", "-o", "-"], b"  [1, 2, 3]");
    assert!(output.status.success(), "{}", stderr(&output));
    let file = scratch("items.tb");
    std::fs::write(&file, &output.stdout).unwrap();
    let info = stdout(&succeeds(&["info", path(&file)]));
    assert!(info.contains("archive, 3 rows in 1 chunks"), "{info}");
    // JSON lines of arrays need --lines; with it, each array is a row.
    let arrays = scratch_file("arrays.jsonl", "[1, 2]\n[3]\n");
    let output = scratch("arrays.tb");
    fails(
        &["from-json", path(&arrays), "-o", path(&output)],
        "need --lines",
    );
    assert!(!output.exists());
    succeeds(&["from-json", path(&arrays), "--lines", "-o", path(&output)]);
    assert_eq!(
        stdout(&succeeds(&["to-json", path(&output)])).trim(),
        "[[1,2],[3]]"
    );
    // One object stays a file of one value.
    let one = scratch_file("one.json", r#"{"a": {"b": [1, 2]}}"#);
    let output = scratch("one.tb");
    succeeds(&["from-json", path(&one), "-o", path(&output)]);
    let info = stdout(&succeeds(&["info", path(&output)]));
    assert!(info.contains("one value (not an archive)"), "{info}");
    fails(&["to-json", path(&output), "--lines"], "has no rows");
}

#[test]
fn json_nests_as_deep_as_it_likes() {
    let depth = 20_000;
    let object = format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth));
    let array = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    // One value, a file of its columns; and rows of an archive, the first of them deep.
    let rows = format!("[{object},{array},2]");
    for (name, json) in [("deep.json", &object), ("deep_rows.json", &rows)] {
        let input = scratch_file(name, json);
        let output = scratch(&format!("{name}.tb"));
        succeeds(&["from-json", path(&input), "-o", path(&output)]);
        let back = stdout(&succeeds(&["to-json", path(&output)]));
        let back: String = back.chars().filter(|c| !c.is_whitespace()).collect();
        assert!(back == *json, "{name} came back otherwise");
        fails(
            &["to-json", path(&output), "--max-depth", "100"],
            "--max-depth",
        );
    }
}

#[test]
fn a_reader_that_stops_early_ends_commands_quietly() {
    let file = scratch("closed.tb");
    let json = scratch_file("closed.json", "[{\"a\": 1}, {\"a\": 2}]");
    succeeds(&["from-json", path(&json), "-o", path(&file)]);
    // Standard output's reader is gone before the program writes (`| head` that stopped).
    for args in [
        &["info", path(&file)][..],
        &["schema", path(&file)],
        &["to-json", path(&file)],
        &["to-csv", path(&file)],
        &["size-breakdown", path(&file)],
        &["from-json", path(&json), "-o", "-"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tree-buf"))
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the tree-buf binary runs");
        drop(child.stdout.take());
        let output = child.wait_with_output().expect("the program ends");
        assert!(output.status.success(), "{args:?}: {}", stderr(&output));
        assert_eq!(stderr(&output), "", "{args:?}");
    }
}

#[test]
fn csv_round_trips_through_an_archive() {
    // Column c is blank in the first chunk: it keeps its place in the header.
    let text = "a,b,c,d\n1,x,,true\n2,y,,false\n3,\"z, q\",1.5,\n4,w,2.5,true\n";
    let archive = archive_in_pairs("from-csv", "table.csv", text);
    assert_eq!(stdout(&succeeds(&["to-csv", path(&archive)])), text);
    let rows = json_lines(&stdout(&succeeds(&["to-json", path(&archive), "--lines"])));
    assert_eq!(rows[0], serde_json::json!({"a": 1, "b": "x", "d": true}));
    assert_eq!(
        rows[3],
        serde_json::json!({"a": 4, "b": "w", "c": 2.5, "d": true})
    );
    assert_eq!(
        stdout(&succeeds(&["to-csv", path(&archive), "--rows", "3.."])),
        "a,b,c,d\n4,w,2.5,true\n"
    );
    // A file of one array of objects, nested values as JSON text.
    let nested = with_stdin(
        &["from-json", "-", "--lines", "-o", "-"],
        br#"{"n": 1, "p": [1, 2], "q": null} {"n": 2, "o": {"k": "v"}}"#,
    );
    let file = scratch("nested.tb");
    std::fs::write(&file, &nested.stdout).unwrap();
    assert_eq!(
        stdout(&succeeds(&["to-csv", path(&file)])),
        "n,p,q,o\n1,\"[1,2]\",,\n2,,,\"{\"\"k\"\":\"\"v\"\"}\"\n"
    );
    let plain = with_stdin(&["from-json", "-", "-o", "-"], br#"{"rows": [1]}"#);
    let file = scratch("plain.tb");
    std::fs::write(&file, &plain.stdout).unwrap();
    fails(&["to-csv", path(&file)], "has no rows");
}

#[test]
fn append_adds_rows_from_json_and_csv() {
    let archive = scratch("appended.tb");
    let first = scratch_file("first.jsonl", "{\"a\":1}\n{\"a\":2}\n");
    succeeds(&["from-json", path(&first), "-o", path(&archive)]);
    let more = scratch_file("more.json", r#"[{"a": 3}, {"a": 4.5, "b": "new"}]"#);
    succeeds(&["append", path(&archive), path(&more)]);
    let csv = scratch_file("more.csv", "a,b\n5,x\n");
    succeeds(&["append", path(&archive), path(&csv)]);
    let single = with_stdin(
        &["append", path(&archive), "-", "--format", "json"],
        br#"{"a": 6}"#,
    );
    assert!(single.status.success(), "{}", stderr(&single));
    assert_eq!(
        stdout(&succeeds(&["to-json", path(&archive)])).trim(),
        r#"[{"a":1},{"a":2},{"a":3},{"a":4.5,"b":"new"},{"a":5,"b":"x"},{"a":6}]"#
    );
    let info = stdout(&succeeds(&["info", path(&archive)]));
    assert!(info.contains("archive, 6 rows in 4 chunks"), "{info}");
    let unknown = scratch_file("rows.txt", "{}");
    fails(&["append", path(&archive), path(&unknown)], "--format");
    let plain = scratch("plain-one.tb");
    succeeds(&[
        "from-json",
        path(&scratch_file("o.json", "{}")),
        "-o",
        path(&plain),
    ]);
    fails(&["append", path(&plain), path(&first)], "plain-one.tb");
}

#[test]
fn info_describes_chunks_and_unfinished_archives() {
    let archive = archive_in_pairs(
        "from-json",
        "info.jsonl",
        "{\"n\":1,\"s\":\"b\"}\n{\"n\":7,\"s\":\"a\"}\n{\"n\":3}\n",
    );
    let text = stdout(&succeeds(&["info", path(&archive)]));
    assert!(text.contains("archive, 3 rows in 2 chunks"), "{text}");
    let line = |path: &str| {
        text.lines()
            .find(|line| line.starts_with(&format!("{path} ")))
            .unwrap_or_else(|| panic!("no {path} in {text}"))
            .split_whitespace()
            .collect::<Vec<_>>()
    };
    // path, type, bytes, values, chunks, min, max.
    let n = line("[].n");
    assert_eq!((n[1], n[3], n[4], n[5], n[6]), ("u64", "3", "2", "1", "7"));
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&succeeds(&["info", path(&archive), "--json"]))).unwrap();
    let chunk = &json["chunks"][0];
    assert_eq!(
        (chunk["first_row"].as_u64(), chunk["rows"].as_u64()),
        (Some(0), Some(2))
    );
    let s = (chunk["branches"].as_array().unwrap().iter())
        .find(|b| b["path"] == "[].s" && b["type"] == "string")
        .unwrap();
    assert_eq!(s["statistics"], serde_json::json!({"min": "a", "max": "b"}));

    // An archive cut after its first chunk: an error that points to --recover, which reads it.
    let bytes = std::fs::read(&archive).unwrap();
    let end = json["chunks"][0]["offset"].as_u64().unwrap()
        + json["chunks"][0]["bytes"].as_u64().unwrap();
    let cut = scratch("cut.tb");
    std::fs::write(&cut, &bytes[..end as usize + 3]).unwrap();
    fails(&["to-json", path(&cut)], "--recover");
    let recovered = tree_buf(&["info", path(&cut), "--recover"]);
    assert!(recovered.status.success(), "{}", stderr(&recovered));
    assert!(stdout(&recovered).contains("archive, 2 rows in 1 chunks"));
    assert!(
        stderr(&recovered).contains("warning"),
        "{}",
        stderr(&recovered)
    );
    assert_eq!(
        stdout(&succeeds(&["to-json", path(&cut), "--recover"])).trim(),
        r#"[{"n":1,"s":"b"},{"n":7,"s":"a"}]"#
    );

    // schema shows an archive's chunks under their one schema; size-breakdown gives an
    // archive's totals over its chunks.
    let schema = stdout(&succeeds(&["schema", path(&archive)]));
    assert!(
        schema.starts_with("chunk 0 (rows 0..2):\n")
            && schema.contains("\n    s: string")
            && schema.contains("chunk 1 (rows 2..3):\n"),
        "{schema}"
    );
    let breakdown = stdout(&succeeds(&["size-breakdown", path(&archive)]));
    assert!(breakdown.contains("[].s"), "{breakdown}");
}

#[test]
fn to_json_streams_an_archive_from_standard_input_a_chunk_at_a_time() {
    let lines: String = (0..7)
        .map(|i| format!("{{\"id\":{i},\"name\":\"n{i}\"}}\n"))
        .collect();
    let archive = archive_in_pairs("from-json", "streamed.jsonl", &lines);
    let bytes = std::fs::read(&archive).unwrap();
    let from_file = stdout(&succeeds(&["to-json", path(&archive), "--lines"]));
    // Chunks of one schema are shown once.
    let schema = stdout(&succeeds(&["schema", path(&archive)]));
    assert!(
        schema.starts_with("chunks 0 to 3 (rows 0..7), with chunk 0's branch sizes:\n"),
        "{schema}"
    );
    let streamed = with_stdin(&["to-json", "-", "--lines"], &bytes);
    assert!(streamed.status.success());
    assert_eq!(stdout(&streamed), from_file);
    assert_eq!(from_file, lines);
    // A range stops reading once it is past; an array is written as from a file.
    let some = with_stdin(&["to-json", "-", "--rows", "3..5"], &bytes);
    assert_eq!(
        stdout(&some).trim(),
        r#"[{"id":3,"name":"n3"},{"id":4,"name":"n4"}]"#
    );
    // A `.zst` file streams the same way.
    let compressed = scratch("streamed.tb.zst");
    std::fs::write(&compressed, zstd::encode_all(bytes.as_slice(), 3).unwrap()).unwrap();
    assert_eq!(
        stdout(&succeeds(&["to-json", path(&compressed), "--lines"])),
        from_file
    );
    // A stream whose writer stopped: an error, unless --recover, which gives the complete chunks.
    let cut = &bytes[..bytes.len() - 30];
    let failed = with_stdin(&["to-json", "-", "--lines"], cut);
    assert!(!failed.status.success());
    let recovered = with_stdin(&["to-json", "-", "--lines", "--recover"], cut);
    assert!(recovered.status.success());
    let rows = stdout(&recovered);
    assert!(!rows.is_empty() && from_file.starts_with(&rows), "{rows}");
    // A file of one value on standard input is read whole, as before.
    let one = scratch("one.tb");
    succeeds(&[
        "from-json",
        path(&scratch_file("one.json", "{\"a\":[1,2]}")),
        "-o",
        path(&one),
    ]);
    let value = with_stdin(&["to-json", "-"], &std::fs::read(&one).unwrap());
    assert_eq!(stdout(&value).trim(), r#"{"a":[1,2]}"#);
    // A path needs the footer, so the input is read whole for it.
    let ids = with_stdin(&["to-json", "-", "--path", "[].id"], &bytes);
    assert_eq!(stdout(&ids).trim(), r#"{"[].id":[0,1,2,3,4,5,6]}"#);
}

#[test]
#[cfg(feature = "query")]
fn query_answers_sql_over_archives_in_every_format() {
    let input = scratch_in("query", "input.json");
    let rows: Vec<String> = (0..50)
        .map(|i| format!(r#"{{"team": "{}", "runs": {}}}"#, ["BOS", "NYA"][i % 2], i))
        .collect();
    std::fs::write(&input, rows.join("\n")).unwrap();
    let archive = scratch_in("query", "games.tb");
    succeeds(&[
        "from-json",
        path(&input),
        "-o",
        path(&archive),
        "--chunk-rows",
        "10",
    ]);
    let table = format!("games={}", path(&archive));
    let sql = "SELECT team, sum(runs) AS runs FROM games GROUP BY team ORDER BY team";
    let run = |format: &str| {
        stdout(&succeeds(&[
            "query", sql, "--table", &table, "--format", format,
        ]))
    };
    assert_eq!(
        run("table"),
        "+------+------+\n| team | runs |\n+------+------+\n| BOS  | 600  |\n| NYA  | 625  |\n+------+------+\n"
    );
    assert_eq!(run("csv"), "team,runs\nBOS,600\nNYA,625\n");
    assert_eq!(
        run("json"),
        "[{\"team\":\"BOS\",\"runs\":600},{\"team\":\"NYA\",\"runs\":625}]\n"
    );
    assert_eq!(
        run("jsonl"),
        "{\"team\":\"BOS\",\"runs\":600}\n{\"team\":\"NYA\",\"runs\":625}\n"
    );

    // Statements run in order; only answers with columns are printed.
    let create = format!(
        "CREATE EXTERNAL TABLE g STORED AS TREEBUF LOCATION '{}'; SELECT count(*) AS n FROM g",
        path(&archive)
    );
    assert_eq!(
        stdout(&succeeds(&["query", &create, "--format", "csv"])),
        "n\n50\n"
    );

    fails(
        &["query", "SELECT nope FROM games", "--table", &table],
        "No field named nope",
    );
    fails(
        &["query", "SELECT 1", "--table", "games=/no/such.tb"],
        "/no/such.tb",
    );
}

#[test]
#[cfg(not(feature = "query"))]
fn query_says_how_to_get_it_when_built_without_it() {
    fails(&["query", "SELECT 1"], "--features query");
}

#[test]
#[cfg(feature = "parquet")]
fn parquet_round_trips_through_archives() {
    let input = scratch_in("parquet", "input.json");
    let rows: Vec<String> = (0..300)
        .map(|i| {
            // Lists of varying length (arrays all of one length are read as tuples).
            let tags: Vec<String> = (0..i % 4).map(|t| format!(r#""t{t}""#)).collect();
            let tags = if i % 3 == 0 {
                String::new()
            } else {
                format!(r#", "tags": [{}]"#, tags.join(", "))
            };
            format!(
                r#"{{"id": {i}, "score": {}.5, "ok": {}{tags}}}"#,
                i * 7,
                i % 2 == 0
            )
        })
        .collect();
    std::fs::write(&input, rows.join("\n")).unwrap();
    let archive = scratch_in("parquet", "source.tb");
    succeeds(&[
        "from-json",
        path(&input),
        "-o",
        path(&archive),
        "--chunk-rows",
        "100",
    ]);
    let parquet = scratch_in("parquet", "rows.parquet");
    succeeds(&["to-parquet", path(&archive), "-o", path(&parquet)]);
    let back = scratch_in("parquet", "back.tb");
    succeeds(&[
        "from-parquet",
        path(&parquet),
        "-o",
        path(&back),
        "--chunk-rows",
        "100",
    ]);
    let json = |file: &Path| stdout(&succeeds(&["to-json", path(file), "--lines"]));
    let (back, source) = (json(&back), json(&archive));
    for (line, (got, expected)) in back.lines().zip(source.lines()).enumerate() {
        assert_eq!(got, expected, "row {line}");
    }
    assert_eq!(back.lines().count(), 300);

    fails(
        &[
            "from-parquet",
            path(&archive),
            "-o",
            path(&scratch_in("parquet", "no.tb")),
        ],
        "Parquet",
    );
    fails(
        &[
            "to-parquet",
            path(&input),
            "-o",
            path(&scratch_in("parquet", "no.parquet")),
        ],
        "input.json",
    );
}

#[test]
#[cfg(feature = "parquet")]
fn parquet_types_come_back_after_a_trip_through_an_archive() {
    use std::sync::Arc;

    use arrow_array::types::Int32Type;
    use arrow_array::{
        ArrayRef, Date32Array, Decimal128Array, DictionaryArray, Float32Array, Int16Array,
        RecordBatch, TimestampMillisecondArray,
    };
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use parquet::arrow::ArrowWriter;

    let rows = 500;
    let some = |i: usize| !i.is_multiple_of(7);
    let columns: Vec<(&str, ArrayRef)> = vec![
        (
            "at",
            Arc::new(
                TimestampMillisecondArray::from_iter(
                    (0..rows).map(|i| some(i).then_some(1_700_000_000_000 + i as i64 * 60_000)),
                )
                .with_timezone("Europe/Paris"),
            ),
        ),
        (
            "day",
            Arc::new(Date32Array::from_iter_values(
                (0..rows).map(|i| 19_000 + i as i32 / 10),
            )),
        ),
        (
            "price",
            Arc::new(
                Decimal128Array::from_iter_values((0..rows).map(|i| i as i128 * 37 - 5_000))
                    .with_precision_and_scale(9, 2)
                    .unwrap(),
            ),
        ),
        (
            "team",
            Arc::new(DictionaryArray::<Int32Type>::from_iter(
                (0..rows).map(|i| some(i).then_some(["BOS", "NYA", "CHA"][i % 3])),
            )),
        ),
        (
            "ratio",
            Arc::new(Float32Array::from_iter_values(
                (0..rows).map(|i| i as f32 / 3.0),
            )),
        ),
        (
            "runs",
            Arc::new(Int16Array::from_iter_values(
                (0..rows).map(|i| (i % 11) as i16),
            )),
        ),
    ];
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let parquet = scratch_in("parquet_types", "typed.parquet");
    let mut writer = ArrowWriter::try_new(
        std::fs::File::create(&parquet).unwrap(),
        batch.schema(),
        None,
    )
    .unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();

    let archive = scratch_in("parquet_types", "typed.tb");
    succeeds(&["from-parquet", path(&parquet), "-o", path(&archive)]);
    let info: serde_json::Value =
        serde_json::from_str(&stdout(&succeeds(&["info", path(&archive), "--json"]))).unwrap();
    assert!(info["metadata"]["ARROW:schema"].is_string(), "{info}");
    let text = stdout(&succeeds(&["info", path(&archive)]));
    assert!(text.contains("ARROW:schema: ("), "{text}");

    let back = scratch_in("parquet_types", "back.parquet");
    succeeds(&["to-parquet", path(&archive), "-o", path(&back)]);
    let read = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&back).unwrap())
        .unwrap()
        .build()
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    assert_eq!(read.len(), 1);
    for (field, expected) in batch.schema().fields().iter().zip(batch.columns()) {
        let column = read[0].column_by_name(field.name()).unwrap();
        assert_eq!(column.data_type(), field.data_type(), "{}", field.name());
        assert_eq!(column.as_ref(), expected.as_ref(), "{}", field.name());
    }
}

#[test]
#[cfg(feature = "parquet")]
fn to_parquet_writes_an_archive_whose_rows_widened_part_way() {
    // Scores are integers in the first chunk, integers and floats in the second, floats in the
    // third; `extra` appears in the third.
    let input = scratch_in("parquet_widened", "input.json");
    let score = |i: u32| {
        if i < 150 || (i < 200 && i.is_multiple_of(2)) {
            format!("{}", i * 7)
        } else {
            format!("{}.5", i * 7)
        }
    };
    let rows: Vec<String> = (0..300)
        .map(|i| {
            let extra = if i >= 200 {
                format!(r#", "extra": "x{i}""#)
            } else {
                String::new()
            };
            format!(r#"{{"id": {i}, "score": {}{extra}}}"#, score(i))
        })
        .collect();
    std::fs::write(&input, rows.join("\n")).unwrap();
    let archive = scratch_in("parquet_widened", "source.tb");
    let chunked = ["--chunk-rows", "100"];
    succeeds(
        &[
            &["from-json", path(&input), "-o", path(&archive)],
            &chunked[..],
        ]
        .concat(),
    );
    let parquet = scratch_in("parquet_widened", "rows.parquet");
    succeeds(&["to-parquet", path(&archive), "-o", path(&parquet)]);
    let back = scratch_in("parquet_widened", "back.tb");
    succeeds(
        &[
            &["from-parquet", path(&parquet), "-o", path(&back)],
            &chunked[..],
        ]
        .concat(),
    );
    // Every score is a float now, with its value; `extra` is where it was.
    let json = stdout(&succeeds(&["to-json", path(&back), "--lines"]));
    let lines: Vec<&str> = json.lines().collect();
    assert_eq!(lines.len(), 300);
    for (i, line) in (0u32..).zip(&lines) {
        let score = score(i);
        let score = if score.contains('.') {
            score
        } else {
            format!("{score}.0")
        };
        let extra = if i >= 200 {
            format!(r#","extra":"x{i}""#)
        } else {
            String::new()
        };
        assert_eq!(*line, format!(r#"{{"id":{i},"score":{score}{extra}}}"#));
    }
}

#[test]
#[cfg(not(feature = "parquet"))]
fn parquet_commands_say_how_to_get_them_when_built_without_them() {
    fails(
        &["to-parquet", "a.tb", "-o", "a.parquet"],
        "--features parquet",
    );
}
