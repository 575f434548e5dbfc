//! The TMA-store epilogue of a wgmma main loop.
//!
//! When the loop's accumulator starts at zero and its only use is a
//! `tile.store` of the whole tile to a view of a kernel argument (directly,
//! or through one `arith.truncf` to `f16`/`bf16`), the registers go
//! straight to shared memory in the output's element type, laid out as
//! 128-byte-swizzled TMA boxes, and one thread stores the boxes with
//! `cp.async.bulk.tensor` (`nvgpu.tma.async.store`). The TMA clips the
//! boxes at the array's edges, which is the view's rule for stores.
//!
//! Before (after the loop, `%r` its accumulator registers):
//! ```mlir
//! %t = bufferization.to_tensor %buf ...      // after nvgpu.warpgroup.mma.store
//! %o = arith.truncf %t : tensor<128x256xf32> to tensor<128x256xf16>
//! tile.store %o, %pc[%bm, %bn] : tensor<128x256xf16> -> !tile.partition_view<128x256xf16>
//! ```
//! After:
//! ```mlir
//! %s = builtin.unrealized_conversion_cast %r : !nvgpu.warpgroup.accumulator<...> to !llvm.struct<(struct<(f32, ...)>)>
//! %f = llvm.extractvalue %s[0]
//! // per register pair: two f32 -> vector<2xf16> -> i32 into its swizzled place
//! memref.store %bits, %flat[%index] : memref<16384xi32, #gpu.address_space<workgroup>>
//! nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
//! gpu.barrier
//! scf.if %thread0 {
//!   nvgpu.tma.async.store %box0 to %dc[%col0, %row] ...   // one per 64 columns
//!   nvvm.cp.async.bulk.commit.group
//!   nvvm.cp.async.bulk.wait_group 0 {read}
//! }
//! ```
//!
//! Why it pays: the general path stores the f32 registers to shared memory
//! (bank conflicts of eight), rounds them in a second pass and copies the
//! tile out with every thread, three barriers in all; here the registers
//! are rounded in place and written once, without conflicts (a warp's
//! store covers eight rows at one 16-byte column, which the swizzle spreads
//! over all 32 banks), and the copy out is asynchronous.

use super::IrValue;
use crate::{
    build::{At, tile_type},
    rewrite::{argument_of, defining_op, op_name, single_use},
};
use melior::{
    Context,
    ir::{OperationRef, RegionLike, ValueLike, operation::OperationLike},
};

/// Bytes of a row of a 128-byte-swizzled box.
const SWIZZLE_BYTES: i64 = 128;

/// A `tile.store` of the loop's accumulator the TMA can do.
pub(super) struct Store {
    /// The `tile.store`.
    op: mlir_sys::MlirOperation,
    /// The `arith.truncf` between the loop and the store, if any.
    truncf: Option<mlir_sys::MlirOperation>,
    /// The kernel argument the store's view partitions.
    pub arg: usize,
    /// The stored element type: `f16`, `bf16` or `f32`.
    element: String,
    /// Boxes staged at a time (all of the tile's unless a persistent
    /// block's ring needs the room; see `Staging`).
    pub chunk: i64,
}

impl Store {
    fn bytes(&self) -> i64 {
        if self.element == "f32" { 4 } else { 2 }
    }

    /// Columns of one TMA box: 128 bytes of a row.
    pub fn box_columns(&self) -> i64 {
        SWIZZLE_BYTES / self.bytes()
    }

    /// The `tile.store` and its `arith.truncf`.
    pub fn ops(&self) -> (mlir_sys::MlirOperation, Option<mlir_sys::MlirOperation>) {
        (self.op, self.truncf)
    }

    /// Shared memory the staged tile takes.
    pub fn tile_bytes(&self, m: i64, n: i64) -> i64 {
        m * n * self.bytes()
    }

    /// Shared memory one staged box takes (`m` rows of 128 bytes).
    pub fn box_bytes(&self, m: i64) -> i64 {
        m * SWIZZLE_BYTES
    }

    /// Shared memory the staging takes: `chunk` boxes.
    pub fn staging_bytes(&self, m: i64) -> i64 {
        self.chunk * self.box_bytes(m)
    }
}

