//! `tile-group-blocks`: the blocks that run at once share operand tiles in
//! the L2 cache.
//!
//! Summary: where a kernel splits a 1-D tile index into a row and a column
//! in row-major order (`i / n` and `i % n`), the index is relabelled so that
//! consecutive indices walk `G` tile rows column by column (`G` is the
//! `group_m` hint, 8 unless set). The blocks resident at one time then read
//! `G` row panels and a few column panels instead of one row panel and
//! every column panel: for a GEMM whose B does not fit in L2 (4000 x 11008),
//! the row-major order reads B from memory once per wave of blocks.
//!
//! Before:
//! ```mlir
//! %bid = tile.block_id x : index
//! %bm = arith.divui %bid, %tiles_n : index
//! %bn = arith.remui %bid, %tiles_n : index
//! ```
//! After (`G` = 8; `P` blocks, `R = P / n` whole rows of them):
//! ```mlir
//! %bid = tile.block_id x : index
//! %p = tile.num_blocks x : index
//! %rows = arith.divui %p, %tiles_n : index
//! %group = arith.divui %bid, (%tiles_n * 8) : index
//! %first = arith.muli %group, %c8 : index
//! %height = max(1, min(%rows - %first, 8))
//! %in_group = arith.remui %bid, (%tiles_n * 8) : index
//! %row = %first + %in_group % %height
//! %column = %in_group / %height
//! %grouped = %row * %tiles_n + %column
//! %inside = arith.cmpi ult, %bid, %rows * %tiles_n : index
//! %index = arith.select %inside, %grouped, %bid : index
//! %bm = arith.divui %index, %tiles_n : index
//! %bn = arith.remui %index, %tiles_n : index
//! ```
//!
//! Two forms are relabelled:
//! * a block id along `x` that is divided and taken modulo one value `n`:
//!   every use of it reads the relabelled id. The relabelling is a
//!   permutation of `[0, P)` (the grouped order on the whole rows, the
//!   identity on a last partial row), and blocks are independent, so the
//!   kernel computes the same thing in another block order;
//! * a hand-written persistent loop `scf.for %i = block_id x to m * n step
//!   num_blocks x` with no results whose index is divided and taken modulo
//!   `n`: the index read in the body is relabelled over `[0, m n)`. Its
//!   iterations then run in another order in each block, so the loop must
//!   not load from an array it stores to (checked), nor hold any op outside
//!   `tile`, `arith`, `math`, `scf` and `tensor`.
//!
//! A kernel whose every block id along x at its top level (the ones this
//! pass reads) it relabels is marked `tile.grouped = G` (`0` where only
//! some are), which
//! `tile-split-last-wave` reads: a slice of such a grid computes the
//! program tiles the same relabelling gives its block ids.
//!
//! Both pipelines run it (the CPU's threads share a last-level cache too,
//! and its tests check the relabelled kernels' values). Caveats: kernels
//! marked `tile.persistent` (`tile-persist-blocks`' variants, whose grid
//! is not the program's) are left alone. `group_m = 1` keeps the program's order. The pass says where
//! it relabels (a `tile` remark, `GroupedBlocks`).

use crate::{
    build::At,
    pass::{PassInfo, TilePass},
    rewrite::{BlockProbe, IrValue, Probe, defining_op, detach, op_name, uses},
};
use melior::{
    Context, ContextRef,
    dialect::arith::CmpiPredicate,
    ir::{
        BlockLike, BlockRef, OperationRef, RegionLike, Value, ValueLike,
        attribute::IntegerAttribute,
        operation::{OperationLike, OperationMutLike, WalkOrder, WalkResult},
        r#type::IntegerType,
    },
    pass::{ExternalPass, RunExternalPass},
};
use std::collections::{HashMap, HashSet};
use tile_dialect::{
    attrs::{self, knob},
    ops,
};

/// The `tile-group-blocks` pass.
#[derive(Clone, Default)]
pub struct GroupBlocks;

impl TilePass for GroupBlocks {
    const INFO: PassInfo = PassInfo {
        argument: "tile-group-blocks",
        name: "TileGroupBlocks",
        summary: "Relabel a kernel's row-major block (or persistent tile) index so that the blocks resident at once \
                  walk a group of tile rows together and share their operands in L2 (the group_m hint)",
        op_name: "func.func",
    };
    crate::pass_type_id!();

    fn dependent_dialects() -> Vec<melior::dialect::DialectHandle> {
        vec![melior::dialect::DialectHandle::arith()]
    }
}

