//! `tile-prefetch-fragments`: an mma computed transposed reads B^T's
//! fragments for the next iteration while its wgmmas run.
//!
//! Summary: in a loop whose one `tile.mma` is computed transposed
//! (`layout::shared::swapped_operands`: a tf32 or 8-bit float B loaded
//! N-major, kept in shared memory, `C^T = B^T A^T`), B's carried ring
//! tile filled by the TMA, the mma takes B as registers in the fragment
//! layout, carried by the loop: a `tile.convert_layout` from the ring tile
//! before the loop makes the first iteration's, and one before the mma of
//! each iteration, of the tile the loop carries into the next, makes the
//! next's.
//!
//! Before (layouts shortened):
//! ```mlir
//! %r:3 = scf.for %k = ... iter_args(%acc = %z, %a = %a0, %b = %b0) -> (...) {
//!   %a1 = tile.load %pa[...] {tile.ring = [0, 1, -1, 3], tile.tma_load = 3} : ... -> tensor<128x64xf32, #shared>
//!   %b1 = tile.load %pb[...] {tile.ring = [1, 1, -1, 3], tile.tma_load = 4} : ... -> tensor<64x128xf32, #shared_n>
//!   %d = tile.mma %a, %b, %acc : ..., tensor<64x128xf32, #shared_n> into tensor<128x128xf32, #acc_t>
//!   scf.yield %d, %a1, %b1
//! }
//! ```
//! After:
//! ```mlir
//! %f0 = tile.convert_layout %b0 : tensor<64x128xf32, #shared_n> -> tensor<64x128xf32, #fragments>
//! %r:4 = scf.for %k = ... iter_args(%acc = %z, %a = %a0, %b = %b0, %f = %f0) -> (...) {
//!   %a1 = tile.load ...
//!   %b1 = tile.load ...
//!   %f1 = tile.convert_layout %b1 : ... -> tensor<64x128xf32, #fragments>
//!   %d = tile.mma %a, %f, %acc : ..., tensor<64x128xf32, #fragments> into ...
//!   scf.yield %d, %a1, %b1, %f1
//! }
//! ```
//!
//! Why: `convert-tile-to-registers` waits for an mma that reads A from
//! registers at the end of its iteration, the fragment registers tied to
//! the wait (ptxas may give them away once the wgmma is issued:
//! BENCHMARKS.md, session 23). Read in the iteration before, ahead of the
//! wgmma fence (ptxas serialises the wgmmas when a non-wgmma instruction
//! defines an input register of one inside its pipeline stage, between
//! fence and wait), the next fragments' loads are in flight beside this
//! iteration's wgmmas, and the next iteration's wgmmas need not wait for
//! them. Each set of registers stays live until the wait that ends the mma
//! reading it.
//!
//! Caveats: only B tiles the TMA fills (the conversion waits for the tile
//! on its slot's barrier, the next iteration's; the threads' copies
//! would need their own wait and a barrier), one mma a loop, after
//! `tile-use-tma`. The last iteration reads the slot of the tile past the
//! loop's end, whose values it does not use: requests stop at the loop's
//! end (the producer warp's too), and the read waits only where the tile
//! was requested.

use crate::{
    build::{At, tile_type},
    layout::{layout_of, with_layout},
    pass::{PassInfo, TilePass},
    registers::shared::SharedTile,
    rewrite::{BlockProbe, IrValue, Probe, argument_of, defining_op, detach, op_name},
};
use melior::{
    ContextRef,
    ir::{
        BlockLike, OperationRef, RegionLike, ValueLike,
        operation::{OperationLike, OperationMutLike},
    },
    pass::{ExternalPass, RunExternalPass},
};
use tile_dialect::ops;

/// The `tile-prefetch-fragments` pass.
#[derive(Clone, Default)]
pub struct PrefetchFragments;

impl TilePass for PrefetchFragments {
    const INFO: PassInfo = PassInfo {
        argument: "tile-prefetch-fragments",
        name: "TilePrefetchFragments",
        summary: "Read the fragments of a transposed mma's B (from its TMA ring) one iteration ahead, carried in \
                  registers",
        op_name: "func.func",
    };
    crate::pass_type_id!();
}

impl<'c> RunExternalPass<'c> for PrefetchFragments {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, _pass: ExternalPass<'_>) {
        let context = operation.context();
        // SAFETY: the context outlives the pass run, and `context` (the
        // handle the reference points into) lives until the end of `run`.
        let context = unsafe { context.to_ref() };
        for raw in crate::loops::for_loops(operation) {
            // SAFETY: a loop of the kernel; the rewrite replaces only the
            // loop it is given.
            let r#loop = unsafe { OperationRef::from_raw(raw) };
            let _ = prefetch(context, r#loop);
        }
    }
}

