//! `tile-assign-layouts`: a register layout on every tile of a kernel.
//!
//! Summary: choose the kernel's warps from its largest tile, give every
//! `tile.load` and `tile.store` the coalesced layout of its view (16-byte
//! vectors a thread along the innermost dim, lanes then warps), propagate
//! layouts forward (element-wise ops keep their operand's, a reduction
//! yields the slice of its operand's, a reshape or permute the reshaped or
//! permuted layout) and backward to the tiles with no layout of their own
//! (splats, constants, iotas, broadcasts take their users'), and insert
//! `tile.convert_layout` where two layouts meet. The kernel records its
//! block size in `tile.block_size`.
//!
//! Before:
//! ```mlir
//! %x = tile.load %px[%r, %c0] : !tile.partition_view<1x1024xf32> -> tensor<1x1024xf32>
//! %m = tile.reduce max %x dim 1 : tensor<1x1024xf32> -> tensor<1xf32>
//! %m1 = tile.reshape %m : tensor<1xf32> -> tensor<1x1xf32>
//! %mb = tile.broadcast %m1 : tensor<1x1xf32> -> tensor<1x1024xf32>
//! %y = arith.subf %x, %mb : tensor<1x1024xf32>
//! ```
//! After (`#b`: `#tile.blocked<size_per_thread = [1, 4], threads_per_warp
//! = [1, 32], warps_per_block = [1, 2], order = [1, 0]>`):
//! ```mlir
//! %x = tile.load ... -> tensor<1x1024xf32, #b>
//! %m = tile.reduce max %x dim 1 : tensor<1x1024xf32, #b> -> tensor<1xf32, #tile.slice<dim = 1, parent = #b>>
//! %m1 = tile.reshape %m : ... -> tensor<1x1xf32, #tile.linear<...>>
//! %mb = tile.broadcast %m1 : ... -> tensor<1x1024xf32, #b>
//! %y = arith.subf %x, %mb : tensor<1x1024xf32, #b>
//! ```
//!
//! Warps: a thread should hold about 64 bytes of the largest tile (four
//! 16-byte vectors), from one warp to 32 (1024 threads) in one block, so
//! small tiles make small blocks (many resident) and a row of 32768 spreads
//! over the whole block. With a `num_ctas = N` hint the tile block runs as
//! a cluster of N blocks (`tile.cluster`): the layouts' warps span the
//! cluster, each block holding 1/N of every tile.
//!
//! A `tile.mma` anchors the wgmma accumulator layout (`#tile.wgmma`) on
//! its result and accumulator, with one warpgroup for each 64 rows of the
//! smallest mma (at most two). Its operands that come straight from loads
//! (permuted or carried by loops on the way) stay in shared memory, in
//! `#tile.shared` ([`super::shared`]); the others keep register layouts
//! (`registers/mma.rs` writes them to shared memory).
//!
//! Caveats: kernels with a `tile.mma` wgmma cannot take from registers
//! (f16-accumulator types, shapes off the instruction's) stay on the
//! general path, as do kernels with loop-carried
//! tiles in `scf.while`, constant tiles that are not splats, loads or
//! stores of `i1` tiles, and 8-bit float tiles for other uses than mma
//! operands; the pass leaves them unchanged and
//! says why in a remark at the op that keeps them off
//! (`--remarks-filter=tile`).
//! A kernel whose tiles already carry layouts is left as it is.

use super::{LinearLayout, element_bytes, layout_of, linear::coalesced, with_layout};
use crate::{
    build::{At, tile_type},
    pass::{PassInfo, TilePass},
    rewrite::{BlockProbe, IrValue, Probe, detach, emit_error, op_name},
};
use melior::ir::{AttributeLike as _, TypeLike as _};
use melior::{
    ContextRef,
    ir::{
        Attribute, BlockLike, Location, OperationRef, RegionLike, Type, Value, ValueLike,
        attribute::IntegerAttribute,
        operation::{OperationLike, OperationMutLike, OperationRefMut, WalkOrder, WalkResult},
    },
    pass::{ExternalPass, RunExternalPass},
};
use std::collections::{HashMap, HashSet};
use tile_dialect::{layout::Layout, ops};

/// The `tile-assign-layouts` pass.
#[derive(Clone, Default)]
pub struct AssignLayouts;

impl TilePass for AssignLayouts {
    const INFO: PassInfo = PassInfo {
        argument: "tile-assign-layouts",
        name: "TileAssignLayouts",
        summary: "Give every tile of a kernel a register layout: coalesced at loads and stores, propagated between",
        op_name: "func.func",
    };
    crate::pass_type_id!();
}

