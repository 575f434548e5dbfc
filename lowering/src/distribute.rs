//! `tile-distribute`: the parallel loops of a bufferized tile kernel shared
//! out among the threads of its block.
//!
//! Summary: rewrite every outermost `scf.parallel` in a `tile.kernel`
//! function into a loop of the calling thread over its share of the
//! iterations, followed by `gpu.barrier`.
//!
//! Before:
//! ```mlir
//! scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c1024) step (%c1, %c1) {
//!   ... body on %i, %j ...
//!   scf.reduce
//! }
//! ```
//! After:
//! ```mlir
//! %t = gpu.thread_id x
//! %n = gpu.block_dim x
//! scf.for %l = %t to %c4096 step %n {
//!   %j = arith.remui %l, %c1024    // the innermost dim varies fastest, so
//!   %q = arith.divui %l, %c1024    // neighbouring threads touch
//!   %i = arith.remui %q, %c4       // neighbouring elements (coalescing)
//!   ... body on %i, %j ...
//! }
//! gpu.barrier
//! ```
//!
//! Every thread runs the code between parallel loops (scalar index
//! arithmetic, uniform across the block), so control flow stays uniform and
//! each barrier is reached by all threads. The barrier after every loop
//! orders each phase's writes (to shared tiles) before the next phase's
//! reads.
//!
//! Caveats: parallel loops with reductions (`scf.reduce` with operands) are
//! reported as errors; they do not come out of the linalg lowering used
//! here, which keeps reduction dims as sequential `scf.for` loops inside the
//! parallel ones.

use crate::{
    build::At,
    pass::{PassInfo, TilePass},
    rewrite::{IrValue, detach, emit_error},
};
use melior::{
    Context, ContextRef,
    ir::{
        Block, BlockLike, OperationRef, Region, RegionLike, Type, ValueLike,
        operation::{OperationBuilder, OperationLike, OperationMutLike, OperationRefMut, WalkOrder, WalkResult},
    },
    pass::{ExternalPass, RunExternalPass},
};

/// The `tile-distribute` pass.
#[derive(Clone, Default)]
pub struct Distribute;

impl TilePass for Distribute {
    const INFO: PassInfo = PassInfo {
        argument: "tile-distribute",
        name: "TileDistribute",
        summary: "Share the outermost scf.parallel loops of tile kernels among the threads of a GPU block, with barriers",
        op_name: "func.func",
    };
    crate::pass_type_id!();

    fn dependent_dialects() -> Vec<melior::dialect::DialectHandle> {
        use melior::dialect::DialectHandle;
        vec![DialectHandle::gpu(), DialectHandle::scf(), DialectHandle::arith()]
    }
}

impl<'c> RunExternalPass<'c> for Distribute {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        if !operation.has_attribute("tile.kernel") {
            return;
        }
        let context = operation.context();
        // SAFETY: the context outlives the pass run.
        let context = unsafe { context.to_ref() };
        let mut loops = Vec::new();
        operation.walk(WalkOrder::PreOrder, |op| {
            if op.name().as_string_ref().as_str() == Ok("scf.parallel") && !inside_parallel(op) {
                loops.push(op.to_raw());
            }
            WalkResult::Advance
        });
        for raw in loops {
            // SAFETY: outermost parallel loops are disjoint; each is alive
            // until `distribute` erases it.
            let op = unsafe { OperationRef::from_raw(raw) };
            if distribute(context, op).is_none() {
                emit_error(op.location(), "tile-distribute: cannot share this loop among threads");
                pass.signal_failure();
                return;
            }
        }
    }
}

fn inside_parallel(op: OperationRef) -> bool {
    let mut parent = op.parent_operation();
    while let Some(p) = parent {
        if p.name().as_string_ref().as_str() == Ok("scf.parallel") {
            return true;
        }
        parent = p.parent_operation();
    }
    false
}

