//! Layout changes: `tile.convert_layout`, and `tile.broadcast`,
//! `tile.reshape` and `tile.permute`, which are layout changes too.
//!
//! A reshape keeps the flat bases and a permute permutes them, so each is
//! a conversion from its operand's layout, reshaped or permuted, to its
//! result's. A broadcast's register `r` is the source element that the
//! result's layout, with the broadcast dims zeroed, names: a conversion to
//! that (replicated) layout of the source, whose registers are then the
//! result's as they are.
//!
//! A conversion stays in registers (a `vector.shuffle`, or nothing) when
//! every lane and warp holds the same elements in both layouts; otherwise
//! the tile goes through shared memory once: each thread writes its
//! registers (16-byte vectors where contiguous; replicated registers,
//! lanes and warps write nothing), a barrier, each thread reads the
//! elements its new layout names.

use super::{Lowering, all, concat, in_loop, shuffle, slice, vector_type, when};
use crate::{
    build::{At, CmpiPredicate, element_of, tile_type},
    layout::LinearLayout,
    rewrite::{IrValue, Probe, op_name},
};
use melior::{
    dialect::ods,
    ir::{
        OperationRef, Type, ValueLike,
        attribute::{DenseI64ArrayAttribute, IntegerAttribute},
        operation::OperationLike,
    },
};

/// Lowers one of the four ops.
pub fn lower<'c>(lowering: &mut Lowering<'c>, op: OperationRef<'c, 'c>) -> Option<()> {
    let input = op.operand_at(0)?;
    let result = op.result_at(0)?;
    let from = lowering.layout(input)?;
    let to = lowering.layout(result.into())?;
    let registers = lowering.registers(input)?;
    let at = At::before(lowering.context, op)?;
    let (shape, _) = tile_type(result.r#type())?;
    let value = match op_name(op).as_str() {
        "tile.broadcast" => {
            let source = to.broadcast_source(&from.shape);
            convert(lowering, &at, op, registers, &from, &source)?
        }
        "tile.reshape" => convert(lowering, &at, op, registers, &from.reshape(&shape), &to)?,
        "tile.permute" => {
            let attribute = DenseI64ArrayAttribute::try_from(op.attribute("permutation").ok()?).ok()?;
            let permutation: Vec<usize> = (0..attribute.len())
                .map(|i| attribute.element(i).ok().and_then(|d| usize::try_from(d).ok()))
                .collect::<Option<_>>()?;
            convert(lowering, &at, op, registers, &from.permute(&permutation), &to)?
        }
        _ => convert(lowering, &at, op, registers, &from, &to)?,
    };
    lowering.map(result.into(), value);
    Some(())
}

/// The registers of a tile in layout `to`, from its registers in `from`.
pub fn convert<'c>(
    lowering: &mut Lowering<'c>,
    at: &At<'c, 'c>,
    op: OperationRef<'c, 'c>,
    registers: IrValue<'c>,
    from: &LinearLayout,
    to: &LinearLayout,
) -> Option<IrValue<'c>> {
    if let Some(permutation) = to.register_permutation(from) {
        let identity = permutation.len() == from.registers() && permutation.iter().enumerate().all(|(i, &r)| i == r);
        return if identity { Some(registers) } else { shuffle(at, registers, registers, &permutation) };
    }
    let element = element_of(registers.r#type())?;
    // Outside loops, the memory of rings whose loops are done (an
    // accumulator's exchange after its loop), behind a barrier.
    let elements = from.elements() as i64;
    let ring = lowering.done_ring(op, elements, element);
    let buffer = match ring {
        Some(buffer) => buffer,
        None => lowering.scratch(elements, element)?,
    };
    if in_loop(op) || ring.is_some() {
        lowering.barrier(at)?;
    }
    write(lowering, at, buffer, registers, from)?;
    lowering.barrier(at)?;
    read(lowering, at, buffer, to, element)
}

fn bytes(element: Type) -> usize {
    crate::build::element_bits(element).map_or(4, |bits| (bits as usize).div_ceil(8))
}

/// Registers per access: contiguous ones, at most 16 bytes.
pub fn vector_width(layout: &LinearLayout, element: Type) -> usize {
    layout.contiguous().min((16 / bytes(element)).max(1))
}

/// Whether register `r` repeats a lower register (a zero basis).
pub fn duplicate(layout: &LinearLayout, r: usize) -> bool {
    layout.register.iter().enumerate().any(|(i, &b)| b == 0 && r >> i & 1 == 1)
}

/// The condition that this thread is the first of the threads holding the
/// same elements (zero lane and warp bases), or `None` if none repeat.
pub fn first_copy<'c>(lowering: &Lowering<'c>, at: &At<'c, 'c>, layout: &LinearLayout) -> Option<Option<IrValue<'c>>> {
    let mask = |bases: &[u64]| bases.iter().enumerate().filter(|(_, b)| **b == 0).fold(0i64, |m, (i, _)| m | 1 << i);
    let mut conditions = Vec::new();
    for (bits, id) in [(mask(&layout.lane), lowering.lane), (mask(&layout.warp), lowering.warp)] {
        if bits != 0 {
            let masked = at.andi(id, at.index(bits)?)?;
            conditions.push(at.cmpi(CmpiPredicate::Eq, masked, at.index(0)?)?);
        }
    }
    if conditions.is_empty() { Some(None) } else { Some(Some(all(at, &conditions)?)) }
}

