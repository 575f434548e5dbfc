//! Which tiles `tile-assign-layouts` keeps in shared memory: the operands
//! of a `tile.mma` that come straight from `tile.load`s.
//!
//! wgmma reads its operands from shared memory in a swizzled layout
//! (`#tile.shared`). A tile that is loaded only to feed mmas (directly,
//! through `tile.permute`s, or carried by loops, as `tile-prefetch-loads`
//! carries the tiles it loads ahead) never needs to be in registers: the
//! load copies it from global memory into that layout (`cp.async`), and
//! the mma reads it there. Such a tile and everything tied to it (the
//! permuted, carried and reshaped values: a `1 x R x C` tile read as
//! `R x C`) form a *chain*; a chain is kept in shared
//! memory when every value of it is one of these and every mma reading it
//! can: 16-bit operands either way round (the descriptor's transpose
//! reads an M- or N-major tile), f32 (tf32) and 8-bit float operands only
//! K-major, which is all wgmma reads for them, and rows of at least 32
//! bytes. One exception: the N-major B of an mma computed transposed
//! ([`swapped_operands`]) stays too, since the threads, not wgmma, read it
//! (into B^T's fragments).
//!
//! Every value of a chain gets `#tile.shared<swizzle_bytes = R,
//! element_bits = B, transposed = T>`: `R` the bytes of the loaded tile's
//! rows up to 128, `T` whether the value is the loaded tile permuted.

use crate::{
    build::tile_type,
    layout::element_bytes,
    rewrite::{BlockProbe, IrValue, Probe, detach, op_name, uses},
};
use melior::ir::{
    BlockLike, OperationRef, RegionLike, Value, ValueLike,
    operation::{OperationLike, WalkOrder, WalkResult},
};
use std::collections::HashMap;
use tile_dialect::layout::Layout;

/// The largest swizzle (bytes of a row) of a shared operand.
pub const SWIZZLE: i64 = 128;

fn key(value: Value) -> usize {
    value.to_raw().ptr as usize
}

/// A chain: its values, each with whether it is its loads' tile permuted;
/// the loads; the mma operands it feeds (the op, 0 or 1, permuted).
#[derive(Default)]
struct Chain<'c> {
    values: HashMap<usize, (IrValue<'c>, bool)>,
    loads: Vec<(OperationRef<'c, 'c>, bool)>,
    mmas: Vec<(OperationRef<'c, 'c>, usize, bool)>,
}

/// An mma operand (0: A, 1: B) that is not kept in shared memory, and why.
pub struct NotShared<'c> {
    pub mma: OperationRef<'c, 'c>,
    pub index: usize,
    pub why: String,
}

impl NotShared<'_> {
    /// Says at the mma (for `pass`) that the operand goes through registers.
    pub fn remark(&self, pass: &str) {
        crate::remarks::missed(
            self.mma.location(),
            pass,
            "SharedOperand",
            &format!(
                "operand {} of this tile.mma is written to shared memory from registers at every mma, not loaded \
                 there: {}",
                if self.index == 0 { "A" } else { "B" },
                self.why
            ),
        );
    }
}

/// The tiles of `kernel` to keep in shared memory, with their layouts,
/// and the mma operands that are not, with why.
pub fn shared_operands<'c>(kernel: OperationRef<'c, '_>) -> (Vec<(IrValue<'c>, Layout)>, Vec<NotShared<'c>>) {
    let mut mmas = Vec::new();
    kernel.walk(WalkOrder::PreOrder, |op| {
        if op_name(op) == "tile.mma" {
            // SAFETY: an op of the kernel, alive for the whole pass.
            mmas.push(unsafe { OperationRef::<'c, 'c>::from_raw(op.to_raw()) });
        }
        WalkResult::Advance
    });
    let mut seen = HashMap::new();
    let mut chosen = Vec::new();
    let mut not_shared = Vec::new();
    for mma in mmas {
        for index in 0..2 {
            let Some(operand) = mma.operand_at(index) else { continue };
            if seen.contains_key(&key(operand)) {
                continue;
            }
            let chain = chain(detach(operand));
            if let Ok(chain) = &chain {
                for &(value, _) in chain.values.values() {
                    seen.insert(key(value), ());
                }
            }
            seen.insert(key(operand), ());
            match chain.and_then(|c| layouts(&c, true)) {
                Ok(layouts) => chosen.extend(layouts),
                Err(why) => not_shared.push(NotShared { mma, index, why }),
            }
        }
    }
    (chosen, not_shared)
}

