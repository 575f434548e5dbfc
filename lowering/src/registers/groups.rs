//! Which of a kernel's TMA rings share their slots' mbarriers: an
//! analysis of the kernel before it is lowered, whose answer
//! ([`super::tma::Groups`]) the rings' lowering ([`super::tma`]) follows.
//! Apart from it so that the TMA's lowering needs nothing of the shared
//! tiles' or the mmas' (whose loads it reads here).

use super::tma::Groups;
use crate::rewrite::{Probe, op_name};
use melior::ir::{
    OperationRef, ValueLike as _,
    operation::{OperationLike, WalkOrder, WalkResult},
};
use std::collections::HashMap;

/// Which of `kernel`'s TMA rings share their slots' barriers. Only rings
/// that move in step (loaded in the same loop, the same distance ahead,
/// into as many slots) whose loads are those `tile-prefetch-loads` makes
/// (one in the loop's body, and one for each of the first tiles right
/// before the loop): every request of a group's tile then runs on the
/// same condition, which the shared phase needs. Of those, the rings whose
/// tiles the same `tile.mma` reads (this iteration's, carried to it), so
/// that one wait before it covers them all; rings waited for at different
/// points (attention's K and V, a ring read into registers ahead of its
/// mma by `tile-prefetch-fragments`) keep their own, so that neither wait
/// also waits for the other's copies. With a `producer` warp, every ring
/// of the loop that moves in step: the consumers wait for tiles requested
/// long before, and each group costs every consumer thread an arrival on
/// `empty` an iteration (BENCHMARKS.md, session 16).
pub fn of<'c>(kernel: OperationRef<'c, 'c>, producer: bool) -> Groups<'c> {
    let mut ops = Vec::new();
    kernel.walk(WalkOrder::PreOrder, |op| {
        // SAFETY: ops of the kernel, alive while it is (the analysis
        // erases nothing).
        ops.push(unsafe { OperationRef::from_raw(op.to_raw()) });
        WalkResult::Advance
    });
    let ptr = |op: OperationRef| op.to_raw().ptr as usize;
    // Each ring's loads: its distance, slots and bytes of a tile, its
    // loop and the op around the loop, the first tiles' indices and the
    // op around each.
    struct Loads {
        shape: (i64, i64, i64),
        in_loop: Vec<(usize, Option<usize>)>,
        first: Vec<(i64, Option<usize>)>,
        regular: bool,
    }
    let mut rings: HashMap<i64, Loads> = HashMap::new();
    for &op in &ops {
        if op_name(op) != "tile.load" || !op.has_attribute(tile_dialect::attrs::TMA_LOAD) {
            continue;
        }
        let Some([id, distance, index, slots]) = super::rings::ring_of(op) else { continue };
        let Some(tile) = op.result_at(0).and_then(|r| super::shared::SharedTile::of_type(r.r#type())) else {
            continue;
        };
        let shape = (distance, slots, tile.shape.iter().product::<i64>() * tile.bytes);
        let loads = rings.entry(id).or_insert(Loads { shape, in_loop: vec![], first: vec![], regular: true });
        loads.regular &= loads.shape == shape;
        let parent = op.parent_operation();
        if index < 0 {
            let r#loop = parent.filter(|p| op_name(*p) == "scf.for");
            loads.regular &= r#loop.is_some();
            loads.in_loop.extend(r#loop.map(|l| (ptr(l), l.parent_operation().map(ptr))));
        } else {
            loads.first.push((index, parent.map(ptr)));
        }
    }
    for loads in rings.values_mut() {
        let mut indices: Vec<i64> = loads.first.iter().map(|f| f.0).collect();
        indices.sort_unstable();
        loads.regular &= loads.in_loop.len() == 1
            && indices == (0..loads.shape.0).collect::<Vec<_>>()
            && loads.first.iter().all(|f| f.1.is_some() && f.1 == loads.in_loop[0].1);
    }
    // The rings that move in step: loop, distance, slots.
    let step = |id: i64| rings.get(&id).filter(|r| r.regular).map(|r| (r.in_loop[0].0, r.shape.0, r.shape.1));
    let mut together: Vec<Vec<i64>> = Vec::new();
    if producer {
        let mut ids: Vec<i64> = rings.keys().copied().filter(|&id| step(id).is_some()).collect();
        ids.sort_unstable();
        for id in ids {
            match together.iter_mut().find(|set| step(set[0]) == step(id)) {
                Some(set) => set.push(id),
                None => together.push(vec![id]),
            }
        }
    } else {
        for &op in ops.iter().filter(|op| op_name(**op) == "tile.mma") {
            let Some(r#loop) = op.parent_operation().filter(|p| op_name(*p) == "scf.for") else { continue };
            let mut read: Vec<i64> = Vec::new();
            for i in 0..2 {
                let Some(load) = op.operand_at(i).and_then(|v| super::shared::this_iterations_load(v, r#loop)) else {
                    continue;
                };
                let Some([id, ..]) = super::rings::ring_of(load) else { continue };
                let ours = step(id).is_some_and(|s| s.0 == ptr(r#loop));
                if ours && !read.contains(&id) && read.iter().all(|&other| step(other) == step(id)) {
                    read.push(id);
                }
            }
            together.push(read);
        }
    }
    // Each ring's group, by its least ring id (sets that share a ring join).
    let mut leaders: HashMap<i64, i64> = HashMap::new();
    for set in together {
        let joined: Vec<i64> = set.iter().map(|id| leaders.get(id).copied().unwrap_or(*id)).collect();
        let Some(&leader) = joined.iter().min() else { continue };
        for ring in leaders.values_mut() {
            if joined.contains(ring) {
                *ring = leader;
            }
        }
        for id in set {
            leaders.insert(id, leader);
        }
    }
    let mut members: HashMap<i64, Vec<i64>> = HashMap::new();
    for (&id, &leader) in &leaders {
        members.entry(leader).or_default().push(id);
    }
    members.retain(|_, ids| ids.len() > 1);
    let (mut leaders, mut bytes) = (HashMap::new(), HashMap::new());
    for (leader, ids) in members {
        bytes.insert(leader, ids.iter().map(|id| rings[id].shape.2).sum());
        leaders.extend(ids.iter().map(|&id| (id, leader)));
    }
    Groups::new(leaders, bytes)
}

/// The slots `tile-use-tma` leaves a TMA ring `distance` tiles ahead whose
/// mma stays in flight with the block meeting after its
/// `wgmma.wait_group 1` ([`in_flight_rings`]): `distance + 2`, where that
/// is a power of two (a slot and phase are then a mask and a shift, where
/// any other count is a division on the way from the block barrier to the
/// next request: BENCHMARKS.md, session 30), else none (it keeps the spare
/// slot).
pub fn spareless_slots(distance: i64) -> Option<i64> {
    let slots = distance + 2;
    (distance >= 1 && (slots as u64).is_power_of_two()).then_some(slots)
}

/// The TMA rings of `kernel` read by an mma that can stay in flight with
/// the block barrier after its `wgmma.wait_group 1` where the kernel has
/// no producer warp ([`super::mma`]), each as (id, distance, slots): the
/// rings of each loop whose body holds one `tile.mma` (none nested
/// deeper) that accumulates into a carried tile only it reads and yields
/// straight back, is not computed transposed, and whose two operands are
/// this iteration's tiles of TMA rings of the loop that move in step (the
/// same distance and slots). `tile-prefetch-loads` gives such a loop the
/// spare slot (`D + 3`) wherever it fits, else `D + 2` (128x256 tiles
/// beside the kernel's exchange: 3 slots one ahead), and `tile-use-tma`
/// takes the spare slot back where `D + 2` is a power of two
/// ([`spareless_slots`]). Such a loop's request at the top of iteration
/// `t` refills the slot of tile `t + D - slots`, and with `slots = D + 2`
/// that is tile `t - 2`: its wgmmas retired at the `wgmma.wait_group 1` of
/// iteration `t - 1`, which every thread passed before that iteration's
/// block barrier; only tile `t - 1`'s may still be read. So `D + 2` slots
/// suffice for the mma to stay in flight ([`spareless`]), whoever left
/// the ring without its spare slot.
pub fn in_flight_rings(kernel: OperationRef) -> Vec<(i64, i64, i64)> {
    let mut loops = Vec::new();
    kernel.walk(WalkOrder::PreOrder, |op| {
        if op_name(op) == "scf.for" {
            loops.push(op.to_raw());
        }
        WalkResult::Advance
    });
    let mut found = Vec::new();
    for raw in loops {
        // SAFETY: a loop of the kernel, alive while it is (nothing here
        // erases ops).
        let r#loop = unsafe { OperationRef::from_raw(raw) };
        let mut mmas = Vec::new();
        r#loop.walk(WalkOrder::PreOrder, |op| {
            if op_name(op) == "tile.mma" {
                mmas.push(op.to_raw());
            }
            WalkResult::Advance
        });
        let [mma] = mmas[..] else { continue };
        // SAFETY: as above.
        let mma = unsafe { OperationRef::from_raw(mma) };
        // (An mma computed transposed reads B^T's fragments into registers
        // and is waited for in its iteration: its rings have no spare slot
        // to give back, `tile-prefetch-loads`.)
        if mma.parent_operation() != Some(r#loop)
            || super::mma::only_carried(mma).is_err()
            || crate::layout::shared::swapped_operands(mma)
        {
            continue;
        }
        let mut rings: Vec<(i64, i64, i64)> = Vec::new();
        let all = (0..2).all(|i| {
            let Some(load) = mma.operand_at(i).and_then(|v| super::shared::this_iterations_load(v, r#loop)) else {
                return false;
            };
            let Some([id, distance, _, slots]) = super::rings::ring_of(load) else { return false };
            if !load.has_attribute(tile_dialect::attrs::TMA_LOAD) {
                return false;
            }
            if !rings.iter().any(|r| r.0 == id) {
                rings.push((id, distance, slots));
            }
            true
        });
        if all && rings.iter().all(|r| (r.1, r.2) == (rings[0].1, rings[0].2)) {
            found.extend(rings);
        }
    }
    found
}

/// The rings of `kernel`'s loops ([`in_flight_rings`]) that have no spare
/// slot, `D + 2`: their mma stays in flight all the same where the kernel
/// has no producer warp, the block meeting after its `wgmma.wait_group 1`.
pub fn spareless(kernel: OperationRef) -> std::collections::HashSet<i64> {
    in_flight_rings(kernel)
        .into_iter()
        .filter(|&(_, distance, slots)| slots == distance + 2)
        .map(|(id, ..)| id)
        .collect()
}