impl<'c> RunExternalPass<'c> for GroupBlocks {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, _pass: ExternalPass<'_>) {
        let context = operation.context();
        // SAFETY: the context outlives the pass run.
        let context = unsafe { context.to_ref() };
        if !operation.has_attribute("tile.kernel") || operation.has_attribute("tile.persistent") {
            return;
        }
        // Without the hint, the knob's default (8 rows, as Triton's tutorials
        // and CUTLASS's rasterisation use).
        let group = crate::rewrite::hint(operation, knob::GROUP_M.key).or(knob::GROUP_M.default).unwrap_or(1);
        if group <= 1 {
            return;
        }
        let Some(entry) = operation.region_at(0).and_then(|r| r.first_block()) else { return };
        let mut block_ids = Vec::new();
        let mut loops = Vec::new();
        let mut next = entry.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            match op_name(op).as_str() {
                "tile.block_id" if on_x(op) => block_ids.push(op),
                "scf.for" => loops.push(op),
                _ => {}
            }
        }
        // A variant says nothing its kernel has not said.
        let say = !operation.has_attribute("tile.variant_of");
        let ids = block_ids.len();
        let mut grouped = 0;
        for op in block_ids {
            if group_block_id(context, entry, op, group).is_some() {
                grouped += 1;
                if say {
                    remark(op.location(), "blocks walk");
                }
            }
        }
        if grouped > 0 {
            // What `tile-split-last-wave` needs to know of the block order.
            let mark = if grouped == ids { group } else { 0 };
            // SAFETY: the pass's function, mutated only through this handle
            // here.
            let mut function = unsafe { melior::ir::operation::OperationRefMut::from_raw(operation.to_raw()) };
            function.set_attribute(
                attrs::GROUPED,
                IntegerAttribute::new(IntegerType::new(context, 64).into(), mark).into(),
            );
        }
        for op in loops {
            if group_loop(context, op, group).is_some() && say {
                remark(op.location(), "the loop walks");
            }
        }
    }
}

fn remark(location: melior::ir::Location, what: &str) {
    let reason = format!("{what} the tiles in groups of rows for L2 reuse (group_m)");
    crate::remarks::passed(location, GroupBlocks::INFO.argument, "GroupedBlocks", &reason);
}

fn on_x(op: OperationRef) -> bool {
    op.attribute("axis").is_ok_and(|a| a.to_string().ends_with("x>"))
}

/// The `n` that `index` is both divided by and taken modulo (unsigned),
/// when the quotient and the remainder are tile coordinates: a row and a
/// column. (An index already relabelled by hand, as the contract's grouped
/// matmul does, feeds more arithmetic instead, and is left alone.)
fn row_major_split<'c>(index: Value<'c, '_>) -> Option<IrValue<'c>> {
    let mut rows = HashSet::new();
    let mut columns = Vec::new();
    for (user, position) in uses(index) {
        if position != 0 {
            continue;
        }
        let Some(result) = user.result_at(0) else { continue };
        if !is_coordinate(result.into()) {
            continue;
        }
        let by = detach(user.operand_at(1)?);
        match op_name(user).as_str() {
            "arith.divui" => {
                rows.insert(by.to_raw().ptr as usize);
            }
            "arith.remui" => columns.push(by),
            _ => {}
        }
    }
    columns.into_iter().find(|n| rows.contains(&(n.to_raw().ptr as usize)))
}

/// Whether `value` is a tile coordinate of a `tile.load` or `tile.store`.
fn is_coordinate(value: Value) -> bool {
    uses(value).iter().any(|(user, position)| match op_name(*user).as_str() {
        "tile.load" => *position >= 1,
        "tile.store" => *position >= 2,
        _ => false,
    })
}

/// The op of the entry block that holds `op` (`op` itself at top level).
fn top_level<'c, 'a>(entry: BlockRef<'c, 'a>, op: OperationRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let mut op = op;
    while op.block()? != entry {
        op = op.parent_operation()?;
    }
    Some(op)
}

/// Relabels the block id `op` defines, when it is split row-major.
fn group_block_id<'c>(
    context: &'c Context,
    entry: BlockRef<'c, '_>,
    op: OperationRef<'c, '_>,
    group: i64,
) -> Option<()> {
    let id = op.result_at(0)?;
    let columns = row_major_split(id.into())?;
    let position: HashMap<usize, usize> = {
        let mut map = HashMap::new();
        let mut next = entry.first_operation();
        while let Some(o) = next {
            map.insert(o.to_raw().ptr as usize, map.len());
            next = o.next_in_block();
        }
        map
    };
    let at_of = |o: OperationRef| position.get(&(o.to_raw().ptr as usize)).copied();
    // The relabelled id is built after both the id and `n`; every use of
    // the id must come later, so that all of them can read it.
    let mut after = op;
    if let Some(def) = defining_op(columns) {
        let def = top_level(entry, def)?;
        if at_of(def)? > at_of(after)? {
            after = def;
        }
    } else if !is_entry_argument(columns, entry) {
        return None;
    }
    let users = uses(id.into());
    for (user, _) in &users {
        if at_of(top_level(entry, *user)?)? <= at_of(after)? {
            return None;
        }
    }
    let at = At { context, location: op.location(), block: entry, before: after.next_in_block() };
    let axis = op.attribute("axis").ok()?;
    let blocks = at.add(ops::num_blocks(context, axis, op.location()))?;
    let rows = at.divui(blocks, columns)?;
    let relabelled = grouped(&at, detach(id.into()), rows, columns, group)?;
    let whole = at.muli(rows, columns)?;
    let inside = at.cmpi(CmpiPredicate::Ult, detach(id.into()), whole)?;
    let index = at.select(inside, relabelled, detach(id.into()))?;
    set_operands(&users, index);
    Some(())
}

