//! Shared helpers: contexts, the repository's paths and its tools.

use melior::Context;
use std::{
    path::{Path, PathBuf},
    process::Command,
    sync::Mutex,
};

static REGISTRATION: Mutex<()> = Mutex::new(());

/// A context with every dialect tile programs use. Registration runs under a
/// lock: MLIR's global registries are not thread-safe.
pub fn context() -> Context {
    let _guard = REGISTRATION.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    tile_dialect::create_context()
}

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// A binary of this workspace, built beside the test binary
/// (`target/<profile>/`). `cargo test --workspace` builds it.
pub fn tool(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    // target/<profile>/deps/integration-<hash>
    let dir = exe.parent().and_then(Path::parent).expect("target directory");
    let path = dir.join(name);
    assert!(path.exists(), "{} not found: build the workspace first (cargo build --workspace)", path.display());
    path
}

/// Runs `tile-opt` on a file and returns what it prints.
pub fn tile_opt(args: &[&str]) -> String {
    let output = Command::new(tool("tile-opt")).args(args).output().expect("run tile-opt");
    assert!(output.status.success(), "tile-opt {args:?} failed:\n{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).expect("utf-8 output")
}
