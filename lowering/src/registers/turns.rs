//! Two warpgroups taking turns at the tensor cores.
//!
//! In a loop of several mmas (attention), the two consumer warpgroups
//! take turns at the tensor cores ([`loops`], [`take`]): each
//! waits for its turn before its wgmmas and passes it on once they are
//! issued, so that one's softmax runs beside the other's mmas (the
//! `pingpong` hint; on where a producer warp requests the tiles).
//!
//! ```text
//! warpgroup 1: bar.arrive 2         (warpgroup 0 goes first)
//! scf.for t
//!   bar.sync 2 + g; wgmmas of S; bar.arrive 3 - g; wait; softmax
//!   bar.sync 2 + g; wgmmas of O; bar.arrive 3 - g; wait
//! warpgroup 0: bar.sync 2           (the last turn given back)
//! ```
//!
//! compute-sanitizer's racecheck reports a hazard on the output's
//! exchange after such a loop (between its writes, the consumers' named
//! barrier and its reads) in some runs, never without the turns; every
//! output was right and synccheck is clean. Holding warpgroup 0 back a
//! millisecond before the exchange left every output right, so the
//! barrier holds and the reports are racecheck's (BENCHMARKS.md, session
//! 24, runs 9-11).
//!
//! [`take`] runs after the kernel's ops are lowered and before its
//! producer warp's split (`super::warps`): it finds each wgmma group of
//! such a loop by its `wgmma.fence` and `commit_group`.

use super::Lowering;
use crate::{
    build::{At, CmpiPredicate},
    rewrite::{IrValue, Probe, op_name},
};
use melior::{
    dialect::arith,
    ir::{
        BlockLike, OperationRef, RegionLike, Type,
        operation::{OperationLike, WalkOrder, WalkResult},
    },
};
use std::collections::{HashMap, HashSet};

/// The named barrier of warpgroup 0's turn at the tensor cores; warpgroup
/// 1's is the next.
const TURN_BARRIER: i64 = 2;

/// The consumer warpgroups that take turns.
const TURN_WARPGROUPS: i64 = 2;

/// Warps of a warpgroup.
const WARPGROUP_WARPS: i64 = super::mma::WARPGROUP_WARPS;

/// Makes the two warpgroups take turns in each loop of `turns` (from
/// [`loops`]): each wgmma group between a `wgmma.fence` and its
/// `commit_group` in the loop's body waits for its turn and passes it on,
/// and the loop is bracketed (`bracket_turns`).
pub fn take(lowering: &Lowering, kernel: OperationRef, turns: &HashSet<usize>) -> Option<()> {
    let context = lowering.context;
    let mut found = Vec::new();
    kernel.walk(WalkOrder::PreOrder, |op| {
        if turns.contains(&(op.to_raw().ptr as usize)) {
            found.push(op.to_raw());
        }
        WalkResult::Advance
    });
    for raw in found {
        // SAFETY: a loop of the kernel, alive while it is; ops are only
        // inserted around it and into its body.
        let r#loop = unsafe { OperationRef::from_raw(raw) };
        let body = r#loop.region_at(0)?.first_block()?;
        let mut next = body.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            // SAFETY: an op of the live body.
            let op = unsafe { OperationRef::from_raw(op.to_raw()) };
            match op_name(op).as_str() {
                "nvvm.wgmma.fence.aligned" => {
                    let at = At::before(context, op)?;
                    let warpgroup = at.divui(lowering.warp, at.index(WARPGROUP_WARPS)?)?;
                    await_turn(&at, warpgroup)?;
                }
                "nvvm.wgmma.commit.group.sync.aligned" => {
                    let at = At::before(context, op.next_in_block()?)?;
                    let warpgroup = at.divui(lowering.warp, at.index(WARPGROUP_WARPS)?)?;
                    pass_turn(&at, warpgroup)?;
                }
                _ => {}
            }
        }
        let (before, after) = (At::before(context, r#loop)?, At::before(context, r#loop.next_in_block()?)?);
        bracket_turns(&before, &after, lowering.warp)?;
    }
    Some(())
}

/// The loop of `kernel` (of blocks of `cluster` blocks) whose two
/// warpgroups take turns at the tensor cores ([`take`]): its one
/// top-level loop of several mmas, in blocks of two warpgroups, where the kernel
/// has a producer warp (unless the `pingpong` hint says 0) or asks for
/// turns (`pingpong = 1`). Without a producer warp, the consumers meet at
/// a block barrier every iteration, and head-dim-64 attention (two
/// blocks an SM) measured no faster with turns (BENCHMARKS.md, session
/// 24).
pub fn loops(kernel: OperationRef, cluster: i64, producer: bool) -> HashSet<usize> {
    let hint = crate::rewrite::hint(kernel, tile_dialect::attrs::knob::PINGPONG.key);
    let threads = crate::to_gpu::block_size(kernel);
    let wanted = if producer { hint != Some(0) } else { hint == Some(1) };
    if !wanted || cluster > 1 || threads != TURN_WARPGROUPS * 32 * WARPGROUP_WARPS {
        return HashSet::new();
    }
    let mut mmas: HashMap<usize, usize> = HashMap::new();
    kernel.walk(WalkOrder::PreOrder, |op| {
        if op_name(op) == "tile.mma"
            && let Some(parent) = op.parent_operation()
            && op_name(parent) == "scf.for"
            && parent.parent_operation().is_some_and(|p| op_name(p) == "func.func")
        {
            *mmas.entry(parent.to_raw().ptr as usize).or_default() += 1;
        }
        WalkResult::Advance
    });
    // One such loop a kernel: after a loop, warpgroup 1 may give the next
    // loop's first turn before warpgroup 0 has taken back this loop's
    // last, and two arrivals of warpgroup 1 would complete barrier 2
    // without warpgroup 0.
    let turned: HashSet<usize> = mmas.into_iter().filter(|&(_, n)| n > 1).map(|(l, _)| l).collect();
    if turned.len() == 1 { turned } else { HashSet::new() }
}

/// Waits for this warpgroup's turn at the tensor cores, before its
/// wgmmas of a loop whose consumer warpgroups take turns: `bar.sync 2 +
/// g, 256`, which the other warpgroup's [`pass_turn`] completes.
///
/// With a producer warp, attention's two warpgroups would otherwise
/// multiply at once and then both compute their softmax, sharing each
/// SM quarter's exponential and FMA units; taking turns (FlashAttention-3's
/// ping-pong) puts one's softmax beside the other's wgmmas. The turns
/// alternate strictly: a warpgroup passes the turn only after taking
/// its own, so no barrier gets two arrivals of one warpgroup before the
/// other's wait.
fn await_turn<'c>(at: &At<'c, 'c>, warpgroup: IrValue<'c>) -> Option<()> {
    let id = at.addi(warpgroup, at.index(TURN_BARRIER)?)?;
    turn_barrier(at, "nvvm.barrier", id, &[1, 1, 0])
}

