//! Clusters of two blocks (the `num_ctas = 2` hint) for the persistent,
//! warp-specialised wgmma variant: blocks `2c` and `2c + 1` run as one
//! cluster, and when their tiles share the B operand (the same K rows and
//! columns, which the examples' grouped order gives neighbours) each
//! requests half of B's 64-column boxes once, multicast into both blocks'
//! shared memory. Each block then reads 2/3 of the operand bytes of a
//! 128x256 tile from L2 (cuBLAS's kernel at 4096^3 runs in 1x2
//! clusters, `nvjet_..._1x2_...`).
//!
//! The decision is per tile and made alike by both blocks, with no
//! exchange: block `b`'s partner is `b ^ 1` (the grid is even and the
//! runtime keeps a persistent block's virtual blocks `b + t * grid` in
//! pairs), so each block recomputes its partner's B coordinates from the
//! program's own index arithmetic and compares them with its own. A
//! partner without a tile (an odd tile count) shares nothing.
//!
//! Synchronisation, the part that makes it correct:
//! * A stage is refilled only when both blocks' consumers have released
//!   it, since a multicast writes into both: each `empty` barrier counts
//!   the consumer warps of both blocks, and each consumer warp arrives on
//!   its own block's barrier and, through `mapa`, on its partner's, in
//!   every tile the partner has (also one that shares nothing: the next
//!   may share). Only in a tile the partner does not have (an odd tile
//!   count) does it arrive twice on its own instead.
//! * The `full` barrier of a stage gets its bytes from both blocks'
//!   requests; its own producer's `expect_tx` names them all, and the
//!   partner's bytes can only come after this phase's arrival count
//!   could complete (the partner waited for this block's release).
//! * Barriers are initialised before either block touches the other's
//!   (a `fence.mbarrier_init` and a cluster barrier at the start), and
//!   neither block exits while the other may still arrive on its
//!   barriers (a cluster barrier at the end).

use super::IrValue;
use crate::build::At;
use melior::dialect::arith::CmpiPredicate;
use melior::{
    Context,
    ir::{BlockLike, OperationRef, RegionLike, operation::OperationLike},
};

/// Blocks in a cluster.
pub(super) const CTAS: i64 = 2;

/// Most stages of a clustered ring. Five to seven stages hung: 128x128
/// tiles with five or six stages at 4096^3 (six also at 2048^3), 64x128
/// with six or seven at 4096^3, never under compute-sanitizer (memcheck
/// and synccheck found nothing), while three and four (and eight, once)
/// ran (BENCHMARKS.md, session 9). The cause is not found; until it is,
/// clusters keep to the depths that were checked.
pub(super) const MAX_STAGES: i64 = 4;

/// Makes the barriers' initialisation visible to the cluster and waits
/// for both blocks to get there (all threads).
pub(super) fn start(at: &At) -> Option<()> {
    at.void("nvvm.fence.mbarrier.init", &[], &[])?;
    wait_for_partner(at)
}

/// A cluster barrier of every thread of both blocks.
fn wait_for_partner(at: &At) -> Option<()> {
    at.void("nvvm.cluster.arrive", &[], &[("aligned", "unit")])?;
    at.void("nvvm.cluster.wait", &[], &[("aligned", "unit")])?;
    Some(())
}

/// Keeps `kernel`'s blocks from exiting before their partners: a cluster
/// barrier before its return.
pub(super) fn end<'c>(context: &'c Context, kernel: OperationRef<'c, '_>) -> Option<()> {
    let entry = kernel.region(0).ok()?.first_block()?;
    let at = At::before(context, entry.terminator()?)?;
    wait_for_partner(&at)
}

