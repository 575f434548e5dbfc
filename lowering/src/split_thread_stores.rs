//! `tile-split-thread-stores`: a TMA variant whose store descriptors are
//! optional becomes two, one that requires them and one for the outputs
//! the TMA cannot describe.
//!
//! Summary: `tile-use-tma` gives a `tile.store` it writes out through the
//! TMA an optional descriptor, null where the runtime cannot describe the
//! output (rows not 16-byte aligned), and the variant's threads then store
//! the tile themselves (`registers::tma_store`). That branch changes the
//! code of the path that runs (LLVM shares the two paths' addresses,
//! ptxas allocates and schedules the epilogue and even the main loop
//! around it) and is most of the variant's compile time. This pass makes
//! each variant with optional descriptors require them, and puts a copy
//! of it right after it, `<variant>__thread_store`, whose descriptors stay
//! optional: the runtime takes the variants in order, so the copy runs
//! only where the first cannot. `tile-defer-general-kernels` leaves the
//! copy out with the general kernel.
//!
//! Before:
//! ```mlir
//! func.func @k__tma(..., %dC: !llvm.ptr {tile.tma = {arg = 2, box = ..., optional, swizzle = 128}})
//!     attributes {tile.kernel, tile.variant_of = @k} { ... }
//! ```
//! After:
//! ```mlir
//! func.func @k__tma(..., %dC: !llvm.ptr {tile.tma = {arg = 2, box = ..., swizzle = 128}})
//!     attributes {tile.kernel, tile.variant_of = @k} { ... }
//! func.func @k__tma__thread_store(..., %dC: !llvm.ptr {tile.tma = {arg = 2, box = ..., optional, swizzle = 128}})
//!     attributes {tile.kernel, tile.variant_of = @k} { ... }
//! ```
//!
//! A persistent walk (a store in a loop) is split too. What made it slower
//! without its branch (a fifth, BENCHMARKS.md, sessions 39 and 40) was
//! not the branch: LLVM then computed the store's coordinates after the
//! mma loop, ptxas ran that loop off its uniform datapath, and
//! `registers::tma_store` now computes them before it.
//!
//! Caveats: run it after every pass that makes or changes variants (in
//! `tile-to-ptx`, at the end of the layouts stage): the copy is a variant
//! like the others, and a pass after it would treat both. The copy
//! doubles the variant's compile time where the general kernel is
//! compiled too.

use crate::{
    abi,
    pass::{PassInfo, TilePass},
    rewrite::kernels,
};
use melior::{
    ContextRef,
    ir::{
        BlockLike, OperationRef,
        attribute::StringAttribute,
        operation::{OperationLike, OperationMutLike},
    },
    pass::{ExternalPass, RunExternalPass},
};
use tile_dialect::attrs::VARIANT_OF;

/// The suffix of the copy's name.
pub const SUFFIX: &str = "__thread_store";

/// The `tile-split-thread-stores` pass.
#[derive(Clone, Default)]
pub struct SplitThreadStores;

impl TilePass for SplitThreadStores {
    const INFO: PassInfo = PassInfo {
        argument: "tile-split-thread-stores",
        name: "TileSplitThreadStores",
        summary: "Make each variant with optional TMA store descriptors require them, with a copy \
                  (`__thread_store`) whose threads store the outputs the TMA cannot describe",
        op_name: "builtin.module",
    };
    crate::pass_type_id!();
}

impl<'c> RunExternalPass<'c> for SplitThreadStores {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, _pass: ExternalPass<'_>) {
        let context = operation.context();
        // SAFETY: the context outlives the pass run, and `to_ref` borrows
        // the handle bound above.
        let context = unsafe { context.to_ref() };
        for raw in kernels(operation, &[]) {
            // SAFETY: a live top-level function collected above; the pass
            // only adds functions after it and changes its attributes.
            let variant = unsafe { OperationRef::from_raw(raw) };
            if !variant.has_attribute(VARIANT_OF) || !abi::has_optional_descriptor(variant) {
                continue;
            }
            let Some(name) = variant.attribute("sym_name").ok().and_then(|a| StringAttribute::try_from(a).ok()) else {
                continue;
            };
            let name = name.value().to_string();
            let Some(block) = variant.block() else { continue };
            // SAFETY: mlirOperationClone returns a new op owned by the
            // caller, which the block takes over.
            let copy = unsafe { melior::ir::operation::Operation::from_raw(mlir_sys::mlirOperationClone(raw)) };
            let copy = block.insert_operation_after(variant, copy);
            // SAFETY: the copy just inserted, changed only through this
            // handle here.
            let mut copy = unsafe { melior::ir::operation::OperationRefMut::from_raw(copy.to_raw()) };
            copy.set_attribute("sym_name", StringAttribute::new(context, &format!("{name}{SUFFIX}")).into());
            abi::require_descriptors(context, variant);
        }
    }
}