/// The store of result `iter` of `for_op` (an `m x n` accumulator, zero
/// at the start) that the TMA epilogue can do, if it has one.
pub(super) fn find(kernel: OperationRef, for_op: OperationRef, iter: usize, m: i64, n: i64) -> Option<Store> {
    if n % (SWIZZLE_BYTES / 4) != 0 {
        return None;
    }
    let result = for_op.result(iter).ok()?;
    let (mut user, position) = single_use(result.into())?;
    let mut truncf = None;
    if op_name(user) == "arith.truncf" {
        truncf = Some(user.to_raw());
        let (next, next_position) = single_use(user.result(0).ok()?.into())?;
        if next_position != 0 {
            return None;
        }
        user = next;
    } else if position != 0 {
        return None;
    }
    if op_name(user) != "tile.store" || user.operand_count() != 4 || user.block()? != for_op.block()? {
        return None;
    }
    let (shape, element) = tile_type(user.operand(0).ok()?.r#type())?;
    let element = element.to_string();
    if shape != [m, n] || !matches!(element.as_str(), "f16" | "bf16" | "f32") {
        return None;
    }
    let partition = defining_op(user.operand(1).ok()?)?;
    if op_name(partition) != "tile.partition_view" {
        return None;
    }
    let entry = kernel.region(0).ok()?.first_block()?;
    let arg = argument_of(partition.operand(0).ok()?, entry)?;
    let chunk = n / (SWIZZLE_BYTES / if element == "f32" { 4 } else { 2 });
    Some(Store { op: user.to_raw(), truncf, arg, element, chunk })
}

/// What the epilogue needs of the rewritten loop.
pub(super) struct Loop<'c> {
    /// The accumulator registers to store (every wgmma waited for).
    pub result: IrValue<'c>,
    /// The workgroup allocation of the ring, free after the loop.
    pub raw: IrValue<'c>,
    /// The `!llvm.ptr` to the output's TMA descriptor.
    pub descriptor: IrValue<'c>,
    pub thread: IrValue<'c>,
    pub leader: IrValue<'c>,
    /// Whether the thread belongs to a warpgroup that holds accumulator
    /// rows (`None`: every one does).
    pub consumer: Option<IrValue<'c>>,
    /// The threads that meet at the epilogue's barriers, when not the
    /// whole block (a persistent producer warpgroup is still loading), and
    /// the named barrier they meet at.
    pub meeting: Option<Meeting<'c>>,
    /// Whether each warpgroup holds a tile of its own (ping-pong), not its
    /// rows of the block's.
    pub own_tile: bool,
    pub m: i64,
    pub n: i64,
    /// Accumulator rows of one warpgroup: 64, or 128 (two wgmma row
    /// blocks).
    pub rows: i64,
}

/// Some of the block's threads that meet at a named barrier.
#[derive(Clone, Copy)]
pub(super) struct Meeting<'c> {
    /// The barrier's id, an `i32` (not 0: `gpu.barrier`'s).
    pub id: IrValue<'c>,
    pub threads: i64,
}

/// A barrier of the block, or of the `meeting`'s threads while the others
/// go on.
pub(super) fn sync<'c>(at: &At<'c, '_>, meeting: Option<Meeting<'c>>) -> Option<()> {
    match meeting {
        None => at.void("gpu.barrier", &[], &[]).map(|_| ()),
        Some(Meeting { id, threads }) => {
            let count = at.op("arith.constant", &[], &["i32"], &[("value", &format!("{threads} : i32"))])?;
            at.void("nvvm.barrier", &[id, count], &[("operandSegmentSizes", "array<i32: 1, 1, 0>")]).map(|_| ())
        }
    }
}

/// Replaces the store (and its `arith.truncf`) with the TMA epilogue.
pub(super) fn emit<'c>(context: &'c Context, store: &Store, at_loop: &Loop<'c>) -> Option<()> {
    // SAFETY: the store and truncf found by `find` are alive: the rewrite
    // only changed the loop and added ops.
    let op = unsafe { OperationRef::from_raw(store.op) };
    let at = At::before(context, op)?;
    let tile = coordinates(store)?;
    let all = 0..at_loop.n / store.box_columns();
    let issue = stage(context, &at, store, at_loop, at.index(0)?, all.clone())?;
    store_boxes(&issue, store, at_loop, issue.index(0)?, tile, all)?;
    // The boxes must be read out before the block exits and its shared
    // memory goes to the next block; their writes to global memory finish
    // on their own before the kernel is complete.
    issue.void("nvvm.cp.async.bulk.wait_group", &[], &[("group", "0 : i32"), ("read", "unit")])?;
    erase(store);
    Some(())
}

/// Erases the store and its `arith.truncf`.
pub(super) fn erase(store: &Store) {
    // SAFETY: the store is the truncf's only user and nothing uses the
    // store; the user goes first.
    unsafe {
        mlir_sys::mlirOperationDestroy(store.op);
        if let Some(truncf) = store.truncf {
            mlir_sys::mlirOperationDestroy(truncf);
        }
    }
}

