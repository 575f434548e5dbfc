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
//! reads. A store between parallel loops (one-element tiles, whose loops
//! canonicalization folds away) becomes thread 0's alone, between two
//! barriers, so that racing copies of it cannot undo other phases' writes.
//!
//! Reductions with few outputs (fewer than the block's threads, as in a
//! row softmax or layernorm) go to warps instead: a parallel loop whose body
//! is an `scf.for` updating one element, `M[o] = combine(M[o], v(r))`, with
//! `combine` a known f32 or i32 combiner, becomes a loop of each warp over
//! the outputs; its lanes fold strided parts of the reduced dim from the
//! combiner's identity, a butterfly of five `gpu.shuffle xor` combines the
//! lanes, and lane 0 folds the total into `M[o]`:
//!
//! ```mlir
//! scf.for %o = %warp to %outputs step %warps {
//!   %p = scf.for %r = %lane to %c1024 step %c32 iter_args(%a = %identity) -> (f32) {
//!     %v = memref.load %x[%o, %r]
//!     %n = arith.maximumf %a, %v : f32
//!     scf.yield %n : f32
//!   }
//!   %s, %ok = gpu.shuffle xor %p, %c16, %c32 : f32   // ... 8, 4, 2, 1
//!   scf.if %lane_is_0 { M[%o] = arith.maximumf(M[%o], %total) }
//! }
//! ```
//! (Float sums are then added in a different order than the sequential
//! loop's, which changes their rounding, not their accuracy.)
//!
//! Caveats: parallel loops with reductions (`scf.reduce` with operands) are
//! reported as errors; they do not come out of the linalg lowering used
//! here, which keeps reduction dims as sequential `scf.for` loops inside the
//! parallel ones.

use crate::{
    build::At,
    pass::{PassInfo, TilePass},
    rewrite::{
        BlockProbe, IrValue, Probe, constant_index, defined_outside, defining_op, detach, emit_error, op_name,
        single_use,
    },
    to_gpu::block_size,
};
use melior::dialect::arith::CmpiPredicate;
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
        if !operation.has_attribute(tile_dialect::attrs::KERNEL)
            || operation.has_attribute(tile_dialect::attrs::REGISTERS)
        {
            return;
        }
        let context = operation.context();
        // SAFETY: the context outlives the pass run.
        let context = unsafe { context.to_ref() };
        let block_size = block_size(operation);
        let mut loops = Vec::new();
        let mut stray = Vec::new();
        operation.walk(WalkOrder::PreOrder, |op| {
            match op.name().as_string_ref().as_str() {
                Ok("scf.parallel") if !inside_parallel(op) => loops.push(op.to_raw()),
                Ok("memref.store" | "vector.store") if !inside_parallel(op) => stray.push(op.to_raw()),
                _ => {}
            }
            WalkResult::Advance
        });
        for raw in stray {
            // SAFETY: a live store collected above; guarding moves it, but
            // does not erase it.
            let store = unsafe { OperationRef::from_raw(raw) };
            if guard(context, store).is_none() {
                emit_error(store.location(), "tile-distribute: cannot guard this store");
                pass.signal_failure();
                return;
            }
        }
        for raw in loops {
            // SAFETY: outermost parallel loops are disjoint; each is alive
            // until `distribute` erases it.
            let op = unsafe { OperationRef::from_raw(raw) };
            if distribute(context, op, block_size).is_none() {
                emit_error(op.location(), "tile-distribute: cannot share this loop among threads");
                pass.signal_failure();
                return;
            }
        }
    }
}

