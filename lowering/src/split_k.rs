//! `tile-split-k`: a kernel with a `tile.mma` and a `split_k = S` hint runs
//! each program block as a cluster of `S` blocks that share its K loop.
//!
//! Summary: block `r` of the cluster (`gpu.cluster_block_id x`) runs the
//! `r`-th of `S` equal shares of the loop's iterations (the last may be
//! shorter, or empty), its accumulators starting from the loop's inits in
//! block 0 and from zeros in the others. After the loop, `tile.cluster_sum`
//! adds every block's accumulators into block 0, which alone runs the rest
//! of the kernel (an `scf.if` on its rank). The kernel gets
//! `tile.cluster = S` (the runtime launches `S` blocks a program block)
//! and `tile.sliced` (each block runs its own part; the layouts span one
//! block). A program block with few K tiles and many SMs idle (a decode
//! step, K much larger than M and N) then gets `S` multiprocessors.
//!
//! Before (`split_k = 2`):
//! ```mlir
//! %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%in = %zero) -> (tensor<128x128xf32>) {
//!   %d = tile.mma %a, %b, %in : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
//!   scf.yield %d : tensor<128x128xf32>
//! }
//! tile.store %acc, %pc[%bm, %bn] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
//! ```
//! After:
//! ```mlir
//! %r = gpu.cluster_block_id x
//! ...                                   // %first, %last: block r's share of [%c0, %nk)
//! %init = scf.if %r_is_0 -> (tensor<128x128xf32>) { scf.yield %zero } else { scf.yield %zeros }
//! %acc = scf.for %k = %first to %last step %c1 iter_args(%in = %init) -> (tensor<128x128xf32>) { ... }
//! %sum = tile.cluster_sum %acc : tensor<128x128xf32>
//! scf.if %r_is_0 {
//!   tile.store %sum, %pc[%bm, %bn] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
//! }
//! ```
//!
//! The program computes the same up to the order of the additions: each
//! iteration adds its products to the accumulator, and the shares' sums
//! add up to the loop's.
//!
//! Caveats: only a kernel on the register path (`tile-assign-layouts`
//! takes it) whose mmas are all in one loop at its top level,
//! every value that loop carries an mma accumulator (the body argument read
//! only by the first mma of a chain whose last result is yielded, each
//! result read only by the next): a carried running maximum (attention) or
//! anything else keeps the kernel whole, with a remark at the loop
//! (`SplitKNotApplied`). The ops before the loop run in every block (the
//! same values, so a store there writes the same bytes several times). A
//! producer warp and persistent blocks decline such a kernel: the sum's
//! cluster barrier needs every thread of every block, once. Only on
//! `sm_90a` (`tile-to-ptx`); before `tile-slice-clusters`, which leaves a
//! split kernel's `num_ctas` unapplied.

use crate::{
    build::{At, CmpiPredicate, GpuQuery, if_else_op, tile_type},
    pass::{PassInfo, TilePass},
    rewrite::{BlockProbe, IrValue, Probe, detach, op_name},
};
use melior::ir::AttributeLike as _;
use melior::{
    ContextRef,
    ir::{
        Attribute, BlockLike, Location, OperationRef, RegionLike, Type, TypeLike, ValueLike,
        attribute::{DenseElementsAttribute, FloatAttribute, IntegerAttribute},
        operation::{OperationLike, OperationMutLike, OperationRefMut, WalkOrder, WalkResult},
        r#type::IntegerType,
    },
    pass::{ExternalPass, RunExternalPass},
};
use tile_dialect::{attrs, ops};

/// The `tile-split-k` pass.
#[derive(Clone, Default)]
pub struct SplitK;

impl TilePass for SplitK {
    const INFO: PassInfo = PassInfo {
        argument: "tile-split-k",
        name: "TileSplitK",
        summary: "Run an mma kernel's program block (split_k = S) as a cluster of S blocks that share its K loop and \
                  sum their accumulators into the first",
        op_name: "func.func",
    };
    crate::pass_type_id!();

    fn dependent_dialects() -> Vec<melior::dialect::DialectHandle> {
        vec![
            melior::dialect::DialectHandle::arith(),
            melior::dialect::DialectHandle::gpu(),
            melior::dialect::DialectHandle::scf(),
        ]
    }
}

impl<'c> RunExternalPass<'c> for SplitK {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        let Some(ways) = wanted(operation) else { return };
        match the_loop(operation) {
            Err((location, why)) => crate::remarks::missed(
                location,
                SplitK::INFO.argument,
                "SplitKNotApplied",
                &format!("split_k = {ways} is not applied: {why}"),
            ),
            Ok(r#loop) => {
                if split(operation, r#loop, ways).is_none() {
                    crate::rewrite::emit_error(operation.location(), "tile-split-k: could not split this kernel");
                    pass.signal_failure();
                    return;
                }
                crate::remarks::passed(
                    r#loop.location(),
                    SplitK::INFO.argument,
                    "SplitK",
                    &format!(
                        "each program block runs as a cluster of {ways} blocks, each a share of this loop; the \
                         first sums their accumulators and runs the rest"
                    ),
                );
            }
        }
    }
}