/// The store's tile coordinates (row, column).
pub(super) fn coordinates<'c>(store: &Store) -> Option<[IrValue<'c>; 2]> {
    // SAFETY: the store found by `find` is alive.
    let op = unsafe { OperationRef::from_raw(store.op) };
    Some([super::detach(op.operand(2).ok()?), super::detach(op.operand(3).ok()?)])
}

/// Writes boxes `boxes` of the accumulator (every wgmma waited for) at
/// byte `offset` of the workgroup allocation as swizzled boxes, fences
/// and meets the block; a builder for thread 0's part after that.
pub(super) fn stage<'c, 'a>(
    context: &'c Context,
    at: &At<'c, 'a>,
    store: &Store,
    at_loop: &Loop<'c>,
    offset: IrValue<'c>,
    boxes: std::ops::Range<i64>,
) -> Option<At<'c, 'a>> {
    let Loop { result, raw, thread, leader, consumer, m, n, rows, own_tile, .. } = *at_loop;
    let (t, bytes, columns) = (store.element.as_str(), store.bytes(), store.box_columns());
    let workgroup = "#gpu.address_space<workgroup>";
    // One warpgroup's fragment: per 64 of its rows (one wgmma row
    // block), a struct of n / 2 f32 per thread, register 4j + 2i + e
    // holding row 8i + lane / 4 of the warp's 16 and column 8j + 2
    // (lane % 4) + e.
    let fields = vec!["f32"; (n / 2) as usize].join(", ");
    let inner = format!("!llvm.struct<({fields})>");
    let blocks = rows / 64;
    let outer = format!("!llvm.struct<({})>", vec![inner.as_str(); blocks as usize].join(", "));
    let all = at.op("builtin.unrealized_conversion_cast", &[result], &[&outer], &[])?;

    let body = match consumer {
        Some(consumer) => at.scf_if(consumer, false)?.into_iter().next()?,
        None => At { context, location: at.location, block: at.block, before: at.before },
    };
    let lane = body.index_op("arith.remui", &[thread, body.index(32)?])?;
    let warp = body.index_op("arith.divui", &[thread, body.index(32)?])?;
    let quad = body.index_op("arith.remui", &[lane, body.index(4)?])?;
    let group = body.index_op("arith.divui", &[lane, body.index(4)?])?;
    // Warp w is warp w mod 4 of warpgroup w / 4, which holds rows
    // rows * (w / 4).. of the block's tile (or all of its own tile, from
    // row 0, in ping-pong); in each of its row blocks the
    // warp holds 16 rows from 16 (w mod 4). Every term but lane / 4 is a
    // multiple of 8, so that is the row's 1024-byte swizzle phase.
    let warpgroup_rows = if own_tile {
        body.index(0)?
    } else {
        body.index_op("arith.muli", &[body.index_op("arith.divui", &[warp, body.index(4)?])?, body.index(rows)?])?
    };
    let warp_rows =
        body.index_op("arith.muli", &[body.index_op("arith.remui", &[warp, body.index(4)?])?, body.index(16)?])?;
    let first_row =
        body.index_op("arith.addi", &[body.index_op("arith.addi", &[warpgroup_rows, warp_rows])?, group])?;
    let pair_bytes = 2 * bytes;
    let word = if bytes == 2 { "i32" } else { "i64" };
    let flat_type = format!("memref<{}x{word}, {workgroup}>", m * (boxes.end - boxes.start) * columns / 2);
    let flat = body.op("memref.view", &[raw, offset], &[&flat_type], &[])?;
    // Byte offset of the pair in its 16-byte chunk, and the chunk's first
    // byte in the row before the swizzle, per thread.
    let quad_bytes = body.index_op("arith.muli", &[quad, body.index(pair_bytes)?])?;
    let in_boxes = |j: i64| boxes.contains(&(8 * j / columns));
    for (block, j) in (0..blocks).flat_map(|block| (0..n / 8).filter(move |&j| in_boxes(j)).map(move |j| (block, j))) {
        let registers =
            body.op("llvm.extractvalue", &[all], &[&inner], &[("position", &format!("array<i64: {block}>"))])?;
        let column = 8 * j;
        let box_index = column / columns - boxes.start;
        let in_row = body.index_op("arith.addi", &[quad_bytes, body.index((column % columns) * bytes)?])?;
        let chunk = body.index_op("arith.divui", &[in_row, body.index(16)?])?;
        let within = body.index_op("arith.remui", &[in_row, body.index(16)?])?;
        let swizzled = body.index_op("arith.xori", &[chunk, group])?;
        let in_box =
            body.index_op("arith.addi", &[body.index_op("arith.muli", &[swizzled, body.index(16)?])?, within])?;
        for i in 0..2 {
            let row = body.index_op("arith.addi", &[first_row, body.index(64 * block + 8 * i)?])?;
            let row_bytes = body.index_op("arith.muli", &[row, body.index(SWIZZLE_BYTES)?])?;
            let offset = body.index_op("arith.addi", &[row_bytes, in_box])?;
            let offset = body.index_op("arith.addi", &[offset, body.index(box_index * m * SWIZZLE_BYTES)?])?;
            let index = body.index_op("arith.divui", &[offset, body.index(pair_bytes)?])?;
            let first = 4 * j + 2 * i;
            let pair = [first, first + 1].map(|p| {
                body.op("llvm.extractvalue", &[registers], &["f32"], &[("position", &format!("array<i64: {p}>"))])
            });
            let mut vector = body.op("vector.from_elements", &[pair[0]?, pair[1]?], &["vector<2xf32>"], &[])?;
            if t != "f32" {
                vector = body.op("arith.truncf", &[vector], &[&format!("vector<2x{t}>")], &[])?;
            }
            let bits = body.op("llvm.bitcast", &[vector], &[word], &[])?;
            // Each thread stores its own registers: not a stray store for
            // tile-distribute to give thread 0.
            body.void("memref.store", &[bits, flat, index], &[(tile_dialect::attrs::DISTRIBUTED, "unit")])?;
        }
    }
    // The generic proxy's writes must be visible to the TMA's (async
    // proxy) reads: each writer fences, then the block meets.
    at.void(
        "nvvm.fence.proxy",
        &[],
        &[("kind", "#nvvm.proxy_kind<async.shared>"), ("space", "#nvvm.shared_space<cta>")],
    )?;
    sync(at, at_loop.meeting)?;

    at.scf_if(leader, false)?.into_iter().next()
}

