// Sets `cfg(datasets_missing)` when the real datasets are not there (`$TREE_BUF_DATASETS`, else
// `../shared/datasets` beside the workspace), so that the tests that need them are marked
// `#[cfg_attr(datasets_missing, ignore = "...")]`: the harness then lists them as ignored, with
// the reason, instead of passing without testing anything. `tools/build.rs` includes this file.

use std::path::PathBuf;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(datasets_missing)");
    println!("cargo::rerun-if-env-changed=TREE_BUF_DATASETS");
    let dir = match std::env::var_os("TREE_BUF_DATASETS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"))
            .join("../../shared/datasets"),
    };
    // A path that does not exist makes cargo run this again on every build, so the cfg follows
    // the folder appearing as well as disappearing.
    println!("cargo::rerun-if-changed={}", dir.display());
    if !dir.is_dir() {
        println!("cargo::rustc-cfg=datasets_missing");
    }
}
