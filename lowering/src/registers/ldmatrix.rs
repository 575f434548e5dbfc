//! A thread's registers of a tile of 1-byte elements read from a swizzled
//! buffer by `ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16` and byte
//! permutes: B^T's wgmma A fragments of an 8-bit mma computed transposed
//! (`C^T = B^T A^T`, B N-major in its TMA slot), whose rows `p` and
//! `p + 8` hold C's columns `2 p` and `2 p + 1`
//! ([`super::mma::swapped_layouts`]).
//!
//! The transposed load gives lane `l` a b16 (two adjacent bytes of one
//! row) of each of two rows of an 8x8 matrix whose rows (16 bytes each)
//! the lanes address ([`LinearLayout::ldmatrix_trans_bytes`]). A fragment
//! register holds four K rows of one column where the load gives two
//! columns of two K rows, so each fragment register is a `prmt` of two
//! loaded ones. Which K row each lane addresses is ours to choose: rows
//! of a matrix whose `row mod 8` differ sit in different 16-byte chunks of
//! the swizzle, so a matrix is read in one pass of the banks. The choice
//! that spreads them XORs a loaded register's bit into a lane's, which
//! makes the permute's selector depend on the lane ([`Selector`]).
//!
//! ```text
//! (entry) selector = base ^ (lane bit b ? delta_b : 0) ^ ...
//! ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {x0, x1, x2, x3}, [row address of this lane]
//! fragment_i = prmt.b32 x_j, x_k, selector
//! ```
//!
//! [`plan`] is pure: it derives the loads and permutes from the layouts
//! and checks, for every thread, that they give each register's element
//! (`tests/integration/linear_layout.rs` replays a plan against the PTX
//! ISA's definitions of both instructions); `None` where no plan does.

use super::{Lowering, swizzle::Swizzled};
use crate::{
    build::At,
    layout::{
        LinearLayout,
        linear::{WARP, flatten},
    },
    rewrite::IrValue,
};
use melior::{
    dialect::{arith, llvm, ods},
    ir::{
        Attribute, Type,
        attribute::{DenseI64ArrayAttribute, IntegerAttribute},
        operation::OperationBuilder,
        r#type::IntegerType,
    },
};

/// How a thread's registers of a tile come from `ldmatrix` loads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// What the loads give: four 32-bit registers an instruction.
    pub loaded: LinearLayout,
    /// The first element of the row each lane addresses, an instruction a
    /// register bit ([`LinearLayout::ldmatrix_rows`]).
    pub rows: LinearLayout,
    /// For each 32-bit register of the tile's layout, its bytes.
    pub permutes: Vec<Permute>,
}

/// A 32-bit register as `prmt.b32 d, loaded[sources[0]], loaded[sources[1]], selector`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Permute {
    pub sources: [usize; 2],
    pub selector: Selector,
}

/// A `prmt` selector, affine over GF(2) in the thread's lane and warp
/// bits: `base`, XOR-ed with `lane[b]` where lane bit `b` is set and
/// `warp[b]` where warp bit `b` is.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Selector {
    pub base: u32,
    pub lane: Vec<u32>,
    pub warp: Vec<u32>,
}

/// The selector that keeps the first source as it is.
const IDENTITY: u32 = 0x3210;

impl Selector {
    /// The selector of lane `l` of warp `w`.
    pub fn of(&self, l: u64, w: u64) -> u32 {
        let part = |deltas: &[u32], bits: u64| {
            deltas.iter().enumerate().filter(|(i, _)| bits >> i & 1 == 1).fold(0, |a, (_, &d)| a ^ d)
        };
        self.base ^ part(&self.lane, l) ^ part(&self.warp, w)
    }

    fn uniform(&self) -> bool {
        self.lane.iter().chain(&self.warp).all(|&d| d == 0)
    }
}