/// Thread 0's TMA stores of the staged boxes `boxes` (at byte `offset`
/// of the allocation) to the tile at `tile` coordinates, committed as one
/// group.
pub(super) fn store_boxes<'c>(
    issue: &At<'c, '_>,
    store: &Store,
    at_loop: &Loop<'c>,
    offset: IrValue<'c>,
    tile: [IrValue<'c>; 2],
    boxes: std::ops::Range<i64>,
) -> Option<()> {
    let Loop { raw, descriptor, m, n, .. } = *at_loop;
    let (t, columns) = (store.element.as_str(), store.box_columns());
    let workgroup = "#gpu.address_space<workgroup>";
    let map = format!(
        "!nvgpu.tensormap.descriptor<tensor = memref<{m}x{columns}x{t}, 3>, swizzle = swizzle_128b, \
         l2promo = none, oob = zero, interleave = none>"
    );
    let map_value = issue.op("builtin.unrealized_conversion_cast", &[descriptor], &[&map], &[])?;
    let count = boxes.end - boxes.start;
    let tiles =
        issue.op("memref.view", &[raw, offset], &[&format!("memref<{count}x{m}x{columns}x{t}, {workgroup}>")], &[])?;
    let row = super::tma_start(issue, tile[0], m)?;
    let col = super::tma_start(issue, tile[1], n)?;
    let box_type = format!("memref<{m}x{columns}x{t}, strided<[{columns}, 1], offset: ?>, {workgroup}>");
    for b in boxes.clone() {
        let source = issue.op(
            "memref.reinterpret_cast",
            &[tiles, issue.index((b - boxes.start) * m * columns)?],
            &[&box_type],
            &[
                ("operandSegmentSizes", "array<i32: 1, 1, 0, 0>"),
                ("static_offsets", &format!("array<i64: {}>", i64::MIN)),
                ("static_sizes", &format!("array<i64: {m}, {columns}>")),
                ("static_strides", &format!("array<i64: {columns}, 1>")),
            ],
        )?;
        let box_col = issue.index_op("arith.addi", &[col, issue.index(b * columns)?])?;
        // TMA coordinates go innermost first.
        issue.void(
            "nvgpu.tma.async.store",
            &[source, map_value, box_col, row],
            &[("operandSegmentSizes", "array<i32: 1, 1, 2, 0>")],
        )?;
    }
    issue.void("nvvm.cp.async.bulk.commit.group", &[], &[])?;
    Some(())
}
