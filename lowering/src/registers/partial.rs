//! `tile.partial_store` and `tile.partial_sum` (`tile-stream-k`): a block
//! publishes the accumulator of its piece of a tile's K loop through
//! global memory, and the block that owns the tile adds the published
//! pieces to its own.
//!
//! ```text
//! partial_store (slot s):
//!   st.global.v4.f32 [workspace + 4 (s N + 4 (i / 4) T + 4 t)], registers i..i+4   // each thread
//!   bar.sync (the consumers' named barrier under a producer warp)
//!   thread 0: fence.acq_rel.gpu; st.relaxed.gpu.global.b32 [flags + 4 s], 1
//! partial_sum (slots first..last):
//!   scf.for s = first to last (the running sum carried):
//!     thread 0: spin on ld.acquire.gpu.global.b32 [flags + 4 s] until 1; then store 0
//!     bar.sync
//!     ld.global.cg.v4.f32 (the same addresses); add to the running sum
//! ```
//!
//! A slot holds each thread's registers in their own order (register `i`
//! of thread `t` at element `i T + t`, four at a time so that a warp's
//! accesses are 512 consecutive bytes), which is the same in every block
//! of the kernel: no layout changes hands. The flag is the usual release
//! and acquire pair at the device's scope: the barrier orders every
//! thread's writes before thread 0's fence, and thread 0's acquiring load
//! before every thread's reads. The reads go to L2 (`.cg`), which the
//! writes reached. Resetting the flag after the acquire leaves every flag
//! zero at the kernel's end, for the next launch (the runtime zeroes the
//! flags once, when it allocates them).
//!
//! Deadlock freedom is `tile-stream-k`'s: a block waits only for blocks
//! with a higher index, each of which publishes its piece before it waits
//! for anything, and every block is resident (a persistent launch).

use crate::{
    build::{At, CmpiPredicate},
    rewrite::{BlockProbe, IrValue, Probe},
};
use melior::{
    dialect::{arith, llvm, scf},
    ir::{
        Block, Region, RegionLike, Type, ValueLike,
        operation::{OperationBuilder, OperationLike, OperationRef},
        r#type::IntegerType,
    },
};

/// Registers moved at a time (16 bytes of f32).
const WIDTH: usize = 4;

/// The byte address of chunk `chunk` (registers `WIDTH chunk ..`) of this
/// thread in slot `slot`, and the flag's address.
struct Slots<'c> {
    workspace: super::global::Global<'c>,
    flags: super::global::Global<'c>,
    thread: IrValue<'c>,
    threads: i64,
    registers: usize,
}

impl<'c> Slots<'c> {
    fn new(
        lowering: &super::Lowering<'c>,
        at: &At<'c, 'c>,
        op: OperationRef<'c, 'c>,
        (workspace, flags): (usize, usize),
        registers: usize,
    ) -> Option<Self> {
        let workspace = super::global::global_pointer(at, crate::rewrite::detach(op.operand_at(workspace)?), 4)?;
        let flags = super::global::global_pointer(at, crate::rewrite::detach(op.operand_at(flags)?), 4)?;
        let thread = at.addi(at.muli(lowering.warp, at.index(32)?)?, lowering.lane)?;
        Some(Slots { workspace, flags, thread, threads: lowering.warps * 32, registers })
    }

    /// The global pointer of the chunk.
    fn chunk(&self, at: &At<'c, 'c>, slot: IrValue<'c>, chunk: usize) -> Option<IrValue<'c>> {
        super::global::Global::pointer_at(at, self.chunk_address(at, slot, chunk)?)
    }

    /// The byte address of the chunk (an index).
    fn chunk_address(&self, at: &At<'c, 'c>, slot: IrValue<'c>, chunk: usize) -> Option<IrValue<'c>> {
        let slot_elements = at.index(self.registers as i64 * self.threads)?;
        let within = at.addi(
            at.index((chunk as i64) * self.threads * WIDTH as i64)?,
            at.muli(self.thread, at.index(WIDTH as i64)?)?,
        )?;
        let element = at.addi(at.muli(slot, slot_elements)?, within)?;
        at.addi(self.workspace.start(at)?, at.muli(element, at.index(4)?)?)
    }

    fn flag(&self, at: &At<'c, 'c>, slot: IrValue<'c>) -> Option<IrValue<'c>> {
        at.addi(self.flags.start(at)?, at.muli(slot, at.index(4)?)?)
    }

    fn is_first_thread(&self, at: &At<'c, 'c>) -> Option<IrValue<'c>> {
        at.cmpi(CmpiPredicate::Eq, self.thread, at.index(0)?)
    }
}

/// The registers of a float accumulator, checked for the slot layout: a
/// whole number of chunks, and as many registers in the block as the
/// slots the runtime allocates hold (the kernel's `tile.stream_k`), so one
/// copy of each element.
fn accumulator<'c>(lowering: &super::Lowering<'c>, op: OperationRef<'c, 'c>) -> Option<(IrValue<'c>, usize)> {
    let own = lowering.registers(op.operand_at(0)?)?;
    let count = super::length(own)?;
    let element = crate::build::element_of(own.r#type())?;
    let mut kernel = op.parent_operation();
    while let Some(parent) = kernel.filter(|k| crate::rewrite::op_name(*k) != "func.func") {
        kernel = parent.parent_operation();
    }
    let slot = kernel
        .and_then(|k| k.attribute(tile_dialect::attrs::STREAM_K).ok())
        .and_then(|a| melior::ir::attribute::DenseI64ArrayAttribute::try_from(a).ok())
        .and_then(|a| a.element(0).ok());
    if element != Type::float32(lowering.context)
        || count % WIDTH != 0
        || slot != Some(count as i64 * lowering.warps * 32)
    {
        return lowering.refuse(
            "a partial tile moves an f32 accumulator of four-aligned registers that hold each element of a \
             tile.stream_k slot once",
        );
    }
    Some((own, count))
}

fn i64_of<'c>(at: &At<'c, 'c>, address: IrValue<'c>) -> Option<IrValue<'c>> {
    at.add(arith::index_cast(address, IntegerType::new(at.context, 64).into(), at.location))
}

