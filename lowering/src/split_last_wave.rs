//! `tile-split-last-wave`: the wide variant of a kernel and the kernel's
//! own variants may run a slice of their grid, so that the runtime can run
//! a last partial wave of wide blocks as the program's blocks.
//!
//! Summary: a launch of one block per 128x128 output tile runs
//! `tile-widen-blocks`' 128x256 variant on half as many blocks. Where
//! those do not make whole waves of the multiprocessors, the last wave
//! keeps most of them idle for a whole wide tile's time (4000 x 11008:
//! 1376 wide tiles, 56 in the eleventh wave of 132). The same tiles as
//! the program's own 128x128 blocks take one wave of about half that
//! time. This pass lets the runtime launch the wide variant on its first
//! `S` blocks, then a variant of the program's tiles on the program
//! blocks from `2 S` on (`tile_abi::GridSlice::last_wave_split` chooses
//! `S`): each variant it marks takes two more last arguments, the
//! slice's first block along x, which it adds to every `tile.block_id
//! x`, and the whole grid along x, which it reads for every
//! `tile.num_blocks x`. So a block of a slice computes what the block of
//! the whole grid with its id computes.
//!
//! The two launches cover every tile once because both variants order
//! their blocks the same way: the wide instance's block `b` computes the
//! program's tiles of the program's blocks `2 b` and `2 b + 1` in
//! row-major order (`tile-widen-blocks` checks it), and
//! `tile-group-blocks` relabels both grids with the same group of rows
//! (`tile.grouped`), which the mark carries (`tile.grid_slice = G`) for
//! the runtime's choice of `S`.
//!
//! Before (after `tile-finish-widening` and `tile-persist-blocks`):
//! ```mlir
//! func.func @k__wide__tma(%A, %B, %C, %dA, %dB, %dC) attributes {tile.grouped = 8 : i64,
//!     tile.retiled = array<i64: 2, 0, 1, 128, 128, 128, 256>, tile.variant_of = @k} {
//!   %bid = tile.block_id x : index
//!   %p = tile.num_blocks x : index
//!   ...
//! }
//! ```
//! After:
//! ```mlir
//! func.func @k__wide__tma(%A, %B, %C, %dA, %dB, %dC, %first: index, %grid: index)
//!     attributes {tile.grid_slice = 8 : i64, tile.grouped = 8 : i64, ...} {
//!   %id = tile.block_id x : index
//!   %bid = arith.addi %id, %first : index
//!   ... %p -> %grid ...
//! }
//! ```
//! and the same for each of `@k`'s variants that is not retiled.
//!
//! Caveats: only a kernel with a variant whose blocks each compute two of
//! the program's tiles side by side along the columns (a 128x128
//! program's 128x256 wide variant; not a 64x128 program's, whose wide
//! blocks are two tiles one above the other or four), and only that
//! variant and `@k`'s variants that are not retiled, persistent or
//! clustered, whose block order is the wide one's (`tile.grouped`
//! alike). Where a kernel has a wide variant but none of this holds, a
//! remark at the kernel says why (`SplitLastWaveNotApplied`). The kernel
//! itself is left as it is: the runtime splits only between marked
//! variants. Run it after
//! every pass that makes variants but `tile-split-thread-stores`, whose
//! copies keep the mark.

use crate::{
    build::At,
    pass::{PassInfo, TilePass},
    rewrite::{Probe, detach, emit_error, op_name},
};
use melior::{
    ContextRef,
    ir::{
        BlockLike, OperationRef, RegionLike, Type, ValueLike,
        attribute::{DenseI64ArrayAttribute, IntegerAttribute, StringAttribute},
        operation::{OperationLike, OperationMutLike, OperationRefMut, WalkOrder, WalkResult},
        r#type::IntegerType,
    },
    pass::{ExternalPass, RunExternalPass},
};
use tile_dialect::attrs::{self, VARIANT_OF};

/// The `tile-split-last-wave` pass.
#[derive(Clone, Default)]
pub struct SplitLastWave;

impl TilePass for SplitLastWave {
    const INFO: PassInfo = PassInfo {
        argument: "tile-split-last-wave",
        name: "TileSplitLastWave",
        summary: "Let a kernel's wide variant and its own variants run a slice of their grid (a first block and the \
                  whole grid as arguments), so that the runtime can run a last partial wave of wide blocks as the \
                  program's blocks",
        op_name: "builtin.module",
    };
    crate::pass_type_id!();

    fn dependent_dialects() -> Vec<melior::dialect::DialectHandle> {
        vec![melior::dialect::DialectHandle::arith()]
    }
}