/// The blocks `kernel` asks to split its K loop over (its `split_k`),
/// where this pass applies: a kernel (not a variant, not widened or split
/// already) with a `tile.mma`.
fn wanted(kernel: OperationRef) -> Option<i64> {
    if !crate::slice_clusters::clusterable(kernel) {
        return None;
    }
    let ways = crate::rewrite::hint(kernel, attrs::knob::SPLIT_K.key)?.min(attrs::MAX_CLUSTER);
    (ways > 1).then_some(ways)
}

/// The kernel's one loop of mmas, at its top level, whose carried values
/// are all mma accumulators; else where and why not.
fn the_loop<'c>(kernel: OperationRef<'c, '_>) -> Result<OperationRef<'c, 'c>, (Location<'c>, String)> {
    // SAFETY: locations live in the context, which outlives the pass run.
    let here = |op: OperationRef| unsafe { Location::from_raw(op.location().to_raw()) };
    // Its cluster would have no one to run it (`tile.cluster` is the
    // register path's).
    if let Err((why, location)) = crate::layout::assign::eligible(kernel) {
        return Err((location, format!("the kernel is not on the register path ({why})")));
    }
    let mut mmas = Vec::new();
    kernel.walk(WalkOrder::PreOrder, |op| {
        if op_name(op) == "tile.mma" {
            // SAFETY: an op of the kernel, alive for the pass run.
            mmas.push(unsafe { OperationRef::<'c, 'c>::from_raw(op.to_raw()) });
        }
        WalkResult::Advance
    });
    let parent = |op: OperationRef<'c, 'c>| op.parent_operation();
    let r#loop = mmas.first().and_then(|m| parent(*m)).filter(|p| op_name(*p) == "scf.for");
    let top = r#loop.and_then(parent).is_some_and(|p| p.to_raw().ptr == kernel.to_raw().ptr);
    let Some(r#loop) = r#loop.filter(|_| top) else {
        let at = mmas.first().map_or(kernel.location(), |m| m.location());
        // SAFETY: as above.
        return Err((
            unsafe { Location::from_raw(at.to_raw()) },
            "its tile.mma is not in a loop at the kernel's top level".into(),
        ));
    };
    if mmas.iter().any(|m| parent(*m).is_none_or(|p| p.to_raw().ptr != r#loop.to_raw().ptr)) {
        return Err((here(r#loop), "not every tile.mma of the kernel is in this loop's body".into()));
    }
    let body = r#loop.region_at(0).and_then(|r| r.first_block()).ok_or_else(|| (here(r#loop), String::new()))?;
    let terminator = body.terminator().ok_or_else(|| (here(r#loop), String::new()))?;
    let not_a_sum = || {
        (
            here(r#loop),
            "the loop carries a value that is not an mma accumulator (a running maximum, a counter), whose shares \
             would not add up"
                .to_string(),
        )
    };
    if r#loop.result_count() == 0 {
        return Err(not_a_sum());
    }
    let mut chained = 0;
    for i in 0..r#loop.result_count() {
        let argument = detach(body.argument_at(i + 1).ok_or_else(not_a_sum)?.into());
        let mut value = detach(terminator.operand_at(i).ok_or_else(not_a_sum)?);
        // Back from the yield to the body argument, through mmas' C.
        loop {
            let single = crate::rewrite::uses(value).len() == 1;
            if value == argument {
                if !single {
                    return Err(not_a_sum());
                }
                break;
            }
            let mma = crate::rewrite::defining_op(value).filter(|d| op_name(*d) == "tile.mma").ok_or_else(not_a_sum)?;
            if !single {
                return Err(not_a_sum());
            }
            chained += 1;
            value = detach(mma.operand_at(2).ok_or_else(not_a_sum)?);
        }
    }
    if chained != mmas.len() {
        return Err((here(r#loop), "a tile.mma of the loop does not add into a value the loop carries".into()));
    }
    Ok(r#loop)
}

/// Zeros of a tile type (float or integer elements).
fn zeros<'c>(at: &At<'c, 'c>, r#type: Type<'c>) -> Option<IrValue<'c>> {
    let (_, element) = tile_type(r#type)?;
    let zero: Attribute = if element.is_integer() {
        IntegerAttribute::new(element, 0).into()
    } else {
        FloatAttribute::new(at.context, element, 0.0).into()
    };
    let value = DenseElementsAttribute::new(r#type, &[zero]).ok()?;
    at.add(melior::dialect::arith::constant(at.context, value.into(), at.location))
}

/// Whether `value` is a constant tile of zeros (every block may start
/// from it).
fn zero_splat(value: IrValue) -> bool {
    let Some(constant) = crate::rewrite::defining_op(value).filter(|d| op_name(*d) == "arith.constant") else {
        return false;
    };
    let Ok(attribute) = constant.attribute("value") else { return false };
    // SAFETY: read-only queries of a live attribute; the splat value is
    // asked for only of a dense splat.
    unsafe {
        if !mlir_sys::mlirAttributeIsADenseElements(attribute.to_raw())
            || !mlir_sys::mlirDenseElementsAttrIsSplat(attribute.to_raw())
        {
            return false;
        }
        let element = mlir_sys::mlirDenseElementsAttrGetSplatValue(attribute.to_raw());
        if mlir_sys::mlirAttributeIsAFloat(element) {
            mlir_sys::mlirFloatAttrGetValueDouble(element) == 0.0
        } else if mlir_sys::mlirAttributeIsAInteger(element) {
            mlir_sys::mlirIntegerAttrGetValueInt(element) == 0
        } else {
            false
        }
    }
}

/// Rewrites `kernel` so that block `r` of `ways` runs its share of `loop`.
fn split<'c>(kernel: OperationRef<'c, '_>, r#loop: OperationRef<'c, 'c>, ways: i64) -> Option<()> {
    let context = kernel.context();
    // SAFETY: the context outlives the pass run.
    let context = unsafe { context.to_ref() };
    let entry = kernel.region_at(0)?.first_block()?;
    let rank = At::before(context, entry.first_operation()?)?.gpu(GpuQuery::ClusterBlockId)?;

    // The share: ceil(trips / ways) iterations a block.
    let at = At::before(context, r#loop)?;
    let (lower, upper, step) =
        (detach(r#loop.operand_at(0)?), detach(r#loop.operand_at(1)?), detach(r#loop.operand_at(2)?));
    let span = at.maxsi(at.subi(upper, lower)?, at.index(0)?)?;
    let trips = at.divui(at.addi(span, at.subi(step, at.index(1)?)?)?, step)?;
    let share = at.divui(at.addi(trips, at.index(ways - 1)?)?, at.index(ways)?)?;
    let stride = at.muli(share, step)?;
    let first = at.addi(lower, at.muli(rank, stride)?)?;
    let last = at.minsi(upper, at.addi(first, stride)?)?;
    let is_first = at.cmpi(CmpiPredicate::Eq, rank, at.index(0)?)?;
    // SAFETY: the loop is live; its bounds and inits become values defined
    // before it.
    unsafe {
        mlir_sys::mlirOperationSetOperand(r#loop.to_raw(), 0, first.to_raw());
        mlir_sys::mlirOperationSetOperand(r#loop.to_raw(), 1, last.to_raw());
    }
    for i in 0..r#loop.result_count() {
        let init = detach(r#loop.operand_at(3 + i)?);
        if zero_splat(init) {
            continue;
        }
        let r#type = init.r#type();
        let chosen = if_else_op(&at, is_first, &[r#type], |_| Some(vec![init]), |at| Some(vec![zeros(at, r#type)?]))?;
        let chosen = detach(chosen.result_at(0)?.into());
        // SAFETY: as above.
        unsafe { mlir_sys::mlirOperationSetOperand(r#loop.to_raw(), (3 + i) as isize, chosen.to_raw()) };
    }

    // The sums after the loop, read by the rest of the kernel, which runs
    // in block 0 alone.
    let after = At::before(context, r#loop.next_in_block()?)?;
    let mut last_sum = None;
    for i in 0..r#loop.result_count() {
        let result = detach(r#loop.result_at(i)?.into());
        let users = crate::rewrite::uses(result);
        let sum = after.add(ops::cluster_sum(context, result.r#type(), result, r#loop.location()))?;
        for (user, position) in users {
            // SAFETY: a live user of the loop's result, after the sum (the
            // sums come right after the loop).
            unsafe { mlir_sys::mlirOperationSetOperand(user.to_raw(), position as isize, sum.to_raw()) };
        }
        last_sum = crate::rewrite::defining_op(sum);
    }
    let last_sum = last_sum?;
    let rest = At::before(context, last_sum.next_in_block()?)?;
    let guard = if_else_op(&rest, is_first, &[], |_| Some(vec![]), |_| Some(vec![]))?;
    let inside = guard.region_at(0)?.first_block()?.terminator()?;
    crate::rewrite::move_following(guard, entry.terminator()?, inside);

    // SAFETY: the kernel is the op the pass runs on; only its attributes change.
    let mut kernel = unsafe { OperationRefMut::from_raw(kernel.to_raw()) };
    let i64_type: Type = IntegerType::new(context, 64).into();
    kernel.set_attribute(attrs::CLUSTER, IntegerAttribute::new(i64_type, ways).into());
    kernel.set_attribute(attrs::SLICED, Attribute::unit(context));
    Some(())
}
