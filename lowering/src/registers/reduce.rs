//! `tile.reduce` in three levels, as the layout dictates.
//!
//! The operand's bases split in three: those along the reduced dim
//! (folded), the others (kept: they index the result), and zero ones
//! (copies, skipped). Registers along the dim fold within the thread;
//! lanes along it by a butterfly of `gpu.shuffle xor`, after which every
//! such lane holds the total; warps along it through shared memory: the
//! first lane of each group of equal partials writes them, a barrier, and
//! the partials of the warps that differ only in reduced bits fold: shared
//! among a warp's lanes (each reads one or a few, a butterfly folds them)
//! where no lane holds a partial of its own, else each thread reads them
//! all. Every copy folds in one fixed order, so all copies of a result are
//! the same value. In a tile block that runs as a cluster the writes go to
//! every block's buffer (`cluster.rs`). The result is in the slice layout:
//! its registers are the kept register bases, its reduced lanes and warps
//! copies.

use super::{Lowering, extract, from_elements, in_loop, when};
use crate::{
    build::{At, CmpiPredicate, combine, element_of, reduce_kind},
    layout::LinearLayout,
    rewrite::{IrValue, Probe, detach},
};
use melior::{
    dialect::arith,
    ir::{
        Attribute, Identifier, OperationRef, Type, TypeLike, ValueLike,
        attribute::IntegerAttribute,
        operation::{OperationBuilder, OperationLike},
    },
};

/// The bits of `bases` whose basis lies along `dim` (nonzero, zero once the
/// dim is projected out).
fn along(bases: &[u64], projected: &[u64]) -> Vec<usize> {
    (0..bases.len()).filter(|&i| bases[i] != 0 && projected[i] == 0).collect()
}

pub fn reduce<'c>(lowering: &mut Lowering<'c>, op: OperationRef<'c, 'c>) -> Option<()> {
    let context = lowering.context;
    let input = op.operand_at(0)?;
    let layout = lowering.layout(input)?;
    if !layout.simple() {
        return None;
    }
    let dim = usize::try_from(IntegerAttribute::try_from(op.attribute("dim").ok()?).ok()?.value()).ok()?;
    let kind = reduce_kind(op.attribute("kind").ok()?)?;
    let registers = lowering.registers(input)?;
    let element = element_of(registers.r#type())?;
    let float = element.is_float();
    let at = At::before(context, op)?;
    let fold = |at: &At<'c, 'c>, a: IrValue<'c>, b: IrValue<'c>| -> Option<IrValue<'c>> {
        at.add(combine(context, kind, float, a, b, at.location))
    };

    let projected = layout.project(dim);
    let folded = along(&layout.register, &projected.register);
    let kept: Vec<usize> =
        (0..layout.register.len()).filter(|&i| layout.register[i] != 0 && projected.register[i] != 0).collect();

    // Within the thread.
    let scatter = |bits: &[usize], value: usize| -> usize {
        bits.iter().enumerate().filter(|(j, _)| value >> j & 1 == 1).fold(0, |r, (_, &b)| r | 1 << b)
    };
    let mut partials = Vec::new();
    for k in 0..1usize << kept.len() {
        let base = scatter(&kept, k);
        let mut acc = extract(&at, registers, base)?;
        for f in 1..1usize << folded.len() {
            acc = fold(&at, acc, extract(&at, registers, base | scatter(&folded, f))?)?;
        }
        partials.push(acc);
    }

    // Across lanes.
    for lane_bit in along(&layout.lane, &projected.lane) {
        for partial in partials.iter_mut() {
            let other = shuffle_xor(&at, *partial, 1 << lane_bit)?;
            *partial = fold(&at, *partial, other)?;
        }
    }

    // Across warps.
    let warp_bits = along(&layout.warp, &projected.warp);
    if !warp_bits.is_empty() {
        across_warps(lowering, &at, &layout, &projected, &warp_bits, &mut partials, element, &fold)?;
    }

    let value = from_elements(&at, &partials)?;
    let result = op.result_at(0)?;
    let expected: LinearLayout = lowering.layout(result.into())?;
    if expected.registers() != partials.len() {
        return None;
    }
    lowering.map(result.into(), value);
    Some(())
}

