//! `tile.mma` on the tensor cores (Hopper `wgmma`).
//!
//! The accumulator lives in registers in the `#tile.wgmma` layout, which is
//! the order `wgmma.mma_async` keeps its fragment in, so a loop carries it
//! and element-wise ops read and rescale it without moving it. wgmma reads
//! the operands from shared memory, swizzled (rows of up to 128 bytes, the
//! 16-byte chunks XOR-ed by the row as its 32, 64 and 128-byte swizzles
//! read them; a longer row cut into such blocks):
//!
//! * a tile in shared memory already (`#tile.shared`: loaded by cp.async,
//!   [`super::shared`]) is read where it is, K-major or, for 16-bit types,
//!   M/N-major through the descriptor's transpose;
//! * an A in registers whose layout is already wgmma's A fragments
//!   (`#tile.wgmma_operand`: for 16-bit types the accumulator layout of an
//!   earlier mma with A's K columns, as attention's P has) stays there:
//!   wgmma's register form, which the NVVM op lacks, as inline assembly;
//! * an mma computed transposed (`layout::shared::swapped_operands`: a
//!   tf32 or 8-bit float B loaded N-major, unless `swap_operands = 0`)
//!   multiplies B^T, whose wgmma A fragments the threads read from B's
//!   swizzled tile ([`super::ldmatrix::read_swizzled`]; 8-bit ones by
//!   `ldmatrix`, [`super::ldmatrix`]), by A read K-major where it is,
//!   into C^T, whose registers are the accumulator's layout transposed;
//!   the instruction's N is M;
//! * another tile in registers (a computed one, or one wgmma cannot read
//!   as loaded: tf32 or 8-bit floats loaded N-major) is written K-major
//!   into a buffer of its own, two buffers in turn when the mma stays in
//!   flight.
//!
//! Then the wait for the operands' copies: for a ring slot the TMA fills
//! ([`super::tma`]), the slot's mbarrier phase (once for the rings that
//! share it); for the threads' copies,
//! `cp.async.wait_group` (as many groups left pending as the loop's ring
//! distance allows) and a proxy fence, once before the loop for tiles
//! copied before it when the others are the TMA's; then a barrier, and
//! each warpgroup multiplies its 64-row blocks of the
//! tile, one instruction per 64 rows and K step. An mma whose accumulator
//! is only carried to the next iteration's, reading tiles no load of the
//! loop overwrites meanwhile, stays in flight (`wgmma.wait_group 1`); its
//! loop's result, and any other mma's, is waited for by inline assembly
//! that takes and gives back the accumulator's registers, so that LLVM
//! cannot move a read of them above the wait (ptxas would then serialise
//! every wgmma).
//!
//! ```text
//! // A: M x K, B: K x N, C: M x N f32 in #tile.wgmma<warps_per_block = [4G, 1], instr_n = N>
//! (registers only) store A's registers at swizzle(m * S + k * e) of a buffer, likewise B
//! (TMA slots) mbarrier.try_wait.parity [slot's barrier], phase
//! (cp.async) cp.async.wait_group P; fence.proxy.async.shared::cta
//! bar.sync                      (not for TMA slots in flight: below)
//! wgmma.fence
//! for each 64-row block i of this warpgroup, each K step:
//!   d_i = wgmma.mma_async desc(A, block i, step), desc(B, step), d_i   // m64nNk16 (k8 for tf32)
//! wgmma.commit_group; wgmma.wait_group 1 (in flight) or the tied wait for all
//! (TMA slots in flight) bar.sync
//! ```
//!
//! wgmma reads A's registers while it runs, and PTX forbids writing them
//! before the wait; ptxas does not keep them for it either (it gave them
//! to later values: BENCHMARKS.md, session 23). So an mma that reads A
//! from registers is never kept in flight: in a loop, where it would
//! otherwise be, it is waited for at the end of its iteration, after the
//! ops that follow it (the loads issued ahead), by a wait that takes the
//! fragment registers along with the accumulator's.
//!
//! With a producer warp ([`super::warps`]), the consumers give each slot
//! back after the wgmmas that read it (an arrival on its `empty`
//! mbarrier) instead of the barrier before the mma. In a loop whose two
//! warpgroups take turns ([`super::turns`]), each waits for its turn
//! before the fence and passes it on after the commit.
//!
//! Caveats: without a producer warp, one consumer thread requests the
//! TMA's copies (or the threads copy), and a block-wide barrier every
//! iteration keeps slots from being refilled early (BENCHMARKS.md, session
//! 15, says why a consumer's wait on `empty` mbarriers does not replace
//! it): before each mma, but only before the first of a loop's mmas that
//! read TMA slots, tiles loaded before the loop and registers (attention's
//! two), and after the `wgmma.wait_group 1` of an mma kept in flight that
//! reads only those; f16 and
//! bf16 operands into an f32 accumulator, f32 operands as tf32 and 8-bit
//! floats (E4M3, E5M2; both read K-major only); M a multiple of 64, N a
//! multiple of 8 up to 256, K at least 32 bytes; other mmas keep the
//! kernel on the general path, with a remark saying why. BENCHMARKS.md,
//! sessions 15 and 18, has what it reaches.

use super::shared;
use super::swizzle::Swizzled;
use super::{Lowering, concat, in_loop, slice};
use crate::{
    build::{At, element_bits, element_of},
    layout::LinearLayout,
    rewrite::{IrValue, Probe, detach},
};
use melior::ir::RegionLike as _;
use melior::{
    dialect::{arith, llvm, ods},
    ir::{
        Attribute, BlockLike as _, OperationRef, Type, TypeLike as _, ValueLike,
        attribute::IntegerAttribute,
        operation::{OperationBuilder, OperationLike},
        r#type::IntegerType,
    },
};

/// Rows of one wgmma instruction (and of a warpgroup's share).
pub const WGMMA_M: i64 = 64;
/// Warps of a warpgroup.
pub const WARPGROUP_WARPS: i64 = 4;

/// The largest row of the swizzled operand buffers, in bytes.
const SWIZZLE: i64 = 128;

/// The wgmma element name of an operand type, and its K step.
pub fn operand_kind(element: &str) -> Option<(&'static str, i64)> {
    match element {
        "f16" => Some(("f16", 16)),
        "bf16" => Some(("bf16", 16)),
        "f32" => Some(("tf32", 8)),
        "f8E4M3FN" => Some(("e4m3", 32)),
        "f8E5M2" => Some(("e5m2", 32)),
        _ => None,
    }
}

