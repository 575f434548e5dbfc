//! `tile-slice-clusters`: a kernel with a `tile.mma` and a `num_ctas = N`
//! hint runs each program block as a cluster of `N` blocks, each
//! computing `1 / N` of the mma's rows.
//!
//! Summary: the mma's A operand, its accumulator, its result and every
//! tile tied to them along the rows (element-wise ops, broadcasts of
//! columns, reductions along the other dim, reshapes and permutes that
//! keep the dim, loop-carried values, stores) become `1 / N` as tall.
//! Block `r` of the cluster (`gpu.cluster_block_id x`) loads and stores
//! tile `i * N + r` of a view with tiles `1 / N` as tall where the program
//! loads or stores tile `i`; an iota along the rows is offset by
//! `r * rows / N`. Tiles not tied to the rows (the mma's B operand) stay
//! whole: every block of the cluster loads the same tile, which the TMA
//! can multicast to all of them (`tile-use-tma`). The kernel gets
//! `tile.cluster = N` (the runtime launches `N` blocks a program block,
//! and `tile.block_id x` is the cluster's) and `tile.sliced` (the layouts
//! span one block).
//!
//! Before (`num_ctas = 2`):
//! ```mlir
//! %a = tile.load %pa[%bm, %k] : !tile.partition_view<256x64xf16> -> tensor<256x64xf16>
//! %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
//! %d = tile.mma %a, %b, %acc : tensor<256x64xf16>, tensor<64x128xf16> into tensor<256x128xf32>
//! tile.store %d, %pc[%bm, %bn] : tensor<256x128xf32> -> !tile.partition_view<256x128xf32>
//! ```
//! After:
//! ```mlir
//! %r = gpu.cluster_block_id x
//! %pa2 = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
//! %i = arith.addi (arith.muli %bm, %c2), %r : index
//! %a = tile.load %pa2[%i, %k] : !tile.partition_view<128x64xf16> -> tensor<128x64xf16>
//! %b = tile.load %pb[%k, %bn] : !tile.partition_view<64x128xf16> -> tensor<64x128xf16>
//! %d = tile.mma %a, %b, %acc : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32>
//! tile.store %d, %pc2[%i, %bn] : tensor<128x128xf32> -> !tile.partition_view<128x128xf32>
//! ```
//!
//! The program computes the same: tile `i` of the tall view is tiles
//! `i * N .. i * N + N - 1` of the short one, the same elements (a view's
//! padding is the same), and each row of an mma's result depends only on
//! the same row of A and the accumulator.
//!
//! Caveats: only a kernel on the register path (`tile-assign-layouts`
//! takes it), and only where every tile tied to the rows can be cut: a
//! reduction along the rows, a reshape that mixes them with another dim,
//! a B operand computed from them, an op this pass does not know (or a
//! region op other than `scf.for` and `scf.if` carrying them), a constant
//! that is not a splat, a view made elsewhere than by a
//! `tile.partition_view` in the kernel, rows that `N` does not divide
//! into slices of at least 64 (wgmma's rows), or a whole tile of an array
//! the kernel stores to (every block would read or write it, racing with
//! another block's rows) keep the kernel whole, with a remark at the op
//! (`ClusterNotSliced`). Whole tiles of other arrays are read by every
//! block of the cluster. Only on `sm_90a` (`tile-to-ptx`); kernels
//! without an mma are clustered by `tile-assign-layouts`, whose layouts
//! span the cluster instead.

use crate::{
    build::{At, GpuQuery, tile_type},
    layout::assign::elementwise,
    pass::{PassInfo, TilePass},
    rewrite::{BlockProbe, IrValue, Probe, detach, op_name},
};
use melior::{
    ContextRef,
    ir::{
        Attribute, BlockLike, Location, OperationRef, RegionLike, Type, TypeLike, Value, ValueLike,
        attribute::{DenseI64ArrayAttribute, IntegerAttribute},
        operation::{OperationLike, OperationMutLike, OperationRefMut, WalkOrder, WalkResult},
        r#type::{IntegerType, RankedTensorType},
    },
    pass::{ExternalPass, RunExternalPass},
};
use std::collections::HashMap;
use tile_dialect::{attrs, ops, types::PartitionViewType};

/// The `tile-slice-clusters` pass.
#[derive(Clone, Default)]
pub struct SliceClusters;