impl<'c> RunExternalPass<'c> for SplitLastWave {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        let context = operation.context();
        // SAFETY: the context outlives the pass run.
        let context = unsafe { context.to_ref() };
        let Some(body) = operation.region_at(0).and_then(|r| r.first_block()) else { return };
        let mut kernels = Vec::new();
        let mut variants: Vec<(String, mlir_sys::MlirOperation)> = Vec::new();
        let mut next = body.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            if op_name(op) != "func.func" || !op.has_attribute(attrs::KERNEL) {
                continue;
            }
            match op.attribute(VARIANT_OF) {
                Ok(of) => variants.push((of.to_string(), op.to_raw())),
                Err(_) => kernels.push(op.to_raw()),
            }
        }
        for raw in kernels {
            // SAFETY: a live top-level function; the pass erases none.
            let kernel = unsafe { OperationRef::from_raw(raw) };
            let Some(name) = kernel.attribute("sym_name").ok().and_then(|a| StringAttribute::try_from(a).ok()) else {
                continue;
            };
            let of = format!("@{}", name.value());
            // SAFETY: live top-level functions, as above.
            let own: Vec<OperationRef> =
                variants.iter().filter(|(o, _)| *o == of).map(|(_, v)| unsafe { OperationRef::from_raw(*v) }).collect();
            let (wide, programs, group) = match plan(&own) {
                Plan::Slice(wide, programs, group) => (wide, programs, group),
                Plan::NoWideBlocks => continue,
                Plan::Refused(why) => {
                    let reason = format!("a launch's last partial wave of wide blocks stays wide: {why}");
                    crate::remarks::missed(kernel.location(), Self::INFO.argument, "SplitLastWaveNotApplied", &reason);
                    continue;
                }
            };
            for variant in std::iter::once(wide).chain(programs) {
                if let Err(why) = slice(context, variant, group) {
                    emit_error(variant.location(), &format!("tile-split-last-wave: {why}"));
                    pass.signal_failure();
                    return;
                }
            }
            crate::remarks::passed(
                kernel.location(),
                Self::INFO.argument,
                "SplitLastWave",
                "a launch's last partial wave of wide blocks may run as the program's own blocks",
            );
        }
    }
}

