//! `tile-persist-blocks`: the register path's TMA variant of a kernel
//! asked for `persistent = 1` made persistent: resident blocks that each
//! walk several of the program's tile blocks.
//!
//! Summary: the program is written for one tile block of a 1-D grid of
//! `T` blocks. The variant takes `T` as an extra last argument (the
//! runtime passes the program's grid to a `tile.persistent` variant and
//! launches as many blocks `G` as are resident at once); its body becomes
//! a loop over the virtual blocks `b, b + G, ...` below `T`, each
//! iteration the program's body with the block id that virtual block and
//! the program's `tile.num_blocks x` the argument `T`. What the loop
//! repeats is what a hand-written persistent program
//! (`bench/gemm/persistent.mlir`) has after `tile-prefetch-loads`: each
//! tile's first ring loads before its K loop, the TMA store's staging
//! reused. The program's ops without effects that do not depend on the
//! block (views, tile counts, constants) stay before the loop, so that
//! the K loop has the same bounds in every walk and its rings continue
//! from one tile block to the next (`registers::tma::continued`: no
//! barrier initialisation a tile). Under a producer warp the next tile's
//! first loads run under this tile's epilogue (the store's staging has
//! memory of its own in a loop); without one they are issued after it.
//!
//! Before (a TMA variant, after `tile-use-tma`):
//! ```mlir
//! func.func @k__tma(%A, %B, %C, %dA, %dB, %dC) attributes {tile.hints = {persistent = 1}, tile.variant_of = @k} {
//!   %bid = tile.block_id x : index
//!   ... the program ...
//!   return
//! }
//! ```
//! After:
//! ```mlir
//! func.func @k__tma(%A, %B, %C, %dA, %dB, %dC, %T: index) attributes {..., tile.persistent} {
//!   %b = tile.block_id x : index
//!   %g = tile.num_blocks x : index
//!   scf.for %v = %b to %T step %g {
//!     ... the program, %bid -> %v, its tile.num_blocks x -> %T ...
//!   }
//!   return
//! }
//! ```
//!
//! Caveats: only a TMA variant of the register path (`tile-use-tma`'s,
//! with the kernel's `persistent = 1` hint), not a retiled one
//! (`tile.retiled`: wide or narrow blocks), whose blocks use only `tile.block_id x` (a 1-D grid,
//! which the runtime's persistent launch needs), and that does not walk
//! its tiles itself (a loop from `tile.block_id x` by `tile.num_blocks
//! x`). The kernel itself is unchanged: it runs where the variant does not.

use crate::{
    build::At,
    pass::{PassInfo, TilePass},
    rewrite::{Probe, defining_op, detach, op_name},
};
use melior::{
    ContextRef,
    ir::{
        Attribute, BlockLike, OperationRef, RegionLike, Type, TypeLike, ValueLike,
        operation::{OperationLike, OperationMutLike, OperationRefMut, WalkOrder, WalkResult},
    },
    pass::{ExternalPass, RunExternalPass},
};
use tile_dialect::{attrs, ops};

/// The `tile-persist-blocks` pass.
#[derive(Clone, Default)]
pub struct PersistBlocks;

impl TilePass for PersistBlocks {
    const INFO: PassInfo = PassInfo {
        argument: "tile-persist-blocks",
        name: "TilePersistBlocks",
        summary: "Make the register path's TMA variant of a kernel asked for persistent = 1 walk the program's \
                  tile blocks in resident blocks",
        op_name: "func.func",
    };
    crate::pass_type_id!();
}

impl<'c> RunExternalPass<'c> for PersistBlocks {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        let asked = operation.has_attribute(attrs::VARIANT_OF)
            && crate::rewrite::hint(operation, attrs::knob::PERSISTENT.key) == Some(1);
        if !asked || operation.has_attribute(attrs::PERSISTENT) {
            return;
        }
        if let Err(why) = applies(operation) {
            if !why.is_empty() {
                let name = crate::rewrite::symbol_label(operation);
                crate::remarks::missed(
                    operation.location(),
                    Self::INFO.argument,
                    "VariantNotPersistent",
                    &format!("variant{name} keeps one tile a block (persistent = 1 not applied): {why}"),
                );
            }
            return;
        }
        let context = operation.context();
        // SAFETY: the context outlives the pass run.
        let context = unsafe { context.to_ref() };
        if persist(context, operation).is_none() {
            crate::rewrite::emit_error(operation.location(), "tile-persist-blocks: could not rewrite this variant");
            pass.signal_failure();
        }
    }
}

/// Whether `variant` (asked for `persistent = 1`, not persistent yet) is
/// one this pass makes persistent; else why not (empty: nothing to say,
/// for a program that walks its tiles itself).
fn applies(variant: OperationRef) -> Result<(), &'static str> {
    if variant.has_attribute(attrs::RETILED) {
        return Err("its blocks compute other tiles than the program's (tile.retiled: several, or part of one)");
    }
    if crate::registers::cluster::spanned(variant) > 1 {
        return Err("its blocks run as clusters");
    }
    if crate::registers::warps::cluster_sums(variant) {
        // Its scratch would be written for the next tile while the first
        // block may still read this one's.
        return Err("its blocks sum their accumulators across the cluster once (split_k)");
    }
    let (mut tma, mut one_axis, mut walks, mut ids) = (false, true, false, false);
    variant.walk(WalkOrder::PreOrder, |op| {
        match op_name(op).as_str() {
            "tile.load" if op.has_attribute(attrs::TMA_LOAD) => tma = true,
            "tile.block_id" | "tile.num_blocks" => {
                one_axis &= on_x(op);
                ids |= op_name(op) == "tile.block_id";
            }
            "scf.for" => {
                let is = |i: usize, name: &str| {
                    op.operand_at(i).and_then(|v| defining_op(detach(v))).is_some_and(|d| op_name(d) == name)
                };
                walks |= is(0, "tile.block_id") && is(2, "tile.num_blocks");
            }
            _ => {}
        }
        WalkResult::Advance
    });
    match () {
        _ if walks => Err(""),
        _ if !tma => Err("the TMA fills none of its loads' rings"),
        _ if !one_axis => Err("its program uses a grid of more than one dimension"),
        _ if !ids => Err("its program does not use its block id"),
        _ => Ok(()),
    }
}