impl TilePass for SliceClusters {
    const INFO: PassInfo = PassInfo {
        argument: "tile-slice-clusters",
        name: "TileSliceClusters",
        summary: "Run an mma kernel's program block (num_ctas = N) as a cluster of N blocks, each computing 1/N of \
                  the mma's rows",
        op_name: "func.func",
    };
    crate::pass_type_id!();

    fn dependent_dialects() -> Vec<melior::dialect::DialectHandle> {
        vec![melior::dialect::DialectHandle::arith(), melior::dialect::DialectHandle::gpu()]
    }
}

impl<'c> RunExternalPass<'c> for SliceClusters {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        if operation.has_attribute(attrs::SLICED)
            && let Some(blocks) = crate::rewrite::hint(operation, attrs::knob::NUM_CTAS.key).filter(|&b| b > 1)
        {
            crate::remarks::missed(
                operation.location(),
                SliceClusters::INFO.argument,
                "ClusterNotSliced",
                &format!("num_ctas = {blocks} is not applied: the kernel's blocks already split its K loop (split_k)"),
            );
            return;
        }
        let Some(blocks) = wanted(operation) else { return };
        match plan(operation, blocks) {
            Err((location, why)) => crate::remarks::missed(
                location,
                SliceClusters::INFO.argument,
                "ClusterNotSliced",
                &format!("num_ctas = {blocks} is not applied: {why}"),
            ),
            Ok(sliced) => {
                if slice(operation, blocks, &sliced).is_none() {
                    crate::rewrite::emit_error(
                        operation.location(),
                        "tile-slice-clusters: could not slice this kernel",
                    );
                    pass.signal_failure();
                    return;
                }
                crate::remarks::passed(
                    operation.location(),
                    SliceClusters::INFO.argument,
                    "ClusterSliced",
                    &format!(
                        "each program block runs as a cluster of {blocks} blocks, each computing 1/{blocks} of the \
                         rows of its mma tiles"
                    ),
                );
            }
        }
    }
}

/// The cluster size `kernel` asks for (its `num_ctas`, down to a power of
/// two), where this pass applies: a kernel (not a variant, not widened or
/// sliced already) with a `tile.mma`.
fn wanted(kernel: OperationRef) -> Option<i64> {
    if !clusterable(kernel) {
        return None;
    }
    let asked = crate::rewrite::hint(kernel, attrs::knob::NUM_CTAS.key)?.min(attrs::MAX_CLUSTER);
    (asked >= 2).then(|| 1i64 << (63 - asked.leading_zeros()))
}

/// Whether `kernel` is one that a cluster may run (`tile-slice-clusters`,
/// `tile-split-k`): a kernel as written (not a variant, a retiled,
/// widened or sliced copy) with a `tile.mma`.
pub fn clusterable(kernel: OperationRef) -> bool {
    kernel.has_attribute(attrs::KERNEL)
        && !kernel.has_attribute(attrs::VARIANT_OF)
        && !kernel.has_attribute(attrs::RETILED)
        && !kernel.has_attribute(attrs::WIDE_OF)
        && !kernel.has_attribute(attrs::SLICED)
        && crate::rewrite::has_op(kernel, "tile.mma")
}

/// How a tile is cut: along which dim (`Some`), or whole (`None`).
type Cut = Option<usize>;

fn key(value: Value) -> usize {
    value.to_raw().ptr as usize
}

fn is_tile(value: Value) -> bool {
    tile_type(value.r#type()).is_some()
}

/// What is known of the kernel's tiles: each decided one's cut.
struct Cuts<'c> {
    cuts: HashMap<usize, (IrValue<'c>, Cut)>,
    changed: bool,
}

impl<'c> Cuts<'c> {
    fn get(&self, value: Value) -> Option<Cut> {
        self.cuts.get(&key(value)).map(|(_, cut)| *cut)
    }

    /// Decides `value`'s cut; a different one decided before is a
    /// conflict, reported at `op`.
    fn set(&mut self, value: Value<'c, '_>, cut: Cut, op: OperationRef) -> Result<(), (Location<'c>, String)> {
        let location = || -> Location<'c> {
            // SAFETY: the op's location lives in the context, which outlives the pass run.
            unsafe { Location::from_raw(op.location().to_raw()) }
        };
        match self.get(value) {
            Some(old) if old == cut => Ok(()),
            Some(_) => Err((
                location(),
                format!("this '{}' needs a tile both cut along the mma's rows and whole", op_name(op)),
            )),
            None => {
                if let Some(dim) = cut {
                    let Some((shape, _)) = tile_type(value.r#type()) else {
                        return Err((location(), "a value of no tile type".into()));
                    };
                    if shape.get(dim).is_none_or(|&d| d <= 1) {
                        return Err((location(), format!("this '{}' cannot cut a dim of one", op_name(op))));
                    }
                }
                self.cuts.insert(key(value), (detach(value), cut));
                self.changed = true;
                Ok(())
            }
        }
    }
}