/// Whether this block and its partner share the B operand of their
/// tiles, the partner's being virtual block `peer`: that tile exists
/// (below `tiles`) and `own` and `partner` (B's coordinates in each, those
/// that differ between tiles) agree.
pub(super) fn shares<'c>(
    at: &At<'c, '_>,
    peer: IrValue<'c>,
    tiles: IrValue<'c>,
    own: &[IrValue<'c>],
    partner: &[IrValue<'c>],
) -> Option<IrValue<'c>> {
    let mut all = at.cmpi(CmpiPredicate::Ult, peer, tiles)?;
    for (&mine, &theirs) in own.iter().zip(partner) {
        let same = at.cmpi(CmpiPredicate::Eq, mine, theirs)?;
        all = at.op("arith.andi", &[all, same], &["i1"], &[])?;
    }
    Some(all)
}

/// This block's rank in its cluster, `block mod 2` (the grid's blocks go
/// to clusters in order), as an `index`.
pub(super) fn rank<'c>(at: &At<'c, '_>, block: IrValue<'c>) -> Option<IrValue<'c>> {
    at.index_op("arith.andi", &[block, at.index(1)?])
}

/// How a persistent block's tile pairs with its partner's this round.
#[derive(Clone, Copy)]
pub(super) struct Pairing<'c> {
    /// The partner's tile has the same B: half of B's boxes each, multicast.
    pub share: IrValue<'c>,
    /// The partner has a tile this round at all (it walks the same number
    /// of tiles, or one fewer when the tile count is odd).
    pub paired: IrValue<'c>,
    /// This block's rank in the cluster.
    pub rank: IrValue<'c>,
}

/// A consumer warp's release of barrier `stage` of `group` (run by lanes
/// 0 and 1): lane 0 arrives on this block's barrier, lane 1 on the
/// partner's (rank `rank ^ 1`, through `mapa`) whenever the partner has a
/// tile this round, else on this block's as well.
///
/// Whenever, not only when the tiles share B: the partner may multicast
/// into this block's stage for a later tile that shares B, and it must
/// not before this block's consumers are done with the stage's previous
/// use, which its `empty` barrier learns only from these arrivals. (With
/// arrivals only in shared tiles, a stage last used by a tile that shared
/// nothing was refilled by the partner's multicast while this block still
/// read it: at ragged shapes, whose last tile group mixes shared and
/// unshared tiles, the H100 hung or computed wrong results.) Local
/// arrivals are plain local `mbarrier.arrive`s; only the partner's goes
/// through `mapa`. (Sending both through `mapa` measured the same within
/// noise, 0.902 against 0.906 of cuBLAS with three stages: BENCHMARKS.md,
/// session 8, runs 4-5.)
///
/// The arrival is released at CTA scope, as CUTLASS's cluster pipelines
/// do: the stage was read by wgmma, which `wgmma.wait_group` has already
/// seen complete, so no memory access needs ordering at cluster scope. A
/// cluster-scope release costs a memory barrier per arrival: ncu showed
/// it as the main stall, and the kernel ran at 0.6 of cuBLAS
/// (BENCHMARKS.md, session 8).
pub(super) fn release<'c>(
    at: &At<'c, '_>,
    group: IrValue<'c>,
    stage: IrValue<'c>,
    lane: IrValue<'c>,
    pairing: Pairing<'c>,
) -> Option<()> {
    let Pairing { paired, rank, .. } = pairing;
    let second = at.cmpi(CmpiPredicate::Eq, lane, at.index(1)?)?;
    let away = at.andi(second, paired)?;
    let branches = at.scf_if(away, true)?;
    let remote = &branches[0];
    let address = remote.op("nvgpu.mbarrier.get", &[group, stage], &["i32"], &[])?;
    let pointer = remote.op("llvm.inttoptr", &[address], &["!llvm.ptr<3>"], &[])?;
    let peer = remote.index_op("arith.xori", &[rank, remote.index(1)?])?;
    let peer = remote.op("arith.index_castui", &[peer], &["i32"], &[])?;
    let partner = remote.op("nvvm.mapa", &[pointer, peer], &["!llvm.ptr<7>"], &[])?;
    remote.void("nvvm.mbarrier.arrive", &[partner], &[])?;
    branches[1].op("nvgpu.mbarrier.arrive", &[group, stage], &["!nvgpu.mbarrier.token"], &[])?;
    Some(())
}
