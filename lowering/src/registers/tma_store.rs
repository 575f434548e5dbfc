//! Stores the Tensor Memory Accelerator writes out (`tile.store`s that
//! `tile-use-tma` marked `tile.tma_store`): the epilogue of a TMA variant.
//!
//! Each thread writes its registers of the tile into one shared-memory
//! buffer laid out as the descriptor's boxes (rows of 128 bytes, or 64 or
//! 32 for narrower tiles, their 16-byte chunks XOR-ed with the row's index
//! mod 8: [`super::swizzle`]); then every thread fences its writes for the
//! async proxy, the block meets at a barrier, and thread 0 stores the
//! boxes with `cp.async.bulk.tensor` and waits until the TMA has read them.
//! The TMA clips each box at the array's edges, which is the view's rule
//! for stores.
//!
//! ```text
//! st.shared [staging + swizzled(row, column)], registers     // each thread, 4-16 bytes a store
//! fence.proxy.async.shared::cta; bar.sync
//! thread 0: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [desc, {column + 64 b, row}], [staging + b * box]
//!           cp.async.bulk.commit_group; cp.async.bulk.wait_group.read 0
//! ```
//!
//! Why: the store the threads do themselves first converts the tile to a
//! layout with 16 contiguous bytes a thread (a shared-memory exchange with
//! bank conflicts, two barriers), then stores it with every thread. The
//! wgmma accumulator's layout writes the swizzled boxes without a conflict
//! (a warp's store covers eight rows at one 16-byte column, which the
//! swizzle spreads over all banks), and the copy out is asynchronous.
//!
//! Outside loops, the buffer is the first ring (by id) of the tile's
//! element type that holds it: once past the loops, every copy into the
//! rings has been waited for and each warpgroup has waited for its
//! wgmmas, so a barrier ahead of the writes (the consumers' named one
//! under a producer warp) frees the rings' memory; buffers never share
//! memory otherwise (`convert-tile-to-gpu` gives each its own range).
//! Thread 0 waits right after its request until the TMA has read the
//! buffer. In a loop (a persistent kernel's tiles) the copy
//! stays in flight while the next tile's loop starts (thread 0 also
//! requests its operands); the next store waits for it before the
//! barrier ahead of its writes, and thread 0 waits once more after the
//! outermost loop, so that no copy reads shared memory after the block
//! exits.
//!
//! In a loop, the TMA's coordinates are computed before the tile's mma
//! loop, where the store's own are known, and pinned there
//! (`coordinates_at`, `pinned`): computed at the store, they kept the
//! values they come from live across the mma loop, and ptxas ran that
//! loop off its uniform datapath (17% slower, BENCHMARKS.md, session 40).
//!
//! The store's descriptor is optional (`tile-use-tma` makes it so): where
//! the runtime cannot describe the output (rows not 16-byte aligned) it
//! passes a null pointer, and the threads store the tile from the layout
//! it has (the element-by-element path where its rows are unaligned), so
//! the variant still runs for its operands. `tile-split-thread-stores`
//! gives that case a variant of its own (`__thread_store`), so that the
//! TMA variant requires its descriptor and has no such branch.
//!
//! The staging writes' addresses: the swizzled offset is linear over
//! GF(2) in the thread's and the register's index bits
//! (`Swizzled::linear_offsets`), so each register's is the thread's part
//! XOR a constant, which takes one XOR a pattern of the swizzle's bits
//! and an immediate offset, not a division of each register's flat
//! index.
//!
//! Caveats: the staging buffer is the tile's own, not a ring's (the rings
//! could hold it once their loop is done): `tile-use-tma` marks only
//! stores whose tile the threads' store would have exchanged through
//! shared memory of the same size, so the rings' budget holds.

use super::{Lowering, in_loop, shared, shared_address, swizzle::Swizzled, tma, when};
use crate::{
    build::{At, element_bits},
    rewrite::{IrValue, Probe, detach},
};
use melior::{
    dialect::arith,
    ir::{
        Attribute, Identifier, OperationRef, Type,
        attribute::{DenseI32ArrayAttribute, IntegerAttribute},
        operation::{OperationBuilder, OperationLike},
        r#type::IntegerType,
    },
};
use tile_dialect::attrs;

/// The swizzles a staged box row may have, widest first.
const SWIZZLES: [i64; 3] = [128, 64, 32];