/// The loads and permutes that read a thread's registers of a tile in
/// `layout` (1-byte elements, four a 32-bit register; dim `row_dim` runs
/// along the buffer's rows) from `buffer`, the one whose matrices' rows
/// meet the fewest bank conflicts; `None` where the layout does not give
/// a lane's eight columns of a 16-byte row two by two as the transposed
/// load does, or a register's bytes come from more than two loaded
/// registers.
pub fn plan(buffer: &Swizzled, layout: &LinearLayout, row_dim: usize) -> Option<Plan> {
    let shape = &layout.shape;
    if buffer.bytes != 1 || shape.len() != 2 || row_dim > 1 || layout.lane.len() != 5 {
        return None;
    }
    let columns = shape[1 - row_dim];
    if columns < 16 || !layout.simple() || layout.register.contains(&0) || layout.lane.contains(&0) {
        return None;
    }
    let column = |c: i64| {
        let mut index = [0, 0];
        index[1 - row_dim] = c;
        flatten(shape, &index)
    };
    let bytes = [column(1), column(2), column(4), column(8)];
    // Lanes 4 apart take b16 columns of a row: bytes 2, 4 and 8 on.
    if layout.lane[2..] != bytes[1..] {
        return None;
    }
    let byte = layout.register.iter().position(|&b| b == bytes[0])?;
    let others: Vec<u64> = layout.register.iter().enumerate().filter(|&(i, _)| i != byte).map(|(_, &b)| b).collect();
    let (&row, matrices) = others.split_first()?;
    if matrices.len() < 2 {
        return None;
    }
    // The rows of lanes 1 and 2 may take a matrix bit along: each XOR is
    // the same elements in other registers of the same thread.
    let spans = [0, matrices[0], matrices[1], matrices[0] ^ matrices[1]];
    let mut best: Option<(usize, Plan)> = None;
    for x1 in spans {
        for x2 in spans {
            let rows = [row, layout.lane[0] ^ x1, layout.lane[1] ^ x2];
            let loaded = LinearLayout::ldmatrix_trans_bytes(shape, rows, matrices, bytes, &layout.warp);
            let Some(permutes) = permutes(layout, &loaded) else { continue };
            let addresses = LinearLayout::ldmatrix_rows(shape, rows, matrices, &layout.warp)?;
            let Some(cost) = wavefronts(buffer, &addresses, row_dim, bytes) else { continue };
            if best.as_ref().is_none_or(|(least, _)| cost < *least) {
                best = Some((cost, Plan { loaded, rows: addresses, permutes }));
            }
        }
    }
    best.map(|(_, plan)| plan)
}

/// Each 32-bit register of `layout` as a permute of two of `loaded`'s,
/// the same two for every thread, with an affine selector.
fn permutes(layout: &LinearLayout, loaded: &LinearLayout) -> Option<Vec<Permute>> {
    let sources = layout.thread_sources(loaded)?;
    let threads = sources.len() as u64;
    (0..layout.registers() / 4)
        .map(|register| {
            let mut words: Vec<usize> =
                sources.iter().flat_map(|s| (0..4).map(move |j| s[4 * register + j] / 4)).collect();
            words.sort_unstable();
            words.dedup();
            let pair = match words[..] {
                [only] => [only, only],
                [a, b] => [a, b],
                _ => return None,
            };
            let selector_of = |t: u64| {
                (0..4).fold(0u32, |s, j| {
                    let source = sources[t as usize][4 * register + j];
                    let high = u32::from(source / 4 != pair[0]);
                    s | ((source % 4) as u32 | high << 2) << (4 * j)
                })
            };
            let base = selector_of(0);
            let delta = |t: u64| selector_of(t) ^ base;
            let warp_bits = (threads / WARP as u64).trailing_zeros() as usize;
            let selector = Selector {
                base,
                lane: (0..5).map(|b| delta(1 << b)).collect(),
                warp: (0..warp_bits).map(|b| delta((WARP as u64) << b)).collect(),
            };
            (0..threads)
                .all(|t| selector.of(t % WARP as u64, t / WARP as u64) == selector_of(t))
                .then_some(Permute { sources: pair, selector })
        })
        .collect()
}

/// Passes of the banks the loads' matrices take (8 rows of 16 bytes a
/// matrix, one phase each), summed over the warps' instructions; `None`
/// where a row is not 16 bytes in a row of the buffer, aligned.
fn wavefronts(buffer: &Swizzled, rows: &LinearLayout, row_dim: usize, bytes: [u64; 4]) -> Option<usize> {
    let mut total = 0;
    for w in 0..rows.warps() as u64 {
        for s in 0..rows.registers() as u64 {
            for matrix in 0..4u64 {
                let mut banks = std::collections::HashMap::<i64, std::collections::HashSet<i64>>::new();
                for i in 0..8 {
                    let first = rows.apply(s, 8 * matrix + i, w);
                    let start = buffer.offset_in(rows, row_dim, first);
                    for c in 0..16u64 {
                        let element = (0..4).filter(|b| c >> b & 1 == 1).fold(first, |e, b| e ^ bytes[b]);
                        if start % 16 != 0 || buffer.offset_in(rows, row_dim, element) != start + c as i64 {
                            return None;
                        }
                    }
                    for word in (start / 4)..(start / 4 + 4) {
                        banks.entry(word % 32).or_default().insert(word);
                    }
                }
                total += banks.values().map(|words| words.len()).max().unwrap_or(0);
            }
        }
    }
    Some(total)
}

