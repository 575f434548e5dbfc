//! The `tile` MLIR dialect.
//!
//! The dialect is defined once, in `td/Tile.td`. `build.rs` generates its C++
//! with `mlir-tblgen` and links it beside mlir-sys's static MLIR; the Rust
//! builders in [`ops`] come from the same file through melior's `dialect!`.
//! [`types`] builds and inspects `!tile.partition_view` and the tile enums;
//! [`layout`] builds and reads the layouts that tile tensors carry as their
//! encoding on the GPU path.
//!
//! Invariant: every entry point that creates a context goes through
//! [`register`] or [`registry()`], so that the tile dialect and all upstream
//! dialects are there before any IR is parsed.

pub mod attrs;
pub mod diagnostics;
pub mod layout;
pub mod registry;
pub mod types;

pub use registry::{create_context, register, registry};

/// Rust builders and accessors for every tile op, generated from `Tile.td`.
#[allow(clippy::all, missing_docs, unused)]
pub mod ops {
    melior::dialect! {
        name: "tile",
        files: ["Tile.td"],
        include_directory_env_vars: ["TILE_TD_DIR"],
    }
    pub use tile::*;
}

/// Typed builders for upstream `nvvm` ops, generated from LLVM 22's own
/// ODS (melior ships none for this dialect).
#[allow(clippy::all, missing_docs, unused)]
pub mod nvvm {
    melior::dialect! {
        name: "nvvm",
        files: ["NVVMOps.td"],
        include_directories: ["mlir/Dialect/LLVMIR"],
    }
    pub use self::nvvm::*;
}

/// Errors of this crate.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A type, attribute or module did not parse or did not verify.
    #[error("invalid {what}: {text}")]
    Invalid { what: &'static str, text: String },
}

/// The text of an MLIR string reference (lossy UTF-8; empty for a null one).
///
/// # Safety
///
/// `string` must be null or point to `length` readable bytes.
pub unsafe fn string_ref_text(string: mlir_sys::MlirStringRef) -> String {
    if string.data.is_null() || string.length == 0 {
        return String::new();
    }
    // SAFETY: non-null and `length` readable bytes, by the caller's contract.
    let bytes = unsafe { std::slice::from_raw_parts(string.data.cast::<u8>(), string.length) };
    String::from_utf8_lossy(bytes).into_owned()
}