/// How a tile of `view` is staged: the TMA boxes (rows of the widest
/// swizzle that cuts the tile's rows into whole box rows), or `None` when
/// no box fits (`tile-use-tma` then leaves the store be).
pub fn boxes(tile: &[i64], bytes: i64) -> Option<tma::Boxes> {
    let [.., rows, columns] = tile[..] else { return None };
    if tile[..tile.len() - 2].iter().any(|&d| d != 1) || rows > attrs::TMA_MAX_BOX || bytes < 1 {
        return None;
    }
    let swizzle = SWIZZLES.into_iter().find(|&s| (columns * bytes) % s == 0)?;
    Some(tma::Boxes { rows, columns, bytes, swizzle })
}

/// Lowers a `tile.store` marked `tile.tma_store`.
pub fn store<'c>(lowering: &mut Lowering<'c>, op: OperationRef<'c, 'c>) -> Option<()> {
    let context = lowering.context;
    let at = At::before(context, op)?;
    let tile = op.operand_at(0)?;
    let view = lowering.view(op.operand_at(1)?)?;
    let coords: Vec<IrValue> = (2..op.operand_count()).map(|i| op.operand_at(i).map(detach)).collect::<Option<_>>()?;
    // A cluster's tile lies in several blocks' registers, and one block's
    // staging would hold only its part.
    if lowering.cluster > 1 {
        return None;
    }
    let layout = lowering.layout(tile)?;
    let registers = lowering.registers(tile)?;
    let bits = element_bits(view.element)?;
    if bits % 8 != 0 {
        return None;
    }
    let boxes = boxes(&view.tile, (bits / 8) as i64)?;
    let index = IntegerAttribute::try_from(op.attribute(attrs::TMA_STORE).ok()?).ok()?.value();
    // A hand-written mark naming a descriptor of other boxes is refused:
    // the TMA would read other bytes than the threads wrote.
    let (descriptor, described) = tma::described(op, usize::try_from(index).ok()?, &boxes)?;
    let looped = in_loop(op);
    // Outside any loop, the rings lowered so far belong to loops that are
    // done: their memory is free once every warp is past them (their
    // copies in were all waited for after each loop, and each warpgroup
    // waited for its wgmmas before reading its accumulator), so the
    // staging goes there, behind a barrier.
    let elements = boxes.rows * boxes.columns;
    let ring = lowering.done_ring(op, elements, view.element);
    let reuses_ring = ring.is_some();
    let buffer = match ring {
        Some(buffer) => buffer,
        None => shared::aligned_scratch(lowering, elements, view.element)?,
    };
    if looped {
        // Thread 0 leaves each copy out in flight; after the loop it waits
        // for the last (a no-op where the TMA stored nothing).
        let outermost = outermost_loop(op)?;
        let after = At::before(lowering.context, outermost.next_in_block()?)?;
        when(&after, tma::is_thread(lowering, &after, 0)?, wait_read)?;
    }
    lowering.thread_flat(&layout)?;
    let lowering = &*lowering;
    // In a loop, the TMA's coordinates come before the tile's mma loop
    // (`coordinates_at` says why).
    let hoisted = match looped {
        true => {
            // (After the view's array too, which the origin's extents read.)
            let after: Vec<IrValue> = coords.iter().copied().chain([view.memref]).collect();
            let early = coordinates_at(context, op, &after)?;
            let first = super::global::origin(&early, &view, &coords)?.first;
            let boxes: Vec<Vec<IrValue>> =
                box_coordinates(&early, &first, &boxes)?.iter().map(|b| pinned(&early, b)).collect::<Option<_>>()?;
            Some((first, boxes))
        }
        false => None,
    };
    let by_tma = |at: &At<'c, 'c>| -> Option<()> {
        if looped {
            // The previous iteration's copy out must have read the buffer:
            // thread 0 waits for it, the others at the barrier.
            when(at, tma::is_thread(lowering, at, 0)?, wait_read)?;
            lowering.barrier(at)?;
        }
        if reuses_ring {
            lowering.barrier(at)?;
        }
        let swizzled = Swizzled { rows: boxes.rows, row: boxes.swizzle, bytes: boxes.bytes };
        swizzled.write(lowering, at, (buffer, None), registers, &layout, 0)?;
        at.insert(fence_async_shared(at)?);
        lowering.barrier(at)?;
        let first = match &hoisted {
            Some((first, _)) => first.clone(),
            None => super::global::origin(at, &view, &coords)?.first,
        };
        let address = shared_address(at, buffer)?;
        let thread0 = tma::is_thread(lowering, at, 0)?;
        when(at, thread0, |at| {
            issue(at, descriptor, address, (&first, hoisted.as_ref().map(|(_, b)| b.as_slice())), &boxes)?;
            if looped { Some(()) } else { wait_read(at) }
        })
    };
    if !described.optional {
        return by_tma(&at);
    }
    // Where the runtime could not describe the array it passed a null
    // descriptor (the same for every thread): the threads store the tile.
    let i64_type: Type = IntegerType::new(context, 64).into();
    let bits = at.add(melior::dialect::ods::llvm::ptrtoint(context, i64_type, descriptor, at.location))?;
    let described = at.cmpi(crate::build::CmpiPredicate::Ne, bits, at.int(i64_type, 0)?)?;
    super::if_else(
        &at,
        described,
        &[],
        |at| {
            by_tma(at)?;
            Some(vec![])
        },
        |at| {
            super::memory::store_registers(lowering, at, (registers, &layout), &view, &coords)?;
            Some(vec![])
        },
    )?;
    Some(())
}

