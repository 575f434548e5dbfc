//! `tile-stream-stores`: a store of a wide element-wise result becomes a
//! loop over chunks of its row, each computed from chunks of its loads.
//!
//! Summary: on the register path every live tile costs registers in every
//! thread. A `tile.store` whose tile is computed element-wise (`arith`,
//! `math`, `tile.reshape`, `tile.broadcast`, `tile.splat`, splat constants)
//! from tile loads, where those loads together need more registers a
//! thread than the block's threads have, is rewritten into an `scf.for`
//! over `n` chunks of the tile's innermost dim: each iteration loads
//! chunk `k` of every load (a view of the same memref with the chunk as its
//! tile), computes chunk `k` of the result and stores it. A load whose tile
//! the kernel also used earlier (a layernorm's `x`, read for its mean and
//! variance) is loaded again chunk by chunk, so the whole tile is no longer
//! live across the end of the kernel. Values that do not vary along the
//! chunked dim (a broadcast row statistic) are used as they are.
//!
//! Before (rows of 32768 f32 at 1024 threads: x, W and B would take 96
//! registers a thread of the 64 there are):
//! ```mlir
//! %x = tile.load %px[%r, %c0] : !tile.partition_view<1x32768xf32> -> tensor<1x32768xf32>
//! ... the mean %meanb and 1/std %rstdb of %x, broadcast to tensor<1x32768xf32> ...
//! %xc = arith.subf %x, %meanb : tensor<1x32768xf32>
//! %xn = arith.mulf %xc, %rstdb : tensor<1x32768xf32>
//! %w = tile.load %pw[%c0] : !tile.partition_view<32768xf32> -> tensor<32768xf32>
//! %w1 = tile.reshape %w : tensor<32768xf32> -> tensor<1x32768xf32>
//! %y = arith.mulf %xn, %w1 : tensor<1x32768xf32>
//! tile.store %y, %py[%r, %c0] : tensor<1x32768xf32> -> !tile.partition_view<1x32768xf32>
//! ```
//! After (four chunks):
//! ```mlir
//! %pxk = tile.partition_view %X : memref<?x32768xf32> -> !tile.partition_view<1x8192xf32>
//! %pwk = tile.partition_view %W : memref<32768xf32> -> !tile.partition_view<8192xf32>
//! %pyk = tile.partition_view %Y : memref<?x32768xf32> -> !tile.partition_view<1x8192xf32>
//! scf.for %k = %c0 to %c4 step %c1 {
//!   %xk = tile.load %pxk[%r, %c0 * 4 + %k] : ... -> tensor<1x8192xf32>
//!   %meank = tile.broadcast %mean1 : tensor<1x1xf32> -> tensor<1x8192xf32>
//!   ...
//!   %wk = tile.load %pwk[%c0 * 4 + %k] : ... -> tensor<8192xf32>
//!   ...
//!   tile.store %yk, %pyk[%r, %c0 * 4 + %k] : tensor<1x8192xf32> -> !tile.partition_view<1x8192xf32>
//! }
//! ```
//!
//! Why it is the same program: chunk `k` of a view whose tiles are `n`
//! times narrower, at coordinate `c * n + k`, holds exactly the elements
//! `[k * w, (k + 1) * w)` of the tile at coordinate `c` (width `n * w`),
//! with the same padding and the same dropped elements past the edge (a
//! coordinate is first clamped, unsigned, far past any array, so that a
//! negative or huge one cannot wrap into the array when scaled). A
//! load runs again only when no `tile.store` lies between it and the
//! store, so it reads what it read the first time; and each element is
//! still loaded before it is stored (an in-place kernel, `Y` = `X`, stays
//! correct).
//!
//! When: the distinct loads of the tree need more than [`PRESSURE`] of
//! the registers a thread has (65536 a block, at most 255 a thread), and
//! the chunks are chosen so that one chunk of them takes at most
//! [`CHUNK_SHARE`] of those registers, each thread still holding at least
//! one 16-byte vector of each load. Smaller kernels are left alone: their
//! tiles fit, and reloading would only add traffic (BENCHMARKS.md, session
//! 13, measured the layernorm and the rmsnorm over f32 rows of 32768 both
//! ways).
//!
//! Caveats: only the innermost dim is chunked; the tree must be in the
//! store's block; a reshape in it may only add or drop unit dims, and an
//! iota, a reduction, a permute or a loop-carried tile ends the match
//! (the store is left as it is). The loop is not prefetched (the pass runs
//! after `tile-prefetch-loads`): a chunk's loads after the previous
//! chunk's store measured as fast as loading a chunk ahead, which needs
//! more registers. Each streamed store says so in a remark
//! (`--remarks-filter=tile`).

