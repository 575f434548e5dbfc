//! What the tile compiler and the tile runtime exchange, as plain data.
//!
//! * [`DType`] and [`Array`]: the language's element types and dense host
//!   arrays of them.
//! * [`Signature`]: a kernel's parameter ABI (memrefs and scalars), which
//!   the compiler writes and every launcher checks arguments against before
//!   a launch ([`Signature::check`]), so that a wrong argument is a typed
//!   [`Error`], never a fault; [`Arg`] and [`Grid`] are what a launch takes.
//! * [`Bundle`]: a compiled GPU module, PTX plus each kernel's launch
//!   metadata and specialised [`Variant`]s with their [`TmaDescriptor`]s.
//! * [`Config`]: one point of a kernel's tuning space.
//!
//! Invariant: this crate links neither MLIR nor CUDA, so the compiler
//! (`tile-lowering`) and the runtime (`tile-runtime`) both depend on it and
//! not on each other.

pub mod array;
pub mod bundle;
pub mod config;
pub mod signature;

pub use array::{Array, DType};
pub use bundle::{Bundle, GridSlice, KernelInfo, Retiled, StreamK, TmaDescriptor, Variant};
pub use config::{Config, distinct};
pub use signature::{Arg, Grid, Param, Scalar, ScalarType, Signature, memref_slots};

/// Arguments that do not fit a kernel's parameters, and malformed data.
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
    #[error("invalid grid {0:?}: grids keep CUDA's limits on both targets, x below 2^31 and y and z at most 65535")]
    Grid([u64; 3]),
    #[error("'{0}' is not a grid: X[,Y[,Z]], block counts")]
    GridSyntax(String),
    #[error("array data has {got} bytes; shape {shape:?} of {dtype} needs {expected}")]
    DataSize { dtype: String, shape: Vec<usize>, expected: usize, got: usize },
    #[error("invalid bundle: {0}")]
    Bundle(#[from] serde_json::Error),
    /// A configuration's text (`key=value,...`) that does not parse.
    #[error("{0}")]
    Config(String),
}

/// This crate's result type.
pub type Result<T> = std::result::Result<T, Error>;
