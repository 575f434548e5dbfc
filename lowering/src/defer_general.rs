//! `tile-defer-general-kernels`: leaves out the general kernel of each
//! kernel that has variants, so that only the variants are compiled.
//!
//! Summary: a kernel's variants (`tile-use-tma`'s, `tile-finish-widening`'s,
//! `tile-persist-blocks`') run for the arguments they can take, the TMA
//! ones for arrays whose descriptors encode; the kernel itself, the
//! general kernel, takes any arguments and is most of what a module
//! compiles (its copy and store paths for every alignment). Where a
//! caller knows its arguments, it compiles the variants alone first and the
//! whole kernel only when no variant takes them, as a JIT specialises on
//! its arguments. This pass erases each kernel some other function names
//! in its `tile.variant_of` and says so in a remark; `gpu::compile_with`
//! with `General::Deferred` runs it after the variants are made, marks the
//! kernel `deferred` in the bundle, and compiles the kernel whole where
//! `convert-tile-to-gpu` later drops every variant of it.
//!
//! Before:
//! ```mlir
//! func.func @k(%A: memref<?x?xf16>, ...) attributes {tile.kernel} { ... }
//! func.func @k__tma(%A: memref<?x?xf16>, ..., %dA: !llvm.ptr {tile.tma = ...})
//!     attributes {tile.kernel, tile.variant_of = @k} { ... }
//! ```
//! After:
//! ```mlir
//! func.func @k__tma(%A: memref<?x?xf16>, ..., %dA: !llvm.ptr {tile.tma = ...})
//!     attributes {tile.kernel, tile.variant_of = @k} { ... }
//! ```
//!
//! Caveats: run it after the passes that make variants (in `tile-to-ptx`,
//! at the end of the layouts stage, option `general=deferred`). A kernel
//! without variants stays. The PTX that comes out has no entry for an
//! erased kernel: a launch of it must take a variant
//! (`tile_runtime::Error::Deferred` otherwise). Run by hand (`tile-opt`), a
//! kernel whose variants `convert-tile-to-gpu` later drops for want of
//! shared memory is left with no entry at all (its remark says so);
//! `gpu::compile_with` compiles such a module whole instead.

use crate::{
    pass::{PassInfo, TilePass},
    rewrite::kernels,
};
use melior::{
    ContextRef,
    ir::{OperationRef, attribute::StringAttribute, operation::OperationLike},
    pass::{ExternalPass, RunExternalPass},
};
use std::collections::HashSet;
use tile_dialect::attrs::VARIANT_OF;

/// The `tile-defer-general-kernels` pass.
#[derive(Clone, Default)]
pub struct DeferGeneralKernels;

impl TilePass for DeferGeneralKernels {
    const INFO: PassInfo = PassInfo {
        argument: "tile-defer-general-kernels",
        name: "TileDeferGeneralKernels",
        summary: "Erase the general kernel of each kernel that has variants (tile.variant_of), so that only the \
                  variants are compiled",
        op_name: "builtin.module",
    };
    crate::pass_type_id!();
}

impl<'c> RunExternalPass<'c> for DeferGeneralKernels {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, _pass: ExternalPass<'_>) {
        let all = kernels(operation, &[]);
        // SAFETY (both closures): live top-level functions collected above;
        // nothing is erased until every name has been read.
        let of = |raw| unsafe { OperationRef::from_raw(raw) }.attribute(VARIANT_OF).ok();
        let owners: HashSet<String> = all.iter().filter_map(|&raw| of(raw)).map(|a| a.to_string()).collect();
        for raw in kernels(operation, &[VARIANT_OF]) {
            // SAFETY: as above.
            let kernel = unsafe { OperationRef::from_raw(raw) };
            let Some(name) = kernel.attribute("sym_name").ok().and_then(|a| StringAttribute::try_from(a).ok()) else {
                continue;
            };
            let name = name.value();
            if !owners.contains(&format!("@{name}")) {
                continue;
            }
            crate::remarks::passed(
                kernel.location(),
                Self::INFO.argument,
                "GeneralDeferred",
                &format!("@{name} is left out: only its variants are compiled (the general kernel is deferred)"),
            );
            // SAFETY: a top-level function that nothing calls (kernels are
            // launched by name; the variants name it only in an attribute,
            // which the bundle reads as text).
            unsafe { mlir_sys::mlirOperationDestroy(raw) };
        }
    }
}