use crate::{
    build::{At, tile_type},
    layout::{
        assign::{elementwise, kernel_warps, register_path},
        element_bytes, set_type,
    },
    pass::{PassInfo, TilePass},
    rewrite::{IrValue, Probe, constant_index, defining_op, detach, emit_error, op_name, unused},
};
use melior::{
    Context, ContextRef,
    dialect::arith,
    ir::{
        Attribute, AttributeLike, Operation, OperationRef, Type, Value, ValueLike,
        attribute::DenseElementsAttribute,
        operation::{OperationLike, OperationMutLike, OperationRefMut, WalkOrder, WalkResult},
        r#type::RankedTensorType,
    },
    pass::{ExternalPass, RunExternalPass},
};
use std::collections::HashMap;
use tile_dialect::types::PartitionViewType;

/// The share of a thread's registers (numerator, denominator) the loads of
/// a store's tree may take before the store is streamed.
pub const PRESSURE: (i64, i64) = (1, 1);

/// The share of a thread's registers one chunk of those loads may take.
pub const CHUNK_SHARE: (i64, i64) = (3, 8);

/// The `tile-stream-stores` pass.
#[derive(Clone, Default)]
pub struct StreamStores;

impl TilePass for StreamStores {
    const INFO: PassInfo = PassInfo {
        argument: "tile-stream-stores",
        name: "TileStreamStores",
        summary: "Store a wide element-wise tile chunk by chunk, loading its inputs chunk by chunk, when they would not fit in registers (register-path kernels)",
        op_name: "func.func",
    };
    crate::pass_type_id!();

    fn dependent_dialects() -> Vec<melior::dialect::DialectHandle> {
        vec![melior::dialect::DialectHandle::scf(), melior::dialect::DialectHandle::arith()]
    }
}

impl<'c> RunExternalPass<'c> for StreamStores {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        if !register_path(operation) {
            return;
        }
        let context = operation.context();
        // SAFETY: the context outlives the pass run, and `context` (the
        // handle the reference points into) lives until the end of `run`.
        let context = unsafe { context.to_ref() };
        let (warps, cluster) = kernel_warps(operation);
        let threads = warps * crate::layout::linear::WARP;
        let registers = (65536 / (threads / cluster)).min(255);
        let mut stores = Vec::new();
        operation.walk(WalkOrder::PreOrder, |op| {
            if op_name(op) == "tile.store" {
                stores.push(op.to_raw());
            }
            WalkResult::Advance
        });
        for raw in stores {
            // SAFETY: a store of the kernel; each rewrite erases only its
            // own store and the ops that die with it.
            let store = unsafe { OperationRef::from_raw(raw) };
            let Some(plan) = plan(store, threads, registers) else { continue };
            crate::remarks::passed(
                store.location(),
                StreamStores::INFO.argument,
                "StreamStore",
                &format!(
                    "this store goes out in {} chunks: its loads would take {} registers a thread of the {registers} \
                     there are",
                    plan.chunks, plan.registers
                ),
            );
            if stream(context, store, &plan).is_none() {
                emit_error(store.location(), "tile-stream-stores: could not rewrite this store");
                pass.signal_failure();
                return;
            }
        }
    }
}

fn key(op: OperationRef) -> usize {
    op.to_raw().ptr as usize
}

/// What a store's rewrite clones: the ops of its tree, operands first, each
/// with the dim of its result that is chunked, and the number of chunks.
struct Plan<'c> {
    ops: Vec<(OperationRef<'c, 'c>, usize)>,
    chunks: i64,
    /// Registers a thread the loads would take whole.
    registers: i64,
}

