//! Persistent blocks for the wgmma variant: each block walks several of
//! the program's tile blocks, so that the next tile's first operands are
//! in flight while this tile's epilogue runs, and the ring, its barriers
//! and the block itself are set up once.
//!
//! The program is written for one tile block of a 1-D grid of `T`
//! blocks. The persistent variant takes `T` as an extra last argument and
//! is launched with as many blocks `G` as fit on the GPU at once (the
//! runtime's occupancy query); block `b` handles the virtual blocks
//! `b, b + G, ...`, `count` of them, in a loop around the program's K loop.
//! The ring counts K steps across tiles (flat iteration `t * nk + k`), so
//! its look-ahead runs over tile boundaries: the loads of the next K steps
//! take the tile's coordinates (the program's block-dependent index
//! arithmetic, cloned once per tile for its virtual block), and past the
//! tile's end, which only its last few steps reach, those of the flat
//! iteration's own tile, found by division. After each K loop the
//! accumulator is stored through the TMA epilogue, into a buffer of its
//! own, as the ring is busy with the next tile. No per-iteration division
//! and no accumulator through a branch: an earlier version had one flat
//! loop with both and ran at half of cuBLAS's speed (BENCHMARKS.md).
//!
//! It applies when the kernel is nothing but one such main loop and its
//! store: pure index arithmetic around them (`arith`, `tile.partition_view`,
//! `tile.num_tiles`, one `tile.block_id x`), a loop from 0 by 1 whose trip
//! count does not depend on the block, loads that can be requested ahead,
//! and the TMA epilogue; anything else keeps one tile per block.

use super::IrValue;
use crate::{
    build::At,
    rewrite::{constant_index, defining_op, detach, op_name},
};
use melior::ir::{BlockLike, OperationRef, RegionLike, ValueLike, operation::OperationLike};
use std::collections::HashMap;

/// The value of the kernel's one `tile.block_id x`, and those of its
/// `tile.num_blocks x` (the program's grid: `tile-group-blocks` reads it),
/// which the variant replaces by its count of virtual blocks.
pub(super) struct Persistent {
    pub block_id: mlir_sys::MlirValue,
    pub grids: Vec<mlir_sys::MlirValue>,
}

/// Whether the kernel around `for_op` can run persistently.
pub(super) fn find(
    kernel: OperationRef,
    for_op: OperationRef,
    store: mlir_sys::MlirOperation,
    truncf: Option<mlir_sys::MlirOperation>,
) -> Option<Persistent> {
    let entry = kernel.region(0).ok()?.first_block()?;
    if for_op.block()? != entry {
        return None;
    }
    if constant_index(for_op.operand(0).ok()?) != Some(0) || constant_index(for_op.operand(2).ok()?) != Some(1) {
        return None;
    }
    let mut block_id = None;
    let mut grids = Vec::new();
    let mut after_loop = false;
    let mut next = entry.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        let raw = op.to_raw();
        if raw.ptr == for_op.to_raw().ptr {
            after_loop = true;
            continue;
        }
        let name = op_name(op);
        if raw.ptr == store.ptr || truncf.is_some_and(|t| t.ptr == raw.ptr) || name == "func.return" {
            continue;
        }
        // What the loop's body and the store read is then all defined
        // before the loop, where the flat loop can recompute it.
        if after_loop {
            return None;
        }
        if name == "tile.block_id" {
            let axis = op.attribute("axis").ok()?.to_string();
            if block_id.is_some() || !axis.ends_with("x>") {
                return None;
            }
            block_id = Some(op.result(0).ok()?.to_raw());
            continue;
        }
        if name == "tile.num_blocks" {
            if !op.attribute("axis").ok()?.to_string().ends_with("x>") {
                return None;
            }
            grids.push(op.result(0).ok()?.to_raw());
            continue;
        }
        let pure = name.starts_with("arith.") || name == "tile.partition_view" || name == "tile.num_tiles";
        if !pure || op.region_count() != 0 {
            return None;
        }
    }
    let block_id = block_id?;
    // The trip count must be the same for every tile.
    if depends(detach(for_op.operand(1).ok()?), block_id) {
        return None;
    }
    Some(Persistent { block_id, grids })
}

/// Whether `value` is computed from `of`.
fn depends(value: IrValue, of: mlir_sys::MlirValue) -> bool {
    if value.to_raw().ptr == of.ptr {
        return true;
    }
    let Some(op) = defining_op(value) else { return false };
    (0..op.operand_count()).any(|i| op.operand(i).is_ok_and(|v| depends(detach(v), of)))
}

/// `value` as computed with `to` in place of `from`: the ops between them
/// cloned at `at` (once each, through `memo`), everything else as is.
pub(super) fn remat<'c>(
    at: &At<'c, '_>,
    value: IrValue<'c>,
    from: mlir_sys::MlirValue,
    to: IrValue<'c>,
    memo: &mut HashMap<usize, IrValue<'c>>,
) -> Option<IrValue<'c>> {
    let key = value.to_raw().ptr as usize;
    if key == from.ptr as usize {
        return Some(to);
    }
    if let Some(&known) = memo.get(&key) {
        return Some(known);
    }
    let Some(op) = defining_op(value) else { return Some(value) };
    let mut operands = Vec::new();
    let mut changed = false;
    for i in 0..op.operand_count() {
        let operand = detach(op.operand(i).ok()?);
        let new = remat(at, operand, from, to, memo)?;
        changed |= new != operand;
        operands.push(new);
    }
    if !changed {
        return Some(value);
    }
    if op.region_count() != 0 {
        return None;
    }
    let position = (0..op.result_count()).find(|&i| op.result(i).is_ok_and(|r| detach(r.into()) == value))?;
    // SAFETY: mlirOperationClone returns a new op owned by the caller,
    // which `at` inserts; its operands are then set to live values that
    // dominate the insertion point (cloned before it, or defined before
    // the original op, which dominates every use here).
    let clone = unsafe {
        let copy = melior::ir::operation::Operation::from_raw(mlir_sys::mlirOperationClone(op.to_raw()));
        let copy = at.insert(copy);
        for (i, operand) in operands.iter().enumerate() {
            mlir_sys::mlirOperationSetOperand(copy.to_raw(), i as isize, operand.to_raw());
        }
        copy
    };
    let result = detach(clone.result(position).ok()?.into());
    memo.insert(key, result);
    Some(result)
}
