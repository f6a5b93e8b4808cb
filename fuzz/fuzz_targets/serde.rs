#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| {
    tree_buf_fuzz::serde(bytes);
});