/// The partials of the warps that differ only in the reduced warp bits
/// `warp_bits` folded, through shared memory: after the lane butterfly the
/// lanes along the reduced dim (and copies) hold the same partials, so the
/// first of each such group writes them; a barrier; then the fold. Where
/// no lane holds a partial of its own (a row reduced by whole warps), the
/// lanes share the reads, lane `l` folding the partials of warps `l`,
/// `l + 32`, ... and a butterfly of shuffles the rest, rather than every
/// thread reading every warp's. Every thread, warp and block of a cluster
/// folds in the same order, so all copies of a result are the same value.
#[allow(clippy::too_many_arguments)]
fn across_warps<'c>(
    lowering: &mut Lowering<'c>,
    at: &At<'c, 'c>,
    layout: &LinearLayout,
    projected: &LinearLayout,
    warp_bits: &[usize],
    partials: &mut [IrValue<'c>],
    element: Type<'c>,
    fold: &dyn Fn(&At<'c, 'c>, IrValue<'c>, IrValue<'c>) -> Option<IrValue<'c>>,
) -> Option<()> {
    let warps = layout.warps();
    // Lane bits that index different partials; the others are along the
    // reduced dim or copies.
    let kept_lanes =
        (0..layout.lane.len()).filter(|&i| layout.lane[i] != 0 && projected.lane[i] != 0).fold(0i64, |m, i| m | 1 << i);
    let shared_reads = kept_lanes == 0;
    let lanes_per_warp = if shared_reads { 1 } else { 32 };
    let slots = partials.len() as i64 * warps * lanes_per_warp;
    let buffer = lowering.scratch(slots, element)?;
    let own_lane = at.andi(lowering.lane, at.index(kept_lanes)?)?;
    let slot = |at: &At<'c, 'c>, k: usize, warp: IrValue<'c>| -> Option<IrValue<'c>> {
        let row = at.addi(at.index(k as i64 * warps)?, warp)?;
        if shared_reads { Some(row) } else { at.addi(at.muli(row, at.index(32)?)?, own_lane) }
    };
    if in_loop(at.before?) {
        lowering.barrier(at)?;
    }
    let writer = at.cmpi(CmpiPredicate::Eq, at.andi(lowering.lane, at.index(31 & !kept_lanes)?)?, at.index(0)?)?;
    when(at, writer, |inner| {
        for (k, partial) in partials.iter().enumerate() {
            let index = slot(inner, k, lowering.warp)?;
            lowering.exchange_store(inner, *partial, buffer, index)?;
        }
        Some(())
    })?;
    lowering.barrier(at)?;
    let mask = warp_bits.iter().fold(0i64, |m, &b| m | 1 << b);
    let others = at.andi(lowering.warp, at.index(!mask & (warps - 1))?)?;
    // The warp whose reduced bits are the bits of `z`.
    let warp_of = |at: &At<'c, 'c>, z: IrValue<'c>| -> Option<IrValue<'c>> {
        let mut warp = others;
        for (t, &bit) in warp_bits.iter().enumerate() {
            let one = at.andi(at.add(arith::shrui(z, at.index(t as i64)?, at.location))?, at.index(1)?)?;
            warp = at.addi(warp, at.muli(one, at.index(1 << bit)?)?)?;
        }
        Some(warp)
    };
    let reduced_warps = 1usize << warp_bits.len();
    for (k, partial) in partials.iter_mut().enumerate() {
        let mut acc = None;
        if shared_reads {
            let spread = reduced_warps.min(32);
            let first = at.remui(lowering.lane, at.index(spread as i64)?)?;
            for j in 0..reduced_warps.div_ceil(32) {
                let z = at.addi(first, at.index(32 * j as i64)?)?;
                let index = slot(at, k, warp_of(at, z)?)?;
                let value = at.add(melior::dialect::memref::load(buffer, &[index], at.location))?;
                acc = Some(match acc {
                    None => value,
                    Some(a) => fold(at, a, value)?,
                });
            }
            let mut value = acc?;
            for t in 0..spread.trailing_zeros() {
                let other = shuffle_xor(at, value, 1 << t)?;
                value = fold(at, value, other)?;
            }
            *partial = value;
        } else {
            for z in 0..reduced_warps {
                let bits =
                    warp_bits.iter().enumerate().filter(|(t, _)| z >> t & 1 == 1).fold(0, |m, (_, &b)| m | 1 << b);
                let index = slot(at, k, at.addi(others, at.index(bits)?)?)?;
                let value = at.add(melior::dialect::memref::load(buffer, &[index], at.location))?;
                acc = Some(match acc {
                    None => value,
                    Some(a) => fold(at, a, value)?,
                });
            }
            *partial = acc?;
        }
    }
    Some(())
}

