//! `tile-finish-widening`: the variants of `tile-widen-blocks`' instances
//! become their kernel's.
//!
//! Summary: after `tile-use-tma` has made each instance's variants (an
//! instance is compiled as any kernel), every variant of an instance
//! (`tile.wide_of = @K`: `@K__wide`, `@K__wide__wide`, `@K__narrow`,
//! `@K__widek`) is moved right after `@K` and relabelled
//! `tile.variant_of = @K`, keeping the instance's `tile.retiled`. Variants
//! of retiled instances come first, so the runtime tries them before
//! `@K`'s own; it takes a wide one only for launches whose wide blocks fill
//! the GPU, a narrow one only where the program's blocks do not, so at
//! most one of them for a launch. A K-widened instance's TMA variant goes
//! before `@K`'s TMA variant, which stays for where the instance's cannot
//! run. Where an instance's tiles are 128x128 (a 64x128 program's wide
//! instance), the instance itself becomes `@K`'s last variant: rows the TMA
//! cannot describe then run the wider blocks' threads' copies. Every other
//! instance is erased.
//!
//! Before:
//! ```mlir
//! func.func @k(...) attributes {tile.kernel} { ... }
//! func.func @k__tma(...) attributes {tile.kernel, tile.variant_of = @k} { ... }
//! func.func @k__wide(...) attributes {tile.kernel, tile.wide_of = @k, tile.retiled = array<i64: 2, 0, 1, 128, 128, 128, 256>} { ... }
//! func.func @k__wide__tma(...) attributes {tile.kernel, tile.variant_of = @k__wide, tile.wide_of = @k,
//!     tile.retiled = array<i64: 2, 0, 1, 128, 128, 128, 256>} { ... }
//! ```
//! After:
//! ```mlir
//! func.func @k(...) attributes {tile.kernel} { ... }
//! func.func @k__wide__tma(...) attributes {tile.kernel, tile.retiled = array<i64: 2, 0, 1, 128, 128, 128, 256>,
//!     tile.variant_of = @k} { ... }
//! func.func @k__tma(...) attributes {tile.kernel, tile.variant_of = @k} { ... }
//! ```
//!
//! Caveats: a K-widened instance's variants that leave a shared tile to the
//! threads' copies are erased (wider copies measured slower: BENCHMARKS.md,
//! session 27); an instance whose kernel is gone is left as it is. See
//! [`crate::widen_blocks`] for what each instance computes.

use crate::{
    pass::{PassInfo, TilePass},
    rewrite::{Probe, op_name},
    widen_blocks::find,
};
use melior::{
    ContextRef,
    ir::{
        Attribute, BlockLike, OperationRef, RegionLike, ValueLike,
        attribute::{DenseI64ArrayAttribute, StringAttribute},
        operation::{OperationLike, OperationMutLike, WalkOrder, WalkResult},
    },
    pass::{ExternalPass, RunExternalPass},
};
use tile_dialect::attrs::{self, VARIANT_OF};

/// The `tile-finish-widening` pass.
#[derive(Clone, Default)]
pub struct FinishWidening;

impl TilePass for FinishWidening {
    const INFO: PassInfo = PassInfo {
        argument: "tile-finish-widening",
        name: "TileFinishWidening",
        summary: "Make the variants of each widened instance (tile.wide_of) variants of its kernel, tried first, \
                  and the instance itself its last variant where its tiles are 128x128, else erase it",
        op_name: "builtin.module",
    };
    crate::pass_type_id!();
}