/// Why the register path cannot put an mma of these shapes and types on
/// wgmma, if it cannot.
pub fn unsupported(a: (&[i64], &str), b: (&[i64], &str), accumulator: &str) -> Option<String> {
    let ([m, k], [_, n]) = (a.0, b.0) else { return Some("it is not two-dimensional".into()) };
    if a.1 != b.1 || operand_kind(a.1).is_none() || accumulator != "f32" {
        return Some(format!(
            "its types ({} x {} -> {accumulator}) are not f16, bf16, f32 (tf32) or 8-bit float operands into f32",
            a.1, b.1
        ));
    }
    let bytes = element_bytes_of(a.1);
    if m % WGMMA_M != 0 || n % 8 != 0 || *n > 256 || k * bytes < 32 {
        return Some(format!("its {m}x{n}x{k} shape is not a multiple of 64 rows, 8 to 256 columns and 32 bytes of K"));
    }
    None
}

fn element_bytes_of(name: &str) -> i64 {
    match name {
        "f32" => 4,
        "f8E4M3FN" | "f8E5M2" => 1,
        _ => 2,
    }
}

/// An operand in shared memory as one wgmma reads it: where, how laid
/// out, and whether K runs along its rows.
struct Smem<'c> {
    address: IrValue<'c>,
    swizzled: Swizzled,
    k_major: bool,
}

impl<'c> Smem<'c> {
    /// The byte offset of the 8-row core matrices starting at row (M or N)
    /// `mn` and K `k`; `mn` a multiple of 64, `k` of the K step.
    fn offset(&self, mn: i64, k: i64) -> i64 {
        let Swizzled { rows, row, bytes } = self.swizzled;
        let per_row = row / bytes;
        if self.k_major {
            (k / per_row) * rows * row + mn * row + (k % per_row) * bytes
        } else {
            (mn / per_row) * rows * row + k * row
        }
    }