/// The loop outside every other loop that holds `op`.
fn outermost_loop<'c>(op: OperationRef<'c, 'c>) -> Option<OperationRef<'c, 'c>> {
    let mut found = None;
    let mut parent = op.parent_operation();
    while let Some(p) = parent {
        match crate::rewrite::op_name(p).as_str() {
            "scf.for" | "scf.while" => found = Some(p),
            "func.func" => break,
            _ => {}
        }
        parent = p.parent_operation();
    }
    found
}

/// `cp.async.bulk.wait_group.read 0`: this thread's copies out have read
/// their shared memory (the block may then write it again, or exit).
fn wait_read<'c>(at: &At<'c, 'c>) -> Option<()> {
    let context = at.context;
    let i32_type: Type = IntegerType::new(context, 32).into();
    at.insert(
        OperationBuilder::new("nvvm.cp.async.bulk.wait_group", at.location)
            .add_attributes(&[
                (Identifier::new(context, "group"), IntegerAttribute::new(i32_type, 0).into()),
                (Identifier::new(context, "read"), Attribute::unit(context)),
            ])
            .build()
            .ok()?,
    );
    Some(())
}

/// Each box's coordinates for the TMA ([`box_at`]).
fn box_coordinates<'c>(at: &At<'c, 'c>, first: &[IrValue<'c>], boxes: &tma::Boxes) -> Option<Vec<Vec<IrValue<'c>>>> {
    (0..boxes.columns / (boxes.swizzle / boxes.bytes)).map(|b| box_at(at, first, b, boxes)).collect()
}

/// Box `b`'s coordinates for the TMA (`i32`, innermost first), from the
/// tile's first element.
fn box_at<'c>(at: &At<'c, 'c>, first: &[IrValue<'c>], b: i64, boxes: &tma::Boxes) -> Option<Vec<IrValue<'c>>> {
    let i32_type: Type = IntegerType::new(at.context, 32).into();
    let rank = first.len();
    (0..rank)
        .rev()
        .map(|d| {
            let mut coordinate = first[d];
            if d == rank - 1 {
                coordinate = at.addi(coordinate, at.index(b * (boxes.swizzle / boxes.bytes))?)?;
            }
            at.add(arith::index_cast(coordinate, i32_type, at.location))
        })
        .collect()
}

/// Where a store in a loop computes its TMA coordinates: right after the
/// last of `values` (its own coordinates, its array) defined in its block
/// (in a persistent walk, before the tile's mma loop), else at the
/// block's start.
///
/// Why: computed at the store, after the mma loop, the coordinates need
/// the values they come from (the tile's row and column, the grouping's
/// select, the clamps' bounds) live across that loop, and ptxas then ran
/// the consumers' loop off the uniform datapath (`R2UR` before each
/// wgmma): the hand-written persistent program was 17% slower
/// (BENCHMARKS.md, session 40, runs 6-7).
fn coordinates_at<'c>(
    context: &'c melior::Context,
    op: OperationRef<'c, 'c>,
    values: &[IrValue<'c>],
) -> Option<At<'c, 'c>> {
    use melior::ir::BlockLike as _;
    // A store under a condition (`tile-stream-k`'s owner branch) has its
    // coordinates computed before the condition, in the block of its mma
    // loop.
    let mut anchor = op;
    while let Some(parent) = anchor.parent_operation().filter(|p| crate::rewrite::op_name(*p) == "scf.if") {
        anchor = parent;
    }
    // Unless a value is computed under the condition: then at the store's
    // block, as before.
    let inside = |value: IrValue<'c>| {
        let mut parent = crate::rewrite::defining_op(value).and_then(|d| d.parent_operation());
        while let Some(p) = parent {
            if p.to_raw().ptr == anchor.to_raw().ptr {
                return true;
            }
            parent = p.parent_operation();
        }
        false
    };
    if anchor.to_raw().ptr != op.to_raw().ptr && values.iter().any(|&v| inside(v)) {
        anchor = op;
    }
    let block = anchor.block()?;
    let mut last: Option<OperationRef<'c, 'c>> = None;
    for &value in values {
        let Some(definition) = crate::rewrite::defining_op(value) else { continue };
        if definition.block() == Some(block) && last.is_none_or(|l| crate::rewrite::precedes(l, definition)) {
            last = Some(definition);
        }
    }
    match last {
        Some(definition) => At::before(context, definition.next_in_block()?),
        None => At::before(context, block.first_operation()?),
    }
}