/// What the pass does with one kernel's variants.
enum Plan<'c, 'a> {
    /// No variant has wider blocks than the program's.
    NoWideBlocks,
    /// A wide variant, though none can run a slice: why.
    Refused(&'static str),
    /// The wide variant, the program's variants in its block order, and
    /// that order's `G`.
    Slice(OperationRef<'c, 'a>, Vec<OperationRef<'c, 'a>>, i64),
}

/// Which of a kernel's variants (`own`) to slice, or why none.
fn plan<'c, 'a>(own: &[OperationRef<'c, 'a>]) -> Plan<'c, 'a> {
    let wides: Vec<OperationRef> = own.iter().copied().filter(|v| widens(*v)).collect();
    if wides.is_empty() {
        return Plan::NoWideBlocks;
    }
    let Some(wide) = wides.iter().copied().find(|v| doubles_columns(*v)) else {
        return Plan::Refused("its blocks are not two of the program's tiles side by side along the columns");
    };
    if !sliceable(wide) {
        return Plan::Refused("the wide variant is persistent or runs in clusters");
    }
    let Some(group) = grouped(wide) else {
        return Plan::Refused("tile-group-blocks relabelled only some of its block ids");
    };
    let programs: Vec<OperationRef> = own
        .iter()
        .copied()
        .filter(|v| !v.has_attribute(attrs::RETILED) && sliceable(*v) && grouped(*v) == Some(group))
        .collect();
    if programs.is_empty() {
        return Plan::Refused("no variant of the program's own tiles, one block a tile in the wide blocks' order");
    }
    Plan::Slice(wide, programs, group)
}

/// `variant`'s `tile.retiled` (`arg, row_dim, column_dim, program_rows,
/// program_columns, rows, columns[, walk]`), if it has one.
fn retiled(variant: OperationRef) -> Option<Vec<i64>> {
    let retiled = variant.attribute(attrs::RETILED).ok().and_then(|a| DenseI64ArrayAttribute::try_from(a).ok())?;
    Some((0..retiled.len()).filter_map(|i| retiled.element(i).ok()).collect())
}

/// Whether `variant`'s blocks each compute more than a program tile.
fn widens(variant: OperationRef) -> bool {
    retiled(variant).is_some_and(|v| {
        matches!(v[..], [_, _, _, program_rows, program_columns, rows, columns, ..]
            if rows.saturating_mul(columns) > program_rows.saturating_mul(program_columns))
    })
}

/// Whether `variant` is retiled to two of the program's tiles side by
/// side along the columns (`tile.retiled`'s rows equal, its columns twice
/// the program's, no walk).
fn doubles_columns(variant: OperationRef) -> bool {
    retiled(variant).is_some_and(|v| {
        matches!(v[..], [_, _, _, program_rows, program_columns, rows, columns]
            if rows == program_rows && rows > 0 && columns == 2 * program_columns)
    })
}

/// Whether a slice of `variant`'s grid can run it: one block a program
/// (or wide) tile, not persistent (its grid is its own), not in clusters.
fn sliceable(variant: OperationRef) -> bool {
    !variant.has_attribute(attrs::PERSISTENT)
        && !variant.has_attribute(attrs::STREAM_K)
        && !variant.has_attribute(attrs::GRID_SLICE)
        && crate::registers::cluster::blocks(variant) == 1
}

/// The block order's `G` (`tile.grouped`; 1 where unmarked, `None` where
/// `tile-group-blocks` relabelled only some of the block ids).
fn grouped(variant: OperationRef) -> Option<i64> {
    match variant.attribute(attrs::GROUPED).ok().and_then(|a| IntegerAttribute::try_from(a).ok()) {
        None => Some(1),
        Some(group) => Some(group.value()).filter(|&g| g >= 1),
    }
}

/// The rewrite (see the module's summary). Everything it reads is found
/// before anything changes; the mark is set with the arguments, so the
/// runtime passes them whatever happens after.
fn slice<'c>(context: &'c melior::Context, variant: OperationRef<'c, '_>, group: i64) -> Result<(), String> {
    let entry = variant.region_at(0).and_then(|r| r.first_block()).ok_or("the variant has no body")?;
    let count = entry.argument_count();
    let mut ids = Vec::new();
    let mut counts = Vec::new();
    variant.walk(WalkOrder::PreOrder, |op| {
        let on_x = op.attribute("axis").is_ok_and(|a| a.to_string().ends_with("x>"));
        match op_name(op).as_str() {
            "tile.block_id" if on_x => ids.push(op.to_raw()),
            "tile.num_blocks" if on_x => counts.push(op.to_raw()),
            _ => {}
        }
        WalkResult::Advance
    });
    // SAFETY (both): live ops of the variant, collected above.
    let read = |raw: mlir_sys::MlirOperation| unsafe { OperationRef::from_raw(raw) }.result_at(0).is_some();
    let placed = |raw: mlir_sys::MlirOperation| unsafe { OperationRef::from_raw(raw) }.block().is_some();
    if !ids.iter().chain(&counts).all(|&raw| read(raw) && placed(raw)) {
        return Err("a block id or block count without a result or a block".into());
    }
    let index = Type::index(context);
    let values =
        crate::abi::insert_arguments(context, variant, count, &[index, index]).ok_or("could not add the arguments")?;
    {
        // SAFETY: the variant, mutated only through this handle here.
        let mut variant = unsafe { OperationRefMut::from_raw(variant.to_raw()) };
        let mark = IntegerAttribute::new(IntegerType::new(context, 64).into(), group);
        variant.set_attribute(attrs::GRID_SLICE, mark.into());
    }
    let (first, grid) = (detach(values[0]), detach(values[1]));
    for raw in ids {
        // SAFETY: a live op of the variant, checked above.
        let op = unsafe { OperationRef::from_raw(raw) };
        let id = detach(op.result_at(0).ok_or("a block id without a result")?.into());
        let block = op.block().ok_or("a block id outside a block")?;
        let at = At { context, location: op.location(), block, before: op.next_in_block() };
        let sum = at.addi(id, first).ok_or("could not add the first block")?;
        let sum_op = crate::rewrite::defining_op(sum).ok_or("could not add the first block")?;
        let mut exceptions = [sum_op.to_raw()];
        // SAFETY: both values are live; the sum's own use of the id stays.
        unsafe { mlir_sys::mlirValueReplaceAllUsesExcept(id.to_raw(), sum.to_raw(), 1, exceptions.as_mut_ptr()) };
    }
    for raw in counts {
        // SAFETY: a live op of the variant, checked above; erased once its
        // uses read the argument.
        unsafe {
            let op = OperationRef::from_raw(raw);
            let result = op.result_at(0).ok_or("a block count without a result")?;
            mlir_sys::mlirValueReplaceAllUsesOfWith(result.to_raw(), grid.to_raw());
            mlir_sys::mlirOperationDestroy(raw);
        }
    }
    Ok(())
}