/// The dim of `to` that dim `dim` of `from` becomes in a row-major
/// reshape, if it stays one dim of the same extent.
fn reshaped_dim(from: &[i64], to: &[i64], dim: usize) -> Option<usize> {
    let before: i64 = from[..dim].iter().product();
    (0..to.len()).find(|&e| to[e] == from[dim] && to[..e].iter().product::<i64>() == before)
}

/// Every tile value of `kernel` cut along the rows of its mmas, or where
/// and why the kernel cannot be sliced `blocks` ways.
fn plan<'c>(
    kernel: OperationRef<'c, '_>,
    blocks: i64,
) -> Result<HashMap<usize, (IrValue<'c>, Cut)>, (Location<'c>, String)> {
    let mut ops = Vec::new();
    kernel.walk(WalkOrder::PreOrder, |op| {
        if op.to_raw().ptr != kernel.to_raw().ptr {
            // SAFETY: ops of the kernel, alive for the pass run.
            ops.push(unsafe { OperationRef::<'c, 'c>::from_raw(op.to_raw()) });
        }
        WalkResult::Advance
    });
    if let Err((why, location)) = crate::layout::assign::eligible(kernel) {
        return Err((location, format!("the kernel is not on the register path ({why})")));
    }
    let mut cuts = Cuts { cuts: HashMap::new(), changed: true };
    for &op in &ops {
        if op_name(op) == "tile.mma" {
            let operand = |i| op.operand_at(i).ok_or_else(|| (op.location(), String::new()));
            cuts.set(operand(0)?, Some(0), op)?;
            cuts.set(operand(1)?, None, op)?;
            cuts.set(operand(2)?, Some(0), op)?;
            cuts.set(op.result_at(0).ok_or_else(|| (op.location(), String::new()))?.into(), Some(0), op)?;
        }
    }
    while cuts.changed {
        cuts.changed = false;
        for &op in &ops {
            relate(&mut cuts, op)?;
        }
    }
    for (value, cut) in cuts.cuts.values() {
        let Some(dim) = cut else { continue };
        // A loop's carried value is cut with its loop; a block argument of
        // another region op (an `scf.while`'s) is not followed.
        if let Some(argument) = crate::rewrite::block_argument(*value)
            && argument.owner().parent_operation().is_none_or(|p| op_name(p) != "scf.for")
        {
            let at = argument.owner().parent_operation().map_or(kernel.location(), |p| p.location());
            // SAFETY: locations live in the context, which outlives the pass run.
            let at = unsafe { Location::from_raw(at.to_raw()) };
            return Err((at, "a tile this region op carries would be cut along the mma's rows".into()));
        }
        let Some((shape, _)) = tile_type(value.r#type()) else { continue };
        if shape[*dim] % blocks != 0 {
            let location = crate::rewrite::defining_op(*value).map_or(kernel.location(), |d| d.location());
            return Err((location, format!("{blocks} blocks do not divide this tile's {} rows", shape[*dim])));
        }
    }
    accesses(&ops, &cuts)?;
    for &op in &ops {
        if op_name(op) == "tile.mma" {
            let rows = tile_type(op.operand_at(0).ok_or_else(|| (op.location(), String::new()))?.r#type())
                .map_or(0, |(s, _)| s[0]);
            if rows / blocks < crate::registers::mma::WGMMA_M {
                return Err((
                    op.location(),
                    format!(
                        "a block's share of this mma's {rows} rows, {}, would be under wgmma's {}",
                        rows / blocks,
                        crate::registers::mma::WGMMA_M
                    ),
                ));
            }
        }
    }
    Ok(cuts.cuts)
}

/// Whether the cut loads and stores can be rewritten, and whether the
/// blocks' accesses stay apart: a cut load or store needs its view made by
/// a `tile.partition_view` (a new one with short tiles goes beside it;
/// constants are splats on the register path, [`plan`]'s first check),
/// and an array the kernel
/// stores to is read and written only in cut tiles (a whole one, which
/// every block of the cluster reads or writes, would race with another
/// block's part).
fn accesses<'c>(ops: &[OperationRef<'c, 'c>], cuts: &Cuts<'c>) -> Result<(), (Location<'c>, String)> {
    let cut = |v: Value| cuts.get(v).flatten().is_some();
    let array = |op: OperationRef<'c, 'c>, view: usize| {
        op.operand_at(view)
            .and_then(crate::rewrite::defining_op)
            .filter(|d| op_name(*d) == "tile.partition_view")
            .and_then(|d| d.operand_at(0))
            .map(key)
    };
    let access = |op: OperationRef<'c, 'c>| match op_name(op).as_str() {
        "tile.load" => op.result_at(0).map(|r| (cut(r.into()), 0)),
        "tile.store" => op.operand_at(0).map(|v| (cut(v), 1)),
        _ => None,
    };
    let stored: std::collections::HashSet<usize> =
        ops.iter().filter(|op| op_name(**op) == "tile.store").filter_map(|op| array(*op, 1)).collect();
    for &op in ops {
        let Some((is_cut, view)) = access(op) else { continue };
        match array(op, view) {
            None if is_cut => {
                return Err((op.location(), "this access's view is not made by a tile.partition_view here".into()));
            }
            Some(memref) if !is_cut && stored.contains(&memref) => {
                return Err((
                    op.location(),
                    "every block of the cluster would access this whole tile of an array the kernel stores to".into(),
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Decides the cuts that `op` ties to the ones known.
fn relate<'c>(cuts: &mut Cuts<'c>, op: OperationRef<'c, 'c>) -> Result<(), (Location<'c>, String)> {
    let name = op_name(op);
    let tiles: Vec<Value> = op.operands().chain(op.results().map(Into::into)).filter(|v| is_tile(*v)).collect();
    if tiles.is_empty() {
        return Ok(());
    }
    let shape = |v: Value| tile_type(v.r#type()).map(|(s, _)| s).unwrap_or_default();
    let operand = |i: usize| op.operand_at(i).ok_or_else(|| (op.location(), String::new()));
    let result = |i: usize| op.result_at(i).map(Value::from).ok_or_else(|| (op.location(), String::new()));
    match name.as_str() {
        "tile.mma" | "tile.load" | "tile.store" | "tile.splat" | "tile.iota" | "arith.constant" => {}
        // Tied by its loop or `scf.if`; another parent's is not followed.
        "scf.yield" if op.parent_operation().is_some_and(|p| matches!(op_name(p).as_str(), "scf.for" | "scf.if")) => {}
        "tile.broadcast" => {
            let (input, output) = (operand(0)?, result(0)?);
            match (cuts.get(input), cuts.get(output)) {
                (_, Some(Some(d))) => {
                    let cut = (shape(input)[d] != 1).then_some(d);
                    cuts.set(input, cut, op)?;
                }
                (_, Some(None)) => cuts.set(input, None, op)?,
                (Some(Some(d)), None) => cuts.set(output, Some(d), op)?,
                _ => {}
            }
        }
        "tile.reduce" => {
            let dim = op
                .attribute("dim")
                .ok()
                .and_then(|a| IntegerAttribute::try_from(a).ok())
                .map(|a| a.value() as usize)
                .ok_or_else(|| (op.location(), String::new()))?;
            let (input, output) = (operand(0)?, result(0)?);
            match (cuts.get(input), cuts.get(output)) {
                (Some(Some(d)), _) if d == dim => {
                    return Err((op.location(), "this reduction runs along the mma's rows, across the blocks".into()));
                }
                (Some(Some(d)), _) => cuts.set(output, Some(d - usize::from(d > dim)), op)?,
                (Some(None), _) => cuts.set(output, None, op)?,
                (None, Some(Some(e))) => cuts.set(input, Some(e + usize::from(e >= dim)), op)?,
                (None, Some(None)) => cuts.set(input, None, op)?,
                (None, None) => {}
            }
        }
        "tile.reshape" | "tile.permute" => {
            let (input, output) = (operand(0)?, result(0)?);
            let permutation: Option<Vec<usize>> = (name == "tile.permute").then(|| {
                op.attribute("permutation")
                    .ok()
                    .and_then(|a| DenseI64ArrayAttribute::try_from(a).ok())
                    .map(|a| (0..a.len()).filter_map(|i| a.element(i).ok()).map(|p| p as usize).collect())
                    .unwrap_or_default()
            });
            let forward = |d: usize| match &permutation {
                Some(p) => p.iter().position(|&q| q == d),
                None => reshaped_dim(&shape(input), &shape(output), d),
            };
            let backward = |e: usize| match &permutation {
                Some(p) => p.get(e).copied(),
                None => reshaped_dim(&shape(output), &shape(input), e),
            };
            let unkept = || (op.location(), "this reshape mixes the mma's rows with another dim".to_string());
            match (cuts.get(input), cuts.get(output)) {
                (Some(Some(d)), _) => cuts.set(output, Some(forward(d).ok_or_else(unkept)?), op)?,
                (Some(None), _) => cuts.set(output, None, op)?,
                (None, Some(Some(e))) => cuts.set(input, Some(backward(e).ok_or_else(unkept)?), op)?,
                (None, Some(None)) => cuts.set(input, None, op)?,
                (None, None) => {}
            }
        }
        "scf.for" | "scf.if" => {
            // Each result is tied to what each region yields for it and,
            // for a loop, to its init and body argument.
            for i in 0..op.result_count() {
                let mut tied: Vec<Value> = vec![result(i)?];
                if name == "scf.for" {
                    tied.push(operand(i + 3)?);
                    let body =
                        op.region_at(0).and_then(|r| r.first_block()).ok_or_else(|| (op.location(), String::new()))?;
                    tied.push(body.argument_at(i + 1).ok_or_else(|| (op.location(), String::new()))?.into());
                }
                for region in op.regions() {
                    if let Some(terminator) = region.first_block().and_then(|b| b.terminator()) {
                        tied.push(terminator.operand_at(i).ok_or_else(|| (op.location(), String::new()))?);
                    }
                }
                if !is_tile(tied[0]) {
                    continue;
                }
                if let Some(cut) = tied.iter().find_map(|v| cuts.get(*v)) {
                    for value in tied {
                        cuts.set(value, cut, op)?;
                    }
                }
            }
        }
        _ if elementwise(&name) => {
            if let Some(cut) = tiles.iter().find_map(|v| cuts.get(*v)) {
                for value in tiles {
                    cuts.set(value, cut, op)?;
                }
            }
        }
        _ => {
            if tiles.iter().any(|v| cuts.get(*v).is_some_and(|c| c.is_some())) {
                return Err((op.location(), format!("this '{name}' cannot be cut along the mma's rows")));
            }
        }
    }
    Ok(())
}

/// A tile type with dim `dim` `blocks` times shorter.
fn sliced_tile<'c>(r#type: Type<'c>, dim: usize, blocks: i64) -> Option<Type<'c>> {
    let (mut shape, element) = tile_type(r#type)?;
    shape[dim] /= blocks;
    let shape: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    Some(RankedTensorType::new(&shape, element, None).into())
}

/// Rewrites `kernel` by the cuts of [`plan`].
fn slice<'c>(kernel: OperationRef<'c, '_>, blocks: i64, cuts: &HashMap<usize, (IrValue<'c>, Cut)>) -> Option<()> {
    let context = kernel.context();
    // SAFETY: the context outlives the pass run.
    let context = unsafe { context.to_ref() };
    let entry = kernel.region_at(0)?.first_block()?;
    let rank = At::before(context, entry.first_operation()?)?.gpu(GpuQuery::ClusterBlockId)?;
    let cut_of = |value: Value| cuts.get(&key(value)).and_then(|(_, cut)| *cut);

    let mut ops = Vec::new();
    kernel.walk(WalkOrder::PreOrder, |op| {
        if op.to_raw().ptr != kernel.to_raw().ptr {
            // SAFETY: ops of the kernel, alive for the pass run.
            ops.push(unsafe { OperationRef::<'c, 'c>::from_raw(op.to_raw()) });
        }
        WalkResult::Advance
    });
    // One short view per (view, dim), next to the tall one.
    let mut views: HashMap<(usize, usize), IrValue<'c>> = HashMap::new();
    for &op in &ops {
        let name = op_name(op);
        let access = match name.as_str() {
            "tile.load" => Some((cut_of(op.result_at(0)?.into()), 0)),
            "tile.store" => Some((cut_of(op.operand_at(0)?), 1)),
            _ => None,
        };
        if let Some((Some(dim), view_index)) = access {
            let tall = detach(op.operand_at(view_index)?);
            let view = match views.get(&(key(tall), dim)) {
                Some(&view) => view,
                None => {
                    let definition =
                        crate::rewrite::defining_op(tall).filter(|d| op_name(*d) == "tile.partition_view")?;
                    let tall_type = PartitionViewType::try_from_type(tall.r#type())?;
                    let mut shape = tall_type.shape();
                    shape[dim] /= blocks;
                    let r#type =
                        PartitionViewType::new(context, &shape, tall_type.element_type(), tall_type.padding()).ok()?;
                    let at = At::before(context, definition.next_in_block()?)?;
                    let view = at.add(ops::partition_view(
                        context,
                        r#type.into(),
                        definition.operand_at(0)?,
                        definition.location(),
                    ))?;
                    views.insert((key(tall), dim), view);
                    view
                }
            };
            let at = At::before(context, op)?;
            let index = detach(op.operand_at(view_index + 1 + dim)?);
            let index = at.addi(at.muli(index, at.index(blocks)?)?, rank)?;
            // SAFETY: a live op of the kernel; the new view and index are
            // defined before it.
            unsafe {
                mlir_sys::mlirOperationSetOperand(op.to_raw(), view_index as isize, view.to_raw());
                mlir_sys::mlirOperationSetOperand(op.to_raw(), (view_index + 1 + dim) as isize, index.to_raw());
            }
        }
        for i in 0..op.region_count() {
            let Some(block) = op.region_at(i).and_then(|r| r.first_block()) else { continue };
            for j in 0..block.argument_count() {
                let argument: Value = block.argument_at(j)?.into();
                if let Some(dim) = cut_of(argument) {
                    argument.set_type(sliced_tile(argument.r#type(), dim, blocks)?);
                }
            }
        }
        for i in 0..op.result_count() {
            let value: Value = op.result_at(i)?.into();
            let Some(dim) = cut_of(value) else { continue };
            let r#type = sliced_tile(value.r#type(), dim, blocks)?;
            value.set_type(r#type);
            match name.as_str() {
                "arith.constant" => crate::layout::assign::retype_constant(op, r#type)?,
                "tile.iota" => offset_iota(context, op, rank)?,
                _ => {}
            }
        }
    }
    // SAFETY: the kernel is the op the pass runs on; only its attributes change.
    let mut kernel = unsafe { OperationRefMut::from_raw(kernel.to_raw()) };
    let i64_type: Type = IntegerType::new(context, 64).into();
    kernel.set_attribute(attrs::CLUSTER, IntegerAttribute::new(i64_type, blocks).into());
    kernel.set_attribute(attrs::SLICED, Attribute::unit(context));
    Some(())
}

/// Makes a (sliced) iota count from this block's first row: its users read
/// it plus `rank * length`.
fn offset_iota<'c>(context: &'c melior::Context, iota: OperationRef<'c, 'c>, rank: IrValue<'c>) -> Option<()> {
    let value = detach(iota.result_at(0)?.into());
    let (shape, element) = tile_type(value.r#type())?;
    let users = crate::rewrite::uses(value);
    let at = At::before(context, iota.next_in_block()?)?;
    let first = at.muli(rank, at.index(shape[0])?)?;
    let location = iota.location();
    let scalar = if element.is_index() {
        first
    } else if element.is_integer() {
        at.add(melior::dialect::arith::index_cast(first, element, location))?
    } else {
        let wide: Type = IntegerType::new(context, 64).into();
        let wide = at.add(melior::dialect::arith::index_cast(first, wide, location))?;
        at.add(melior::dialect::arith::uitofp(wide, element, location))?
    };
    let offset = at.add(ops::splat(context, value.r#type(), scalar, location))?;
    let sum = if element.is_integer() || element.is_index() {
        at.add(melior::dialect::arith::addi(value, offset, location))?
    } else {
        at.add(melior::dialect::arith::addf(value, offset, location))?
    };
    for (user, position) in users {
        // SAFETY: a live user of the iota, which comes after the sum (built
        // right after the iota).
        unsafe { mlir_sys::mlirOperationSetOperand(user.to_raw(), position as isize, sum.to_raw()) };
    }
    Some(())
}
