//! `tile-widen-k`: a K loop whose tiles are narrower than the tensor
//! cores' operand rows takes several of its steps at once.
//!
//! Summary: in a loop `scf.for %k = 0 to num_tiles(%v, d) step 1` whose
//! index is only the K coordinate of `tile.load`s that only feed
//! `tile.mma`s (directly, or transposed by `tile.permute`), and whose K
//! tiles make rows of fewer than 128 bytes on the operand loaded K-major,
//! the loads read `f` K tiles at once from views with `f` times the K
//! extent (`f` the factor that makes those rows 128 bytes, at most 4), and
//! the loop runs `num_tiles` of the wider view. Each iteration's waits,
//! barriers and ring bookkeeping then cover `f` times the multiply-adds,
//! and the K-major operand's rows fill the 128-byte swizzle that wgmma
//! reads fastest.
//!
//! Before (f16, K tiles of 32):
//! ```mlir
//! %pa = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x32xf16>
//! %nk = tile.num_tiles %pa dim 1 : !tile.partition_view<64x32xf16>
//! scf.for %k = %c0 to %nk step %c1 ... {
//!   %a = tile.load %pa[%bm, %k] : !tile.partition_view<64x32xf16> -> tensor<64x32xf16>
//!   %b = tile.load %pb[%k, %bn] : !tile.partition_view<32x128xf16> -> tensor<32x128xf16>
//!   %d = tile.mma %a, %b, %acc : tensor<64x32xf16>, tensor<32x128xf16> into tensor<64x128xf32>
//! ```
//! After (`f` = 2):
//! ```mlir
//! %pa2 = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<64x64xf16>
//! %nk2 = tile.num_tiles %pa2 dim 1 : !tile.partition_view<64x64xf16>
//! scf.for %k = %c0 to %nk2 step %c1 ... {
//!   %a = tile.load %pa2[%bm, %k] : !tile.partition_view<64x64xf16> -> tensor<64x64xf16>
//!   %b = tile.load %pb2[%k, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
//!   %d = tile.mma %a, %b, %acc : tensor<64x64xf16>, tensor<64x128xf16> into tensor<64x128xf32>
//! ```
//!
//! Why it is the same sum: tile `k` of the wider view is tiles `f k` to
//! `f k + f - 1` of the narrow one side by side, and the K elements past
//! the array's end (a last wide tile that the narrow loop did not reach,
//! or only partly) are zero-padded, which adds `0 x 0` to the accumulator.
//! So only views padded with zero are widened.
//!
//! Caveats: only loops from 0 by 1 to a `tile.num_tiles` of one of the
//! loads' views along the index's dim; every use of the index a load
//! coordinate on the K dim of the mma operand it becomes, and both
//! operands of each such mma loads at the index (one read at a fixed K
//! tile would keep its K tile while the other widened); nothing but
//! mmas and permutes reads the loads, and each load's tile stays in shared
//! memory for the mma (`layout::shared`: a tile the mma writes from
//! registers would need `f` times the registers). The pass says where it widens (a
//! `tile` remark, `WidenedK`). The CPU pipeline runs it (its tests check
//! the widened loops' values). On the GPU, `tile-widen-blocks` widens
//! the loops of its wide instance ([`widen_loops`]; it runs only as its
//! TMA variant), and the kernel, which runs where the TMA cannot describe the arrays,
//! keeps its steps: its element-wise copies of wider tiles spilled
//! (BENCHMARKS.md, session 18).

use crate::{
    build::{element_bits, tile_type},
    layout::set_type,
    pass::{PassInfo, TilePass},
    rewrite::{BlockProbe, IrValue, Probe, constant_index, defining_op, detach, op_name, uses},
};
use melior::{
    Context, ContextRef,
    ir::{
        OperationRef, RegionLike, Type, ValueLike, attribute::IntegerAttribute, operation::OperationLike,
        r#type::RankedTensorType,
    },
    pass::{ExternalPass, RunExternalPass},
};
use std::collections::HashMap;
use tile_dialect::{
    ops,
    types::{Padding, PartitionViewType},
};

/// The row, in bytes, that the K-major operand's K tiles are widened to
/// (wgmma's widest swizzle).
pub const ROW_BYTES: i64 = 128;

/// The most K tiles one iteration takes.
pub const MAX_FACTOR: i64 = 4;

/// The `tile-widen-k` pass.
#[derive(Clone, Default)]
pub struct WidenK;