/// `values` (i32) as inline assembly with side effects gives them back
/// (`mov.b32`): what comes after reads them from there, and LLVM moves
/// neither the assembly nor, so, their computation. Without it LLVM sinks
/// the coordinates' computation back past the mma loop, to the one block
/// that reads them (thread 0's request), since the loop is guarded and
/// its exit follows the guard (`coordinates_at` says why that is slow).
fn pinned<'c>(at: &At<'c, 'c>, values: &[IrValue<'c>]) -> Option<Vec<IrValue<'c>>> {
    use melior::ir::{TypeLike as _, ValueLike as _};
    let count = values.len();
    let types: Vec<Type> = values.iter().map(|v| v.r#type()).collect();
    if types.iter().any(|t| !t.is_integer()) {
        return None;
    }
    let text: String = (0..count).map(|i| format!("mov.b32 ${i}, ${};", count + i)).collect::<Vec<_>>().join(" ");
    let constraints = [vec!["=r"; count], vec!["r"; count]].concat().join(",");
    let r#struct = melior::dialect::llvm::r#type::r#struct(at.context, &types, false);
    let given = at.add(at.asm(&text, &constraints, values, Some(r#struct))?)?;
    at.fields(given, &types)
}

/// Thread 0's part: one `cp.async.bulk.tensor` store a box, committed as
/// one group; each box's coordinates made here, or given (`hoisted`).
fn issue<'c>(
    at: &At<'c, 'c>,
    descriptor: IrValue<'c>,
    address: IrValue<'c>,
    (first, hoisted): (&[IrValue<'c>], Option<&[Vec<IrValue<'c>>]>),
    boxes: &tma::Boxes,
) -> Option<()> {
    let context = at.context;
    let per_box = boxes.swizzle / boxes.bytes;
    let rank = first.len();
    for b in 0..boxes.columns / per_box {
        let source = tma::pointer(at, at.addi(address, at.index(b * boxes.rows * boxes.swizzle)?)?)?;
        // Innermost first, as the TMA takes them.
        let mut operands = vec![descriptor, source];
        match hoisted {
            Some(hoisted) => operands.extend_from_slice(hoisted.get(b as usize)?),
            None => operands.extend(box_at(at, first, b, boxes)?),
        }
        let segments = DenseI32ArrayAttribute::new(context, &[1, 1, rank as i32, 0, 0]);
        at.insert(
            OperationBuilder::new("nvvm.cp.async.bulk.tensor.global.shared.cta", at.location)
                .add_operands(&operands)
                .add_attributes(&[(Identifier::new(context, "operandSegmentSizes"), Attribute::from(segments))])
                .build()
                .ok()?,
        );
    }
    at.insert(OperationBuilder::new("nvvm.cp.async.bulk.commit.group", at.location).build().ok()?);
    Some(())
}

/// `fence.proxy.async.shared::cta`: the threads' shared-memory writes
/// made visible to the TMA.
fn fence_async_shared<'c>(at: &At<'c, 'c>) -> Option<melior::ir::Operation<'c>> {
    let context = at.context;
    OperationBuilder::new("nvvm.fence.proxy", at.location)
        .add_attributes(&[
            (Identifier::new(context, "kind"), Attribute::parse(context, "#nvvm.proxy_kind<async.shared>")?),
            (Identifier::new(context, "space"), Attribute::parse(context, "#nvvm.shared_space<cta>")?),
        ])
        .build()
        .ok()
}
