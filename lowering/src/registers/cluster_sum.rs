//! `tile.cluster_sum` (`tile-split-k`): the blocks of a cluster add their
//! accumulators into the first block through distributed shared memory.
//!
//! ```mlir
//! nvvm.cluster.arrive {aligned}          // every block has started; rings done
//! nvvm.cluster.wait {aligned}
//! scf.if %not_first {
//!   %remote = nvvm.mapa %slot, %c0_i32 : !llvm.ptr<3> -> !llvm.ptr<7>
//!   llvm.store %four, %remote {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<7>
//! }
//! nvvm.cluster.arrive {aligned}          // release the writes, acquire them
//! nvvm.cluster.wait {aligned}
//! %other = llvm.load %slot {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
//! ```

use super::cluster::barrier;
use crate::{
    build::At,
    rewrite::{IrValue, Probe},
};
use melior::ir::TypeLike as _;
use melior::{
    dialect::{arith, llvm, ods},
    ir::{
        Type, ValueLike,
        attribute::IntegerAttribute,
        operation::{OperationBuilder, OperationRef},
        r#type::IntegerType,
    },
};

/// A shared-memory pointer (`!llvm.ptr<3>`) to the byte `address` (an
/// index into the block's shared window).
fn shared_pointer<'c>(at: &At<'c, 'c>, address: IrValue<'c>) -> Option<IrValue<'c>> {
    let i64_type: Type = IntegerType::new(at.context, 64).into();
    let address = at.add(arith::index_cast(address, i64_type, at.location))?;
    at.add(ods::llvm::inttoptr(at.context, llvm::r#type::pointer(at.context, 3), address, at.location))
}

/// An aligned `llvm.load` or `llvm.store` (`value` given) of `bytes`.
pub(super) fn aligned<'c>(at: &At<'c, 'c>, bytes: i64) -> llvm::LoadStoreOptions<'c> {
    let alignment = IntegerAttribute::new(IntegerType::new(at.context, 64).into(), bytes);
    llvm::LoadStoreOptions::new().align(Some(alignment))
}

/// Lowers `tile.cluster_sum` (`tile-split-k`): every block but the first
/// writes its registers into the first block's shared memory through
/// distributed shared memory, and the first block adds them to its own.
///
/// Where they land: the largest ring whose loop is done (every tile it was
/// filled with was waited for after its loop, so the memory is free once
/// the first block is past a barrier), else a buffer of its own. A ring
/// too small for all registers at once takes them in rounds of registers
/// `i0..i1`, `w` at a time (16 bytes where they divide so, else one):
/// registers `i..i + w` of thread `t` of block `r` at element
/// `(r - 1) n T + (i - i0) T + t w` (`n` registers a round; a warp's
/// writes consecutive), stored through `mapa` as `shared::cluster` and
/// read back as `shared`. Each round is: the cluster meets, the others write, the
/// cluster meets, the first block adds. The first meeting is also what
/// keeps a block from writing into one that has not started (or still
/// reads the ring); each is every thread of every block, a release and an
/// acquire, which orders the writes before the reads and the reads before
/// the next round's writes. The other blocks' result is their own
/// registers: what reads it runs in the first block only.
pub fn sum<'c>(lowering: &mut super::Lowering<'c>, op: OperationRef<'c, 'c>) -> Option<()> {
    let (Some(rank), blocks) = (lowering.cluster_rank, lowering.cluster_blocks) else {
        return lowering.refuse("a tile.cluster_sum in a kernel whose blocks do not run as a cluster");
    };
    let context = lowering.context;
    let at = At::before(context, op)?;
    let own = lowering.registers(op.operand_at(0)?)?;
    let count = super::length(own)? as i64;
    let element = crate::build::element_of(own.r#type())?;
    let bytes = crate::build::element_bits(element)?.div_ceil(8) as i64;
    // Registers go 16 bytes at a time where they divide so (a warp's
    // writes then 512 consecutive bytes), else one by one.
    let width = if 16 % bytes == 0 && count % (16 / bytes) == 0 { 16 / bytes } else { 1 };
    let threads = lowering.warps * 32;
    let others = blocks - 1;
    let ring_bytes = |ring: &super::shared::Ring<'c>| -> Option<i64> {
        let (_, slots, per_slot) = ring.shape;
        let bits = crate::build::element_bits(crate::build::element_of(ring.buffer.r#type())?)?;
        Some(slots * per_slot * bits.div_ceil(8) as i64)
    };
    let largest = lowering
        .done_rings(op)
        .into_iter()
        .filter_map(|ring| Some((ring_bytes(&ring)?, ring.buffer)))
        .max_by_key(|&(size, _)| size)
        .filter(|&(size, _)| size >= others * threads * width * bytes);
    let (buffer, per_round) = match largest {
        Some((size, buffer)) => (buffer, (size / (others * threads * width * bytes) * width).min(count)),
        None => (super::shared::aligned_scratch(lowering, others * count * threads, element)?, count),
    };
    let base = super::shared_address(&at, buffer)?;
    let thread = at.addi(at.muli(lowering.warp, at.index(32)?)?, lowering.lane)?;
    let chunk = |at: &At<'c, 'c>, first: usize| -> Option<IrValue<'c>> {
        let elements: Vec<IrValue<'c>> =
            (first..first + width as usize).map(|i| super::extract(at, own, i)).collect::<Option<_>>()?;
        if width == 1 { Some(elements[0]) } else { super::from_elements(at, &elements) }
    };
    let chunk_type = if width == 1 { element } else { super::vector_type(width as usize, element) };
    // The byte address of the registers from `i` (of its round) of block `r`.
    let slot = |at: &At<'c, 'c>, r: IrValue<'c>, i: i64| -> Option<IrValue<'c>> {
        let first = at.muli(at.subi(r, at.index(1)?)?, at.index(per_round * threads)?)?;
        let within = at.addi(at.index(i / width * threads * width)?, at.muli(thread, at.index(width)?)?)?;
        at.addi(base, at.muli(at.addi(first, within)?, at.index(bytes)?)?)
    };
    let not_first = at.cmpi(crate::build::CmpiPredicate::Ne, rank, at.index(0)?)?;
    let float = !element.is_integer();
    let i32_type: Type = IntegerType::new(context, 32).into();
    let mut sums = Vec::new();
    for round in (0..count).step_by(per_round as usize) {
        let end = (round + per_round).min(count);
        barrier(&at)?;
        super::when(&at, not_first, |at| {
            let first = at.int(i32_type, 0)?;
            for i in (round..end).step_by(width as usize) {
                let local = shared_pointer(at, slot(at, rank, i - round)?)?;
                let remote = at.add(
                    OperationBuilder::new("nvvm.mapa", at.location)
                        .add_operands(&[local, first])
                        .add_results(&[llvm::r#type::pointer(context, 7)])
                        .build()
                        .ok()?,
                )?;
                at.insert(llvm::store(
                    context,
                    chunk(at, i as usize)?,
                    remote,
                    at.location,
                    aligned(at, width * bytes),
                ));
            }
            Some(())
        })?;
        barrier(&at)?;
        for i in (round..end).step_by(width as usize) {
            let mut total = chunk(&at, i as usize)?;
            for r in 1..blocks {
                let pointer = shared_pointer(&at, slot(&at, at.index(r)?, i - round)?)?;
                let other =
                    at.add(llvm::load(context, pointer, chunk_type, at.location, aligned(&at, width * bytes)))?;
                total = if float { at.add(arith::addf(total, other, at.location))? } else { at.addi(total, other)? };
            }
            sums.extend(
                (0..width as usize).map(|j| if width == 1 { Some(total) } else { super::extract(&at, total, j) }),
            );
        }
    }
    let sums: Vec<IrValue<'c>> = sums.into_iter().collect::<Option<_>>()?;
    let value = super::from_elements(&at, &sums)?;
    lowering.map(op.result_at(0)?.into(), value);
    Some(())
}
