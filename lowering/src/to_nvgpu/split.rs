//! Split-K in a cluster (the `split_k = 2` hint) for the wgmma variant
//! with the TMA epilogue: each program block runs as a cluster of two
//! blocks that share its tile, rank 0 multiplying the first half of its K
//! steps and rank 1 the second; rank 1 then adds its accumulator into rank
//! 0's through distributed shared memory, and rank 0 alone stores the tile.
//!
//! Why: where the grid has fewer tiles than the GPU has multiprocessors
//! (128 x 8192 x 8192: 64 tiles of 128x128), or small tiles read the
//! operands many times over from L2 (1024^3), two blocks a tile fill the
//! GPU with larger tiles. The reduction costs one cluster barrier and one
//! pass of the accumulator through shared memory, with no workspace in
//! global memory and no second kernel, and its order is fixed (the
//! result does not depend on timing).
//!
//! The program is unchanged: `tile.block_id x` and `tile.num_blocks x`
//! read as the program's (launched block / 2, launched grid / 2: the
//! runtime launches twice the program's grid along `x`, in clusters of
//! two, `Variant::split_k`), and the K loop's bounds become the rank's
//! half. Rank 1 writes its registers, per thread in the order it holds
//! them (the layout needs no knowing: both ranks' threads hold the same
//! elements), to a region of rank 0's shared memory past the ring and the
//! epilogue's staging, so that rank 0 may still be multiplying while they
//! arrive:
//!
//! ```mlir
//! nvvm.cluster.arrive.relaxed {aligned}     // at the start, after the barriers' init
//! ...                                       // the K loop over this rank's half
//! nvvm.cluster.wait {aligned}               // both blocks are running
//! scf.if %rank1_consumer {
//!   %remote = nvvm.mapa %partials, %c0_i32 : !llvm.ptr<3> -> !llvm.ptr<7>
//!   llvm.store %four_registers, %remote_slot {alignment = 16} : vector<4xf32>, !llvm.ptr<7>
//! }
//! nvvm.cluster.arrive {aligned}             // release: rank 1's stores
//! nvvm.cluster.wait {aligned}               // acquire, in rank 0
//! %p = llvm.load %local_slot {alignment = 16} : !llvm.ptr<3> -> vector<4xf32>
//! // each register += its partial; rank 0's thread 0 stores the tile
//! ```
//!
//! Caveats: two ways only; not for persistent blocks (their tiles would
//! need pairing as well); the region takes `M x N x 4` bytes of shared
//! memory, which the ring gives up (`stages`); the summation order differs
//! from one block's (two partial sums of f32), as any tiling's does.

use super::IrValue;
use crate::{
    build::At,
    rewrite::{defining_op, detach, op_name},
};
use melior::dialect::arith::CmpiPredicate;
use melior::{
    Context,
    ir::{
        BlockLike, OperationRef, RegionLike, ValueLike, operation::OperationLike, operation::WalkOrder,
        operation::WalkResult,
    },
};

/// Blocks a program block runs as.
pub(super) const WAYS: i64 = 2;

/// Bytes of one slot: four f32 registers of a thread.
const SLOT_BYTES: i64 = 16;