impl TilePass for WidenK {
    const INFO: PassInfo = PassInfo {
        argument: "tile-widen-k",
        name: "TileWidenK",
        summary: "Take several K steps of an mma loop at once where its K tiles make rows narrower than 128 bytes",
        op_name: "func.func",
    };
    crate::pass_type_id!();
}

impl<'c> RunExternalPass<'c> for WidenK {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, _pass: ExternalPass<'_>) {
        if !operation.has_attribute(tile_dialect::attrs::KERNEL) {
            return;
        }
        let context = operation.context();
        // SAFETY: the context outlives the pass run.
        let context = unsafe { context.to_ref() };
        let widened = widen_loops(context, operation);
        if !operation.has_attribute(tile_dialect::attrs::VARIANT_OF) {
            remark(&widened);
        }
    }
}

/// A widened loop: where, its narrow K tile and the factor.
pub struct Widened<'c> {
    location: melior::ir::Location<'c>,
    tile: i64,
    factor: i64,
}

/// Widens every loop of `function` that can be (see the module's
/// summary); says which.
pub fn widen_loops<'c>(context: &'c Context, function: OperationRef<'c, '_>) -> Vec<Widened<'c>> {
    let mut widened = Vec::new();
    for raw in crate::loops::for_loops(function) {
        // SAFETY: a loop of the function; the rewrite changes types and
        // operands in it and adds ops before it, never erasing a loop.
        let r#loop = unsafe { OperationRef::from_raw(raw) };
        if let Some(plan) = plan(r#loop)
            && widen(context, r#loop, &plan).is_some()
        {
            widened.push(Widened { location: r#loop.location(), tile: plan.tile, factor: plan.factor });
        }
    }
    widened
}

impl Widened<'_> {
    /// The K step after widening.
    pub fn widened(&self) -> i64 {
        self.tile * self.factor
    }

    /// The K step before widening.
    pub fn narrow(&self) -> i64 {
        self.tile
    }
}

/// Says at each widened loop that it was.
pub fn remark(widened: &[Widened]) {
    for w in widened {
        crate::remarks::passed(
            w.location,
            WidenK::INFO.argument,
            "WidenedK",
            &format!(
                "K steps of {} widened to {}: {} of the program's iterations in one (fewer waits and \
                 barriers a multiply-add)",
                w.tile,
                w.tile * w.factor,
                w.factor
            ),
        );
    }
}

/// A load of the loop: the op and the dim its index is.
struct Load<'c> {
    op: OperationRef<'c, 'c>,
    dim: usize,
}

/// What to widen: the loads, the narrow K tile, the factor, and the loop's
/// bound (a `tile.num_tiles` of one load's view along its index dim).
struct Plan<'c> {
    loads: Vec<Load<'c>>,
    tile: i64,
    factor: i64,
    bound: OperationRef<'c, 'c>,
}

/// The K dim of mma operand `index` (A is M x K, B is K x N).
fn k_dim(index: usize) -> usize {
    if index == 0 { 1 } else { 0 }
}

/// Whether every use of `value` is an mma operand whose K dim is `dim` of
/// it, directly or through a 2-D transposing `tile.permute`.
fn feeds_k(value: IrValue, dim: usize, depth: usize) -> bool {
    let users = uses(value);
    !users.is_empty()
        && users.into_iter().all(|(user, number)| match op_name(user).as_str() {
            "tile.mma" => number < 2 && k_dim(number) == dim,
            "tile.permute" if depth == 0 => {
                transposes(user) && user.result_at(0).is_some_and(|r| feeds_k(detach(r.into()), 1 - dim, 1))
            }
            _ => false,
        })
}

/// The mmas `value` feeds, directly or through a `tile.permute`.
fn mmas_fed(value: IrValue) -> Vec<OperationRef> {
    let mut mmas = Vec::new();
    for (user, _) in uses(value) {
        match op_name(user).as_str() {
            "tile.mma" => mmas.push(user),
            "tile.permute" => {
                if let Some(result) = user.result_at(0) {
                    mmas.extend(
                        uses(detach(result.into())).into_iter().map(|(u, _)| u).filter(|u| op_name(*u) == "tile.mma"),
                    );
                }
            }
            _ => {}
        }
    }
    mmas
}

