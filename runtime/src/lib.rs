//! The tile runtime: what it takes to run a compiled tile kernel, without
//! MLIR.
//!
//! * [`npy`]: host [`Array`]s read from and written to `.npy`; `bf16` and
//!   the `f8` types travel as their raw bits (`<u2`, `|u1`).
//! * [`cuda`]: loads a [`Bundle`] and launches its kernels, after checking
//!   the arguments against each kernel's [`Signature`].
//! * [`ptxas`]: assembles PTX to cubins with NVIDIA's `ptxas` (a process),
//!   which `cuda`'s preload prefers to the driver's JIT.
//! * [`tma`]: which arrays a TMA descriptor can describe.
//! * [`tune`]: the tuner and its cache.
//!
//! The data both sides exchange (arrays, signatures, bundles, tuning
//! configurations) lives in `tile-abi`; it is re-exported here, so a user
//! of the runtime needs one crate.
//!
//! Invariant: this crate never links MLIR; compiled kernels reach it as
//! data (PTX plus metadata) or, for the CPU target, as a function pointer
//! from the compiler's JIT.

#[cfg(feature = "cublas")]
pub mod cublas;
pub mod cuda;
pub mod npy;
pub mod ptxas;
pub mod tma;
pub mod tune;

pub use tile_abi;
pub use tile_abi::{
    Arg, Array, Bundle, Config, DType, Grid, GridSlice, KernelInfo, Param, Retiled, Scalar, ScalarType, Signature,
    StreamK, TmaDescriptor, Variant, array, bundle, memref_slots, signature,
};

/// Errors of the runtime: bad arguments, bad files, bad launches.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Arguments that do not fit the kernel, or malformed data.
    #[error(transparent)]
    Abi(#[from] tile_abi::Error),
    #[error("{path}: {reason}")]
    Npy { path: String, reason: String },
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("no kernel @{0} in this bundle")]
    NoKernel(String),
    #[error("launch failed: {0}")]
    Launch(String),
    /// The bundle holds only kernel `kernel`'s variants (`KernelInfo::deferred`)
    /// and none takes these arguments: the caller compiles the kernel whole.
    #[error("@{kernel}'s general kernel was not compiled (deferred) and no variant takes these arguments{}", why(.passed_over))]
    Deferred { kernel: String, passed_over: Vec<String> },
    #[error("no CUDA driver: libcuda.so could not be loaded")]
    NoDriver,
    #[error("no usable GPU: {0}")]
    NoGpu(String),
    #[error("cuBLAS: {0}")]
    Blas(String),
    #[error("tuning {0}")]
    Tune(String),
    /// An array a TMA descriptor cannot describe.
    #[error("TMA: {0}")]
    Tma(#[from] tma::Unsupported),
}

fn why(passed_over: &[String]) -> String {
    if passed_over.is_empty() { " (variants are off)".into() } else { format!(": {}", passed_over.join("; ")) }
}

/// An error and its causes joined by ": ", each said once: a cause whose
/// text the message before it already holds (an I/O error that an error
/// both prints and keeps as its source) is left out. The tools print their
/// errors this way.
pub fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut cause = Some(error);
    while let Some(current) = cause {
        let text = current.to_string();
        if !text.is_empty() && !parts.last().is_some_and(|last| last.contains(&text)) {
            parts.push(text);
        }
        cause = current.source();
    }
    parts.join(": ")
}

/// This crate's result type.
pub type Result<T> = std::result::Result<T, Error>;