fn on_x(op: OperationRef) -> bool {
    op.attribute("axis").is_ok_and(|a| a.to_string().ends_with("x>"))
}

/// The rewrite (see the module's summary).
fn persist<'c>(context: &'c melior::Context, variant: OperationRef<'c, '_>) -> Option<()> {
    let entry = variant.region_at(0)?.first_block()?;
    let terminator = entry.terminator()?;
    let first = entry.first_operation()?;
    let location = variant.location();
    // The program's grid, the last argument (after the descriptors).
    // SAFETY: `entry` is the variant's live entry block; the function type
    // gets the same argument below.
    let grid = unsafe {
        let raw = mlir_sys::mlirBlockAddArgument(entry.to_raw(), Type::index(context).to_raw(), location.to_raw());
        detach(melior::ir::Value::from_raw(raw))
    };
    crate::abi::add_descriptor_arguments(context, variant, &[], true)?;
    let axis = first_axis(context, variant)?;
    let at = At { context, location, block: entry, before: Some(first) };
    let block = at.add(ops::block_id(context, axis, location))?;
    let blocks = at.add(ops::num_blocks(context, axis, location))?;
    let end = At { context, location, block: entry, before: Some(terminator) };
    let (body, virtual_block) = end.scf_for(block, grid, blocks)?;
    let r#loop = body.block.parent_operation()?;
    let yield_op = body.block.terminator()?;
    // Every op of the program (after the two just built, before the loop)
    // into the loop, in order, but those the loop may compute once: ops
    // without effects whose operands do not come from the loop (the
    // views, tile counts, constants). So the K loop's bounds stay
    // outside, and its rings continue from one tile block to the next
    // (`registers::tma::continued`).
    let mut next = defining_op(blocks)?.next_in_block();
    let mut old_ids = Vec::new();
    let mut inside = std::collections::HashSet::new();
    while let Some(op) = next {
        if op.to_raw().ptr == r#loop.to_raw().ptr {
            break;
        }
        next = op.next_in_block();
        let from_loop = (0..op.operand_count()).any(|i| {
            op.operand_at(i).and_then(|v| defining_op(detach(v))).is_some_and(|d| inside.contains(&d.to_raw().ptr))
        });
        if !from_loop && invariant_kind(op) {
            continue;
        }
        inside.insert(op.to_raw().ptr);
        // SAFETY: both are live ops of the variant; the op moves into the
        // loop's body, before its yield, keeping its order.
        unsafe { mlir_sys::mlirOperationMoveBefore(op.to_raw(), yield_op.to_raw()) };
        if matches!(op_name(op).as_str(), "tile.block_id" | "tile.num_blocks") {
            old_ids.push(op);
        }
    }
    for op in old_ids {
        let replacement = if op_name(op) == "tile.block_id" { virtual_block } else { grid };
        let result = op.result_at(0)?;
        // SAFETY: both values are live; the old op is erased right after.
        unsafe {
            mlir_sys::mlirValueReplaceAllUsesOfWith(result.to_raw(), replacement.to_raw());
            mlir_sys::mlirOperationDestroy(op.to_raw());
        }
    }
    // SAFETY: the variant, mutated only through this handle here.
    let mut variant = unsafe { OperationRefMut::from_raw(variant.to_raw()) };
    variant.set_attribute(attrs::PERSISTENT, Attribute::unit(context));
    Some(())
}

/// Whether `op` is of a kind the loop may compute once, before it, when
/// its operands come from outside: no effects, no regions, and defined
/// for every operand (no division, which the loop might never have
/// reached with a zero divisor).
fn invariant_kind(op: OperationRef) -> bool {
    let name = op_name(op);
    match name.as_str() {
        "arith.constant" | "tile.partition_view" | "tile.num_tiles" => true,
        "tile.block_id" | "tile.num_blocks" => false,
        _ => {
            name.starts_with("arith.")
                && !["div", "rem", "ceil", "floor"].iter().any(|d| name.contains(d))
                && op.region_count() == 0
        }
    }
}

/// The `axis` attribute of the variant's first `tile.block_id` (x: the
/// grid is 1-D, [`applies`]).
fn first_axis<'c>(context: &'c melior::Context, variant: OperationRef<'c, '_>) -> Option<Attribute<'c>> {
    let mut found = None;
    variant.walk(WalkOrder::PreOrder, |op| {
        if op_name(op) == "tile.block_id" && found.is_none() {
            found = op.attribute("axis").ok().map(|a| a.to_string());
        }
        WalkResult::Advance
    });
    Attribute::parse(context, &found?)
}