fn is_entry_argument(value: IrValue, entry: BlockRef) -> bool {
    (0..entry.argument_count()).any(|i| entry.argument_at(i).is_some_and(|a| a.to_raw().ptr == value.to_raw().ptr))
}

/// Relabels the index of a hand-written persistent loop over `m * n` tiles.
fn group_loop<'c>(context: &'c Context, for_op: OperationRef<'c, '_>, group: i64) -> Option<()> {
    if for_op.result_count() != 0 {
        return None;
    }
    let is = |value: Value, name: &str| defining_op(detach(value)).is_some_and(|d| op_name(d) == name && on_x(d));
    if !is(for_op.operand_at(0)?, "tile.block_id") || !is(for_op.operand_at(2)?, "tile.num_blocks") {
        return None;
    }
    let body = for_op.region_at(0)?.first_block()?;
    let index = body.argument_at(0)?;
    let columns = row_major_split(index.into())?;
    // The upper bound is `rows * n` (either way round), which makes the
    // relabelling a permutation of the loop's indices.
    let bound = defining_op(detach(for_op.operand_at(1)?)).filter(|d| op_name(*d) == "arith.muli")?;
    let (a, b) = (detach(bound.operand_at(0)?), detach(bound.operand_at(1)?));
    let rows = if b == columns {
        a
    } else if a == columns {
        b
    } else {
        return None;
    };
    if !independent_iterations(for_op) {
        return None;
    }
    let users = uses(index.into());
    let at = At { context, location: for_op.location(), block: body, before: body.first_operation() };
    let relabelled = grouped(&at, detach(index.into()), rows, columns, group)?;
    set_operands(&users, relabelled);
    Some(())
}

/// Whether the loop's iterations may run in another order: it reads no
/// array it writes, and holds no op that could touch memory otherwise.
fn independent_iterations(for_op: OperationRef) -> bool {
    let mut loaded = HashSet::new();
    let mut stored = HashSet::new();
    let mut known = true;
    let view_source = |view: Option<Value>| {
        let view = view.map(detach)?;
        let def = defining_op(view).filter(|d| op_name(*d) == "tile.partition_view")?;
        Some(def.operand_at(0)?.to_raw().ptr as usize)
    };
    let body = for_op.region_at(0).and_then(|r| r.first_block());
    let Some(body) = body else { return false };
    let mut next = body.first_operation();
    while let Some(top) = next {
        next = top.next_in_block();
        top.walk(WalkOrder::PreOrder, |op| {
            let name = op_name(op);
            let dialect = name.split('.').next().unwrap_or_default();
            match name.as_str() {
                "tile.load" => match view_source(op.operand_at(0)) {
                    Some(source) => {
                        loaded.insert(source);
                    }
                    None => known = false,
                },
                "tile.store" => match view_source(op.operand_at(1)) {
                    Some(source) => {
                        stored.insert(source);
                    }
                    None => known = false,
                },
                _ if matches!(dialect, "tile" | "arith" | "math" | "scf" | "tensor") => {}
                _ => known = false,
            }
            WalkResult::Advance
        });
    }
    known && loaded.is_disjoint(&stored)
}

/// Index `i` of a row-major `rows x columns` grid (`i < rows * columns`)
/// relabelled to walk `group` rows column by column.
fn grouped<'c>(
    at: &At<'c, '_>,
    index: IrValue<'c>,
    rows: IrValue<'c>,
    columns: IrValue<'c>,
    group: i64,
) -> Option<IrValue<'c>> {
    let size = at.index(group)?;
    let one = at.index(1)?;
    let per_group = at.muli(columns, size)?;
    let first = at.muli(at.divui(index, per_group)?, size)?;
    // At most `group` rows, at least one: an index past the whole rows
    // (whose result the caller does not select) must not divide by zero.
    let left = at.subi(rows, first)?;
    let fits = at.cmpi(CmpiPredicate::Ult, left, size)?;
    let height = at.select(fits, left, size)?;
    let empty = at.cmpi(CmpiPredicate::Eq, height, at.index(0)?)?;
    let height = at.select(empty, one, height)?;
    let in_group = at.remui(index, per_group)?;
    let row = at.addi(first, at.remui(in_group, height)?)?;
    let column = at.divui(in_group, height)?;
    at.addi(at.muli(row, columns)?, column)
}

/// Points every operand `uses` lists at `value`.
fn set_operands(uses: &[(OperationRef, usize)], value: IrValue) {
    for (user, position) in uses {
        // SAFETY: a live user collected before `value` was built, and
        // `value` is defined before it (after the old value's definition,
        // before the first use), so it dominates the use.
        unsafe { mlir_sys::mlirOperationSetOperand(user.to_raw(), *position as isize, value.to_raw()) }
    }
}