    /// A wgmma matrix descriptor of the operand at byte `offset`: the
    /// address, the leading byte offset (the next block of rows along M or
    /// N for an M/N-major operand; unused K-major), the stride of 8 rows,
    /// the swizzle mode.
    fn descriptor(&self, at: &At<'c, 'c>, offset: IrValue<'c>) -> Option<IrValue<'c>> {
        let Swizzled { rows, row, .. } = self.swizzled;
        let leading = if self.k_major { 1 } else { (rows * row) >> 4 };
        let i64_type: Type = IntegerType::new(at.context, 64).into();
        let fixed = (leading << 16) | (((8 * row) >> 4) << 32) | (self.swizzled.mode() << 62);
        let address = at.addi(self.address, offset)?;
        let start = at.andi(at.add(arith::shrui(address, at.index(4)?, at.location))?, at.index(0x3FFF)?)?;
        let start = at.add(arith::index_cast(start, i64_type, at.location))?;
        let fixed = at.int(i64_type, fixed)?;
        at.add(arith::ori(start, fixed, at.location))
    }

    /// The descriptor at constant byte `offset` past the one `base`
    /// describes ([`Smem::descriptor`]): the address field holds the
    /// address over 16, and shared memory ends below 256 KiB, so the field
    /// takes `offset / 16` without a carry into the next one. One 64-bit add
    /// a K step instead of the whole encoding.
    fn step(&self, at: &At<'c, 'c>, base: IrValue<'c>, offset: i64) -> Option<IrValue<'c>> {
        if offset % 16 != 0 {
            return None;
        }
        if offset == 0 {
            return Some(base);
        }
        let i64_type: Type = IntegerType::new(at.context, 64).into();
        at.add(arith::addi(base, at.int(i64_type, offset >> 4)?, at.location))
    }
}

/// Operand `index` (0: A, M x K; 1: B, K x N) where wgmma reads it: a
/// shared tile where it is, a tile in registers written K-major into a
/// buffer of its own.
///
/// With `slots` of 2 (an mma kept in flight, in a loop) the buffer holds
/// two tiles and iteration `t` writes tile `t % 2`: the mma of `t - 1` may
/// still read the other, and the barrier before the write comes after
/// every warpgroup's wait for the mma of `t - 2`.
fn operand<'c>(
    lowering: &mut Lowering<'c>,
    at: &At<'c, 'c>,
    value: melior::ir::Value<'c, '_>,
    index: usize,
    r#loop: Option<OperationRef<'c, 'c>>,
) -> Option<Smem<'c>> {
    if let Some(tile) = lowering.shared(value) {
        let k_dim = 1 - index;
        let home = at.block.parent_operation().filter(|p| crate::rewrite::op_name(*p) == "scf.for");
        let address = match home.and_then(|l| shared::slot_address(lowering, at, value, l)) {
            Some(address) => address,
            None => lowering.registers(value)?,
        };
        return Some(Smem { address, swizzled: tile.swizzled(), k_major: tile.contiguous_dim() == k_dim });
    }
    let layout = lowering.layout(value)?;
    let registers = lowering.registers(value)?;
    let element = element_of(registers.r#type())?;
    let bytes = (element_bits(element)? / 8) as i64;
    let (rows, k) = if index == 0 { (layout.shape[0], layout.shape[1]) } else { (layout.shape[1], layout.shape[0]) };
    let swizzled = Swizzled { rows, row: (k * bytes).min(SWIZZLE), bytes };
    let slots = if r#loop.is_some() { 2 } else { 1 };
    let buffer = shared::aligned_scratch(lowering, slots * rows * k, element)?;
    lowering.thread_flat(&layout)?;
    let first = match r#loop {
        Some(r#loop) => {
            let slot = at.remui(super::tma::iteration(at, r#loop)?, at.index(2)?)?;
            Some(at.muli(slot, at.index(rows * k)?)?)
        }
        None => None,
    };
    swizzled.write(lowering, at, (buffer, first), registers, &layout, index)?;
    let mut address = super::shared_address(at, buffer)?;
    if let Some(first) = first {
        address = at.addi(address, at.muli(first, at.index(bytes)?)?)?;
    }
    Some(Smem { address, swizzled, k_major: true })
}

/// Lowers one `tile.mma`.
pub fn lower<'c>(lowering: &mut Lowering<'c>, op: OperationRef<'c, 'c>) -> Option<()> {
    let context = lowering.context;
    let (a, b, c) = (op.operand_at(0)?, op.operand_at(1)?, op.operand_at(2)?);
    let result = op.result_at(0)?;
    // Loop-carried operands have their register types by now: shapes come
    // from the layouts or shared tiles, the element type from the
    // registers or shared tiles.
    let lc = lowering.layout(c)?;
    let rc = lowering.registers(c)?;
    let shape_of = |lowering: &Lowering<'c>, v| -> Option<(Vec<i64>, Type<'c>)> {
        match lowering.shared(v) {
            Some(tile) => Some((tile.shape, tile.element)),
            None => Some((lowering.layout(v)?.shape, element_of(lowering.registers(v)?.r#type())?)),
        }
    };
    let (shape_a, element) = shape_of(lowering, a)?;
    let (shape_b, _) = shape_of(lowering, b)?;
    let (m, k, n) = (shape_a[0], shape_a[1], shape_b[1]);
    let (kind, k_step) = operand_kind(&element.to_string())?;
    let at = At::before(context, op)?;
    let (shared_a, shared_b) = (lowering.shared(a), lowering.shared(b));
    // An mma computed transposed (`layout::shared::swapped_operands`):
    // wgmma multiplies B^T, whose fragments the threads read from B's
    // N-major shared tile below (or B's registers hold them: a layout
    // written by hand), by A^T, read from A's shared tile (K-major either
    // way), into C^T; the instruction's N is M.
    let n_major_b = shared_b.as_ref().is_some_and(|t| !t.transposed && t.bytes != 2);
    let swapped = shared_a.is_some()
        && swapped_layouts(m, n, k, lc.warps(), element).is_some_and(|(accumulator, fragments)| {
            accumulator == lc && (n_major_b || (shared_b.is_none() && lowering.layout(b) == Some(fragments)))
        });
    // Anything else must have wgmma's accumulator layout (a transposed one
    // whose B is not B^T's fragments would be multiplied as it is).
    if !swapped && LinearLayout::wgmma(&[m, n], &[lc.warps(), 1], n).is_none_or(|wanted| wanted != lc) {
        return None;
    }
    // wgmma's A and B.
    let (wa, wb) = if swapped { (b, a) } else { (a, b) };
    let (shared_wa, shared_wb) = (lowering.shared(wa), lowering.shared(wb));
    let n = if swapped { m } else { n };

    // A computed A whose registers are already wgmma's A fragments (the
    // accumulator layout of an earlier mma, as attention's P has) stays in
    // registers, as does a swapped mma's B^T; anything else is read from
    // shared memory.
    let fragments_a =
        swapped || (shared_wa.is_none() && lowering.layout(wa).is_some_and(|la| register_fragments(&la, &lc, element)));
    if in_loop(op) && ((shared_wa.is_none() && !fragments_a) || shared_wb.is_none()) {
        // The last iteration's wgmmas read the buffers written below (each
        // warpgroup waited for its own; the barrier waits for the others).
        lowering.barrier(&at)?;
    }
    // An mma kept in flight writes its operands from registers into two
    // tiles in turn.
    // An mma that reads A from registers reads them while it runs, and
    // the loop's copies into its carried registers at the iteration's end
    // would overwrite them (PTX forbids writing them before the wait, and
    // ptxas does not keep them for the mma: it may give them to later
    // values). So such an mma is not kept in flight: it is waited for at
    // the end of its iteration, after the ops that follow it, with its
    // fragment registers tied to the wait.
    let wait_late = fragments_a && in_loop(op) && only_carried(op).is_ok();
    // Such an mma whose product the iteration reads later (attention's
    // second mma, run one iteration late by `tile-pipeline-mma`) is waited
    // for where it is first read, so that it runs beside the ops between.
    let first_read = match fragments_a && in_loop(op) && !wait_late {
        true => first_user(op),
        false => None,
    };
    let in_flight = if wait_late {
        Err("its A operand is read from registers, which the loop overwrites for the next iteration; it is waited \
             for at the end of the iteration, after the loads issued ahead")
    } else if first_read.is_some() {
        Err("its A operand is read from registers and the iteration reads its product; it is waited for where the \
             product is first read, after the ops between")
    } else {
        in_flight(lowering, op)
    };
    let double = in_flight.is_ok().then(|| op.parent_operation()).flatten();
    let smem_a = if fragments_a { None } else { Some(operand(lowering, &at, wa, 0, double)?) };
    let smem_b = operand(lowering, &at, wb, if swapped { 0 } else { 1 }, double)?;
    let by_tma = |tile: &Option<shared::SharedTile>| tile.as_ref().is_some_and(|t| t.tma);
    let mut by_tma_count = 0;
    let mut waited = Vec::new();
    for (value, tile) in [(wa, &shared_wa), (wb, &shared_wb)] {
        if let Some(tile) = tile.as_ref().filter(|t| t.tma) {
            wait_tma(lowering, &at, op, value, tile, &mut waited)?;
            by_tma_count += 1;
        }
    }
    // A shared tile loaded before the loop by the threads' copies.
    let body = op
        .parent_operation()
        .filter(|p| crate::rewrite::op_name(*p) == "scf.for")
        .and_then(|l| l.region_at(0)?.first_block());
    let before_loop = |value: melior::ir::Value<'c, '_>, tile: &Option<shared::SharedTile>| {
        tile.is_some() && !by_tma(tile) && body.is_some_and(|body| crate::rewrite::defined_outside(detach(value), body))
    };
    // (wgmma's A counts as synced when it is computed registers, not a
    // tile the threads copied and read themselves: a swapped mma's B.)
    let synced_before = by_tma_count > 0
        && [(wa, &shared_wa), (wb, &shared_wb)]
            .iter()
            .enumerate()
            .all(|(i, (v, t))| by_tma(t) || before_loop(*v, t) || (i == 0 && fragments_a && t.is_none()));
    if synced_before {
        // The TMA's barriers order each slot's writes and reads; what the
        // threads copied before the loop is waited for once, before it;
        // the barrier below only keeps slots from being refilled early.
        if before_loop(wa, &shared_wa) || before_loop(wb, &shared_wb) {
            let r#loop = op.parent_operation()?;
            let state = lowering.loops.entry(r#loop.to_raw().ptr as usize).or_default();
            if !state.synced_before {
                state.synced_before = true;
                let before = At::before(context, r#loop)?;
                before.insert(wait_copies(context, before.location, 0)?);
                before.insert(fence_proxy(context, before.location)?);
                lowering.barrier(&before)?;
            }
        }
    } else {
        let copied = |tile: &Option<shared::SharedTile>| tile.is_some() && !by_tma(tile);
        if copied(&shared_wa) || copied(&shared_wb) {
            let pending = copies_pending(lowering, op, &[a, b]);
            at.insert(wait_copies(context, at.location, pending as i64)?);
        }
        // What the threads wrote (cp.async copies, registers) is made
        // visible to wgmma's proxy (the TMA writes in that proxy already).
        at.insert(fence_proxy(context, at.location)?);
    }
    // With a producer warp, the `empty` barriers keep slots from being
    // refilled early: the consumers give them back below.
    let released = released_rings(lowering, op, [&shared_wa, &shared_wb]);
    // The block barrier goes after the wait that keeps the mma in flight.
    let mut barrier_after = false;
    match released {
        // The producer would wait for slots nobody gives back.
        None if lowering.producer.is_some() && in_loop(op) => return None,
        None => {
            // The rings of a loop move in step, each `distance + 2` slots
            // deep: a request at the top of iteration t refills the slot of
            // t - 2, which every warpgroup is done with once it has met
            // the others at any barrier of t - 1. One barrier an iteration
            // (the first mma's) does for all of a loop's mmas that only
            // read its TMA slots, tiles loaded before it and registers,
            // and are not kept in flight. One kept in flight that reads
            // only those meets the others after its `wgmma.wait_group 1`
            // instead: its wgmmas then wait for the
            // copies alone, not for the slowest warp too (BENCHMARKS.md,
            // session 29), and the barrier of t - 1 follows every
            // warpgroup's wgmmas of t - 2, so the slot refilled at t (that
            // of t - 2 in `distance + 2` slots, where `tile-use-tma` took
            // the spare slot back, else of t - 3) is free
            // ([`super::tma`]).
            let body_loop = op.parent_operation().filter(|p| crate::rewrite::op_name(*p) == "scf.for");
            let key = body_loop.map(|l| l.to_raw().ptr as usize);
            let placed = key.is_some_and(|key| lowering.loops.get(&key).is_some_and(|s| s.ring_barrier));
            barrier_after = synced_before && in_flight.is_ok() && key.is_some();
            if barrier_after || !(synced_before && in_flight.is_err() && placed) {
                if !barrier_after {
                    lowering.barrier(&at)?;
                }
                if let Some(key) = key {
                    lowering.loops.entry(key).or_default().ring_barrier = true;
                }
            }
        }
        Some(_) => {}
    }

    // This warpgroup's rows: 64 g, then every 64 G rows below.
    let warpgroups = lc.warps() / WARPGROUP_WARPS;
    // Shuffled from lane 0, so warp-uniform to ptxas: at the kernel's
    // start (`Lowering::warpgroup`) with a producer warp, where it keeps
    // the consumers' descriptors on the uniform datapath beside the role
    // branch, and for operands the threads copy (the general kernels:
    // 2.5-3% faster, BENCHMARKS.md, session 33, run 8). A TMA variant
    // without a producer shuffles it here, at the mma: from `tid / 128`
    // ptxas moved each A descriptor to a uniform register before its
    // wgmma, and a value made at the start and live through the kernel
    // cost the causal attention registers (session 41, runs 1 and 7).
    let warpgroup = if lowering.producer.is_some() || !(by_tma(&shared_wa) || by_tma(&shared_wb)) {
        lowering.warpgroup()?
    } else {
        lowering.warpgroup_at(&at)?
    };
    let own = match &smem_a {
        Some(smem_a) => at.muli(warpgroup, at.index(smem_a.offset(WGMMA_M, 0) - smem_a.offset(0, 0))?)?,
        None => at.index(0)?,
    };
    let per_block = (n / 2) as usize;
    let blocks = lc.registers() / per_block;
    let f32_type = Type::float32(context);
    let fragment = llvm::r#type::r#struct(context, &vec![f32_type; per_block], false);
    let shape = Attribute::parse(context, &format!("#nvvm.shape<m = {WGMMA_M}, n = {n}, k = {k_step}>"))?;
    let type_ab = Attribute::parse(context, &format!("#nvvm.wgmma_type<{kind}>"))?;
    let type_d = Attribute::parse(context, "#nvvm.wgmma_type<f32>")?;
    let layout_a = if smem_a.as_ref().is_none_or(|s| s.k_major) { "row" } else { "col" };
    let layout_b = if smem_b.k_major { "col" } else { "row" };
    let in_flight = match in_flight {
        Ok(()) => true,
        Err(why) => {
            if in_loop(op) && !why.is_empty() {
                crate::remarks::missed(
                    op.location(),
                    <super::ConvertTileToRegisters as crate::pass::TilePass>::INFO.argument,
                    "MmaInFlight",
                    &format!("this tile.mma is waited for before the loop goes on (not kept in flight): {why}"),
                );
            }
            false
        }
    };
    // A from registers: each K step's four 32-bit fragment registers, made
    // before the fence (wgmma must not read registers written after it).
    let fragments = match smem_a {
        Some(_) => Vec::new(),
        None => {
            let ra = match &shared_wa {
                // B^T's fragments, read from B's slot (the TMA's wait is
                // above), before the fence.
                Some(tile) => {
                    let (_, fragments) = swapped_layouts(m, shape_b[1], k, lc.warps(), element)?;
                    let address = lowering.registers(wa)?;
                    super::ldmatrix::read_swizzled(
                        lowering,
                        &at,
                        (&tile.swizzled(), address),
                        &fragments,
                        tile.contiguous_dim() ^ 1,
                        element,
                    )?
                }
                None => lowering.registers(wa)?,
            };
            let width = k_width(element) as usize;
            let mut fragments = Vec::new();
            for block in 0..blocks {
                for step in 0..k / k_step {
                    // Step `s` of block `b`: A's registers
                    // `b k / 2 + s k_step / 2 ..+ k_step / 2`, `width`
                    // elements a 32-bit fragment register.
                    let first = block * (k as usize / 2) + (step * k_step) as usize / 2;
                    let registers = (0..4)
                        .map(|register| {
                            let mut part = slice(&at, ra, first + width * register, width)?;
                            // 8-bit floats are no LLVM type: their bytes.
                            if width == 4 {
                                let bytes = super::vector_type(4, IntegerType::new(context, 8).into());
                                part = at.add(arith::bitcast(part, bytes, at.location))?;
                            }
                            at.add(ods::llvm::bitcast(context, IntegerType::new(context, 32).into(), part, at.location))
                        })
                        .collect::<Option<Vec<_>>>()?;
                    fragments.push(registers);
                }
            }
            fragments
        }
    };
    at.insert(OperationBuilder::new("nvvm.wgmma.fence.aligned", at.location).build().ok()?);
    let mut parts = Vec::new();
    for block in 0..blocks {
        let mut fragment_value = at.add(llvm::undef(fragment, at.location))?;
        let registers = slice(&at, rc, block * per_block, per_block)?;
        for i in 0..per_block {
            let value = super::extract(&at, registers, i)?;
            fragment_value = at.add(llvm::insert_value(
                context,
                fragment_value,
                melior::ir::attribute::DenseI64ArrayAttribute::new(context, &[i as i64]),
                value,
                at.location,
            ))?;
        }
        let block_rows = block as i64 * warpgroups * WGMMA_M;
        let Some(smem_a) = &smem_a else {
            // A from registers: wgmma's register form, which the NVVM op
            // lacks, as inline assembly on the accumulator's scalars.
            let width = k_width(element);
            let mut scalars: Vec<IrValue> =
                (0..per_block).map(|i| super::extract(&at, registers, i)).collect::<Option<_>>()?;
            let mut last = None;
            let base_b = smem_b.descriptor(&at, at.index(0)?)?;
            for step in 0..k / k_step {
                let fragment_a = fragments.get(block * (k / k_step) as usize + step as usize)?;
                let descriptor_b = smem_b.step(&at, base_b, smem_b.offset(0, step * k_step))?;
                // Only 16-bit types have the transposing form.
                let transpose_b = (width == 2).then_some(!smem_b.k_major);
                let shape = (n, k_step);
                let result = mma_registers_a(&at, &scalars, fragment_a, descriptor_b, shape, kind, transpose_b)?;
                scalars = (0..per_block)
                    .map(|i| {
                        at.add(llvm::extract_value(
                            context,
                            result,
                            melior::ir::attribute::DenseI64ArrayAttribute::new(context, &[i as i64]),
                            f32_type,
                            at.location,
                        ))
                    })
                    .collect::<Option<_>>()?;
                last = Some(result);
            }
            parts.push(last?);
            continue;
        };
        let base_a = smem_a.descriptor(&at, own)?;
        let base_b = smem_b.descriptor(&at, at.index(0)?)?;
        for step in 0..k / k_step {
            let descriptor_a = smem_a.step(&at, base_a, smem_a.offset(block_rows, step * k_step))?;
            let descriptor_b = smem_b.step(&at, base_b, smem_b.offset(0, step * k_step))?;
            let named = |name: &str, value: Attribute<'c>| (melior::ir::Identifier::new(context, name), value);
            fragment_value = at.add(
                OperationBuilder::new("nvvm.wgmma.mma_async", at.location)
                    .add_operands(&[fragment_value, descriptor_a, descriptor_b])
                    .add_results(&[fragment])
                    .add_attributes(&[
                        named("shape", shape),
                        named("typeA", type_ab),
                        named("typeB", type_ab),
                        named("typeD", type_d),
                        named("scaleD", Attribute::parse(context, "#nvvm.wgmma_scale_out<one>")?),
                        named("scaleA", Attribute::parse(context, "#nvvm.wgmma_scale_in<one>")?),
                        named("scaleB", Attribute::parse(context, "#nvvm.wgmma_scale_in<one>")?),
                        named("layoutA", Attribute::parse(context, &format!("#nvvm.mma_layout<{layout_a}>"))?),
                        named("layoutB", Attribute::parse(context, &format!("#nvvm.mma_layout<{layout_b}>"))?),
                    ])
                    .build()
                    .ok()?,
            )?;
        }
        parts.push(fragment_value);
    }
    at.insert(OperationBuilder::new("nvvm.wgmma.commit.group.sync.aligned", at.location).build().ok()?);
    // The iteration's shifted copies of later tiles are stored while the
    // wgmmas run.
    if let Some(r#loop) = op.parent_operation().filter(|p| crate::rewrite::op_name(*p) == "scf.for") {
        super::shared::finish_copies(lowering, &at, r#loop)?;
    }
    let mut values = Vec::new();
    for part in parts {
        for i in 0..per_block {
            values.push(at.add(llvm::extract_value(
                context,
                part,
                melior::ir::attribute::DenseI64ArrayAttribute::new(context, &[i as i64]),
                f32_type,
                at.location,
            ))?);
        }
    }
    if in_flight {
        // Only the next iteration's wgmmas read the accumulator; the loop's
        // result waits for the last ones after the loop.
        at.insert(wait_mmas(context, at.location, 1)?);
        if barrier_after {
            lowering.barrier(&at)?;
        }
        let r#loop = op.parent_operation()?;
        if let Some(rings) = &released {
            // The previous iteration's wgmmas are done.
            let t = super::tma::iteration(&at, r#loop)?;
            let later = at.cmpi(crate::build::CmpiPredicate::Ugt, t, at.index(0)?)?;
            let previous = super::tma::position(&at, r#loop, at.subi(t, at.index(1)?)?)?;
            super::tma::release(&at, rings, previous, Some(later), lowering.multicast)?;
        }
        let key = r#loop.to_raw().ptr as usize;
        if !lowering.loops.get(&key).is_some_and(|s| s.mmas_waited) {
            lowering.loops.entry(key).or_default().mmas_waited = true;
            let body = r#loop.region_at(0)?.first_block()?;
            let index = crate::rewrite::argument_of(c, body)? - 1;
            let after = At::before(context, r#loop.next_in_block()?)?;
            let carried = detach(r#loop.result_at(index)?.into());
            let count = super::length(carried)?;
            let elements: Vec<IrValue> =
                (0..count).map(|i| super::extract(&after, carried, i)).collect::<Option<_>>()?;
            let waited = wait_tied(&after, &elements)?;
            if let Some(rings) = released.as_ref().filter(|_| super::tma::continued(r#loop).is_some()) {
                // The last iteration's wgmmas are done: its slot goes back
                // to the producer, which fills it in the enclosing loop's
                // next walk of this one.
                let trips = super::tma::trips(&after, r#loop)?;
                let ran = after.cmpi(crate::build::CmpiPredicate::Ugt, trips, after.index(0)?)?;
                let last = super::tma::position(&after, r#loop, after.subi(trips, after.index(1)?)?)?;
                super::tma::release(&after, rings, last, Some(ran), lowering.multicast)?;
            }
            let value = registers_of(&after, &waited)?;
            lowering.map(r#loop.result_at(index)?.into(), value);
        }
    } else {
        // The wait: here, or at the end of the iteration for an mma that
        // reads A from registers and would otherwise stay in flight (its
        // result is only yielded, so nothing between reads it).
        let wait_at = match (wait_late, first_read) {
            (true, _) => At::before(context, body_terminator(op.parent_operation()?)?)?,
            (false, Some(user)) => At::before(context, user)?,
            (false, None) => At::before(context, op)?,
        };
        let accumulators = values.len();
        let mut tied = values.clone();
        // The fragment registers stay live (and unwritten) until the wait,
        // wherever it is (attention's P too, whose wait follows the mma).
        tied.extend(fragments.iter().flatten().copied());
        values = wait_tied(&wait_at, &tied)?;
        values.truncate(accumulators);
        if let Some(rings) = &released {
            let r#loop = op.parent_operation()?;
            let t = super::tma::position(&wait_at, r#loop, super::tma::iteration(&wait_at, r#loop)?)?;
            super::tma::release(&wait_at, rings, t, None, lowering.multicast)?;
        }
        let value = registers_of(&wait_at, &values)?;
        lowering.map(result.into(), value);
        return Some(());
    }
    let value = registers_of(&at, &values)?;
    lowering.map(result.into(), value);
    Some(())
}

/// Elements of an operand type that one 32-bit register of wgmma's A
/// fragments holds.
pub fn k_width(element: Type) -> i64 {
    match element_bits(element) {
        Some(32) => 1,
        Some(8) => 4,
        _ => 2,
    }
}

/// Whether an A operand in registers laid out as `a` is wgmma's A
/// fragments for an mma with accumulator layout `accumulator`
/// (`#tile.wgmma_operand`), whose registers for K step `s` of 64-row
/// block `b` are `b K / 2 + s k_step / 2 ..+ k_step / 2`, the fragment's
/// order. A 16-bit one is the accumulator layout of the same warps with
/// A's K columns (attention's P).
pub fn register_fragments(a: &LinearLayout, accumulator: &LinearLayout, element: Type) -> bool {
    let (Some(&rows), Some(&k)) = (a.shape.first(), a.shape.get(1)) else { return false };
    let Some((_, k_step)) = operand_kind(&element.to_string()) else { return false };
    if a.shape.len() != 2 || k % k_step != 0 || rows % WGMMA_M != 0 {
        return false;
    }
    LinearLayout::wgmma_operand(&a.shape, accumulator.warps(), k_width(element)).is_some_and(|wanted| *a == wanted)
}

/// The layouts of an mma computed transposed
/// ([`crate::layout::shared::swapped_operands`]) in a block of `warps`
/// warps: its `M x N` accumulator, wgmma's accumulator of `C^T` (`N x M`,
/// the instruction's N being M) transposed, and its `K x N` B, wgmma's A
/// fragments of `B^T` (`N x K`) transposed.
///
/// Which of C's columns (B^T's rows) each of wgmma's rows holds is ours to
/// choose, so long as the accumulator and the fragments agree. For tf32,
/// columns 4 apart swap with columns 16 apart (bits 2 and 4): a
/// warp's fragment load then reads four K rows of B's tile at four
/// disjoint pairs of the swizzle's 16-byte chunks, one bank each (in
/// wgmma's order, rows 8 consecutive columns apart share two chunk pairs
/// and every bank twice). For 8-bit floats, rows `p` and `p + 8` of a
/// warp's 16 hold columns `2 p` and `2 p + 1` (the low 4 column bits
/// rotated): a thread's two rows are then one b16 of B's tile, so a
/// transposed `ldmatrix` of b16 reads the fragments
/// ([`super::ldmatrix`]), where one byte a load would read them otherwise.
pub fn swapped_layouts(m: i64, n: i64, k: i64, warps: i64, element: Type) -> Option<(LinearLayout, LinearLayout)> {
    swapped_layouts_of(m, n, k, warps, u32::try_from(element_bits(element)?).ok()?)
}

/// [`swapped_layouts`] for operands of `bits` bits.
pub fn swapped_layouts_of(m: i64, n: i64, k: i64, warps: i64, bits: u32) -> Option<(LinearLayout, LinearLayout)> {
    let k_width = match bits {
        32 => 1,
        8 => 4,
        _ => 2,
    };
    let accumulator = LinearLayout::wgmma(&[n, m], &[warps, 1], m)?.permute(&[1, 0]);
    let b = LinearLayout::wgmma_operand(&[n, k], warps, k_width)?.permute(&[1, 0]);
    // C's and B's columns are their last dim: bits 0.. of a flat index.
    let columns = |layout: LinearLayout| match bits {
        32 if n >= 32 => layout.swap_bits(2, 4),
        8 if n >= 16 => layout.rotate_bits(0, 3),
        _ => layout,
    };
    Some((columns(accumulator), columns(b)))
}

/// One `wgmma.mma_async` with A from registers (four 32-bit registers of
/// two elements each) and B from its descriptor, on the accumulator's
/// scalars; the result as a struct of them.
fn mma_registers_a<'c>(
    at: &At<'c, 'c>,
    accumulator: &[IrValue<'c>],
    fragment_a: &[IrValue<'c>],
    descriptor_b: IrValue<'c>,
    (n, k_step): (i64, i64),
    kind: &str,
    transpose_b: Option<bool>,
) -> Option<IrValue<'c>> {
    let context = at.context;
    let count = accumulator.len();
    let f32_type = Type::float32(context);
    let outputs: Vec<String> = (0..count).map(|i| format!("${i}")).collect();
    // Operands: the outputs, then the tied accumulator inputs, then A's
    // registers and B's descriptor.
    let a_operands: Vec<String> = (0..4).map(|i| format!("${}", 2 * count + i)).collect();
    let transpose = transpose_b.map_or(String::new(), |t| format!(", {}", i32::from(t)));
    let asm = format!(
        "{{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\nwgmma.mma_async.sync.aligned.m64n{n}k{k_step}.f32.{kind}.{kind} {{{}}}, {{{}}}, ${}, p, 1, 1{transpose};\n}}",
        outputs.join(", "),
        a_operands.join(", "),
        2 * count + 4,
    );
    let constraints = format!(
        "{},{},r,r,r,r,l",
        vec!["=f"; count].join(","),
        (0..count).map(|i| i.to_string()).collect::<Vec<_>>().join(",")
    );
    let mut operands = accumulator.to_vec();
    operands.extend_from_slice(fragment_a);
    operands.push(descriptor_b);
    let r#struct = llvm::r#type::r#struct(context, &vec![f32_type; count], false);
    at.add(at.asm(&asm, &constraints, &operands, Some(r#struct))?)
}

/// The rings (barriers, slots) whose slots the mma gives back to the
/// producer warp once its wgmmas are done with them, in a kernel with a
/// producer warp: the TMA rings its loop's mmas read, and any other its
/// loop requests (read into registers before the mma, by
/// `tile-prefetch-fragments`), all given back by the loop's last mma (a
/// phase of `empty` counts one arrival a consumer thread; a group of
/// rings shares one, [`super::groups::of`]). Its other operands are
/// tiles copied before the loop or registers (`warps::producer`).
fn released_rings<'c>(
    lowering: &mut Lowering<'c>,
    op: OperationRef<'c, 'c>,
    tiles: [&Option<shared::SharedTile<'c>>; 2],
) -> Option<Vec<(IrValue<'c>, i64)>> {
    lowering.producer.as_ref()?;
    let r#loop = op.parent_operation().filter(|p| crate::rewrite::op_name(*p) == "scf.for")?;
    let own: Vec<(i64, i64)> =
        tiles.iter().filter_map(|t| t.as_ref().filter(|t| t.tma)?.ring).map(|r| (r.id, r.slots)).collect();
    let state = lowering.loops.entry(r#loop.to_raw().ptr as usize).or_default();
    for ring in own {
        if !state.unreleased.contains(&ring) {
            state.unreleased.push(ring);
        }
    }
    let mut later = op.next_in_block();
    while let Some(next) = later {
        if crate::rewrite::op_name(next) == "tile.mma" {
            return Some(Vec::new());
        }
        later = next.next_in_block();
    }
    let mut rings = std::mem::take(&mut state.unreleased);
    if rings.is_empty() {
        return None;
    }
    for &id in &state.tma_rings {
        let slots = lowering.rings.get(&id)?.shape.1;
        if !rings.contains(&(id, slots)) {
            rings.push((id, slots));
        }
    }
    let mut released: Vec<(IrValue<'c>, i64)> = Vec::new();
    for (id, slots) in rings {
        let barriers = lowering.rings.get(&id)?.barriers?;
        if !released.iter().any(|(b, _)| *b == barriers) {
            released.push((barriers, slots));
        }
    }
    Some(released)
}

/// `fence.proxy.async.shared::cta`.
fn fence_proxy<'c>(
    context: &'c melior::Context,
    location: melior::ir::Location<'c>,
) -> Option<melior::ir::Operation<'c>> {
    OperationBuilder::new("nvvm.fence.proxy", location)
        .add_attributes(&[
            (
                melior::ir::Identifier::new(context, "kind"),
                Attribute::parse(context, "#nvvm.proxy_kind<async.shared>")?,
            ),
            (melior::ir::Identifier::new(context, "space"), Attribute::parse(context, "#nvvm.shared_space<cta>")?),
        ])
        .build()
        .ok()
}

/// `cp.async.wait_group pending`.
fn wait_copies<'c>(
    context: &'c melior::Context,
    location: melior::ir::Location<'c>,
    pending: i64,
) -> Option<melior::ir::Operation<'c>> {
    wait_op(context, location, ("nvvm.cp.async.wait.group", "n", 32), pending)
}

/// Waits for the TMA's copy of `value`, a tile of a ring that its loop
/// loaded ahead and carries to this iteration (`tile-use-tma` gives the
/// TMA only rings whose mmas are directly in their loop), unless the
/// mma waited on its ring's barriers already (`waited`: the rings of a
/// group share them, [`super::groups::of`]).
fn wait_tma<'c>(
    lowering: &Lowering<'c>,
    at: &At<'c, 'c>,
    op: OperationRef<'c, 'c>,
    value: melior::ir::Value<'c, '_>,
    tile: &shared::SharedTile<'c>,
    waited: &mut Vec<IrValue<'c>>,
) -> Option<()> {
    let r#loop = op.parent_operation().filter(|p| crate::rewrite::op_name(*p) == "scf.for")?;
    let body = r#loop.region_at(0)?.first_block()?;
    if !carried_argument(value, body) {
        return None;
    }
    // The wait is for this iteration's tile (a carried tile of another
    // iteration would be read unwaited for, or past the loop's end, never
    // requested).
    if !this_iterations_tile(value, r#loop) {
        return lowering.refuse(
            "this tile.mma reads a TMA ring's tile carried fewer times than the ring's distance (a later \
             iteration's tile, which the ring's waits do not cover)",
        );
    }
    let ring = tile.ring?;
    let barriers = lowering.rings.get(&ring.id)?.barriers?;
    if waited.contains(&barriers) {
        return Some(());
    }
    waited.push(barriers);
    let t = super::tma::position(at, r#loop, super::tma::iteration(at, r#loop)?)?;
    super::tma::wait(at, (barriers, ring.slots), t)
}

/// The accumulator's registers from its scalars.
fn registers_of<'c>(at: &At<'c, 'c>, values: &[IrValue<'c>]) -> Option<IrValue<'c>> {
    // Pairs joined by shuffles, not one long chain of inserts: LLVM's SLP
    // vectoriser spends most of a second on a 64-element chain.
    let pairs: Vec<IrValue> = values.chunks(2).map(|pair| super::from_elements(at, pair)).collect::<Option<_>>()?;
    concat(at, pairs)
}

/// `wgmma.wait_group 0`, as inline assembly that takes registers (f32 or
/// i32 scalars: the accumulator's, and an A operand's fragments) and gives
/// them back: what reads them afterwards depends on the wait, so LLVM
/// cannot move the reads above it (the intrinsic alone orders only memory,
/// and ptxas then serialises every wgmma), and the registers stay live,
/// unwritten, until it.
fn wait_tied<'c>(at: &At<'c, 'c>, values: &[IrValue<'c>]) -> Option<Vec<IrValue<'c>>> {
    let context = at.context;
    let count = values.len();
    let types: Vec<Type> = values.iter().map(|v| v.r#type()).collect();
    let outputs = types.iter().map(|t| if t.is_integer() { "=r" } else { "=f" }).collect::<Vec<_>>().join(",");
    let inputs: Vec<String> = (0..count).map(|i| i.to_string()).collect();
    let r#struct = llvm::r#type::r#struct(context, &types, false);
    let constraints = format!("{outputs},{}", inputs.join(","));
    let waited = at.add(at.asm("wgmma.wait_group.sync.aligned 0;", &constraints, values, Some(r#struct))?)?;
    at.fields(waited, &types)
}

/// The first op after `op` in its block that reads its result (itself or
/// through an op nested in it), when that is not the op right after it.
fn first_user<'c>(op: OperationRef<'c, 'c>) -> Option<OperationRef<'c, 'c>> {
    let users = crate::rewrite::users(op.result_at(0)?.into());
    let mut next = op.next_in_block();
    let mut between = 0;
    while let Some(candidate) = next {
        if crate::rewrite::uses_inside(candidate, &users) > 0 {
            // SAFETY: an op of the live block, alive while it is.
            return (between > 0).then(|| unsafe { OperationRef::from_raw(candidate.to_raw()) });
        }
        between += 1;
        next = candidate.next_in_block();
    }
    None
}

/// The terminator of a loop's body.
fn body_terminator<'c>(r#loop: OperationRef<'c, 'c>) -> Option<OperationRef<'c, 'c>> {
    let terminator = r#loop.region_at(0)?.first_block()?.terminator()?;
    // SAFETY: the terminator of a live loop's body lives as long as it.
    Some(unsafe { OperationRef::from_raw(terminator.to_raw()) })
}

/// `wgmma.wait_group pending`.
fn wait_mmas<'c>(
    context: &'c melior::Context,
    location: melior::ir::Location<'c>,
    pending: i64,
) -> Option<melior::ir::Operation<'c>> {
    wait_op(context, location, ("nvvm.wgmma.wait.group.sync.aligned", "group", 64), pending)
}

/// An NVVM wait op `name` whose one attribute `attribute` (an integer of
/// `bits` bits) is the count left pending.
fn wait_op<'c>(
    context: &'c melior::Context,
    location: melior::ir::Location<'c>,
    (name, attribute, bits): (&str, &str, u32),
    pending: i64,
) -> Option<melior::ir::Operation<'c>> {
    OperationBuilder::new(name, location)
        .add_attributes(&[(
            melior::ir::Identifier::new(context, attribute),
            IntegerAttribute::new(IntegerType::new(context, bits).into(), pending).into(),
        )])
        .build()
        .ok()
}

/// The cp.async groups that may still be pending when the mma reads its
/// shared operands: in a loop whose only shared loads are its rings, an
/// iteration's tiles were loaded `distance` iterations before, and each
/// iteration since (this one's loads included, which come first in the
/// body) committed one group a ring; operands loaded before the loop
/// (before its rings' first tiles) are older still. Anything else waits
/// for every group.
fn copies_pending(lowering: &Lowering, op: OperationRef, operands: &[melior::ir::Value]) -> usize {
    let Some(r#loop) = op.parent_operation().filter(|p| crate::rewrite::op_name(*p) == "scf.for") else { return 0 };
    let Some(state) = lowering.loops.get(&(r#loop.to_raw().ptr as usize)) else { return 0 };
    let Some(body) = r#loop.region_at(0).and_then(|r| r.first_block()) else { return 0 };
    if state.other_loads {
        return 0;
    }
    let mut distance = None;
    let mut oldest_ring = usize::MAX;
    let mut outside = Vec::new();
    for &value in operands {
        let Some(tile) = lowering.shared(value).filter(|t| !t.tma) else { continue };
        // Only this iteration's tile is sure to be among the groups that
        // may stay pending (any other carried tile: wait for all).
        let carried = carried_argument(value, body) && this_iterations_tile(value, r#loop);
        match (tile.ring, carried) {
            (Some(ring), true) => {
                if distance.is_some_and(|d| d != ring.distance) {
                    return 0;
                }
                distance = Some(ring.distance);
                oldest_ring = oldest_ring.min(lowering.rings.get(&ring.id).map_or(0, |r| r.first_commit));
            }
            _ if crate::rewrite::defined_outside(crate::rewrite::detach(value), body) => outside.push(tile.commit),
            _ => return 0,
        }
    }
    match distance {
        Some(distance) if outside.iter().all(|&c| c < oldest_ring) => distance as usize * state.ring_loads,
        _ => 0,
    }
}

/// Whether `value`, (a permute or reshape of) an argument of `loop`'s
/// body, is this iteration's tile of a ring: the one the loop's ring load
/// asked for `distance` iterations back, carried as many times, as
/// `tile-prefetch-loads` writes it. A hand-written `tile.ring` read after
/// fewer carries is a later tile, which the ring's waits do not cover.
fn this_iterations_tile<'c>(value: melior::ir::Value<'c, '_>, r#loop: OperationRef<'c, 'c>) -> bool {
    shared::this_iterations_load(value, r#loop).is_some()
}

/// Whether `value` is (a permute or reshape of) an argument of `body`.
fn carried_argument(value: melior::ir::Value, body: melior::ir::BlockRef) -> bool {
    if crate::rewrite::argument_of(value, body).is_some() {
        return true;
    }
    crate::rewrite::defining_op(value).is_some_and(|d| {
        matches!(crate::rewrite::op_name(d).as_str(), "tile.permute" | "tile.reshape")
            && d.operand_at(0).is_some_and(|v| carried_argument(v, body))
    })
}

/// Whether an mma may stay in flight into the next iteration: it
/// accumulates into a carried tile that nothing else reads, yields the
/// result straight back, and reads only tiles that nothing of the loop
/// overwrites while it runs (ring tiles whose ring has a slot more than
/// its loads need, or TMA ring tiles of a ring without it where the block
/// meets after the mma's `wgmma.wait_group 1`, `Lowering::spareless`;
/// tiles loaded before the loop; and tiles from registers, which it
/// writes into two buffers in turn).
fn in_flight(lowering: &Lowering, op: OperationRef) -> Result<(), &'static str> {
    only_carried(op)?;
    let Some(body) = op.parent_operation().and_then(|l| l.region_at(0)?.first_block()) else { return Err("") };
    let operands_safe = (0..2).all(|k| {
        op.operand_at(k).is_some_and(|v| match lowering.shared(v) {
            Some(tile) => match tile.ring {
                Some(ring) => {
                    carried_argument(v, body)
                        && (ring.slots >= ring.distance + 3 || (tile.tma && lowering.spareless.contains(&ring.id)))
                }
                None => crate::rewrite::defined_outside(crate::rewrite::detach(v), body),
            },
            // Written into the other of two tiles each iteration.
            None => true,
        })
    });
    if !operands_safe {
        return Err("an operand is written in the loop while the mma could still read it (a ring without \
                    the spare slot)");
    }
    Ok(())
}

/// Whether an mma in a loop accumulates into a carried tile that nothing
/// else reads and yields its result straight back, so that nothing in
/// the iteration reads the result.
pub(super) fn only_carried(op: OperationRef) -> Result<(), &'static str> {
    let Some(r#loop) = op.parent_operation().filter(|p| crate::rewrite::op_name(*p) == "scf.for") else {
        return Err("it is not directly in an scf.for");
    };
    let Some(body) = r#loop.region_at(0).and_then(|r| r.first_block()) else { return Err("") };
    let Some(accumulator) = op.operand_at(2) else { return Err("") };
    let carried = crate::rewrite::argument_of(accumulator, body);
    let carried_back = carried.is_some_and(|i| {
        op.result_at(0).is_some_and(|r| {
            crate::rewrite::single_use(r.into())
                .is_some_and(|(user, n)| crate::rewrite::op_name(user) == "scf.yield" && n + 1 == i)
        })
    });
    if !carried_back || crate::rewrite::single_use(accumulator).is_none() {
        return Err("its accumulator is read by other ops than the next iteration's mma");
    }
    Ok(())
}
