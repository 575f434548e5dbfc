//! The tile runtime: what it takes to run a compiled tile kernel, without
//! MLIR.
//!
//! * [`Array`]: a host array of one of the language's element types, read
//!   from and written to `.npy` ([`npy`]); `bf16` and the `f8` types travel
//!   as their raw bits (`<u2`, `|u1`).
//! * [`Signature`]: a kernel's parameter ABI (memrefs and scalars), which the
//!   compiler writes and the launchers check arguments against before any
//!   launch, so that a wrong argument is a typed [`Error`], never a fault.
//!
//! Invariant: this crate never links MLIR; compiled kernels reach it as
//! data (PTX plus metadata) or, for the CPU target, as a function pointer
//! from the compiler's JIT.

pub mod array;
pub mod bundle;
#[cfg(feature = "cublas")]
pub mod cublas;
pub mod cuda;
pub mod npy;
pub mod signature;
pub mod tma;
pub mod tune;

pub use array::{Array, DType};
pub use bundle::{Bundle, KernelInfo, TmaDescriptor, Variant};
pub use signature::{Arg, Grid, Param, Scalar, ScalarType, Signature, memref_slots};

/// Errors of the runtime: bad arguments, bad files, bad launches.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("kernel @{kernel} takes {expected} arguments, got {got}")]
    ArgumentCount { kernel: String, expected: usize, got: usize },
    #[error("argument #{index}: expected {expected}, got {got}")]
    ArgumentKind { index: usize, expected: String, got: String },
    #[error("argument #{index}: the memref has element type {expected}, the array has {got}")]
    DType { index: usize, expected: String, got: String },
    #[error("argument #{index}: the memref has rank {expected}, the array has shape {got:?}")]
    Rank { index: usize, expected: usize, got: Vec<usize> },
    #[error("argument #{index}: dim {dim} of the memref is {expected}, the array's is {got}")]
    Shape { index: usize, dim: usize, expected: u64, got: usize },
    #[error(
        "argument #{index}: the memref's stride {dim} is {expected}, a contiguous array of shape {shape:?} has {got}"
    )]
    Stride { index: usize, dim: usize, expected: i64, got: i64, shape: Vec<usize> },
    #[error("argument #{index}: '{text}' is not a {expected} scalar")]
    Scalar { index: usize, text: String, expected: String },
    #[error("invalid grid {0:?}: each dim must be at least 1 and the block count fit in 63 bits")]
    Grid([u64; 3]),
    #[error("{path}: {reason}")]
    Npy { path: String, reason: String },
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("array data has {got} bytes; shape {shape:?} of {dtype} needs {expected}")]
    DataSize { dtype: String, shape: Vec<usize>, expected: usize, got: usize },
    #[error("no kernel @{0} in this bundle")]
    NoKernel(String),
    #[error("launch failed: {0}")]
    Launch(String),
    #[error("no CUDA driver: libcuda.so could not be loaded")]
    NoDriver,
    #[error("no usable GPU: {0}")]
    NoGpu(String),
    #[error("cuBLAS: {0}")]
    Blas(String),
    #[error("tuning {0}")]
    Tune(String),
}

/// This crate's result type.
pub type Result<T> = std::result::Result<T, Error>;