fn write<'c>(
    lowering: &mut Lowering<'c>,
    at: &At<'c, 'c>,
    buffer: IrValue<'c>,
    registers: IrValue<'c>,
    layout: &LinearLayout,
) -> Option<()> {
    let element = element_of(registers.r#type())?;
    let width = vector_width(layout, element);
    let cluster = lowering.cluster;
    lowering.thread_flat(layout)?;
    write_chunks(lowering, at, registers, layout, width, |at, chunk, index| {
        if cluster > 1 {
            super::cluster::store_everywhere(at, chunk, buffer, index, cluster)
        } else {
            at.insert(aligned_store(at, chunk, buffer, index, width * bytes(element))?);
            Some(())
        }
    })
}

/// Runs `store` for each chunk of `width` registers a thread writes (the
/// first thread of those holding the same elements, each register once),
/// with the chunk and the flat tile index of its first element
/// ([`Lowering::thread_flat`] of the layout made before).
pub fn write_chunks<'c>(
    lowering: &Lowering<'c>,
    at: &At<'c, 'c>,
    registers: IrValue<'c>,
    layout: &LinearLayout,
    width: usize,
    store: impl Fn(&At<'c, 'c>, IrValue<'c>, IrValue<'c>) -> Option<()>,
) -> Option<()> {
    let positions: Vec<usize> = (0..width.trailing_zeros() as usize).collect();
    write_gathered(lowering, at, registers, layout, &positions, |at, chunk, index, _| store(at, chunk, index))
}

/// As [`write_chunks`], a chunk being the registers that register bases
/// `positions` reach from its first (bit `j` of the chunk's index sets
/// basis `positions[j]`), wherever those bases are among the registers';
/// `store` also gets the chunk's first register.
pub fn write_gathered<'c>(
    lowering: &Lowering<'c>,
    at: &At<'c, 'c>,
    registers: IrValue<'c>,
    layout: &LinearLayout,
    positions: &[usize],
    store: impl Fn(&At<'c, 'c>, IrValue<'c>, IrValue<'c>, usize) -> Option<()>,
) -> Option<()> {
    let thread = lowering.thread_flat_made(layout)?;
    let width = 1usize << positions.len();
    let chunk_bits = positions.iter().fold(0usize, |bits, p| bits | 1 << p);
    let leading = positions.iter().enumerate().all(|(j, &p)| j == p);
    let all_chunks = |at: &At<'c, 'c>| -> Option<()> {
        for first in (0..layout.registers()).filter(|r| r & chunk_bits == 0) {
            if duplicate(layout, first) {
                continue;
            }
            let index = at.addi(thread, at.index(layout.register_index(first) as i64)?)?;
            let chunk = if leading {
                slice(at, registers, first, width)?
            } else {
                let gathered: Vec<usize> = (0..width)
                    .map(|c| positions.iter().enumerate().fold(first, |r, (j, p)| r | (c >> j & 1) << p))
                    .collect();
                super::shuffle(at, registers, registers, &gathered)?
            };
            store(at, chunk, index, first)?;
        }
        Some(())
    };
    match first_copy(lowering, at, layout)? {
        Some(condition) => when(at, condition, all_chunks),
        None => all_chunks(at),
    }
}

fn read<'c>(
    lowering: &mut Lowering<'c>,
    at: &At<'c, 'c>,
    buffer: IrValue<'c>,
    layout: &LinearLayout,
    element: Type<'c>,
) -> Option<IrValue<'c>> {
    let width = vector_width(layout, element);
    let thread = lowering.thread_flat(layout)?;
    let mut parts = Vec::new();
    for first in (0..layout.registers()).step_by(width) {
        let index = at.addi(thread, at.index(layout.register_index(first) as i64)?)?;
        parts.push(aligned_load(at, buffer, &[index], vector_type(width, element), width * bytes(element))?);
    }
    concat(at, parts)
}

fn alignment<'c>(at: &At<'c, 'c>, bytes: usize) -> Option<IntegerAttribute<'c>> {
    Some(IntegerAttribute::new(Type::parse(at.context, "i64")?, bytes.min(16) as i64))
}

/// `vector.load` of `r#type` at `indices`, aligned to `bytes` (at most 16).
pub fn aligned_load<'c>(
    at: &At<'c, 'c>,
    memref: IrValue<'c>,
    indices: &[IrValue<'c>],
    r#type: Type<'c>,
    bytes: usize,
) -> Option<IrValue<'c>> {
    let mut load = ods::vector::load(at.context, r#type, memref, indices, at.location);
    load.set_alignment(alignment(at, bytes)?);
    at.add(load)
}

/// `vector.store` of `value` at `index` of a 1-D buffer, aligned to `bytes`.
fn aligned_store<'c>(
    at: &At<'c, 'c>,
    value: IrValue<'c>,
    memref: IrValue<'c>,
    index: IrValue<'c>,
    bytes: usize,
) -> Option<ods::vector::StoreOperation<'c>> {
    aligned_store_at(at, value, memref, &[index], bytes)
}

/// `vector.store` of `value` at `indices`, aligned to `bytes` (at most 16).
pub fn aligned_store_at<'c>(
    at: &At<'c, 'c>,
    value: IrValue<'c>,
    memref: IrValue<'c>,
    indices: &[IrValue<'c>],
    bytes: usize,
) -> Option<ods::vector::StoreOperation<'c>> {
    let mut store = ods::vector::store(at.context, value, memref, indices, at.location);
    store.set_alignment(alignment(at, bytes)?);
    Some(store)
}