/// Makes a store outside parallel loops, which every thread would run,
/// thread 0's alone, between barriers: the one before keeps it from
/// overtaking other threads' earlier reads of the element, the one after
/// shows it to their later reads. (Such stores come from one-element
/// tiles, whose loops canonicalization unrolls; racing copies of them
/// would undo later phases' writes.)
fn guard<'c>(context: &'c Context, store: OperationRef<'c, '_>) -> Option<()> {
    let here = At::before(context, store)?;
    here.void("gpu.barrier", &[], &[])?;
    let thread = here.gpu_query("gpu.thread_id")?;
    let first = here.cmpi(CmpiPredicate::Eq, thread, here.index(0)?)?;
    let then = here.scf_if(first, false)?.pop()?;
    here.void("gpu.barrier", &[], &[])?;
    // SAFETY: the store and the `then` block's terminator are alive; the
    // store moves in front of the terminator, and its operands, defined
    // before the scf.if, still dominate it.
    unsafe { OperationRefMut::from_raw(store.to_raw()) }.move_before(then.before?);
    Some(())
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

/// A parallel loop whose body is one reduction: `scf.for` over the reduced
/// dim updating one element of a buffer, `M[o] = combine(M[o], v)`.
struct Reduction {
    inner: mlir_sys::MlirOperation,
    load: mlir_sys::MlirOperation,
    store: mlir_sys::MlirOperation,
    combine: mlir_sys::MlirOperation,
    /// The combiner's identity, as attribute text.
    identity: String,
}

/// The identity of combiner `kind` on `element` (f32 or i32: what a warp
/// shuffle moves), as `arith.constant` value text.
fn identity(kind: &str, element: &str) -> Option<String> {
    let value = match (kind, element) {
        ("arith.addf", "f32") => "0.0",
        ("arith.mulf", "f32") => "1.0",
        ("arith.maximumf" | "arith.maxnumf", "f32") => "0xFF800000",
        ("arith.minimumf" | "arith.minnumf", "f32") => "0x7F800000",
        ("arith.addi" | "arith.ori" | "arith.xori" | "arith.maxui", "i32") => "0",
        ("arith.muli", "i32") => "1",
        ("arith.maxsi", "i32") => "-2147483648",
        ("arith.minsi", "i32") => "2147483647",
        ("arith.minui" | "arith.andi", "i32") => "-1",
        _ => return None,
    };
    Some(format!("{value} : {element}"))
}

/// Static trip count of loop bounds, if they are constants.
fn static_trips(lower: IrValue, upper: IrValue, step: IrValue) -> Option<i64> {
    let (l, u, s) = (constant_index(lower)?, constant_index(upper)?, constant_index(step)?);
    (s > 0).then(|| ((u - l).max(0) + s - 1) / s)
}

/// The reduction form of a parallel loop's body, when a warp per output
/// pays: few outputs (fewer than the block's threads) and a reduced dim of
/// at least a warp.
fn reduction(op: OperationRef, block_size: i64) -> Option<Reduction> {
    let body = op.region_at(0)?.first_block()?;
    let rank = body.argument_count();
    let bounds: Vec<IrValue> = (0..3 * rank).map(|i| op.operand_at(i).map(detach)).collect::<Option<_>>()?;
    let mut outputs = 1;
    for d in 0..rank {
        outputs *= static_trips(bounds[d], bounds[rank + d], bounds[2 * rank + d])?;
    }
    if outputs >= block_size {
        return None;
    }
    let inner = body.first_operation()?;
    let next = inner.next_in_block()?;
    if op_name(inner) != "scf.for"
        || inner.result_count() != 0
        || op_name(next) != "scf.reduce"
        || next.operand_count() != 0
    {
        return None;
    }
    let (lower, upper, step) =
        (detach(inner.operand_at(0)?), detach(inner.operand_at(1)?), detach(inner.operand_at(2)?));
    if static_trips(lower, upper, step).is_some_and(|n| n < 32) {
        return None;
    }
    let inner_body = inner.region_at(0)?.first_block()?;
    let mut stores = Vec::new();
    let mut next = inner_body.first_operation();
    while let Some(o) = next {
        next = o.next_in_block();
        match op_name(o).as_str() {
            "memref.store" => stores.push(o),
            "scf.yield" | "memref.load" => {}
            name if name.starts_with("arith.") || name.starts_with("math.") => {}
            _ => return None,
        }
    }
    let [store] = stores.as_slice() else { return None };
    let memref = store.operand_at(1)?;
    let combined = store.operand_at(0)?;
    let combine = defining_op(combined)?;
    let element = combined.r#type().to_string();
    let identity = identity(&op_name(combine), &element)?;
    if combine.block()? != inner_body || combine.operand_count() != 2 {
        return None;
    }
    // One combiner operand is the element's old value: a load of the same
    // memref at the same indices, used only here.
    let mut load = None;
    for i in 0..2 {
        let operand = combine.operand_at(i)?;
        let Some(def) = defining_op(operand) else { continue };
        let same_place = op_name(def) == "memref.load"
            && def.operand_count() + 1 == store.operand_count()
            && (0..def.operand_count())
                .all(|j| def.operand_at(j).map(|v| v.to_raw().ptr) == store.operand_at(j + 1).map(|v| v.to_raw().ptr));
        if same_place {
            load = Some(def);
        }
    }
    let load = load?;
    let single_use = single_use(load.result_at(0)?.into()).is_some();
    // The element's indices do not move with the reduced dim, and nothing
    // else in the loop touches the buffer.
    let indices_fixed =
        (1..store.operand_count()).all(|j| store.operand_at(j).is_some_and(|v| defined_outside(detach(v), inner_body)));
    let mut others = false;
    let mut next = inner_body.first_operation();
    while let Some(o) = next {
        next = o.next_in_block();
        if o != load
            && o != *store
            && (0..o.operand_count()).any(|j| o.operand_at(j).map(|v| v.to_raw().ptr) == Some(memref.to_raw().ptr))
        {
            others = true;
        }
    }
    if !single_use || !indices_fixed || others {
        return None;
    }
    Some(Reduction {
        inner: inner.to_raw(),
        load: load.to_raw(),
        store: store.to_raw(),
        combine: combine.to_raw(),
        identity,
    })
}

/// Turns the matched reduction loop (now inside the warp's loop) into
/// lane-strided partial results, a butterfly of warp shuffles, and one
/// update of the element by lane 0.
fn warp_reduce<'c>(context: &'c Context, found: &Reduction, lane: IrValue<'c>) -> Option<()> {
    // SAFETY: the matched ops are alive (moved, not copied, into the new
    // loop); they are erased at the end, after their last use.
    let (inner, load, store, combine) = unsafe {
        (
            OperationRef::from_raw(found.inner),
            OperationRef::from_raw(found.load),
            OperationRef::from_raw(found.store),
            OperationRef::from_raw(found.combine),
        )
    };
    let location = inner.location();
    let kind = op_name(combine);
    let element = combine.result_at(0)?.r#type();
    let element_text = element.to_string();
    let at = At::before(context, inner)?;
    let (lower, upper, step) =
        (detach(inner.operand_at(0)?), detach(inner.operand_at(1)?), detach(inner.operand_at(2)?));
    let warp = at.index(32)?;
    let offset = at.index_op("arith.muli", &[lane, step])?;
    let start = at.index_op("arith.addi", &[lower, offset])?;
    let stride = at.index_op("arith.muli", &[step, warp])?;
    let identity = at.op("arith.constant", &[], &[&element_text], &[("value", &found.identity)])?;

    // The partial loop: the old body without the element's load and store.
    let block = Block::new(&[(Type::index(context), location), (element, location)]);
    let new_iv = detach(block.argument_at(0)?.into());
    let partial = detach(block.argument_at(1)?.into());
    let old_body = inner.region_at(0)?.first_block()?;
    // SAFETY: live values; uses move to the new loop's arguments.
    unsafe {
        mlir_sys::mlirValueReplaceAllUsesOfWith(old_body.argument_at(0)?.to_raw(), new_iv.to_raw());
        mlir_sys::mlirValueReplaceAllUsesOfWith(load.result_at(0)?.to_raw(), partial.to_raw());
    }
    let combined = detach(combine.result_at(0)?.into());
    let memref = detach(store.operand_at(1)?);
    let value_indices: Vec<IrValue> =
        (2..store.operand_count()).map(|j| store.operand_at(j).map(detach)).collect::<Option<_>>()?;
    let terminator =
        block.append_operation(OperationBuilder::new("scf.yield", location).add_operands(&[combined]).build().ok()?);
    let mut moving = Vec::new();
    let mut next = old_body.first_operation();
    while let Some(o) = next {
        next = o.next_in_block();
        if o != load && o != store && op_name(o) != "scf.yield" {
            moving.push(o.to_raw());
        }
    }
    // SAFETY: the element's store and load are erased (the store first: it
    // reads the combiner, which moves), then the moved ops go in front of
    // the new yield, in order.
    unsafe {
        mlir_sys::mlirOperationDestroy(store.to_raw());
        mlir_sys::mlirOperationDestroy(load.to_raw());
        for raw in moving {
            OperationRefMut::from_raw(raw).move_before(OperationRef::from_raw(terminator.to_raw()));
        }
    }
    let region = Region::new();
    region.append_block(block);
    let mut value = at.add(
        OperationBuilder::new("scf.for", location)
            .add_operands(&[start, upper, stride, identity])
            .add_results(&[element])
            .add_regions([region])
            .build()
            .ok()?,
    )?;
    let combine_op = |at: &At<'c, '_>, a: IrValue<'c>, b: IrValue<'c>| at.op(&kind, &[a, b], &[&element_text], &[]);
    let width = at.op("arith.constant", &[], &["i32"], &[("value", "32 : i32")])?;
    for distance in [16, 8, 4, 2, 1] {
        let offset = at.op("arith.constant", &[], &["i32"], &[("value", &format!("{distance} : i32"))])?;
        let shuffled = at.insert(
            OperationBuilder::new("gpu.shuffle", location)
                .add_operands(&[value, offset, width])
                .add_attributes(&[(
                    melior::ir::Identifier::new(context, "mode"),
                    melior::ir::Attribute::parse(context, "#gpu<shuffle_mode xor>")?,
                )])
                .add_results(&[element, Type::parse(context, "i1")?])
                .build()
                .ok()?,
        );
        value = combine_op(&at, value, detach(shuffled.result_at(0)?.into()))?;
    }
    // Lane 0 folds the warp's result into the element.
    let zero = at.index(0)?;
    let first = at.cmpi(CmpiPredicate::Eq, lane, zero)?;
    let inside = at.scf_if(first, false)?.pop()?;
    let mut operands = vec![memref];
    operands.extend(&value_indices);
    let old = inside.op("memref.load", &operands, &[&element_text], &[])?;
    let new = combine_op(&inside, old, value)?;
    let mut operands = vec![new, memref];
    operands.extend(&value_indices);
    inside.void("memref.store", &operands, &[])?;
    // SAFETY: the old loop is empty but for its yield and has no results;
    // it was the anchor of every insertion above, so it goes last.
    unsafe { mlir_sys::mlirOperationDestroy(inner.to_raw()) };
    Some(())
}

