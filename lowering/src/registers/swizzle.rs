//! The layout of a tile in shared memory as wgmma and the TMA read it:
//! rows of `R` bytes (the swizzle: 32, 64 or 128), each row's 16-byte
//! chunks XOR-ed with the row's index mod 8; a loaded row longer than `R`
//! is cut into blocks of `R` bytes, each block all the rows of the tile,
//! one after the other. The copies into shared memory
//! ([`super::shared`], [`super::unaligned`]) and the mma's operand writes
//! ([`super::mma`]) address buffers through it.

use super::Lowering;
use crate::{build::At, layout::LinearLayout, rewrite::IrValue};
use melior::dialect::arith;

/// A swizzled buffer: `rows` rows of `row` bytes of elements of `bytes`
/// bytes; a longer row is cut into blocks of `row` bytes, each block all
/// the rows.
#[derive(Clone, Copy, Debug)]
pub struct Swizzled {
    pub rows: i64,
    pub row: i64,
    pub bytes: i64,
}

impl Swizzled {
    /// The byte offset of element `column` of row `row`.
    pub fn offset<'c>(&self, at: &At<'c, 'c>, row: IrValue<'c>, column: IrValue<'c>) -> Option<IrValue<'c>> {
        let per_row = self.row / self.bytes;
        let block = at.divui(column, at.index(per_row)?)?;
        let within = at.remui(column, at.index(per_row)?)?;
        let x = at.addi(at.muli(row, at.index(self.row)?)?, at.muli(within, at.index(self.bytes)?)?)?;
        let mask = (self.row - 16).max(0) & 0x70;
        let swizzled = at.xori(x, at.andi(at.add(arith::shrui(x, at.index(3)?, at.location))?, at.index(mask)?)?)?;
        at.addi(at.muli(block, at.index(self.rows * self.row)?)?, swizzled)
    }

    /// [`Self::offset`] of a known element.
    pub fn offset_of(&self, row: i64, column: i64) -> i64 {
        let per_row = self.row / self.bytes;
        let x = row * self.row + (column % per_row) * self.bytes;
        let mask = (self.row - 16).max(0) & 0x70;
        (column / per_row) * self.rows * self.row + (x ^ ((x >> 3) & mask))
    }