/// The loop's one mma, if it is computed transposed with B a carried
/// N-major ring tile the TMA fills, and B's carried value's index.
fn candidate<'c>(r#loop: OperationRef<'c, 'c>) -> Option<(OperationRef<'c, 'c>, usize)> {
    let body = r#loop.region_at(0)?.first_block()?;
    let mut mmas = Vec::new();
    let mut next = body.first_operation();
    while let Some(op) = next {
        if op_name(op) == "tile.mma" {
            // SAFETY: an op of the body, which the rewrite keeps.
            mmas.push(unsafe { OperationRef::<'c, 'c>::from_raw(op.to_raw()) });
        }
        next = op.next_in_block();
    }
    let [mma] = mmas[..] else { return None };
    let (a, b, c) = (mma.operand_at(0)?, mma.operand_at(1)?, mma.operand_at(2)?);
    let tile_b = SharedTile::of_type(b.r#type()).filter(|t| !t.transposed && t.bytes != 2 && t.shape.len() == 2)?;
    SharedTile::of_type(a.r#type())?;
    let (_, accumulator) = layout_of(c)?;
    let m = tile_type(a.r#type())?.0[0];
    let (k, n) = (tile_b.shape[0], tile_b.shape[1]);
    let (swapped, _) = crate::registers::mma::swapped_layouts(m, n, k, accumulator.warps(), tile_b.element)?;
    if swapped != accumulator {
        return None;
    }
    // A and B carried ring tiles the TMA fills (the mma gives back only
    // its shared operands' slots, and the rings of a loop share their
    // barriers), and B's carries ending at the ring's load in this loop,
    // whose tiles the conversions wait for.
    let tma_load = |op: OperationRef| op_name(op) == "tile.load" && op.has_attribute(tile_dialect::attrs::TMA_LOAD);
    let carried_tma = |value| {
        let j = argument_of(value, body)?.checked_sub(1)?;
        tma_load(defining_op(r#loop.operand_at(3 + j)?)?).then_some(j)
    };
    carried_tma(a)?;
    let i = carried_tma(b)?;
    let terminator = body.terminator()?;
    let mut value = terminator.operand_at(i)?;
    for _ in 0..=MAX_CARRIES {
        match argument_of(value, body) {
            Some(number) => value = terminator.operand_at(number.checked_sub(1)?)?,
            None => {
                let load = defining_op(value)?;
                return (tma_load(load) && load.block() == Some(body)).then_some((mma, i));
            }
        }
    }
    None
}

/// The most carries between B's load in the loop and the mma's tile.
const MAX_CARRIES: usize = 64;

fn prefetch<'c>(context: &'c melior::Context, r#loop: OperationRef<'c, 'c>) -> Option<()> {
    let (mma, i) = candidate(r#loop)?;
    let b = detach(mma.operand_at(1)?);
    let (shape, element) = tile_type(b.r#type())?;
    let (_, accumulator) = layout_of(mma.operand_at(2)?)?;
    let m = tile_type(mma.operand_at(0)?.r#type())?.0[0];
    let (_, fragments) = crate::registers::mma::swapped_layouts(m, shape[1], shape[0], accumulator.warps(), element)?;
    let fragments_type = with_layout(b.r#type(), &fragments.to_layout())?;
    let location = mma.location();
    let before = At::before(context, r#loop)?;
    let init = detach(r#loop.operand_at(3 + i)?);
    let first = before.add(ops::convert_layout(context, fragments_type, init, location))?;
    let new_loop = crate::loops::extend_for(context, r#loop, &[first])?;
    let body = new_loop.region_at(0)?.first_block()?;
    let carried = new_loop.result_count() - 1;
    let argument: IrValue = detach(body.argument_at(1 + carried)?.into());
    // SAFETY: the mma moved with the body into the new loop and is live;
    // only its B operand changes, to a value of the same shape and element.
    let mut mma_mut = unsafe { melior::ir::operation::OperationRefMut::from_raw(mma.to_raw()) };
    mma_mut.set_operand(1, argument);
    let terminator = body.terminator()?;
    let next_tile = detach(terminator.operand_at(i)?);
    // Before the mma: the reads define registers no wgmma of this
    // iteration reads, ahead of its fence (after it, ptxas serialises the
    // wgmmas: a non-wgmma instruction defines an input register of a
    // wgmma inside its pipeline stage).
    let next = At::before(context, mma)?.add(ops::convert_layout(context, fragments_type, next_tile, location))?;
    crate::loops::set_yield(new_loop, carried, next)
}