fn distribute<'c>(context: &'c Context, op: OperationRef<'c, '_>, block_size: i64) -> Option<()> {
    let location = op.location();
    let reduction = reduction(op, block_size);
    let body = op.region_at(0)?.first_block()?;
    let rank = body.argument_count();
    if op.operand_count() != 3 * rank || op.result_count() != 0 {
        return None;
    }
    let bounds: Vec<IrValue<'c>> = (0..3 * rank).map(|i| op.operand_at(i).map(detach)).collect::<Option<_>>()?;
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
    let mut thread = here.gpu_query("gpu.thread_id")?;
    let mut threads = here.gpu_query("gpu.block_dim")?;
    let mut lane = None;
    if reduction.is_some() {
        // A warp per output: the loop runs over warps, lanes share the
        // reduced dim.
        let warp = here.index(32)?;
        lane = Some(here.index_op("arith.remui", &[thread, warp])?);
        thread = here.index_op("arith.divui", &[thread, warp])?;
        threads = here.index_op("arith.divui", &[threads, warp])?;
    }

    let loop_block = Block::new(&[(Type::index(context), location)]);
    let linear = detach(loop_block.argument_at(0)?.into());
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
        let argument = body.argument_at(d)?;
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
    if let (Some(found), Some(lane)) = (&reduction, lane) {
        warp_reduce(context, found, lane)?;
    }
    Some(())
}