/// Lowers `tile.partial_store` (see the module's summary).
pub fn store<'c>(lowering: &mut super::Lowering<'c>, op: OperationRef<'c, 'c>) -> Option<()> {
    let (own, count) = accumulator(lowering, op)?;
    let context = lowering.context;
    let at = At::before(context, op)?;
    let slots = Slots::new(lowering, &at, op, (1, 3), count)?;
    let slot = crate::rewrite::detach(op.operand_at(2)?);
    for chunk in 0..count / WIDTH {
        let elements: Vec<IrValue<'c>> =
            (0..WIDTH).map(|j| super::extract(&at, own, chunk * WIDTH + j)).collect::<Option<_>>()?;
        let value = super::from_elements(&at, &elements)?;
        at.insert(llvm::store(
            context,
            value,
            slots.chunk(&at, slot, chunk)?,
            at.location,
            super::cluster_sum::aligned(&at, 16),
        ));
    }
    lowering.barrier(&at)?;
    let flag = slots.flag(&at, slot)?;
    super::when(&at, slots.is_first_thread(&at)?, |at| {
        let flag = i64_of(at, flag)?;
        at.insert(at.asm("fence.acq_rel.gpu;\n\tst.relaxed.gpu.global.b32 [$0], 1;", "l,~{memory}", &[flag], None)?);
        Some(())
    })
}

/// Lowers `tile.partial_sum` (see the module's summary).
pub fn sum<'c>(lowering: &mut super::Lowering<'c>, op: OperationRef<'c, 'c>) -> Option<()> {
    let (own, count) = accumulator(lowering, op)?;
    let context = lowering.context;
    let at = At::before(context, op)?;
    let slots = Slots::new(lowering, &at, op, (1, 4), count)?;
    let (first, last) = (crate::rewrite::detach(op.operand_at(2)?), crate::rewrite::detach(op.operand_at(3)?));
    let vector = own.r#type();
    let f32_type = Type::float32(context);
    let quad: Type = llvm::r#type::r#struct(context, &[f32_type; WIDTH], false);
    let location = at.location;
    let region = Region::new();
    let block = region.append_block(Block::new(&[(Type::index(context), location), (vector, location)]));
    let slot = crate::rewrite::detach(block.argument_at(0)?.into());
    let running = crate::rewrite::detach(block.argument_at(1)?.into());
    let body = At { context, location, block, before: None };
    let flag = slots.flag(&body, slot)?;
    super::when(&body, slots.is_first_thread(&body)?, |at| {
        let flag = i64_of(at, flag)?;
        at.insert(at.asm(
            "{\n\t.reg .pred ready;\n\t.reg .b32 value;\n\tWAIT:\n\tld.acquire.gpu.global.b32 value, [$0];\n\t\
             setp.ne.s32 ready, value, 0;\n\t@!ready bra WAIT;\n\tst.relaxed.gpu.global.b32 [$0], 0;\n\t}",
            "l,~{memory}",
            &[flag],
            None,
        )?);
        Some(())
    })?;
    lowering.barrier(&body)?;
    let mut sums = Vec::with_capacity(count);
    for chunk in 0..count / WIDTH {
        let address = i64_of(&body, slots.chunk_address(&body, slot, chunk)?)?;
        let loaded = body.add(body.asm(
            "ld.global.cg.v4.f32 {$0, $1, $2, $3}, [$4];",
            "=f,=f,=f,=f,l,~{memory}",
            &[address],
            Some(quad),
        )?)?;
        let parts = body.fields(loaded, &[f32_type; WIDTH])?;
        for (j, part) in parts.into_iter().enumerate() {
            let mine = super::extract(&body, running, chunk * WIDTH + j)?;
            sums.push(body.add(arith::addf(mine, part, location))?);
        }
    }
    let next = super::from_elements(&body, &sums)?;
    body.insert(scf::r#yield(&[next], location));
    let step = at.index(1)?;
    let r#loop = at.insert(
        OperationBuilder::new("scf.for", location)
            .add_operands(&[first, last, step, own])
            .add_results(&[vector])
            .add_regions([region])
            .build()
            .ok()?,
    );
    let total = crate::rewrite::detach(r#loop.result_at(0)?.into());
    lowering.map(op.result_at(0)?.into(), total);
    Some(())
}
