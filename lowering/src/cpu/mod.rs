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
//! 4. upstream: elementwise ops to linalg, one-shot bufferization (loops
//!    may yield new buffers) and `tile-carry-in-place` (each tile a loop
//!    carries keeps one buffer: any loop the language allows bufferizes),
//!    deallocation, `tile-expand-copies`, linalg to loops, and everything
//!    to LLVM.
//!
//! Before LLVM, two guarantees that the host's instructions do not give:
//!
//! * `bf16` arithmetic runs on any x86 host: math ops on `bf16` are
//!   extended to `f32` (`math-extend-to-supported-types`; `f16` stays,
//!   LLVM promotes it itself), arith ops are emulated in `f32`
//!   (`arith-emulate-unsupported-floats`), and `arith-expand` turns the
//!   conversions into integer code. Otherwise LLVM calls compiler-rt's
//!   `__truncsfbf2`, which the JIT cannot resolve; each op rounds once to
//!   nearest even, as on the GPU.
//! * integer division never traps (`tile-safe-division`, after
//!   `arith-expand`, which makes divisions of ceildiv and floordiv):
//!   `x / 0` is all ones and `x % 0` is `x`, what NVIDIA's `div.u` and
//!   `rem.u` give, and `MIN / -1` wraps; `tile-to-ptx` runs the same guard,
//!   so both targets agree.
//! * math functions LLVM has no intrinsic for (`math.erf`) become calls of
//!   the C library's (`erff`), which the JIT resolves in the process
//!   (`convert-math-to-libm` after `convert-to-llvm`, so that `exp`,
//!   `sqrt` and the like stay LLVM intrinsics).
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
    (
        "linalg",
        "tile-specialize, tile-simplify, func.func(tile-group-blocks, tile-reverse-blocks, tile-version-masks, tile-widen-k), convert-tile-to-linalg",
    ),
    ("memref", "convert-tile-to-memref"),
    ("grid", "convert-tile-to-scf"),
    (
        "bufferized",
        "func.func(convert-elementwise-to-linalg), canonicalize, \
         one-shot-bufferize{allow-return-allocs-from-loops=true}, tile-carry-in-place, buffer-deallocation-pipeline, \
         tile-expand-copies",
    ),
    (
        "llvm",
        "func.func(convert-linalg-to-loops), expand-strided-metadata, lower-affine, \
         math-extend-to-supported-types{extra-types=f16 target-type=f32}, \
         arith-emulate-unsupported-floats{source-types=bf16 target-type=f32}, arith-expand{include-bf16=true}, \
         tile-safe-division, convert-scf-to-cf, convert-to-llvm, convert-math-to-libm, convert-func-to-llvm, \
         reconcile-unrealized-casts",
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