/// Whether the tile `load` loads stays in shared memory (an mma operand
/// that the tensor cores can read there).
pub fn stays_shared(load: OperationRef) -> bool {
    load.result_at(0).is_some_and(|r| chain(detach(r.into())).and_then(|c| layouts(&c, true)).is_ok())
}

/// The values tied to `start` (its loads, the loops carrying it, the mma
/// operands it is) when every one is a load, carried value or mma operand
/// of `start`'s shape, none permuted or reshaped.
pub fn unpermuted_chain(start: IrValue) -> Option<Vec<IrValue>> {
    let chain = chain(start).ok()?;
    let shape = tile_type(start.r#type())?.0;
    let same = |value: IrValue| tile_type(value.r#type()).is_some_and(|(s, _)| s == shape);
    let values: Vec<IrValue> = chain.values.values().map(|&(value, _)| value).collect();
    (chain.values.values().all(|&(_, permuted)| !permuted) && values.iter().all(|v| same(*v))).then_some(values)
}

/// Whether `mma` is computed transposed, `C^T = B^T A^T`: its kernel does
/// not have the `swap_operands = 0` hint, its B is a tf32 or 8-bit float
/// tile loaded N-major (which wgmma reads from shared memory only
/// K-major) that feeds only this mma, and its A stays in shared memory
/// (K-major). B stays in shared memory too, N-major as loaded (a ring the
/// TMA can fill): at each mma the threads read wgmma's A fragments of
/// `B^T` from it, and wgmma takes them from registers (its register form)
/// and reads `A` where it is, K-major, as its B; the accumulator holds
/// `C^T` in the wgmma layout (a transposed one for `C`). No thread writes
/// B into shared memory, and no barrier waits for such writes (CUTLASS's
/// register-sourced tf32 kernels do the same). `B^T`'s rows are wgmma's
/// 64-row blocks, so N is a multiple of 64; M is the instruction's N, up
/// to 256 (and, as for any mma on wgmma, a multiple of 64). The warpgroups
/// come from N then (`layout::assign`), so an mma with fewer 64-column
/// blocks than 64-row ones is left as it is: it would lose threads.
pub fn swapped_operands(mma: OperationRef) -> bool {
    let mut kernel = mma.parent_operation();
    while let Some(op) = kernel.filter(|op| op_name(*op) != "func.func") {
        kernel = op.parent_operation();
    }
    let knob = tile_dialect::attrs::knob::SWAP_OPERANDS;
    if kernel.and_then(|k| crate::rewrite::hint(k, knob.key)).or(knob.default) != Some(1) {
        return false;
    }
    let tile = |i: usize| mma.operand_at(i).and_then(|v| tile_type(v.r#type()));
    let (Some((a, ae)), Some((b, be)), Some((_, ce))) = (tile(0), tile(1), tile(2)) else { return false };
    let (&[m, _], &[_, n]) = (&a[..], &b[..]) else { return false };
    // tf32 or 8-bit floats: the types wgmma reads only K-major.
    let (ae, be, ce) = (ae.to_string(), be.to_string(), ce.to_string());
    let k_major_only = matches!(ae.as_str(), "f32" | "f8E4M3FN" | "f8E5M2");
    let warpgroups = |rows: i64| (rows / crate::registers::mma::WGMMA_M).clamp(1, 2);
    if !k_major_only
        || n % 64 != 0
        || m > 256
        || warpgroups(n) < warpgroups(m)
        || crate::registers::mma::unsupported((&a, &ae), (&b, &be), &ce).is_some()
    {
        return false;
    }
    let (Some(a), Some(b)) = (mma.operand_at(0), mma.operand_at(1)) else { return false };
    let a_shared = chain(detach(a)).and_then(|c| layouts(&c, false)).is_ok();
    let b_chain = chain(detach(b));
    let b_loaded_n_major = b_chain.as_ref().is_ok_and(|c| c.mmas.len() == 1 && layouts(c, false).is_err())
        && unpermuted_chain(detach(b)).is_some();
    a_shared && b_loaded_n_major
}

/// Whether the tile `load` loads only feeds mmas (directly, permuted,
/// reshaped or carried by loops), wherever the mma reads it from.
pub fn feeds_only_mmas(load: OperationRef) -> bool {
    load.result_at(0).is_some_and(|r| chain(detach(r.into())).is_ok())
}

/// The chain of `start`, if every value of it is a load, permute, reshape
/// or carried value and every use an mma operand, permute, reshape or
/// carry; else why not.
fn chain(start: IrValue) -> Result<Chain, String> {
    chain_of(start).map_err(|why| why.unwrap_or_else(|| "its values could not be followed".into()))
}

fn chain_of(start: IrValue) -> Result<Chain, Option<String>> {
    let mut chain = Chain::default();
    let mut work = vec![(start, false)];
    while let Some((value, permuted)) = work.pop() {
        if let Some(&(_, was)) = chain.values.get(&key(value)) {
            if was != permuted {
                return Err(Some("its tile is read both as loaded and transposed".into()));
            }
            continue;
        }
        tile_type(value.r#type()).ok_or(None)?;
        chain.values.insert(key(value), (value, permuted));
        // Where the value comes from.
        // SAFETY: read-only queries of a live value and its owner.
        let argument = unsafe { mlir_sys::mlirValueIsABlockArgument(value.to_raw()) };
        if argument {
            // SAFETY: as above: the owner block of a block argument.
            let (block, number) = unsafe {
                (
                    melior::ir::BlockRef::from_raw(mlir_sys::mlirBlockArgumentGetOwner(value.to_raw())),
                    mlir_sys::mlirBlockArgumentGetArgNumber(value.to_raw()) as usize,
                )
            };
            let owner = block.parent_operation().ok_or(None)?;
            if op_name(owner) != "scf.for" || number == 0 {
                return Err(Some(format!("it is an argument of '{}'", op_name(owner))));
            }
            let i = number - 1;
            work.push((detach(owner.operand_at(3 + i).ok_or(None)?), permuted));
            work.push((detach(owner.result_at(i).ok_or(None)?.into()), permuted));
            work.push((detach(yield_of(owner).ok_or(None)?.operand_at(i).ok_or(None)?), permuted));
        } else {
            let result = crate::rewrite::op_result(value).ok_or(None)?;
            // SAFETY: the owner of a live result is a live op of the kernel.
            let owner = unsafe { OperationRef::<'_, '_>::from_raw(result.owner().to_raw()) };
            match op_name(owner).as_str() {
                // SAFETY: as above.
                "tile.load" => chain.loads.push((unsafe { OperationRef::from_raw(owner.to_raw()) }, permuted)),
                "tile.permute" => work.push((detach(owner.operand_at(0).ok_or(None)?), !permuted)),
                "tile.reshape" if drops_unit_dim(owner) => {
                    work.push((detach(owner.operand_at(0).ok_or(None)?), permuted))
                }
                "scf.for" => {
                    let i = result.result_number();
                    let body = owner.region_at(0).ok_or(None)?.first_block().ok_or(None)?;
                    work.push((detach(body.argument_at(i + 1).ok_or(None)?.into()), permuted));
                }
                name => return Err(Some(format!("it is computed (by '{name}'), not loaded"))),
            }
        }
        // Where it goes.
        for (user, number) in uses(value) {
            let result = |i: usize| user.result_at(i).map(|r| detach(r.into())).ok_or(None);
            match op_name(user).as_str() {
                // SAFETY: a live op of the kernel.
                "tile.mma" if number < 2 => {
                    chain.mmas.push((unsafe { OperationRef::from_raw(user.to_raw()) }, number, permuted))
                }
                "tile.permute" => work.push((result(0)?, !permuted)),
                "tile.reshape" if drops_unit_dim(user) => work.push((result(0)?, permuted)),
                "scf.yield" => {
                    let parent = user.parent_operation().ok_or(None)?;
                    if op_name(parent) != "scf.for" {
                        return Err(Some(format!("its tile is yielded by '{}'", op_name(parent))));
                    }
                    work.push((detach(parent.result_at(number).ok_or(None)?.into()), permuted));
                }
                "scf.for" if number >= 3 => {
                    let body = user.region_at(0).ok_or(None)?.first_block().ok_or(None)?;
                    work.push((detach(body.argument_at(number - 2).ok_or(None)?.into()), permuted));
                }
                name => return Err(Some(format!("its tile is also used by '{name}'"))),
            }
        }
    }
    Ok(chain)
}

/// Whether a `tile.reshape` only drops a leading unit dim (`1 x R x C` to
/// `R x C`): the same bytes in shared memory.
pub fn drops_unit_dim(op: OperationRef) -> bool {
    let shape = |t: Option<melior::ir::Type>| t.and_then(|t| tile_type(t).map(|(s, _)| s));
    match (shape(op.operand_at(0).map(|v| v.r#type())), shape(op.result_at(0).map(|r| r.r#type()))) {
        (Some(from), Some(to)) => from.len() == 3 && from[0] == 1 && from[1..] == to[..],
        _ => false,
    }
}

/// The `scf.yield` of a loop.
fn yield_of<'c, 'a>(r#loop: OperationRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let body = r#loop.region_at(0)?.first_block()?;
    let terminator = body.terminator()?;
    // SAFETY: the terminator of a live loop's body lives as long as it.
    Some(unsafe { OperationRef::from_raw(terminator.to_raw()) })
}

/// The layouts of a chain's values, if every load and mma of it can keep
/// it in shared memory; else why not. With `threads_read`, the N-major B
/// of an mma computed transposed stays there too: the threads read its
/// fragments at the mma; without, only what wgmma reads.
fn layouts<'c>(chain: &Chain<'c>, threads_read: bool) -> Result<Vec<(IrValue<'c>, Layout)>, String> {
    let unfollowed = || "its values could not be followed".to_string();
    let &(first, load_permuted) = chain.loads.first().ok_or_else(unfollowed)?;
    if chain.mmas.is_empty() || chain.loads.iter().any(|&(_, p)| p != load_permuted) {
        return Err(unfollowed());
    }
    let (shape, element) = first.result_at(0).and_then(|r| tile_type(r.r#type())).ok_or_else(unfollowed)?;
    let bytes = element_bytes(element);
    let columns = match shape[..] {
        [_, columns] | [1, _, columns] => columns,
        _ => return Err(format!("its tile has {} dims", shape.len())),
    };
    let row = columns * bytes;
    if row < 32 || row.count_ones() != 1 {
        return Err(format!("its loaded rows are {row} bytes (wgmma's swizzles take 32, 64 or 128)"));
    }
    for &(mma, index, permuted) in &chain.mmas {
        let tile = |i: usize| mma.operand_at(i).and_then(|v| tile_type(v.r#type()));
        let (Some((a, ae)), Some((b, be)), Some((_, ce))) = (tile(0), tile(1), tile(2)) else {
            return Err(unfollowed());
        };
        if let Some(why) =
            crate::registers::mma::unsupported((&a, &ae.to_string()), (&b, &be.to_string()), &ce.to_string())
        {
            return Err(why);
        }
        // K is the last dim of A and the first of B; the value's rows run
        // along its contiguous dim unless it is transposed.
        let transposed = permuted != load_permuted;
        let k_major = if index == 0 { !transposed } else { transposed };
        let read_by_threads = threads_read && index == 1 && !transposed && swapped_operands(mma);
        if bytes != 2 && !k_major && !read_by_threads {
            return Err(format!(
                "it is {element}{}, which wgmma reads only K-major, and its loaded rows run along {}",
                if bytes == 4 { " (tf32)" } else { "" },
                if index == 0 { "M" } else { "N" }
            ));
        }
    }
    let swizzle = row.min(SWIZZLE);
    Ok(chain
        .values
        .values()
        .map(|&(value, permuted)| {
            let layout = Layout::Shared {
                swizzle_bytes: swizzle,
                element_bits: bytes * 8,
                transposed: permuted != load_permuted,
            };
            (value, layout)
        })
        .collect())
}
