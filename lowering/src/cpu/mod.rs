//! The CPU target: the `tile-to-cpu` pipeline and an in-process JIT
//! ([`CpuKernel`]) that runs kernels on host arrays.
//!
//! `tile-to-cpu` lowers every op of the language through upstream dialects
//! to the LLVM dialect:
//!
//! 1. `tile-specialize` (a kernel's `tile.config`, if any), `tile-simplify`,
//!    `convert-tile-to-linalg`: tile value ops to linalg and tensor ops;
//! 2. `convert-tile-to-memref`: loads and stores to clamped subviews, with
//!    the view's padding and masked stores, exactly the GPU's semantics;
//! 3. `convert-tile-to-scf`: the grid as a loop over a range of block ids;
//! 4. upstream: elementwise ops to linalg, one-shot bufferization,
//!    deallocation, `tile-expand-copies`, linalg to loops, and everything
//!    to LLVM (`arith-expand` first, so `bf16` works on any host).
//!
//! The pipeline has no options.

mod jit;

pub use jit::CpuKernel;

use crate::pass::{PipelineInfo, TilePipeline, parse_options};

/// The `tile-to-cpu` pipeline.
pub struct TileToCpu;

/// The stages of `tile-to-cpu`, in order: a name (for snapshots and
/// `--mlir-print-ir-after`) and its passes.
pub const STAGES: &[(&str, &str)] = &[
    ("linalg", "tile-specialize, tile-simplify, convert-tile-to-linalg"),
    ("memref", "convert-tile-to-memref"),
    ("grid", "convert-tile-to-scf"),
    (
        "bufferized",
        "func.func(convert-elementwise-to-linalg), canonicalize, one-shot-bufferize, buffer-deallocation-pipeline, \
         tile-expand-copies",
    ),
    (
        "llvm",
        "func.func(convert-linalg-to-loops), expand-strided-metadata, lower-affine, arith-expand{include-bf16=true}, \
         convert-scf-to-cf, convert-to-llvm, reconcile-unrealized-casts",
    ),
];

/// The passes of `tile-to-cpu`, in order.
pub fn passes() -> String {
    STAGES.iter().map(|(_, passes)| *passes).collect::<Vec<_>>().join(", ")
}

impl TilePipeline for TileToCpu {
    const INFO: PipelineInfo = PipelineInfo {
        argument: "tile-to-cpu",
        summary: "Lower tile kernels to the LLVM dialect for the host CPU: the grid becomes a loop over block ids",
    };

    fn expand(options: &str) -> Result<String, String> {
        parse_options(options, &[])?;
        Ok(passes())
    }
}