fn distribute<'c>(context: &'c Context, op: OperationRef<'c, '_>) -> Option<()> {
    let location = op.location();
    let body = op.region(0).ok()?.first_block()?;
    let rank = body.argument_count();
    if op.operand_count() != 3 * rank || op.result_count() != 0 {
        return None;
    }
    let bounds: Vec<IrValue<'c>> = (0..3 * rank).map(|i| op.operand(i).ok().map(detach)).collect::<Option<_>>()?;
    let (lower, upper, step) = (&bounds[..rank], &bounds[rank..2 * rank], &bounds[2 * rank..]);
    let parent = op.block()?;
    let here = At { context, location, block: parent, before: Some(op) };

    let one = here.index(1)?;
    let mut counts = Vec::new();
    let mut total = one;
    for d in 0..rank {
        // ceil((upper - lower) / step)
        let span = here.index_op("arith.subi", &[upper[d], lower[d]])?;
        let biased = here.index_op("arith.addi", &[span, here.index_op("arith.subi", &[step[d], one])?])?;
        let count = here.index_op("arith.divui", &[biased, step[d]])?;
        total = here.index_op("arith.muli", &[total, count])?;
        counts.push(count);
    }
    let thread = here.gpu_query("gpu.thread_id")?;
    let threads = here.gpu_query("gpu.block_dim")?;

    let loop_block = Block::new(&[(Type::index(context), location)]);
    let linear = detach(loop_block.argument(0).ok()?.into());
    let mut ivs = vec![linear; rank];
    {
        // SAFETY: `loop_block` is alive and owned here until it moves into
        // the loop's region below; the reference does not outlive it.
        let block_ref = unsafe { melior::ir::BlockRef::from_raw(loop_block.to_raw()) };
        let inner = At { context, location, block: block_ref, before: None };
        let mut rest = linear;
        for d in (0..rank).rev() {
            let index = if d == 0 { rest } else { inner.index_op("arith.remui", &[rest, counts[d]])? };
            if d > 0 {
                rest = inner.index_op("arith.divui", &[rest, counts[d]])?;
            }
            let scaled = inner.index_op("arith.muli", &[index, step[d]])?;
            ivs[d] = inner.index_op("arith.addi", &[lower[d], scaled])?;
        }
    }
    let terminator = loop_block.append_operation(OperationBuilder::new("scf.yield", location).build().ok()?);

    // Move the body (all but its scf.reduce) in front of the new yield.
    let mut moving = Vec::new();
    let mut next = body.first_operation();
    while let Some(inner) = next {
        next = inner.next_in_block();
        if inner.name().as_string_ref().as_str() == Ok("scf.reduce") {
            if inner.operand_count() != 0 {
                return None;
            }
            continue;
        }
        moving.push(inner.to_raw());
    }
    for (d, iv) in ivs.iter().enumerate() {
        let argument = body.argument(d).ok()?;
        // SAFETY: both values are alive; uses move from the old induction
        // variable to the computed one before the old loop is erased.
        unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(argument.to_raw(), iv.to_raw()) };
    }
    for raw in moving {
        // SAFETY: `raw` is an op of the old loop's body, alive; it moves to
        // the new loop's block, which is alive, in front of its terminator.
        let mut moved = unsafe { OperationRefMut::from_raw(raw) };
        // SAFETY: the terminator was just appended to `loop_block`.
        moved.move_before(unsafe { OperationRef::from_raw(terminator.to_raw()) });
    }

    let region = Region::new();
    region.append_block(loop_block);
    here.add(
        OperationBuilder::new("scf.for", location)
            .add_operands(&[thread, total, threads])
            .add_regions([region])
            .build()
            .ok()?,
    );
    here.add(OperationBuilder::new("gpu.barrier", location).build().ok()?);
    // SAFETY: the loop's body is now empty but for its terminator, and
    // nothing uses the loop (it has no results).
    unsafe { mlir_sys::mlirOperationDestroy(op.to_raw()) };
    Some(())
}