/// `gpu.shuffle <mode>` of an `i32` (`mode` `xor`: by `operand`, a lane
/// mask; `idx`: from lane `operand`), across the whole warp.
pub fn shuffle_i32<'c>(at: &At<'c, 'c>, word: IrValue<'c>, operand: i64, mode: &str) -> Option<IrValue<'c>> {
    let context = at.context;
    let i32_type = Type::parse(context, "i32")?;
    let (operand, width) = (at.int(i32_type, operand)?, at.int(i32_type, 32)?);
    let op = at.insert(
        OperationBuilder::new("gpu.shuffle", at.location)
            .add_operands(&[word, operand, width])
            .add_results(&[i32_type, Type::parse(context, "i1")?])
            .add_attributes(&[(
                Identifier::new(context, "mode"),
                Attribute::parse(context, &format!("#gpu<shuffle_mode {mode}>"))?,
            )])
            .build()
            .ok()?,
    );
    Some(detach(op.result_at(0)?.into()))
}

/// `gpu.shuffle xor` of a scalar by `mask`, for any element of 8 to 64
/// bits: narrower ones travel as `i32`, 64-bit ones as two `i32` halves.
pub fn shuffle_xor<'c>(at: &At<'c, 'c>, value: IrValue<'c>, mask: i64) -> Option<IrValue<'c>> {
    let context = at.context;
    let r#type = value.r#type();
    let bits = crate::build::element_bits(r#type)? as u32;
    let i32_type = Type::parse(context, "i32")?;
    let int = |bits: u32| Type::parse(context, &format!("i{bits}"));
    let as_int = if r#type.is_float() { at.add(arith::bitcast(value, int(bits)?, at.location))? } else { value };
    let shuffled = |at: &At<'c, 'c>, word: IrValue<'c>| shuffle_i32(at, word, mask, "xor");
    let result = match bits {
        32 => shuffled(at, as_int)?,
        64 => {
            let i64_type = int(64)?;
            let low = at.add(arith::trunci(as_int, i32_type, at.location))?;
            let high = at.add(arith::shrui(as_int, at.int(i64_type, 32)?, at.location))?;
            let high = at.add(arith::trunci(high, i32_type, at.location))?;
            let (low, high) = (shuffled(at, low)?, shuffled(at, high)?);
            let low = at.add(arith::extui(low, i64_type, at.location))?;
            let high = at.add(arith::extui(high, i64_type, at.location))?;
            let high = at.add(arith::shli(high, at.int(i64_type, 32)?, at.location))?;
            at.add(arith::ori(low, high, at.location))?
        }
        _ => {
            let wide = at.add(arith::extui(as_int, i32_type, at.location))?;
            let back = shuffled(at, wide)?;
            at.add(arith::trunci(back, int(bits)?, at.location))?
        }
    };
    if r#type.is_float() { at.add(arith::bitcast(result, r#type, at.location)) } else { Some(result) }
}