/// Makes `kernel`'s program see its own grid, and `for_op` run this
/// block's half of its K steps; this block's rank in its cluster.
pub(super) fn prepare<'c>(
    context: &'c Context,
    kernel: OperationRef<'c, '_>,
    for_op: OperationRef<'c, '_>,
) -> Option<IrValue<'c>> {
    let entry = kernel.region(0).ok()?.first_block()?;
    let top = At::before(context, entry.first_operation()?)?;
    let block = top.gpu_query("gpu.block_id")?;
    let rank = top.index_op("arith.remui", &[block, top.index(WAYS)?])?;
    let mut queries = Vec::new();
    kernel.walk(WalkOrder::PreOrder, |op| {
        let name = op_name(op);
        let on_x = op.attribute("axis").is_ok_and(|a| a.to_string().ends_with("x>"));
        if (name == "tile.block_id" || name == "tile.num_blocks") && on_x {
            queries.push(op.to_raw());
        }
        WalkResult::Advance
    });
    for raw in queries {
        // SAFETY: a live query op of the kernel, found just above.
        let op = unsafe { OperationRef::from_raw(raw) };
        let after = At::before(context, op.next_in_block()?)?;
        let launched = detach(op.result(0).ok()?.into());
        let ways = after.index(WAYS)?;
        let program = after.index_op("arith.divui", &[launched, ways])?;
        let divide = defining_op(program)?;
        // SAFETY: live values of one function; every use but the division
        // itself now reads the program's value, which dominates them (it
        // follows the query at once).
        unsafe {
            let mut except = [divide.to_raw()];
            mlir_sys::mlirValueReplaceAllUsesExcept(launched.to_raw(), program.to_raw(), 1, except.as_mut_ptr());
        }
    }
    // This rank's half: the first ceil(trips / 2) steps for rank 0, the
    // rest for rank 1 (none when there is one step).
    let at = At::before(context, for_op)?;
    let (lower, upper, step) =
        (detach(for_op.operand(0).ok()?), detach(for_op.operand(1).ok()?), detach(for_op.operand(2).ok()?));
    let span = at.index_op("arith.maxsi", &[at.index_op("arith.subi", &[upper, lower])?, at.index(0)?])?;
    let trips = at.index_op("arith.ceildivui", &[span, step])?;
    let first = at.index_op("arith.ceildivui", &[trips, at.index(WAYS)?])?;
    let middle = at.index_op("arith.addi", &[lower, at.index_op("arith.muli", &[first, step])?])?;
    let middle = at.index_op("arith.minsi", &[middle, upper])?;
    let leads = at.cmpi(CmpiPredicate::Eq, rank, at.index(0)?)?;
    let new_lower = at.op("arith.select", &[leads, lower, middle], &["index"], &[])?;
    let new_upper = at.op("arith.select", &[leads, middle, upper], &["index"], &[])?;
    // SAFETY: operands 0 and 1 of the live scf.for are its bounds, set to
    // index values defined before it.
    unsafe {
        mlir_sys::mlirOperationSetOperand(for_op.to_raw(), 0, new_lower.to_raw());
        mlir_sys::mlirOperationSetOperand(for_op.to_raw(), 1, new_upper.to_raw());
    }
    Some(rank)
}

/// The first half of the cluster barrier that says both blocks run:
/// every thread, at the start (its wait comes before the reduction).
pub(super) fn start(at: &At) -> Option<()> {
    at.void("nvvm.cluster.arrive.relaxed", &[], &[("aligned", "unit")]).map(|_| ())
}

/// Where the partner's registers go, and who holds registers.
pub(super) struct Partials<'c> {
    /// The workgroup allocation and the region's byte offset in it.
    pub raw: IrValue<'c>,
    pub offset: i64,
    pub thread: IrValue<'c>,
    /// Threads that hold accumulator rows (the first ones of the block).
    pub threads: i64,
    /// Whether this thread is one of them (`None`: every one is).
    pub consumer: Option<IrValue<'c>>,
    pub rank: IrValue<'c>,
}