    /// Reads a thread's registers of a tile in `layout`, whose dim
    /// `row_dim` runs along the rows, from the buffer at shared-memory
    /// `address` (bytes, `index`), one element a load at the addresses of
    /// [`Self::for_each_address`] ([`super::ldmatrix::read_swizzled`]
    /// tries `ldmatrix` first). 8-bit floats, which are no LLVM type, are
    /// loaded as bytes (`i8`).
    pub fn read_elements<'c>(
        &self,
        lowering: &Lowering<'c>,
        at: &At<'c, 'c>,
        address: IrValue<'c>,
        layout: &LinearLayout,
        row_dim: usize,
        element: melior::ir::Type<'c>,
    ) -> Option<IrValue<'c>> {
        let loaded = match self.bytes {
            1 => melior::ir::r#type::IntegerType::new(at.context, 8).into(),
            _ => element,
        };
        let mut elements = Vec::new();
        self.for_each_address(lowering, at, address, layout, row_dim, |pointer| {
            let alignment =
                melior::ir::attribute::IntegerAttribute::new(melior::ir::Type::parse(at.context, "i64")?, self.bytes);
            elements.push(at.add(melior::dialect::llvm::load(
                at.context,
                pointer,
                loaded,
                at.location,
                melior::dialect::llvm::LoadStoreOptions::new().align(Some(alignment)),
            ))?);
            Some(())
        })?;
        let bytes = super::from_elements(at, &elements)?;
        match self.bytes {
            // The bytes as the element type (a no-op once in LLVM).
            1 => at.add(arith::bitcast(bytes, super::vector_type(elements.len(), element), at.location)),
            _ => Some(bytes),
        }
    }

    /// The byte offset of each of `layout`'s elements in the buffer, by
    /// flat index, `row_dim` the dim along the rows.
    pub fn offset_in(&self, layout: &LinearLayout, row_dim: usize, flat: u64) -> i64 {
        let index = crate::layout::linear::unflatten(&layout.shape, flat);
        let (row, column) = if row_dim == 0 { (index[0], index[1]) } else { (index[1], index[0]) };
        self.offset_of(row, column)
    }

    /// Whether every thread's offsets in `layout` are its register 0's
    /// XOR a constant a register (see [`Self::for_each_address`]): the
    /// constants, and the bits the thread's part can set.
    pub fn linear_offsets(&self, layout: &LinearLayout, row_dim: usize) -> Option<(Vec<i64>, i64)> {
        if layout.shape.len() != 2 || row_dim > 1 {
            return None;
        }
        let offset = |flat: u64| self.offset_in(layout, row_dim, flat);
        let thread_part = |l: u64, w: u64| {
            let bases = layout.lane.iter().enumerate().filter(|(i, _)| l >> i & 1 == 1);
            let warps = layout.warp.iter().enumerate().filter(|(i, _)| w >> i & 1 == 1);
            bases.chain(warps).fold(0, |a, (_, &b)| a ^ offset(b))
        };
        let registers = layout.registers();
        let constant: Vec<i64> = (0..registers).map(|r| offset(layout.register_index(r))).collect();
        for w in 0..layout.warps() as u64 {
            for l in 0..crate::layout::linear::WARP as u64 {
                let thread = thread_part(l, w);
                if (0..registers).any(|r| offset(layout.apply(r as u64, l, w)) != thread ^ constant[r]) {
                    return None;
                }
            }
        }
        let mask = layout.lane.iter().chain(&layout.warp).fold(0, |a, &b| a | offset(b));
        Some((constant, mask))
    }

    /// Gives `each` the shared-memory pointer (`!llvm.ptr<3>`) of each of
    /// a thread's registers of a tile in `layout`, in register order, in
    /// the buffer at `address`.
    ///
    /// The offset is linear over GF(2) in the element's index bits (the
    /// rows, the chunks and the swizzle are powers of two that do not
    /// overlap), and so is the layout; so a register's offset is the
    /// thread's (register 0's) XOR a constant. The bits the thread's part
    /// can set are XOR-ed once for each pattern the registers flip there;
    /// the rest are added, as immediate offsets of the loads. `None` where
    /// the offsets are not linear so (checked for every thread).
    pub fn for_each_address<'c>(
        &self,
        lowering: &Lowering<'c>,
        at: &At<'c, 'c>,
        address: IrValue<'c>,
        layout: &LinearLayout,
        row_dim: usize,
        mut each: impl FnMut(IrValue<'c>) -> Option<()>,
    ) -> Option<()> {
        let (constant, mask) = self.linear_offsets(layout, row_dim)?;
        let entry = &lowering.entry;
        let thread = self.thread_offset(lowering, entry, layout, row_dim)?;
        let mut bases: Vec<(i64, IrValue<'c>)> = Vec::new();
        for &c in &constant {
            let flipped = c & mask;
            let base = match bases.iter().find(|(p, _)| *p == flipped) {
                Some(&(_, base)) => base,
                None => {
                    let base = at.addi(address, entry.xori(thread, entry.index(flipped)?)?)?;
                    bases.push((flipped, base));
                    base
                }
            };
            each(super::tma::pointer(at, at.addi(base, at.index(c & !mask)?)?)?)?;
        }
        Some(())
    }

    /// The thread's part of its registers' offsets where they are linear
    /// ([`Self::linear_offsets`]): the XOR of its lanes' and warps'
    /// offsets, made at `at`.
    fn thread_offset<'c>(
        &self,
        lowering: &Lowering<'c>,
        at: &At<'c, 'c>,
        layout: &LinearLayout,
        row_dim: usize,
    ) -> Option<IrValue<'c>> {
        let offset = |flat: u64| self.offset_in(layout, row_dim, flat);
        let mut thread = at.index(0)?;
        for (bases, id) in [(&layout.lane, lowering.lane), (&layout.warp, lowering.warp)] {
            for (bit, &basis) in bases.iter().enumerate() {
                if offset(basis) == 0 {
                    continue;
                }
                let set = at.andi(at.add(arith::shrui(id, at.index(bit as i64)?, at.location))?, at.index(1)?)?;
                thread = at.xori(thread, at.muli(set, at.index(offset(basis))?)?)?;
            }
        }
        Some(thread)
    }

    /// The wgmma descriptor's swizzle mode (128, 64, 32 bytes: 1, 2, 3).
    pub fn mode(&self) -> i64 {
        match self.row {
            128 => 1,
            64 => 2,
            _ => 3,
        }
    }

    /// Writes a thread's registers of a tile in `layout` whose dim
    /// `row_dim` runs along the rows, into a buffer from element `first`
    /// ([`Lowering::thread_flat`] of the layout made before).
    pub fn write<'c>(
        &self,
        lowering: &Lowering<'c>,
        at: &At<'c, 'c>,
        (buffer, first): (IrValue<'c>, Option<IrValue<'c>>),
        registers: IrValue<'c>,
        layout: &LinearLayout,
        row_dim: usize,
    ) -> Option<()> {
        let column_dim = 1 - row_dim;
        let shape = &layout.shape;
        // Registers that run along a row, up to a 16-byte chunk, go as one
        // vector, wherever their bases are among the registers' (a tile
        // loaded along its other dim, written across it, keeps the loads'
        // runs first).
        let stride = if column_dim == 1 { 1 } else { *shape.last()? as u64 };
        let mut positions = Vec::new();
        while (1i64 << positions.len()) * self.bytes < 16 {
            let basis = stride << positions.len();
            match layout.register.iter().position(|&b| b == basis) {
                Some(p) => positions.push(p),
                None => break,
            }
        }
        let width = 1usize << positions.len();
        // The last dim runs along the rows (a leading unit dim changes no
        // flat index).
        let columns = *shape.last()?;
        let this = *self;
        // Where the offsets are linear (see `for_each_address`), a chunk's
        // is the thread's part XOR the chunk's constant: the part flipped
        // once for each pattern the chunks flip in its bits, made where the
        // first chunk needs it, the rest an added constant. Otherwise each
        // chunk's row and column are divided out of its flat index and
        // swizzled.
        let linear = self.linear_offsets(layout, row_dim);
        let shift = i64::from(self.bytes.trailing_zeros());
        let thread = std::cell::Cell::new(None);
        let flips = std::cell::RefCell::new(Vec::<(i64, IrValue<'c>)>::new());
        super::convert::write_gathered(lowering, at, registers, layout, &positions, |at, chunk, flat, register| {
            let index = match &linear {
                Some((constant, mask)) => {
                    let (flipped, rest) = (constant[register] & mask, constant[register] & !mask);
                    let known = flips.borrow().iter().find(|(f, _)| *f == flipped).map(|&(_, base)| base);
                    let base = match known {
                        Some(base) => base,
                        None => {
                            let part = match thread.get() {
                                Some(part) => part,
                                None => {
                                    let part = this.thread_offset(lowering, at, layout, row_dim)?;
                                    thread.set(Some(part));
                                    part
                                }
                            };
                            let bytes = at.xori(part, at.index(flipped)?)?;
                            let base = at.add(arith::shrui(bytes, at.index(shift)?, at.location))?;
                            flips.borrow_mut().push((flipped, base));
                            base
                        }
                    };
                    at.addi(base, at.index(rest >> shift)?)?
                }
                None => {
                    let (i, j) = (at.divui(flat, at.index(columns)?)?, at.remui(flat, at.index(columns)?)?);
                    let (row, column) = if row_dim == 0 { (i, j) } else { (j, i) };
                    let offset = this.offset(at, row, column)?;
                    at.divui(offset, at.index(this.bytes)?)?
                }
            };
            let index = match first {
                Some(first) => at.addi(first, index)?,
                None => index,
            };
            at.insert(super::convert::aligned_store_at(at, chunk, buffer, &[index], width * this.bytes as usize)?);
            Some(())
        })
    }
}