/// Whether a `tile.permute` swaps the two dims of a 2-D tile.
fn transposes(permute: OperationRef) -> bool {
    let Ok(attribute) = permute.attribute("permutation") else { return false };
    let Ok(array) = melior::ir::attribute::DenseI64ArrayAttribute::try_from(attribute) else { return false };
    array.len() == 2 && array.element(0).ok() == Some(1) && array.element(1).ok() == Some(0)
}

/// Whether `mma` is in a K loop of the form this pass widens (the
/// caveats' conditions but the width of its rows and where its tiles
/// live), fed by its loads: a loop whose K tiles can as well be split,
/// each step into several (`tile-widen-blocks`' tf32 instance, through the
/// specialiser), computing the same sum over the same K range.
pub(crate) fn in_k_loop(mma: OperationRef) -> bool {
    let Some(r#loop) = mma.parent_operation().filter(|p| op_name(*p) == "scf.for") else { return false };
    // SAFETY: the loop lives as long as the kernel, which outlives this call.
    let r#loop = unsafe { OperationRef::from_raw(r#loop.to_raw()) };
    k_loop(r#loop, false).is_some_and(|(loads, _, _)| {
        loads.iter().any(|l| {
            l.op.result_at(0)
                .is_some_and(|r| mmas_fed(detach(r.into())).iter().any(|m| m.to_raw().ptr == mma.to_raw().ptr))
        })
    })
}