/// Gives the other warpgroup its turn, once this one's wgmmas are
/// issued: `bar.arrive 3 - g, 256`.
fn pass_turn<'c>(at: &At<'c, 'c>, warpgroup: IrValue<'c>) -> Option<()> {
    let id = at.subi(at.index(TURN_BARRIER + TURN_WARPGROUPS - 1)?, warpgroup)?;
    turn_barrier(at, "nvvm.barrier.arrive", id, &[])
}

/// Around a loop whose warpgroups take turns: before it, warpgroup 1
/// gives warpgroup 0 the first turn; after it, warpgroup 0 takes the
/// turn warpgroup 1 passed last, so that no arrival is left over for a
/// later loop's turns (or when the loop does not run).
fn bracket_turns<'c>(before: &At<'c, 'c>, after: &At<'c, 'c>, warp: IrValue<'c>) -> Option<()> {
    let threads = TURN_WARPGROUPS * 32 * WARPGROUP_WARPS;
    for (at, instruction, warpgroup) in [
        (before, format!("bar.arrive {TURN_BARRIER}, {threads};"), 1),
        (after, format!("bar.sync {TURN_BARRIER}, {threads};"), 0),
    ] {
        // Predicated, not branched on: ptxas serialises wgmmas after a
        // branch it cannot prove uniform (C7520).
        let own = at.divui(warp, at.index(WARPGROUP_WARPS)?)?;
        let mine = at.cmpi(CmpiPredicate::Eq, own, at.index(warpgroup)?)?;
        let asm = format!("{{\n.reg .pred p;\nsetp.ne.u32 p, $0, 0;\n@p {instruction}\n}}");
        let flag =
            at.add(arith::extui(mine, Type::from(melior::ir::r#type::IntegerType::new(at.context, 32)), at.location))?;
        at.insert(at.asm(&asm, "r", &[flag], None)?);
    }
    Some(())
}

/// `name` (`nvvm.barrier` or `nvvm.barrier.arrive`) on named barrier
/// `id` for the two warpgroups.
fn turn_barrier<'c>(at: &At<'c, 'c>, name: &str, id: IrValue<'c>, segments: &[usize]) -> Option<()> {
    let i32_type: Type = melior::ir::r#type::IntegerType::new(at.context, 32).into();
    let id = at.add(arith::index_cast(id, i32_type, at.location))?;
    let threads = at.int(i32_type, TURN_WARPGROUPS * 32 * WARPGROUP_WARPS)?;
    let op =
        melior::ir::operation::OperationBuilder::new(name, at.location).add_operands(&[id, threads]).build().ok()?;
    match segments.is_empty() {
        true => at.insert(op),
        false => at.insert(crate::build::with_segments(op, at.context, segments)?),
    };
    Some(())
}
