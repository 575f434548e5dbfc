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
//! in its `tile.variant_of` and says so in a remark, and with it each
//! variant of it whose descriptors are optional, or that has none, where
//! another variant requires them (`tile-split-thread-stores`'
//! `__thread_store` copies, for outputs the TMA cannot describe; a 128x128
//! wide instance kept with its threads' copies, `tile-finish-widening`,
//! for rows it cannot): those arguments take the general kernel, compiled
//! when a launch needs them, with those variants. `gpu::compile_with` with
//! `General::Deferred` runs it after the variants are made, marks the
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
//! (a `@k__tma__thread_store` beside `@k__tma`, its store descriptor
//! optional, is erased too).
//!
//! Caveats: run it after the passes that make variants (in `tile-to-ptx`,
//! at the end of the layouts stage, option `general=deferred`). A kernel
//! without variants stays. The PTX that comes out has no entry for an
//! erased kernel: a launch of it must take a variant
//! (`tile_runtime::Error::Deferred` otherwise). A variant with optional
//! descriptors stays where no other variant of its kernel requires them
//! (in a module that `tile-split-thread-stores` has not split).
//! Run by hand (`tile-opt`), a kernel whose variants `convert-tile-to-gpu`
//! later drops for want of shared memory is left with no entry at all
//! (its remark says so); `gpu::compile_with` compiles such a module whole
//! instead.

use crate::{
    abi,
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
        // SAFETY (closures and loops below): live top-level functions
        // collected here; nothing is erased until every name has been read.
        let op = |raw| unsafe { OperationRef::from_raw(raw) };
        let name_of =
            |raw| op(raw).attribute("sym_name").ok().and_then(|a| StringAttribute::try_from(a).ok()).map(|n| n.value());
        // Each variant, the kernel it is of, and whether it takes every
        // output (optional descriptors: `tile-split-thread-stores`' copy;
        // or none: a 128x128 wide instance's own path, `finish_widening`).
        let variants: Vec<_> = kernels(operation, &[])
            .into_iter()
            .filter_map(|raw| Some((raw, op(raw).attribute(VARIANT_OF).ok()?.to_string())))
            .map(|(raw, owner)| {
                let general = !abi::has_descriptor(op(raw)) || abi::has_optional_descriptor(op(raw));
                (raw, owner, general)
            })
            .collect();
        // Every kernel that has variants is deferred; its variants that take
        // what the TMA cannot describe go with it where another variant
        // requires descriptors (a `__thread_store` copy, a wide instance's
        // threads' copies).
        let deferred: HashSet<&str> = variants.iter().map(|(_, owner, _)| owner.as_str()).collect();
        let copied: HashSet<&str> =
            variants.iter().filter(|(_, _, general)| !general).map(|(_, owner, _)| owner.as_str()).collect();
        let mut erased = Vec::new();
        for raw in kernels(operation, &[VARIANT_OF]) {
            let Some(name) = name_of(raw) else { continue };
            if deferred.contains(format!("@{name}").as_str()) {
                crate::remarks::passed(
                    op(raw).location(),
                    Self::INFO.argument,
                    "GeneralDeferred",
                    &format!("@{name} is left out: only its variants are compiled (the general kernel is deferred)"),
                );
                erased.push(raw);
            }
        }
        for (raw, owner, general) in &variants {
            if *general && copied.contains(owner.as_str()) {
                let name = name_of(*raw).unwrap_or_default();
                crate::remarks::passed(
                    op(*raw).location(),
                    Self::INFO.argument,
                    "ThreadStoreDeferred",
                    &format!(
                        "@{name} is left out with {owner}: it runs for arrays the TMA cannot describe, as the \
                         general kernel does"
                    ),
                );
                erased.push(*raw);
            }
        }
        for raw in erased {
            // SAFETY: a top-level function that nothing calls (kernels are
            // launched by name; variants name their kernel only in an
            // attribute, which the bundle reads as text), erased once.
            unsafe { mlir_sys::mlirOperationDestroy(raw) };
        }
    }
}