/// Reads a thread's registers of a tile in `layout`, whose dim `row_dim`
/// runs along the rows, from `buffer` at shared-memory `address` (bytes,
/// `index`): with `ldmatrix` where [`plan`] finds a way for 1-byte
/// elements (8-bit floats' wgmma fragments), else element by element
/// ([`Swizzled::read_elements`]).
pub fn read_swizzled<'c>(
    lowering: &Lowering<'c>,
    at: &At<'c, 'c>,
    (buffer, address): (&Swizzled, IrValue<'c>),
    layout: &LinearLayout,
    row_dim: usize,
    element: melior::ir::Type<'c>,
) -> Option<IrValue<'c>> {
    match plan(buffer, layout, row_dim) {
        Some(plan) => read(lowering, at, address, (buffer, row_dim), &plan, element),
        None => buffer.read_elements(lowering, at, address, layout, row_dim, element),
    }
}

/// Emits `plan`'s loads from the buffer at shared-memory `address`
/// (bytes, `index`) laid out as `buffer` with dim `row_dim` along its
/// rows, and its permutes: the thread's registers as a vector of
/// `element`.
pub fn read<'c>(
    lowering: &Lowering<'c>,
    at: &At<'c, 'c>,
    address: IrValue<'c>,
    (buffer, row_dim): (&Swizzled, usize),
    plan: &Plan,
    element: Type<'c>,
) -> Option<IrValue<'c>> {
    let context = at.context;
    let i32_type: Type = IntegerType::new(context, 32).into();
    let four = llvm::r#type::r#struct(context, &[i32_type; 4], false);
    let named = |name: &str, value: Attribute<'c>| (melior::ir::Identifier::new(context, name), value);
    let mut loaded = Vec::new();
    buffer.for_each_address(lowering, at, address, &plan.rows, row_dim, |pointer| {
        let registers = at.add(
            OperationBuilder::new("nvvm.ldmatrix", at.location)
                .add_operands(&[pointer])
                .add_results(&[four])
                .add_attributes(&[
                    named("num", IntegerAttribute::new(i32_type, 4).into()),
                    named("layout", Attribute::parse(context, "#nvvm.mma_layout<col>")?),
                    named("shape", Attribute::parse(context, "#nvvm.ld_st_matrix_shape<m = 8, n = 8>")?),
                    named("eltType", Attribute::parse(context, "#nvvm.ld_st_matrix_elt_type<b16>")?),
                ])
                .build()
                .ok()?,
        )?;
        for i in 0..4 {
            let position = DenseI64ArrayAttribute::new(context, &[i]);
            loaded.push(at.add(llvm::extract_value(context, registers, position, i32_type, at.location))?);
        }
        Some(())
    })?;
    // The selectors, each made once; those that depend on the thread in
    // the kernel's entry.
    let mut selectors: Vec<(&Selector, IrValue<'c>)> = Vec::new();
    let mut words = Vec::new();
    for permute in &plan.permutes {
        let [lo, hi] = permute.sources;
        let (lo, hi) = (*loaded.get(lo)?, *loaded.get(hi)?);
        if permute.selector.uniform() && permute.selector.base == IDENTITY {
            words.push(lo);
            continue;
        }
        let selector = match selectors.iter().find(|(s, _)| **s == permute.selector) {
            Some(&(_, value)) => value,
            None => {
                let value = selector(lowering, &permute.selector)?;
                selectors.push((&permute.selector, value));
                value
            }
        };
        let mode = Attribute::parse(context, "#nvvm.permute_mode<default>")?;
        words.push(
            at.add(
                OperationBuilder::new("nvvm.prmt", at.location)
                    .add_operands(&[lo, hi, selector])
                    .add_results(&[i32_type])
                    .add_attributes(&[named("mode", mode)])
                    .build()
                    .ok()?,
            )?,
        );
    }
    let words = super::from_elements(at, &words)?;
    let bytes = super::vector_type(4 * plan.permutes.len(), IntegerType::new(context, 8).into());
    let bytes = at.add(ods::llvm::bitcast(context, bytes, words, at.location))?;
    // The bytes as the element type (a no-op once in LLVM).
    at.add(arith::bitcast(bytes, super::vector_type(4 * plan.permutes.len(), element), at.location))
}

/// A selector's `i32` value, computed once in the kernel's entry.
fn selector<'c>(lowering: &Lowering<'c>, selector: &Selector) -> Option<IrValue<'c>> {
    let entry = &lowering.entry;
    let i32_type: Type = IntegerType::new(entry.context, 32).into();
    let mut value = entry.index(i64::from(selector.base))?;
    for (deltas, id) in [(&selector.lane, lowering.lane), (&selector.warp, lowering.warp)] {
        for (bit, &delta) in deltas.iter().enumerate() {
            if delta == 0 {
                continue;
            }
            let set =
                entry.andi(entry.add(arith::shrui(id, entry.index(bit as i64)?, entry.location))?, entry.index(1)?)?;
            value = entry.xori(value, entry.muli(set, entry.index(i64::from(delta))?)?)?;
        }
    }
    entry.add(arith::index_cast(value, i32_type, entry.location))
}