/// After the K loop (every wgmma waited for): `result`, an accumulator of
/// `rows / 64` wgmma row blocks of `n` columns, with rank 1's added in
/// rank 0 (in rank 1 the value is not meant to be stored).
pub(super) fn reduce<'c>(
    at: &At<'c, '_>,
    result: IrValue<'c>,
    accumulator: &str,
    partials: &Partials<'c>,
    rows: i64,
    n: i64,
) -> Option<IrValue<'c>> {
    let Partials { raw, offset, thread, threads, consumer, rank } = *partials;
    let fields = vec!["f32"; (n / 2) as usize].join(", ");
    let inner = format!("!llvm.struct<({fields})>");
    let blocks = rows / 64;
    let outer = format!("!llvm.struct<({})>", vec![inner.as_str(); blocks as usize].join(", "));
    let all = at.op("builtin.unrealized_conversion_cast", &[result], &[&outer], &[])?;
    // Thread t's slot s lies at `offset + (s * threads + t) * 16`: a
    // warp's sixteen-byte stores are contiguous. Threads past the
    // consumers (a producer warpgroup) read another's slots, and drop them.
    let base = at.op("memref.extract_aligned_pointer_as_index", &[raw], &["index"], &[])?;
    let slot = at.index_op("arith.remui", &[thread, at.index(threads)?])?;
    let first = at.index_op("arith.addi", &[base, at.index(offset)?])?;
    let first = at.index_op("arith.addi", &[first, at.index_op("arith.muli", &[slot, at.index(SLOT_BYTES)?])?])?;
    let first = at.op("arith.index_castui", &[first], &["i64"], &[])?;
    let local = at.op("llvm.inttoptr", &[first], &["!llvm.ptr<3>"], &[])?;
    let slots = blocks * n / 2 / 4;
    // Each row block's registers, extracted once.
    let own: Vec<IrValue<'c>> = (0..blocks)
        .map(|b| at.op("llvm.extractvalue", &[all], &[&inner], &[("position", &format!("array<i64: {b}>"))]))
        .collect::<Option<_>>()?;
    // Slot s, element e: register 4s + e of the thread, counted across
    // row blocks.
    let place = |s: i64, e: i64| ((4 * s + e) / (n / 2), (4 * s + e) % (n / 2));
    let register = |at: &At<'c, '_>, s: i64, e: i64| {
        let (block, field) = place(s, e);
        at.op("llvm.extractvalue", &[own[block as usize]], &["f32"], &[("position", &format!("array<i64: {field}>"))])
    };
    let gep = |at: &At<'c, '_>, pointer: IrValue<'c>, space: i64, s: i64| {
        let bytes =
            at.op("arith.constant", &[], &["i64"], &[("value", &format!("{} : i64", s * threads * SLOT_BYTES))])?;
        at.op(
            "llvm.getelementptr",
            &[pointer, bytes],
            &[&format!("!llvm.ptr<{space}>")],
            &[("rawConstantIndices", &format!("array<i32: {}>", i32::MIN)), ("elem_type", "i8")],
        )
    };

    // Both blocks are running (the start's arrival): rank 0's shared
    // memory may be written.
    at.void("nvvm.cluster.wait", &[], &[("aligned", "unit")])?;
    let partner = at.cmpi(CmpiPredicate::Ne, rank, at.index(0)?)?;
    let writes = match consumer {
        Some(consumer) => at.op("arith.andi", &[partner, consumer], &["i1"], &[])?,
        None => partner,
    };
    let write = at.scf_if(writes, false)?.into_iter().next()?;
    let leader = write.op("arith.constant", &[], &["i32"], &[("value", "0 : i32")])?;
    let remote = write.op("nvvm.mapa", &[local, leader], &["!llvm.ptr<7>"], &[])?;
    for s in 0..slots {
        let values = (0..4).map(|e| register(&write, s, e)).collect::<Option<Vec<_>>>()?;
        let vector = write.op("vector.from_elements", &values, &["vector<4xf32>"], &[])?;
        let to = gep(&write, remote, 7, s)?;
        write.void("llvm.store", &[vector, to], &[("alignment", "16 : i64")])?;
    }
    // Rank 1's stores are released by its arrival and acquired by the
    // wait: the default semantics of the cluster barrier.
    at.void("nvvm.cluster.arrive", &[], &[("aligned", "unit")])?;
    at.void("nvvm.cluster.wait", &[], &[("aligned", "unit")])?;

    let mut sum = all;
    let mut block_structs = own.clone();
    for s in 0..slots {
        let from = gep(at, local, 3, s)?;
        let loaded = at.op("llvm.load", &[from], &["vector<4xf32>"], &[("alignment", "16 : i64")])?;
        for e in 0..4 {
            let (block, field) = place(s, e);
            let position = at.op("arith.constant", &[], &["i32"], &[("value", &format!("{e} : i32"))])?;
            let part = at.op("llvm.extractelement", &[loaded, position], &["f32"], &[])?;
            let own = register(at, s, e)?;
            let total = at.op("arith.addf", &[own, part], &["f32"], &[])?;
            let updated = &mut block_structs[block as usize];
            *updated = at.op(
                "llvm.insertvalue",
                &[*updated, total],
                &[&inner],
                &[("position", &format!("array<i64: {field}>"))],
            )?;
        }
    }
    for (b, registers) in block_structs.into_iter().enumerate() {
        sum = at.op("llvm.insertvalue", &[sum, registers], &[&outer], &[("position", &format!("array<i64: {b}>"))])?;
    }
    at.op("builtin.unrealized_conversion_cast", &[sum], &[accumulator], &[])
}