impl<'c> RunExternalPass<'c> for AssignLayouts {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        if !register_path(operation) {
            remark_refusal(operation);
            return;
        }
        if assign(operation).is_none() {
            emit_error(operation.location(), "tile-assign-layouts: could not assign layouts to this kernel");
            pass.signal_failure();
        }
    }
}

/// The element-wise ops: `arith` and `math` ops on tiles.
pub fn elementwise(name: &str) -> bool {
    (name.starts_with("arith.") || name.starts_with("math.")) && name != "arith.constant"
}

/// The ops whose tile results take their tile operands' layout: the
/// element-wise ones and `tile.cluster_sum`.
fn same_layout(name: &str) -> bool {
    elementwise(name) || name == "tile.cluster_sum"
}

fn is_tile(value: Value) -> bool {
    tile_type(value.r#type()).is_some()
}

fn has_tiles(op: OperationRef) -> bool {
    op.operands().any(is_tile) || op.results().any(|r| is_tile(r.into()))
}

/// Whether `operation` is a kernel the register path takes. A variant
/// (`tile.variant_of`, which passes after this one make) given as input
/// is left as it is.
pub fn register_path(operation: OperationRef) -> bool {
    operation.has_attribute(tile_dialect::attrs::KERNEL)
        && !operation.has_attribute(tile_dialect::attrs::VARIANT_OF)
        && eligible(operation).is_ok()
}

/// Whether the register path takes a kernel; when it does not, the reason
/// and the op that gives it.
pub fn eligible<'c>(kernel: OperationRef<'c, '_>) -> Result<(), (String, Location<'c>)> {
    let mut reason = None;
    kernel.walk(WalkOrder::PreOrder, |op| {
        let name = op_name(op);
        let refused = match name.as_str() {
            "tile.mma" => mma_refusal(op),
            "tile.load" | "tile.store" => {
                let tile = if name == "tile.load" { op.result_at(0).map(Value::from) } else { op.operand_at(0) };
                let element = tile.and_then(|t| tile_type(t.r#type())).map(|(_, e)| e.to_string());
                match element.as_deref() {
                    // An 8-bit float tile only mmas read: loaded K-major it
                    // stays in shared memory, else registers carry its bytes
                    // to the mma's K-major buffer. No arithmetic on 8-bit
                    // floats is lowered in registers.
                    Some("f8E4M3FN" | "f8E5M2") if name == "tile.load" && super::shared::feeds_only_mmas(op) => None,
                    Some(e @ ("f8E4M3FN" | "f8E5M2")) => {
                        Some(format!("it loads or stores {e} tiles for other uses than a tile.mma's operands"))
                    }
                    Some(e @ "i1") => Some(format!("it loads or stores {e} tiles")),
                    None => Some("it loads or stores a tile of no tile type".to_string()),
                    _ => None,
                }
            }
            "arith.constant" if has_tiles(op) => {
                let splat = op.attribute("value").ok().is_some_and(|a| {
                    // SAFETY: a live attribute; the splat query is only made
                    // on dense elements.
                    unsafe {
                        mlir_sys::mlirAttributeIsADenseElements(a.to_raw())
                            && mlir_sys::mlirDenseElementsAttrIsSplat(a.to_raw())
                    }
                });
                (!splat).then(|| "it has a constant tile that is not a splat".to_string())
            }
            _ if layout_of_any(op) => Some(ALREADY_ASSIGNED.to_string()),
            "scf.while" if has_tiles(op) => Some("an scf.while carries tiles".to_string()),
            "tile.reduce" | "tile.broadcast" | "tile.reshape" | "tile.permute" | "tile.splat" | "tile.iota"
            | "tile.cluster_sum" | "scf.for" | "scf.if" | "scf.yield" => None,
            _ if elementwise(&name) => None,
            _ if has_tiles(op) => Some(format!("'{name}' on tiles is not lowered in registers")),
            _ => None,
        };
        if let Some(why) = refused {
            // SAFETY: a location is owned by the context, which outlives
            // the kernel and its ops.
            reason = Some((why, unsafe { Location::from_raw(op.location().to_raw()) }));
            return WalkResult::Interrupt;
        }
        WalkResult::Advance
    });
    reason.map_or(Ok(()), Err)
}

/// Says at the op why a kernel stays off the register path (its tiles in
/// shared memory, a barrier after each op); silent for the wgmma variants
/// and for kernels whose tiles already have layouts.
fn remark_refusal(operation: OperationRef) {
    if !operation.has_attribute(tile_dialect::attrs::KERNEL) || operation.has_attribute(tile_dialect::attrs::VARIANT_OF)
    {
        return;
    }
    if let Err((reason, location)) = eligible(operation)
        && reason != ALREADY_ASSIGNED
    {
        crate::remarks::missed(
            location,
            AssignLayouts::INFO.argument,
            "RegisterPath",
            &format!("this kernel keeps its tiles in shared memory (the general path): {reason}"),
        );
    }
}

const ALREADY_ASSIGNED: &str = "its tiles already have layouts";

/// Why a `tile.mma` cannot go on wgmma from registers, if it cannot.
fn mma_refusal(op: OperationRef) -> Option<String> {
    let tile = |i: usize| op.operand_at(i).and_then(|v| tile_type(v.r#type()));
    let (Some((a, ae)), Some((b, be)), Some((_, ce))) = (tile(0), tile(1), tile(2)) else {
        return Some("its tile.mma has operands of no tile type".into());
    };
    crate::registers::mma::unsupported((&a, &ae.to_string()), (&b, &be.to_string()), &ce.to_string())
        .map(|why| format!("its tile.mma cannot take wgmma from registers: {why}"))
}

/// Warpgroups of a kernel with `tile.mma`s: one for each 64 rows of the
/// smallest mma (columns, for one computed transposed), at most two;
/// `None` without an mma.
fn mma_warpgroups(kernel: OperationRef) -> Option<i64> {
    let mut rows: Option<i64> = None;
    kernel.walk(WalkOrder::PreOrder, |op| {
        if op_name(op) == "tile.mma"
            && let Some((shape, _)) = op.result_at(0).and_then(|r| tile_type(r.r#type()))
        {
            let own = if super::shared::swapped_operands(op) { shape[1] } else { shape[0] };
            rows = Some(rows.map_or(own, |r| r.min(own)));
        }
        WalkResult::Advance
    });
    rows.map(|m| (m / crate::registers::mma::WGMMA_M).clamp(1, 2))
}

/// The accumulator layout of `mma` in a block of `warps` warps: wgmma's,
/// or its transpose for an mma computed transposed (`swapped`, from
/// [`super::shared::swapped_operands`]).
fn accumulator_layout(mma: OperationRef, warps: i64, swapped: bool) -> Option<Assigned> {
    let shape = tile_type(mma.operand_at(2)?.r#type())?.0;
    if swapped {
        let (k, element) = tile_type(mma.operand_at(0)?.r#type()).map(|(s, e)| (s[1], e))?;
        let (accumulator, _) = crate::registers::mma::swapped_layouts(shape[0], shape[1], k, warps, element)?;
        return Some(Assigned::linear(accumulator));
    }
    let layout = Layout::Wgmma { warps_per_block: vec![warps, 1], instr_n: shape[1] };
    let linear = LinearLayout::from_layout(&layout, &shape)?;
    Some(Assigned { layout, linear })
}

fn layout_of_any(op: OperationRef) -> bool {
    op.results().any(|r| layout_of(r.into()).is_some())
}

/// The warps of a tile block, for a kernel whose largest tile has `bytes`
/// bytes: about 64 bytes of that tile a thread, from one warp to 1024
/// threads, in one block. (A cluster of blocks, which the `num_ctas` hint
/// asks for, measured slower on every row of the suite: BENCHMARKS.md,
/// session 12.)
pub fn warps_for(bytes: i64) -> (i64, i64) {
    (threads_for(bytes, tile_dialect::attrs::MAX_BLOCK_SIZE) / super::linear::WARP, 1)
}

/// [`warps_for`] in a cluster of `blocks` blocks (the `num_ctas` hint,
/// down to a power of two): the same threads, spread over the cluster,
/// from one warp to 1024 threads a block.
pub fn warps_in_cluster(bytes: i64, blocks: i64) -> (i64, i64) {
    let blocks = 1i64 << (63 - blocks.clamp(1, tile_dialect::attrs::MAX_CLUSTER).leading_zeros());
    let most = tile_dialect::attrs::MAX_BLOCK_SIZE * blocks;
    let per_block = (threads_for(bytes, most) / blocks).max(super::linear::WARP);
    (per_block * blocks / super::linear::WARP, blocks)
}

/// The warps a kernel's layouts span and its blocks a cluster: from its
/// largest tile value and its `num_ctas` hint.
pub fn kernel_warps(kernel: OperationRef) -> (i64, i64) {
    if let Some(warpgroups) = mma_warpgroups(kernel) {
        return (warpgroups * crate::registers::mma::WARPGROUP_WARPS, 1);
    }
    let bytes = largest_tile_bytes(kernel);
    match crate::rewrite::hint(kernel, tile_dialect::attrs::knob::NUM_CTAS.key) {
        Some(blocks) => warps_in_cluster(bytes, blocks),
        None => warps_for(bytes),
    }
}

/// The bytes of the largest tile value (an op's result or a block's
/// argument) in `kernel`.
fn largest_tile_bytes(kernel: OperationRef) -> i64 {
    let mut bytes = 0;
    let mut note = |value: Value| {
        if let Some((shape, element)) = tile_type(value.r#type()) {
            bytes = bytes.max(shape.iter().product::<i64>() * element_bytes(element));
        }
    };
    kernel.walk(WalkOrder::PreOrder, |op| {
        if op.to_raw().ptr != kernel.to_raw().ptr {
            for region in op.regions() {
                if let Some(block) = region.first_block() {
                    for i in 0..block.argument_count() {
                        if let Some(argument) = block.argument_at(i) {
                            note(argument.into());
                        }
                    }
                }
            }
            op.results().for_each(|r| note(r.into()));
        }
        WalkResult::Advance
    });
    bytes
}

/// About 64 bytes of a tile of `bytes` a thread, as a power of two from 32
/// to `most`.
fn threads_for(bytes: i64, most: i64) -> i64 {
    1i64 << (63 - (bytes / 64).clamp(32, most).leading_zeros())
}

type Key = usize;

fn key(value: Value) -> Key {
    value.to_raw().ptr as usize
}

#[derive(Clone)]
struct Assigned {
    layout: Layout,
    linear: LinearLayout,
}

impl Assigned {
    fn linear(linear: LinearLayout) -> Self {
        Self { layout: linear.to_layout(), linear }
    }
}

struct Assignment<'c> {
    /// Warps of the tile block, across its cluster.
    warps: i64,
    /// Blocks of the cluster (1: none).
    cluster: i64,
    values: HashMap<Key, Assigned>,
    order: Vec<IrValue<'c>>,
    ops: Vec<OperationRef<'c, 'c>>,
    /// Values that must share a layout: a loop's carried block argument
    /// and its result.
    ties: HashMap<Key, IrValue<'c>>,
    changed: bool,
    /// The mmas computed transposed, decided once (each decision walks the
    /// operands' chains).
    swapped: HashSet<usize>,
}

impl<'c> Assignment<'c> {
    fn get(&self, value: Value) -> Option<&Assigned> {
        self.values.get(&key(value))
    }

    fn known(&self, value: Value) -> bool {
        self.values.contains_key(&key(value))
    }

    fn set(&mut self, value: Value, assigned: Assigned) {
        if !self.known(value) {
            self.values.insert(key(value), assigned.clone());
            self.changed = true;
            if let Some(&tied) = self.ties.get(&key(value)) {
                self.set(tied, assigned);
            }
        }
    }

    /// The accumulator layout of `mma`.
    fn accumulator(&self, mma: OperationRef) -> Option<Assigned> {
        accumulator_layout(mma, self.warps, self.swapped.contains(&(mma.to_raw().ptr as usize)))
    }

    fn coalesced(&self, value: Value) -> Option<Assigned> {
        let (shape, element) = tile_type(value.r#type())?;
        let layout = coalesced(&shape, element_bytes(element), self.warps);
        let linear = LinearLayout::from_layout(&layout, &shape)?;
        Some(Assigned { layout, linear })
    }
}

fn tile_operands<'c>(op: OperationRef<'c, '_>) -> Vec<(usize, IrValue<'c>)> {
    op.operands().enumerate().filter(|(_, v)| is_tile(*v)).map(|(i, v)| (i, detach(v))).collect()
}

fn result<'c>(op: OperationRef<'c, '_>, i: usize) -> Option<IrValue<'c>> {
    op.result_at(i).map(|r| detach(r.into()))
}

fn permutation(op: OperationRef) -> Option<Vec<usize>> {
    let attribute = melior::ir::attribute::DenseI64ArrayAttribute::try_from(op.attribute("permutation").ok()?).ok()?;
    (0..attribute.len()).map(|i| attribute.element(i).ok().and_then(|d| usize::try_from(d).ok())).collect()
}

fn reduce_dim(op: OperationRef) -> Option<usize> {
    let dim = IntegerAttribute::try_from(op.attribute("dim").ok()?).ok()?.value();
    usize::try_from(dim).ok()
}

/// The layout of a reduction's result: the slice of its operand's.
fn sliced(operand: &Layout, linear: &LinearLayout, dim: usize) -> Assigned {
    let linear = linear.slice(dim);
    match operand {
        Layout::Blocked { .. } | Layout::Slice { .. } => {
            Assigned { layout: Layout::Slice { dim: dim as i64, parent: Box::new(operand.clone()) }, linear }
        }
        _ => Assigned::linear(linear),
    }
}

/// For a `scf.yield`, the values it feeds: the loop's carried block
/// arguments and results, or the `scf.if`'s results.
fn yield_targets<'c>(op: OperationRef<'c, '_>) -> Option<Vec<Vec<IrValue<'c>>>> {
    let parent = op.parent_operation()?;
    let count = op.operand_count();
    match op_name(parent).as_str() {
        "scf.for" => {
            let body = parent.region_at(0)?.first_block()?;
            (0..count).map(|i| Some(vec![detach(body.argument_at(i + 1)?.into()), result(parent, i)?])).collect()
        }
        "scf.if" => (0..count).map(|i| Some(vec![result(parent, i)?])).collect(),
        _ => None,
    }
}

fn forward(state: &mut Assignment) -> Option<()> {
    for op in state.ops.clone() {
        let name = op_name(op);
        match name.as_str() {
            "tile.load" => {
                let value = result(op, 0)?;
                let anchor = state.coalesced(value)?;
                state.set(value, anchor);
            }
            "tile.mma" => {
                let value = result(op, 0)?;
                let anchor = state.accumulator(op)?;
                state.set(value, anchor);
            }
            "tile.reduce" | "tile.reshape" | "tile.permute" => {
                let (input, value) = (detach(op.operand_at(0)?), result(op, 0)?);
                let Some(from) = state.get(input).cloned() else { continue };
                let assigned = match name.as_str() {
                    "tile.reduce" => sliced(&from.layout, &from.linear, reduce_dim(op)?),
                    "tile.reshape" => Assigned::linear(from.linear.reshape(&tile_type(value.r#type())?.0)),
                    _ => Assigned::linear(from.linear.permute(&permutation(op)?)),
                };
                state.set(value, assigned);
            }
            "scf.for" => {
                let body = op.region_at(0)?.first_block()?;
                for i in 0..op.result_count() {
                    let init = detach(op.operand_at(3 + i)?);
                    if let Some(from) = state.get(init).cloned() {
                        state.set(detach(body.argument_at(i + 1)?.into()), from.clone());
                        state.set(result(op, i)?, from);
                    }
                }
            }
            "scf.yield" => {
                let Some(targets) = yield_targets(op) else { continue };
                for (i, targets) in targets.into_iter().enumerate() {
                    if let Some(from) = state.get(op.operand_at(i)?).cloned() {
                        for target in targets {
                            state.set(target, from.clone());
                        }
                    }
                }
            }
            _ if same_layout(&name) => {
                let Some(from) = tile_operands(op).iter().find_map(|(_, v)| state.get(*v).cloned()) else {
                    continue;
                };
                for i in 0..op.result_count() {
                    let value = result(op, i)?;
                    if is_tile(value) {
                        state.set(value, from.clone());
                    }
                }
            }
            _ => {}
        }
    }
    Some(())
}

fn backward(state: &mut Assignment) -> Option<()> {
    for op in state.ops.clone().into_iter().rev() {
        let name = op_name(op);
        let wanted: Vec<(IrValue, Assigned)> = match name.as_str() {
            "tile.store" => {
                let tile = detach(op.operand_at(0)?);
                vec![(tile, state.coalesced(tile)?)]
            }
            "tile.mma" => {
                let accumulator = detach(op.operand_at(2)?);
                vec![(accumulator, state.accumulator(op)?)]
            }
            "tile.broadcast" | "tile.reshape" | "tile.permute" => {
                let (input, value) = (detach(op.operand_at(0)?), result(op, 0)?);
                let Some(to) = state.get(value).cloned() else { continue };
                let shape = tile_type(input.r#type())?.0;
                let linear = match name.as_str() {
                    "tile.broadcast" => to.linear.broadcast_source(&shape),
                    "tile.reshape" => to.linear.reshape(&shape),
                    _ => {
                        let permutation = permutation(op)?;
                        let mut inverse = vec![0; permutation.len()];
                        for (i, &d) in permutation.iter().enumerate() {
                            inverse[d] = i;
                        }
                        to.linear.permute(&inverse)
                    }
                };
                vec![(input, Assigned::linear(linear))]
            }
            "scf.for" => {
                let body = op.region_at(0)?.first_block()?;
                let mut wanted = Vec::new();
                for i in 0..op.result_count() {
                    if let Some(to) = state.get(body.argument_at(i + 1)?.into()).cloned() {
                        wanted.push((detach(op.operand_at(3 + i)?), to));
                    }
                }
                wanted
            }
            "scf.yield" => {
                let Some(targets) = yield_targets(op) else { continue };
                let mut wanted = Vec::new();
                for (i, targets) in targets.into_iter().enumerate() {
                    if let Some(to) = targets.iter().find_map(|t| state.get(*t).cloned()) {
                        wanted.push((detach(op.operand_at(i)?), to));
                    }
                }
                wanted
            }
            _ if same_layout(&name) => {
                let Some(to) = op.results().find_map(|r| state.get(r.into()).cloned()) else { continue };
                tile_operands(op).into_iter().map(|(_, v)| (v, to.clone())).collect()
            }
            _ => continue,
        };
        for (value, assigned) in wanted {
            if is_tile(value) {
                state.set(value, assigned);
            }
        }
    }
    Some(())
}

/// The layout of a `K x N` B operand that stays in registers, which the
/// mma writes K-major into shared memory (tf32 and 8-bit floats loaded
/// N-major; 16-bit ones stay in shared memory as loaded): each thread's registers run along N first (the loads'
/// vectors, up to 16 bytes), then 4 along K (the K-major writes' vectors:
/// 16 bytes of tf32, 4 of 8-bit floats); the first 8 lanes of a warp step
/// along K, so a quarter warp's vector writes fall in 8 rows of K-major
/// chunks that the swizzle spreads over the banks, and the other 4 along
/// N; warps take K, then N. The default coalesced layout runs a warp's
/// lanes along N, and its writes to the K-major buffer met 16-way bank
/// conflicts (BENCHMARKS.md, session 18). `None` where the tile does not
/// hold at least one such vector a thread.
fn staging(shape: &[i64], element_bytes: i64, warps: i64) -> Option<LinearLayout> {
    let [k, n] = shape[..] else { return None };
    let threads = super::linear::WARP * warps;
    let per_thread = k * n / threads;
    let k_run = 4.min(k);
    let mut n_run = (16 / element_bytes).min(n);
    while n_run * k_run > per_thread && n_run > 1 {
        n_run /= 2;
    }
    let k_lanes = 8.min(k / k_run);
    let n_lanes = super::linear::WARP / k_lanes;
    if n_run * k_run > per_thread || n_run * n_lanes > n {
        return None;
    }
    let log2 = |x: i64| x.trailing_zeros() as usize;
    let along_k = |from: i64, count: usize| (0..count).map(move |i| ((from << i) * n) as u64);
    let along_n = |from: i64, count: usize| (0..count).map(move |i| (from << i) as u64);
    let mut register: Vec<u64> = along_n(1, log2(n_run)).chain(along_k(1, log2(k_run))).collect();
    let lane: Vec<u64> = along_k(k_run, log2(k_lanes)).chain(along_n(n_run, log2(n_lanes))).collect();
    let (k_done, n_done) = (k_run * k_lanes, n_run * n_lanes);
    let k_warps = (k / k_done).min(warps);
    let n_warps = warps / k_warps;
    if n_done * n_warps > n {
        return None;
    }
    let warp: Vec<u64> = along_k(k_done, log2(k_warps)).chain(along_n(n_done, log2(n_warps))).collect();
    let (k_done, n_done) = (k_done * k_warps, n_done * n_warps);
    register.extend(along_n(n_done, log2(n / n_done)));
    register.extend(along_k(k_done, log2(k / k_done)));
    Some(LinearLayout { shape: shape.to_vec(), register, lane, warp })
}

/// The layout an op needs operand `index` in, if any.
fn required(state: &Assignment, op: OperationRef, index: usize) -> Option<Assigned> {
    let name = op_name(op);
    match name.as_str() {
        "tile.store" if index == 0 => state.coalesced(op.operand_at(0)?),
        "tile.mma" if index == 2 => state.accumulator(op),
        "scf.for" if index >= 3 => {
            let body = op.region_at(0)?.first_block()?;
            state.get(body.argument_at(index - 2)?.into()).cloned()
        }
        "scf.yield" => {
            let targets = yield_targets(op)?;
            state.get(*targets.get(index)?.first()?).cloned()
        }
        _ if same_layout(&name) => op.results().find_map(|r| state.get(r.into()).cloned()),
        _ => None,
    }
}

fn assign(kernel: OperationRef) -> Option<()> {
    let context = kernel.context();
    // SAFETY: the context outlives the pass run.
    let context = unsafe { context.to_ref() };
    let mut order = Vec::new();
    let mut ops = Vec::new();
    kernel.walk(WalkOrder::PreOrder, |op| {
        // SAFETY: ops of the kernel, alive for the whole pass.
        let op = unsafe { OperationRef::from_raw(op.to_raw()) };
        if op.to_raw().ptr != kernel.to_raw().ptr {
            ops.push(op);
            for region in op.regions() {
                if let Some(block) = region.first_block() {
                    for i in 0..block.argument_count() {
                        if let Some(argument) = block.argument_at(i) {
                            order.push(detach(argument.into()));
                        }
                    }
                }
            }
            order.extend(op.results().map(|r| detach(r.into())));
        }
        WalkResult::Advance
    });
    order.retain(|v| is_tile(*v));
    let mut ties = HashMap::new();
    for op in &ops {
        if op_name(*op) == "scf.for" {
            let body = op.region_at(0)?.first_block()?;
            for i in 0..op.result_count() {
                let (argument, result) = (detach(body.argument_at(i + 1)?.into()), result(*op, i)?);
                ties.insert(key(argument), result);
                ties.insert(key(result), argument);
            }
        }
    }
    let (warps, cluster) = kernel_warps(kernel);
    let swapped = ops
        .iter()
        .filter(|op| op_name(**op) == "tile.mma" && super::shared::swapped_operands(**op))
        .map(|op| op.to_raw().ptr as usize)
        .collect();
    let mut state = Assignment { warps, cluster, values: HashMap::new(), order, ops, ties, changed: true, swapped };
    // Shared-memory operands are fixed first; their register form (never
    // made) only keeps the propagation below from reaching through them.
    let (shared, not_shared) = super::shared::shared_operands(kernel);
    for (value, layout) in shared {
        let placeholder = state.coalesced(value)?.linear;
        state.values.insert(key(value), Assigned { layout, linear: placeholder });
    }

    // A B operand the mma writes K-major from registers, loaded (and
    // carried by loops) as it is used, takes the staging layout from its
    // loads on.
    for op in state.ops.clone() {
        if op_name(op) != "tile.mma" || state.cluster != 1 {
            continue;
        }
        let b = detach(op.operand_at(1)?);
        let Some((shape, element)) = tile_type(b.r#type()) else { continue };
        if state.known(b) || element_bytes(element) == 2 {
            continue;
        }
        if let (Some(values), Some(linear)) =
            (super::shared::unpermuted_chain(b), staging(&shape, element_bytes(element), state.warps))
        {
            for value in values {
                state.set(value, Assigned::linear(linear.clone()));
            }
        }
    }
    while state.values.len() < state.order.len() {
        state.changed = true;
        while state.changed {
            state.changed = false;
            forward(&mut state)?;
            backward(&mut state)?;
        }
        if let Some(&first) = state.order.iter().find(|v| !state.known(**v)) {
            let default = state.coalesced(first)?;
            state.set(first, default);
        }
    }
    materialize(context, kernel, &mut state)?;
    // An A operand computed in wgmma's A fragment layout (attention's P)
    // is read from its registers, not written to shared memory.
    for missed in not_shared {
        let fragments = missed.index == 0
            && (|| {
                let a = super::layout_of(missed.mma.operand_at(0)?)?.1;
                let accumulator = super::layout_of(missed.mma.operand_at(2)?)?.1;
                let element = tile_type(missed.mma.operand_at(0)?.r#type())?.1;
                Some(crate::registers::mma::register_fragments(&a, &accumulator, element))
            })()
            .unwrap_or(false);
        if !fragments {
            missed.remark(<AssignLayouts as TilePass>::INFO.argument);
        }
    }
    Some(())
}

fn materialize<'c>(
    context: &'c melior::Context,
    kernel: OperationRef<'c, '_>,
    state: &mut Assignment<'c>,
) -> Option<()> {
    // Results whose layout came from their users rather than their
    // operand: the op yields its own, converted for the users.
    for op in state.ops.clone() {
        let name = op_name(op);
        if !matches!(name.as_str(), "tile.reduce" | "tile.reshape" | "tile.permute") {
            continue;
        }
        let (input, value) = (detach(op.operand_at(0)?), result(op, 0)?);
        let from = state.get(input)?.clone();
        if matches!(from.layout, Layout::Shared { .. }) {
            continue;
        }
        let natural = match name.as_str() {
            "tile.reduce" => sliced(&from.layout, &from.linear, reduce_dim(op)?),
            "tile.reshape" => Assigned::linear(from.linear.reshape(&tile_type(value.r#type())?.0)),
            _ => Assigned::linear(from.linear.permute(&permutation(op)?)),
        };
        let assigned = state.get(value)?.clone();
        if assigned.linear == natural.linear {
            continue;
        }
        let next = op.next_in_block()?;
        let converted = At::before(context, next)?.add(ops::convert_layout(
            context,
            with_layout(value.r#type(), &assigned.layout)?,
            value,
            op.location(),
        ))?;
        let convert = converted_op(converted)?;
        // SAFETY: both values are live; the new convert is the one use
        // left on the reduction's result.
        unsafe {
            mlir_sys::mlirValueReplaceAllUsesExcept(value.to_raw(), converted.to_raw(), 1, &mut convert.to_raw());
        }
        state.values.insert(key(converted), assigned);
        state.values.insert(key(value), natural);
    }

    // Every tile gets its type; then the converts where layouts meet.
    for value in state.order.clone() {
        let assigned = state.get(value)?.clone();
        let r#type = with_layout(value.r#type(), &assigned.layout)?;
        value.set_type(r#type);
        if let Some(constant) = converted_op(value).filter(|op| op_name(*op) == "arith.constant") {
            retype_constant(constant, r#type)?;
        }
    }
    for op in state.ops.clone() {
        for (index, operand) in tile_operands(op) {
            let Some(wanted) = required(state, op, index) else { continue };
            // Types must match exactly: the same map spelled by another
            // attribute is still converted (a no-op once lowered).
            if tile_dialect::layout::Layout::of_type(operand.r#type()).as_ref() == Some(&wanted.layout) {
                continue;
            }
            let r#type = with_layout(operand.r#type(), &wanted.layout)?;
            let converted =
                At::before(context, op)?.add(ops::convert_layout(context, r#type, operand, op.location()))?;
            // SAFETY: `op` is a live op of the kernel; only its operand changes.
            let mut op = unsafe { OperationRefMut::from_raw(op.to_raw()) };
            op.set_operand(index, converted);
        }
    }
    let cluster = state.cluster;
    let threads = state.warps * super::linear::WARP / cluster;
    // SAFETY: the kernel is the op the pass runs on; only its attributes change.
    let mut kernel = unsafe { OperationRefMut::from_raw(kernel.to_raw()) };
    let i64_type = Type::parse(context, "i64")?;
    kernel.set_attribute(tile_dialect::attrs::BLOCK_SIZE, Attribute::from(IntegerAttribute::new(i64_type, threads)));
    if cluster > 1 {
        kernel.set_attribute(tile_dialect::attrs::CLUSTER, Attribute::from(IntegerAttribute::new(i64_type, cluster)));
    } else if !kernel.has_attribute(tile_dialect::attrs::SLICED) {
        // The pass owns the attribute: one written by hand must not widen
        // the warps these layouts were made for.
        let _ = kernel.remove_attribute(tile_dialect::attrs::CLUSTER);
    }
    Some(())
}

/// Gives a splat constant tile's value the type (with its layout, or its
/// sliced shape) that its result now has.
pub(crate) fn retype_constant(constant: OperationRef, r#type: Type) -> Option<()> {
    let value = constant.attribute("value").ok()?;
    // SAFETY: `eligible` admitted only dense splat constant tiles; the
    // splat element is re-wrapped in a type of the same shape and element.
    let splat = unsafe {
        if !mlir_sys::mlirAttributeIsADenseElements(value.to_raw())
            || !mlir_sys::mlirDenseElementsAttrIsSplat(value.to_raw())
        {
            return None;
        }
        let element = mlir_sys::mlirDenseElementsAttrGetSplatValue(value.to_raw());
        Attribute::from_raw(mlir_sys::mlirDenseElementsAttrSplatGet(r#type.to_raw(), element))
    };
    // SAFETY: a live op of the kernel; only its value attribute changes.
    let mut constant = unsafe { OperationRefMut::from_raw(constant.to_raw()) };
    constant.set_attribute("value", splat);
    Some(())
}

fn converted_op<'c>(value: IrValue<'c>) -> Option<OperationRef<'c, 'c>> {
    let result = crate::rewrite::op_result(value)?;
    // SAFETY: the op that defines a live value is alive.
    Some(unsafe { OperationRef::from_raw(result.owner().to_raw()) })
}
