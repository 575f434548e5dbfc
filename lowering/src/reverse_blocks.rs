//! `tile-reverse-blocks`: the blocks with the longest loops start first.
//!
//! Summary: where a kernel's top-level `scf.for` runs more iterations the
//! larger the block id along `x` (its upper bound grows with the id, its
//! lower bound and step do not depend on it), the id is relabelled
//! `P - 1 - id` (`P` the blocks along `x`). Blocks are dispatched in order
//! of their ids, so the longest ones then start first and the short ones
//! fill the SMs at the end, instead of a few long blocks running alone
//! after the others are done. Causal attention is the case: query tile
//! `x` walks the key tiles up to its diagonal, `x + 1` of them.
//!
//! Before:
//! ```mlir
//! %x = tile.block_id x : index
//! %d = arith.addi %x, %c1 : index
//! %last = arith.minui %tiles, %d : index
//! scf.for %j = %c0 to %last step %c1 { ... %x ... }
//! ```
//! After:
//! ```mlir
//! %x = tile.block_id x : index
//! %p = tile.num_blocks x : index
//! %p1 = arith.subi %p, %c1 : index
//! %r = arith.subi %p1, %x : index
//! %d = arith.addi %r, %c1 : index
//! %last = arith.minui %tiles, %d : index
//! scf.for %j = %c0 to %last step %c1 { ... %r ... }
//! ```
//!
//! The relabelling is a permutation of `[0, P)`, and blocks are
//! independent, so the kernel computes the same thing in another order.
//! The bound grows with the id through `addi`, `subi` of a value that does
//! not depend on it, `muli` by a constant, `divui` by a value that does
//! not depend on it, `minui`/`maxui` and `index_cast`s; anything else (a
//! bound that shrinks, or is not known to grow) leaves the kernel alone.
//!
//! Caveats: only the `x` id, used directly (a row-major split of it is
//! `tile-group-blocks`' business, and such kernels are left alone);
//! kernels marked `tile.persistent` (`tile-persist-blocks`' variants,
//! whose grid is not the program's) are left alone. The pass says where
//! it relabels (a `tile` remark, `ReversedBlocks`).

use crate::{
    build::At,
    pass::{PassInfo, TilePass},
    rewrite::{IrValue, Probe, constant_index, defining_op, detach, op_name, uses},
};
use melior::{
    ContextRef,
    ir::{BlockLike, OperationRef, RegionLike, ValueLike, operation::OperationLike},
    pass::{ExternalPass, RunExternalPass},
};
use tile_dialect::ops;

/// The `tile-reverse-blocks` pass.
#[derive(Clone, Default)]
pub struct ReverseBlocks;

impl TilePass for ReverseBlocks {
    const INFO: PassInfo = PassInfo {
        argument: "tile-reverse-blocks",
        name: "TileReverseBlocks",
        summary: "Relabel the block id along x as P - 1 - id where a top-level loop runs longer the larger the id \
                  (causal attention), so that the longest blocks start first",
        op_name: "func.func",
    };
    crate::pass_type_id!();

    fn dependent_dialects() -> Vec<melior::dialect::DialectHandle> {
        vec![melior::dialect::DialectHandle::arith()]
    }
}

impl<'c> RunExternalPass<'c> for ReverseBlocks {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, _pass: ExternalPass<'_>) {
        let context = operation.context();
        // SAFETY: the context outlives the pass run.
        let context = unsafe { context.to_ref() };
        if !operation.has_attribute("tile.kernel") || operation.has_attribute("tile.persistent") {
            return;
        }
        let Some(entry) = operation.region_at(0).and_then(|r| r.first_block()) else { return };
        let mut ids = Vec::new();
        let mut loops = Vec::new();
        let mut next = entry.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            match op_name(op).as_str() {
                "tile.block_id" if on_x(op) => ids.push(op),
                "scf.for" => loops.push(op),
                _ => {}
            }
        }
        for id_op in ids {
            let Some(id) = id_op.result_at(0) else { continue };
            let id = detach(id.into());
            // A row-major split is tile-group-blocks' relabelling.
            if uses(id).iter().any(|(user, _)| matches!(op_name(*user).as_str(), "arith.divui" | "arith.remui")) {
                continue;
            }
            let longer = loops.iter().any(|l| {
                let bound = |i: usize| l.operand_at(i).map(detach);
                bound(0).is_some_and(|b| !depends(b, id))
                    && bound(2).is_some_and(|b| !depends(b, id))
                    && bound(1).is_some_and(|b| grows(b, id).unwrap_or(false))
            });
            if !longer {
                continue;
            }
            let users = uses(id);
            let at = At { context, location: id_op.location(), block: entry, before: id_op.next_in_block() };
            let Ok(axis) = id_op.attribute("axis") else { continue };
            let reversed = (|| {
                let blocks = at.add(ops::num_blocks(context, axis, id_op.location()))?;
                let last = at.subi(blocks, at.index(1)?)?;
                at.subi(last, id)
            })();
            let Some(reversed) = reversed else { continue };
            for (user, position) in users {
                // SAFETY: a live user collected before the relabelled id was
                // built; that id is defined right after the old one, before
                // any use, so it dominates every use.
                unsafe { mlir_sys::mlirOperationSetOperand(user.to_raw(), position as isize, reversed.to_raw()) }
            }
            if !operation.has_attribute("tile.variant_of") {
                crate::remarks::passed(
                    id_op.location(),
                    ReverseBlocks::INFO.argument,
                    "ReversedBlocks",
                    "blocks run in reverse order of this id: a loop runs longer the larger it is, so the longest \
                     blocks start first",
                );
            }
        }
    }
}

fn on_x(op: OperationRef) -> bool {
    op.attribute("axis").is_ok_and(|a| a.to_string().ends_with("x>"))
}

/// Whether `value` depends on `id` (a value from an op with regions is
/// taken to).
fn depends(value: IrValue, id: IrValue) -> bool {
    fn search(value: IrValue, id: IrValue, depth: usize) -> bool {
        if value == id {
            return true;
        }
        let Some(def) = defining_op(value) else { return false };
        if depth == 0 || def.region_count() > 0 {
            return true;
        }
        def.operands().any(|operand| search(detach(operand), id, depth - 1))
    }
    search(value, id, 64)
}

/// `Some(true)` when `value` grows (does not shrink) as `id` grows and
/// depends on it, `Some(false)` when it does not depend on it, `None` when
/// it depends on it otherwise (or in a way not followed).
fn grows(value: IrValue, id: IrValue) -> Option<bool> {
    if value == id {
        return Some(true);
    }
    if !depends(value, id) {
        return Some(false);
    }
    let def = defining_op(value)?;
    let operand = |i: usize| def.operand_at(i).map(detach);
    match op_name(def).as_str() {
        "arith.addi" | "arith.minui" | "arith.maxui" => Some(grows(operand(0)?, id)? || grows(operand(1)?, id)?),
        "arith.subi" | "arith.divui" => (!depends(operand(1)?, id)).then_some(grows(operand(0)?, id)?),
        "arith.muli" => {
            let (a, b) = (operand(0)?, operand(1)?);
            let by_constant = |x: IrValue, c: IrValue| constant_index(c).is_some_and(|c| c >= 0).then(|| grows(x, id));
            by_constant(a, b).or_else(|| by_constant(b, a))?
        }
        "arith.index_cast" | "arith.index_castui" => grows(operand(0)?, id),
        _ => None,
    }
}