/// The tree of `store`'s tile, if it is worth streaming.
fn plan<'c>(store: OperationRef<'c, 'c>, threads: i64, registers: i64) -> Option<Plan<'c>> {
    let tile = store.operand_at(0)?;
    let (shape, _) = tile_type(tile.r#type())?;
    let dim = shape.len().checked_sub(1)?;
    if shape[dim] < 2 {
        return None;
    }
    let mut walk = Walk { store, ops: Vec::new(), dims: HashMap::new(), load_bytes: Vec::new() };
    walk.visit(tile, dim)?;
    // Registers a thread for every load, whole and in a chunk.
    let whole: i64 = walk.load_bytes.iter().map(|bytes| bytes / threads / 4).sum();
    if whole * PRESSURE.1 <= registers * PRESSURE.0 {
        return None;
    }
    let smallest = *walk.load_bytes.iter().min()?;
    let mut chunks = 2;
    while whole * CHUNK_SHARE.1 > registers * CHUNK_SHARE.0 * chunks && chunks < shape[dim] {
        chunks *= 2;
    }
    // Each thread keeps at least one 16-byte vector of every load.
    while chunks > 1 && smallest / chunks / threads < 16 {
        chunks /= 2;
    }
    (chunks >= 2 && shape[dim] % chunks == 0).then_some(Plan { ops: walk.ops, chunks, registers: whole })
}

struct Walk<'c> {
    store: OperationRef<'c, 'c>,
    ops: Vec<(OperationRef<'c, 'c>, usize)>,
    dims: HashMap<usize, usize>,
    load_bytes: Vec<i64>,
}