fn plan<'c>(r#loop: OperationRef<'c, 'c>) -> Option<Plan<'c>> {
    let (loads, tile, bound) = k_loop(r#loop, true)?;
    let mut factor = 0;
    for load in &loads {
        let view = PartitionViewType::try_from_type(load.op.operand_at(0)?.r#type())?;
        // The operand loaded K-major (K its contiguous dim) sets the factor.
        if load.dim == view.shape().len() - 1 {
            let bytes = (element_bits(view.element_type())? / 8) as i64;
            factor = factor.max(ROW_BYTES / (tile * bytes).max(1));
        }
    }
    let factor = factor.min(MAX_FACTOR);
    if factor < 2 || factor.count_ones() != 1 {
        return None;
    }
    Some(Plan { loads, tile, factor, bound })
}

/// The loads of a K loop as the module's caveats say (from 0 by 1 to a
/// `tile.num_tiles` of one load's view along the index's dim, the index
/// only the K coordinate of zero-padded 2-D loads that feed mmas, both
/// operands of each such mma among them, one K tile), its K tile and its
/// bound; with `shared`, each load's tile also stays in shared memory.
fn k_loop<'c>(r#loop: OperationRef<'c, 'c>, shared: bool) -> Option<(Vec<Load<'c>>, i64, OperationRef<'c, 'c>)> {
    if constant_index(r#loop.operand_at(0)?)? != 0 || constant_index(r#loop.operand_at(2)?)? != 1 {
        return None;
    }
    let bound = defining_op(r#loop.operand_at(1)?).filter(|d| op_name(*d) == "tile.num_tiles")?;
    // SAFETY: the bound's op lives as long as the kernel.
    let bound = unsafe { OperationRef::<'c, 'c>::from_raw(bound.to_raw()) };
    let body = r#loop.region_at(0)?.first_block()?;
    let iv = body.argument_at(0)?;
    let mut loads = Vec::new();
    for (user, number) in uses(iv.into()) {
        if op_name(user) != "tile.load" || user.block() != Some(body) || number == 0 {
            return None;
        }
        let dim = number - 1;
        let result = detach(user.result_at(0)?.into());
        // A tile the mma writes from registers would take `f` times the
        // registers (an 8-bit or tf32 B loaded N-major spilled so).
        if !feeds_k(result, dim, 0) || (shared && !crate::layout::shared::stays_shared(user)) {
            return None;
        }
        // SAFETY: a load of the loop's body, alive as long as the kernel.
        loads.push(Load { op: unsafe { OperationRef::<'c, 'c>::from_raw(user.to_raw()) }, dim });
    }
    // Both operands of every mma these loads feed widen with them: an
    // operand loaded at a K coordinate other than the index (a fixed tile)
    // would keep its K tile and no longer match the other.
    let planned: Vec<usize> = loads.iter().map(|l| l.op.to_raw().ptr as usize).collect();
    let from_plan = |value: melior::ir::Value| {
        let mut source = defining_op(value);
        if let Some(permute) = source.filter(|d| op_name(*d) == "tile.permute") {
            source = permute.operand_at(0).and_then(defining_op);
        }
        source.is_some_and(|d| planned.contains(&(d.to_raw().ptr as usize)))
    };
    for load in &loads {
        for mma in mmas_fed(detach(load.op.result_at(0)?.into())) {
            if !(mma.operand_at(0).is_some_and(from_plan) && mma.operand_at(1).is_some_and(from_plan)) {
                return None;
            }
        }
    }
    let mut tile = None;
    for load in &loads {
        let view = PartitionViewType::try_from_type(load.op.operand_at(0)?.r#type())?;
        let shape = view.shape();
        if view.padding() != Padding::Zero || shape.len() != 2 {
            return None;
        }
        let t = shape[load.dim];
        if *tile.get_or_insert(t) != t {
            return None;
        }
    }
    let tile = tile?;
    // The bound counts tiles of one of these views along the index's dim.
    let bound_view = bound.operand_at(0)?;
    let bound_dim = IntegerAttribute::try_from(bound.attribute("dim").ok()?).ok()?.value() as usize;
    if !loads.iter().any(|l| l.op.operand_at(0) == Some(bound_view) && l.dim == bound_dim) {
        return None;
    }
    Some((loads, tile, bound))
}

/// The type of a view with dim `dim` `factor` times as long.
fn wider_view<'c>(context: &'c Context, r#type: Type<'c>, dim: usize, factor: i64) -> Option<Type<'c>> {
    let view = PartitionViewType::try_from_type(r#type)?;
    let mut shape = view.shape();
    shape[dim] *= factor;
    Some(PartitionViewType::new(context, &shape, view.element_type(), view.padding()).ok()?.into())
}

/// A tile type with dim `dim` `factor` times as long.
fn wider_tile<'c>(r#type: Type<'c>, dim: usize, factor: i64) -> Option<Type<'c>> {
    let (mut shape, element) = tile_type(r#type)?;
    shape[dim] *= factor;
    let shape: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    Some(RankedTensorType::new(&shape, element, None).into())
}

fn widen<'c>(context: &'c Context, r#loop: OperationRef<'c, 'c>, plan: &Plan<'c>) -> Option<()> {
    // Everything is computed before anything changes, so that a failure
    // leaves the loop as it was (at most an unused view).
    let mut retyped = Vec::new();
    for load in &plan.loads {
        let result = load.op.result_at(0)?;
        retyped.push((detach(result.into()), wider_tile(result.r#type(), load.dim, plan.factor)?));
        for (user, _) in uses(result.into()) {
            if op_name(user) == "tile.permute" {
                let permuted = user.result_at(0)?;
                retyped.push((detach(permuted.into()), wider_tile(permuted.r#type(), 1 - load.dim, plan.factor)?));
            }
        }
    }
    // One wider view a (view, dim), next to the narrow one.
    let at = crate::build::At::before(context, r#loop)?;
    let mut views: HashMap<(usize, usize), IrValue<'c>> = HashMap::new();
    let mut new_views = Vec::new();
    for load in &plan.loads {
        let narrow = detach(load.op.operand_at(0)?);
        let key = (narrow.to_raw().ptr as usize, load.dim);
        let view = match views.get(&key) {
            Some(&view) => view,
            None => {
                let definition = defining_op(narrow).filter(|d| op_name(*d) == "tile.partition_view")?;
                let r#type = wider_view(context, narrow.r#type(), load.dim, plan.factor)?;
                let memref = definition.operand_at(0)?;
                let view = at.add(ops::partition_view(context, r#type, memref, definition.location()))?;
                views.insert(key, view);
                view
            }
        };
        new_views.push(view);
    }
    // The bound: tiles of the wider view of the one it counted.
    let dim = IntegerAttribute::try_from(plan.bound.attribute("dim").ok()?).ok()?;
    let bound_view = *views.get(&(plan.bound.operand_at(0)?.to_raw().ptr as usize, dim.value() as usize))?;
    let bound = at.add(ops::num_tiles(context, bound_view, dim, plan.bound.location()))?;
    // SAFETY: the loop is live; its bound operand becomes the new count.
    unsafe { mlir_sys::mlirOperationSetOperand(r#loop.to_raw(), 1, bound.to_raw()) };
    for (load, view) in plan.loads.iter().zip(new_views) {
        // SAFETY: the load is live; the view has the wider type that the
        // load's result takes below, which the load's verifier asks.
        unsafe { mlir_sys::mlirOperationSetOperand(load.op.to_raw(), 0, view.to_raw()) };
    }
    for (value, r#type) in retyped {
        set_type(value, r#type);
    }
    Some(())
}