impl<'c> RunExternalPass<'c> for FinishWidening {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, _pass: ExternalPass<'_>) {
        let context = operation.context();
        // SAFETY: the context outlives the pass run.
        let context = unsafe { context.to_ref() };
        let Some(body) = operation.region_at(0).and_then(|r| r.first_block()) else { return };
        let symbol = |op: OperationRef| -> Option<String> {
            op.attribute("sym_name").ok().and_then(|a| StringAttribute::try_from(a).ok()).map(|s| s.value().to_string())
        };
        let mut instances: Vec<(mlir_sys::MlirOperation, String)> = Vec::new();
        let mut next = body.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            // The instance's variants are copies of it, `tile.wide_of`
            // included.
            if let Ok(of) = op.attribute(attrs::WIDE_OF)
                && !op.has_attribute(VARIANT_OF)
            {
                instances.push((op.to_raw(), of.to_string()));
            }
        }
        // Instances of wider K steps first: their variants follow the
        // kernel's own, which the wide instances' variants then precede.
        let retiled_of = |raw: mlir_sys::MlirOperation| {
            // SAFETY: a live top-level function of the list.
            unsafe { OperationRef::from_raw(raw) }.has_attribute(attrs::RETILED)
        };
        instances.sort_by_key(|(raw, _)| retiled_of(*raw));
        for (raw, of) in instances {
            // SAFETY: a live top-level function, erased below.
            let instance = unsafe { OperationRef::from_raw(raw) };
            let Some(name) = symbol(instance) else { continue };
            let retiled = instance.attribute(attrs::RETILED).ok();
            let Some(kernel) = find(body, &of) else { continue };
            let Some(of_attribute) = Attribute::parse(context, &of) else { continue };
            let variants_of = |owner: &str| {
                let mut variants = Vec::new();
                let mut next = body.first_operation();
                while let Some(op) = next {
                    next = op.next_in_block();
                    if op.attribute(VARIANT_OF).is_ok_and(|v| v.to_string() == owner) {
                        variants.push(op.to_raw());
                    }
                }
                variants
            };
            let mut variants = variants_of(&format!("@{name}"));
            // The instance's variants go right after the kernel, before its
            // own TMA variant, which stays for where theirs cannot run (one
            // that turns out too large for shared memory,
            // `convert-tile-to-gpu`).
            let mut after = kernel;
            if retiled.is_none() {
                let is_tma = |raw: mlir_sys::MlirOperation| {
                    // SAFETY: a live top-level function.
                    symbol(unsafe { OperationRef::from_raw(raw) })
                        .is_some_and(|s| s.ends_with(crate::use_tma::VARIANT_SUFFIX))
                };
                // Wider steps only on the TMA's rings: a ring of wider tiles
                // the threads copy measured slower (the kernel's, run 5 of
                // session 27).
                variants.retain(|&raw| {
                    // SAFETY: a live top-level function; erased here at most.
                    let variant = unsafe { OperationRef::from_raw(raw) };
                    if is_tma(raw) && all_rings_tma(variant) {
                        return true;
                    }
                    // SAFETY: a variant nothing refers to (kernels are entry
                    // points); the kernel's own stands in for it.
                    unsafe { mlir_sys::mlirOperationDestroy(raw) };
                    false
                });
            }
            for variant in variants {
                // SAFETY: a live top-level function, moved within the
                // module and relabelled.
                unsafe {
                    mlir_sys::mlirOperationMoveAfter(variant, after.to_raw());
                    let mut variant = melior::ir::operation::OperationRefMut::from_raw(variant);
                    variant.set_attribute(VARIANT_OF, of_attribute);
                    let _ = variant.remove_attribute(attrs::WIDE_OF);
                    if let Some(retiled) = retiled {
                        variant.set_attribute(attrs::RETILED, retiled);
                    }
                    after = OperationRef::from_raw(variant.to_raw());
                }
            }
            if retiled.is_some_and(general_path_kept) {
                // The instance's own path, last of the kernel's variants:
                // where no TMA variant can run (rows not 16-byte aligned),
                // a launch of one block per program tile runs the wider
                // tiles' threads' copies rather than the program's.
                let last = variants_of(&of).last().map_or(after.to_raw(), |&v| v);
                // SAFETY: a live top-level function, moved within the
                // module after another and relabelled; nothing else names it.
                unsafe {
                    mlir_sys::mlirOperationMoveAfter(raw, last);
                    let mut instance = melior::ir::operation::OperationRefMut::from_raw(raw);
                    instance.set_attribute(VARIANT_OF, of_attribute);
                    let _ = instance.remove_attribute(attrs::WIDE_OF);
                }
                continue;
            }
            // SAFETY: nothing calls the instance (kernels are entry points)
            // and its variants no longer name it.
            unsafe { mlir_sys::mlirOperationDestroy(raw) };
        }
    }
}

/// Whether a wide instance (its `tile.retiled`) stays as a variant of its
/// kernel with its own, threads'-copies path: where its tiles are 128x128,
/// the A B programs' block, whose copies overlap the wgmmas where a block
/// has its multiprocessor to itself (`registers::shared::finish_copies`);
/// a 64x128x32 program's own blocks share a multiprocessor and wait for
/// their copies (BENCHMARKS.md, session 30, run 4). A 128x256 instance's path would
/// hold 128 accumulator registers a thread beside its copies.
fn general_path_kept(retiled: Attribute) -> bool {
    DenseI64ArrayAttribute::try_from(retiled)
        .is_ok_and(|r| r.len() == 7 && r.element(5).ok() == Some(128) && r.element(6).ok() == Some(128))
}

/// Whether every tile of `variant` that stays in shared memory (an mma
/// operand) is one the TMA loads.
fn all_rings_tma(variant: OperationRef) -> bool {
    let mut all = true;
    variant.walk(WalkOrder::PreOrder, |op| {
        if op_name(op) == "tile.load"
            && op.result_at(0).is_some_and(|r| crate::registers::shared::SharedTile::of_type(r.r#type()).is_some())
            && !op.has_attribute(attrs::TMA_LOAD)
        {
            all = false;
        }
        WalkResult::Advance
    });
    all
}