impl<'c> Walk<'c> {
    /// Adds the op defining `value` (a tile whose dim `dim` is chunked) and
    /// its operands to the tree; `None` if the tree cannot be streamed.
    fn visit(&mut self, value: Value<'c, '_>, dim: usize) -> Option<()> {
        let op = defining_op(value)?;
        if op.block() != self.store.block() || op.result_count() != 1 {
            return None;
        }
        if let Some(&seen) = self.dims.get(&key(op)) {
            return (seen == dim).then_some(());
        }
        let (shape, element) = tile_type(value.r#type())?;
        let name = op_name(op);
        match name.as_str() {
            "tile.load" => {
                defining_op(op.operand_at(0)?).filter(|view| op_name(*view) == "tile.partition_view")?;
                if stores_between(op, self.store) {
                    return None;
                }
                self.load_bytes.push(shape.iter().product::<i64>() * element_bytes(element));
            }
            "tile.splat" => {}
            "arith.constant" => {
                splat_value(op)?;
            }
            "tile.broadcast" => {
                let source = op.operand_at(0)?;
                if tile_type(source.r#type())?.0[dim] != 1 {
                    self.visit(source, dim)?;
                }
            }
            "tile.reshape" => {
                let source = op.operand_at(0)?;
                let (from, _) = tile_type(source.r#type())?;
                self.visit(source, reshaped_dim(&from, &shape, dim)?)?;
            }
            _ if elementwise(&name) => {
                for operand in op.operands() {
                    if let Some((operand_shape, _)) = tile_type(operand.r#type()) {
                        if operand_shape != shape {
                            return None;
                        }
                        self.visit(operand, dim)?;
                    }
                }
            }
            _ => return None,
        }
        // SAFETY: an op of the kernel, alive until the rewrite.
        let op = unsafe { OperationRef::from_raw(op.to_raw()) };
        self.dims.insert(key(op), dim);
        self.ops.push((op, dim));
        Some(())
    }
}

/// The dim of `from` that dim `dim` of `to` is, for a reshape that only adds
/// or drops unit dims.
fn reshaped_dim(from: &[i64], to: &[i64], dim: usize) -> Option<usize> {
    let kept = |shape: &[i64]| shape.iter().enumerate().filter(|(_, n)| **n != 1).map(|(i, _)| i).collect::<Vec<_>>();
    let (from_kept, to_kept) = (kept(from), kept(to));
    let same = from_kept.len() == to_kept.len() && from_kept.iter().zip(&to_kept).all(|(&a, &b)| from[a] == to[b]);
    let position = to_kept.iter().position(|&i| i == dim)?;
    same.then(|| from_kept[position])
}

/// Whether a `tile.store` (or an op holding one) lies between `from` and
/// `to`, two ops of one block.
fn stores_between(from: OperationRef, to: OperationRef) -> bool {
    let mut next = from.next_in_block();
    while let Some(op) = next {
        if op == to {
            return false;
        }
        let mut found = false;
        op.walk(WalkOrder::PreOrder, |inner| {
            found = op_name(inner) == "tile.store";
            if found { WalkResult::Interrupt } else { WalkResult::Advance }
        });
        if found {
            return true;
        }
        next = op.next_in_block();
    }
    true
}

/// The element of a splat `arith.constant` tile.
fn splat_value<'c>(op: OperationRef<'c, '_>) -> Option<Attribute<'c>> {
    let value = op.attribute("value").ok()?;
    // SAFETY: a live attribute; the splat queries are only made on dense
    // elements.
    unsafe {
        let raw = value.to_raw();
        (mlir_sys::mlirAttributeIsADenseElements(raw) && mlir_sys::mlirDenseElementsAttrIsSplat(raw))
            .then(|| Attribute::from_raw(mlir_sys::mlirDenseElementsAttrGetSplatValue(raw)))
    }
}

/// `r#type` (a tile, or a partition view) with dim `dim` divided by `chunks`.
fn chunk_type<'c>(context: &'c Context, r#type: Type<'c>, dim: usize, chunks: i64) -> Option<Type<'c>> {
    if let Some(view) = PartitionViewType::try_from_type(r#type) {
        let mut shape = view.shape();
        shape[dim] /= chunks;
        return PartitionViewType::new(context, &shape, view.element_type(), view.padding()).ok().map(Into::into);
    }
    let (mut shape, element) = tile_type(r#type)?;
    shape[dim] /= chunks;
    let shape = shape.iter().map(|&n| u64::try_from(n).ok()).collect::<Option<Vec<_>>>()?;
    Some(RankedTensorType::new(&shape, element, None).into())
}

/// A clone of `op` before `at`, with `operands` and its result's type
/// `result`.
fn clone_as<'c>(
    at: &At<'c, 'c>,
    op: OperationRef<'c, 'c>,
    operands: &[IrValue<'c>],
    result: Option<Type<'c>>,
) -> Option<OperationRef<'c, 'c>> {
    // SAFETY: `op` is live; the clone is a new op that `at` takes ownership of.
    let clone = unsafe { Operation::from_raw(mlir_sys::mlirOperationClone(op.to_raw())) };
    let inserted = at.insert(clone);
    // SAFETY: the clone was just inserted; only its operands and its
    // result's type change.
    let mut inserted_mut = unsafe { OperationRefMut::from_raw(inserted.to_raw()) };
    for (i, &operand) in operands.iter().enumerate() {
        inserted_mut.set_operand(i, operand);
    }
    if let Some(r#type) = result {
        set_type(inserted.result_at(0)?.into(), r#type);
    }
    Some(inserted)
}

fn stream<'c>(context: &'c Context, store: OperationRef<'c, 'c>, plan: &Plan<'c>) -> Option<()> {
    let n = plan.chunks;
    let before = At::before(context, store)?;
    let (zero, one, count) = (before.index(0)?, before.index(1)?, before.index(n)?);
    // The chunk views, and the first chunk's coordinate along the chunked
    // dim, before the loop.
    let mut views: HashMap<(usize, usize), IrValue<'c>> = HashMap::new();
    let mut chunk_view = |view: Value<'c, '_>, dim: usize| -> Option<IrValue<'c>> {
        let op = defining_op(view)?;
        if let Some(&done) = views.get(&(key(op), dim)) {
            return Some(done);
        }
        // SAFETY: a partition view of the kernel, alive for the rewrite.
        let op = unsafe { OperationRef::from_raw(op.to_raw()) };
        let operands: Vec<IrValue> = op.operands().map(detach).collect();
        let r#type = chunk_type(context, view.r#type(), dim, n)?;
        let chunked = detach(clone_as(&before, op, &operands, Some(r#type))?.result_at(0)?.into());
        views.insert((key(op), dim), chunked);
        Some(chunked)
    };
    // Each access's coordinates, the chunked one scaled to the first chunk.
    let mut scaled: HashMap<usize, IrValue<'c>> = HashMap::new();
    let mut coordinates =
        |access: OperationRef<'c, 'c>, first: usize, dim: usize| -> Option<(Vec<IrValue<'c>>, usize)> {
            let mut coords: Vec<IrValue> =
                (first..access.operand_count()).map(|i| access.operand_at(i).map(detach)).collect::<Option<_>>()?;
            let original = coords[dim].to_raw().ptr as usize;
            if let Some(&done) = scaled.get(&original) {
                coords[dim] = done;
                return Some((coords, dim));
            }
            // A coordinate past the last tile (or negative) must stay past the
            // last chunk: clamped (unsigned) below `limit`, it cannot wrap.
            let limit = i64::MAX / (2 * n);
            coords[dim] = match constant_index(coords[dim]) {
                Some(0) => coords[dim],
                Some(c) => before.index((c as u64).min(limit as u64) as i64 * n)?,
                None => before.muli(before.minui(coords[dim], before.index(limit)?)?, count)?,
            };
            scaled.insert(original, coords[dim]);
            Some((coords, dim))
        };
    let mut accesses = Vec::new();
    for &(op, dim) in &plan.ops {
        if op_name(op) == "tile.load" {
            accesses.push((chunk_view(op.operand_at(0)?, dim)?, coordinates(op, 1, dim)?));
        }
    }
    let store_dim = tile_type(store.operand_at(0)?.r#type())?.0.len() - 1;
    let store_access = (chunk_view(store.operand_at(1)?, store_dim)?, coordinates(store, 2, store_dim)?);
    // Chunk `k`'s operands of an access: its chunk view and coordinates.
    let operands_at = |(view, (coords, dim)): (IrValue<'c>, (Vec<IrValue<'c>>, usize)), body: &At<'c, 'c>, k| {
        let mut operands = vec![view];
        operands.extend(coords.iter().copied());
        operands[1 + dim] = if constant_index(coords[dim]) == Some(0) { k } else { body.addi(coords[dim], k)? };
        Some(operands)
    };

    let (body, k) = before.scf_for(zero, count, one)?;
    let mut chunked: HashMap<usize, IrValue<'c>> = HashMap::new();
    let mut accesses = accesses.into_iter();
    for &(op, dim) in &plan.ops {
        let r#type = chunk_type(context, op.result_at(0)?.r#type(), dim, n)?;
        let new = match op_name(op).as_str() {
            "tile.load" => clone_as(&body, op, &operands_at(accesses.next()?, &body, k)?, Some(r#type))?,
            "arith.constant" => {
                let value = DenseElementsAttribute::splat(r#type, splat_value(op)?);
                let constant = body.insert(arith::constant(context, value.into(), op.location()));
                // SAFETY: the constant was just inserted into the loop body.
                unsafe { OperationRef::from_raw(constant.to_raw()) }
            }
            _ => {
                let operands: Vec<IrValue> = op
                    .operands()
                    .map(|v| defining_op(v).and_then(|d| chunked.get(&key(d)).copied()).unwrap_or(detach(v)))
                    .collect();
                clone_as(&body, op, &operands, Some(r#type))?
            }
        };
        chunked.insert(key(op), detach(new.result_at(0)?.into()));
    }
    let tile = chunked.get(&key(defining_op(store.operand_at(0)?)?)).copied()?;
    let mut operands = operands_at(store_access, &body, k)?;
    operands.insert(0, tile);
    clone_as(&body, store, &operands, None)?;

    // SAFETY: the store is replaced by the loop; the tree's ops that nothing
    // else reads die after it, users before their operands.
    let mut views = vec![defining_op(store.operand_at(1)?)?.to_raw()];
    unsafe { mlir_sys::mlirOperationDestroy(store.to_raw()) };
    for &(op, _) in plan.ops.iter().rev() {
        if unused(op.result_at(0)?.into()) {
            if op_name(op) == "tile.load" {
                views.push(defining_op(op.operand_at(0)?)?.to_raw());
            }
            // SAFETY: an op whose result has no uses left.
            unsafe { mlir_sys::mlirOperationDestroy(op.to_raw()) };
        }
    }
    // The whole-tile views nothing reads any more.
    views.sort_by_key(|raw| raw.ptr as usize);
    views.dedup_by_key(|raw| raw.ptr as usize);
    for raw in views {
        // SAFETY: each view op once, destroyed only when unused.
        unsafe {
            if mlir_sys::mlirValueGetFirstUse(mlir_sys::mlirOperationGetResult(raw, 0)).ptr.is_null() {
                mlir_sys::mlirOperationDestroy(raw);
            }
        }
    }
    Some(())
}
