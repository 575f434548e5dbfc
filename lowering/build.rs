//! Stamps the compiler with an id of its own source (the crate's `src/`
//! and the dialect's definition), so that autotuning results cached by an
//! older compiler are not taken for this one's.

use std::path::Path;

fn hash_tree(path: &Path, value: &mut u64) {
    let Ok(entries) = std::fs::read_dir(path) else { return };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for entry in entries {
        if entry.is_dir() {
            hash_tree(&entry, value);
        } else if let Ok(bytes) = std::fs::read(&entry) {
            for byte in entry.to_string_lossy().bytes().chain(bytes) {
                *value ^= u64::from(byte);
                *value = value.wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
    }
}

fn main() {
    let mut value: u64 = 0xcbf2_9ce4_8422_2325;
    for dir in ["src", "../dialects/td", "../dialects/cpp"] {
        println!("cargo:rerun-if-changed={dir}");
        hash_tree(Path::new(dir), &mut value);
    }
    println!(
        "cargo:rustc-env=TILE_COMPILER_ID={}-{value:016x}",
        std::env::var("CARGO_PKG_VERSION").unwrap_or_default()
    );
}
