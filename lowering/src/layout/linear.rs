//! Linear layouts over GF(2): the one representation every layout converts
//! to, so that conversions, reshapes, permutes, broadcasts and reductions
//! are one mechanism.
//!
//! A layout maps the bits of a thread's (register, lane, warp) to the bits
//! of a tile index: basis `i` of `register` is the index of register `2^i`,
//! and an element's index is the XOR of the bases of its set bits. Tiles
//! are powers of two in every dim, so a row-major flat index is the
//! concatenation of the dims' bits, and the bases are kept flat: a reshape
//! changes only the shape, and XOR on flat indices is XOR per dim.
//!
//! A zero basis means replication (two registers, lanes or warps holding
//! the same element). The layouts the compiler builds are *simple*: every
//! basis is zero or a single bit, and no bit twice; [`LinearLayout::simple`]
//! checks it, and the lowering of reductions and register permutations
//! relies on it (a swizzled layout, with bases of several bits, is a
//! shared-memory layout and never reaches them).

use tile_dialect::layout::Layout;

/// Threads of a warp.
pub const WARP: i64 = 32;

/// A linear layout of a tile of `shape`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LinearLayout {
    /// The tile's shape, every dim a power of two.
    pub shape: Vec<i64>,
    /// The flat index of register `2^i`, for each `i`.
    pub register: Vec<u64>,
    /// The flat index of lane `2^i` (five bases).
    pub lane: Vec<u64>,
    /// The flat index of warp `2^i`.
    pub warp: Vec<u64>,
}

fn log2(n: i64) -> Option<u32> {
    (n > 0 && n.count_ones() == 1).then(|| n.trailing_zeros())
}

/// Row-major strides of a power-of-two shape.
fn strides(shape: &[i64]) -> Vec<u64> {
    let mut strides = vec![1u64; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1] as u64;
    }
    strides
}

/// The flat index of a tile index.
pub fn flatten(shape: &[i64], index: &[i64]) -> u64 {
    strides(shape).iter().zip(index).map(|(s, &i)| s * i as u64).sum()
}

/// The tile index of a flat index.
pub fn unflatten(shape: &[i64], flat: u64) -> Vec<i64> {
    strides(shape).iter().zip(shape).map(|(s, &n)| ((flat / s) % n as u64) as i64).collect()
}

impl LinearLayout {
    /// Elements of the tile.
    pub fn elements(&self) -> u64 {
        self.shape.iter().product::<i64>() as u64
    }

    /// Registers a thread holds.
    pub fn registers(&self) -> usize {
        1 << self.register.len()
    }

    /// Warps of the block.
    pub fn warps(&self) -> i64 {
        1 << self.warp.len()
    }

    /// The layout an attribute describes, for a tile of `shape`; `None` for
    /// a layout that is not a register layout of this shape.
    pub fn from_layout(layout: &Layout, shape: &[i64]) -> Option<Self> {
        let result = match layout {
            Layout::Blocked { size_per_thread, threads_per_warp, warps_per_block, order } => {
                Self::blocked(shape, size_per_thread, threads_per_warp, warps_per_block, order)?
            }
            Layout::Slice { dim, parent } => {
                let dim = usize::try_from(*dim).ok().filter(|&d| d <= shape.len())?;
                let mut parent_shape = shape.to_vec();
                parent_shape.insert(dim, 1);
                let mut sliced = Self::from_layout(parent, &parent_shape)?.project(dim);
                sliced.register.retain(|&b| b != 0);
                sliced
            }
            Layout::Linear { register, lane, warp } => {
                let flat = |bases: &[Vec<i64>]| -> Option<Vec<u64>> {
                    bases
                        .iter()
                        .map(|b| {
                            (b.len() == shape.len() && b.iter().zip(shape).all(|(&i, &n)| (0..n).contains(&i)))
                                .then(|| flatten(shape, b))
                        })
                        .collect()
                };
                Self { shape: shape.to_vec(), register: flat(register)?, lane: flat(lane)?, warp: flat(warp)? }
            }
            Layout::Wgmma { warps_per_block, instr_n } => Self::wgmma(shape, warps_per_block, *instr_n)?,
            Layout::WgmmaOperand { index: 0, parent, k_width } => match parent.as_ref() {
                Layout::Wgmma { warps_per_block, .. } if warps_per_block.get(1) == Some(&1) => {
                    Self::wgmma_operand(shape, warps_per_block[0], *k_width)?
                }
                _ => return None,
            },
            Layout::WgmmaOperand { .. } | Layout::Shared { .. } => return None,
        };
        (result.lane.len() == 5 && shape.iter().all(|&n| log2(n).is_some())).then_some(result)
    }

    /// The `#tile.linear` attribute's parameters of this layout.
    pub fn to_layout(&self) -> Layout {
        let dims = |bases: &[u64]| bases.iter().map(|&b| unflatten(&self.shape, b)).collect();
        Layout::Linear { register: dims(&self.register), lane: dims(&self.lane), warp: dims(&self.warp) }
    }

    /// Triton's blocked layout: `size_per_thread` contiguous elements a
    /// thread, lanes then warps, dims in `order` (fastest first), the
    /// registers repeating the pattern over a larger tile; bases past a
    /// smaller tile's extent are zero (replication).
    pub fn blocked(
        shape: &[i64],
        size_per_thread: &[i64],
        threads_per_warp: &[i64],
        warps_per_block: &[i64],
        order: &[i64],
    ) -> Option<Self> {
        let rank = shape.len();
        if [size_per_thread.len(), threads_per_warp.len(), warps_per_block.len(), order.len()] != [rank; 4] {
            return None;
        }
        let strides = strides(shape);
        let order: Vec<usize> =
            order.iter().map(|&d| usize::try_from(d).ok().filter(|&d| d < rank)).collect::<Option<_>>()?;
        let mut covered = vec![1i64; rank];
        let basis = |d: usize, value: i64| if value < shape[d] { value as u64 * strides[d] } else { 0 };
        let spread = |sizes: &[i64], covered: &mut Vec<i64>| -> Option<Vec<u64>> {
            let mut bases = Vec::new();
            for &d in &order {
                for bit in 0..log2(sizes[d])? {
                    bases.push(basis(d, covered[d] << bit));
                }
                covered[d] *= sizes[d];
            }
            Some(bases)
        };
        let mut register = spread(size_per_thread, &mut covered)?;
        let lane = spread(threads_per_warp, &mut covered)?;
        let warp = spread(warps_per_block, &mut covered)?;
        for &d in &order {
            while covered[d] < shape[d] {
                register.push(basis(d, covered[d]));
                covered[d] *= 2;
            }
        }
        Some(Self { shape: shape.to_vec(), register, lane, warp })
    }

    /// The Hopper wgmma accumulator (m64nNk16 per warpgroup): a warp holds
    /// 16 rows, lane `l` row `l / 4` and columns `2 (l % 4)` and the next,
    /// register bit 1 the row 8 below, the higher register bits the next
    /// 8 columns; a warpgroup's four warps stack 64 rows; warpgroups and the
    /// tile's repetitions follow in `warps_per_block`'s order.
    pub fn wgmma(shape: &[i64], warps_per_block: &[i64], instr_n: i64) -> Option<Self> {
        let [m, n] = shape else { return None };
        let [wm, wn] = warps_per_block else { return None };
        let flat = |r: i64, c: i64| if r < *m && c < *n { (r * n + c) as u64 } else { 0 };
        let mut register = vec![flat(0, 1), flat(8, 0)];
        let mut col = 8;
        while col < instr_n.min(*n) {
            register.push(flat(0, col));
            col *= 2;
        }
        let lane = vec![flat(0, 2), flat(0, 4), flat(1, 0), flat(2, 0), flat(4, 0)];
        let mut warp = vec![flat(16, 0), flat(32, 0)];
        let (mut rows, mut cols) = (64, instr_n);
        for bit in 0..log2(*wm / 4)? {
            warp.push(flat(64 << bit, 0));
            rows *= 2;
        }
        for bit in 0..log2(*wn)? {
            warp.push(flat(0, instr_n << bit));
            cols *= 2;
        }
        while rows < *m {
            register.push(flat(rows, 0));
            rows *= 2;
        }
        while cols < *n {
            register.push(flat(0, cols));
            cols *= 2;
        }
        Some(Self { shape: shape.to_vec(), register, lane, warp })
    }

    /// wgmma's A operand in registers (`R x K`, the register form), for an
    /// accumulator of `warps` warps along its rows: each 32-bit register
    /// holds `k_width` consecutive K elements (2 for 16-bit types, 1 for
    /// tf32, 4 for 8-bit floats); lane `l` holds row `l / 4` and the
    /// register at K `k_width (l % 4)`, register bit 0 the row 8 below,
    /// bit 1 the K `4 k_width` further; then the instruction's further K
    /// steps (`8 k_width` each), and the 64-row blocks past the warpgroups.
    /// A warp holds 16 rows, a warpgroup 64. For 16-bit types this is the
    /// accumulator layout with `K` columns, so an accumulator converted to
    /// 16 bits is already an A operand (attention's P).
    pub fn wgmma_operand(shape: &[i64], warps: i64, k_width: i64) -> Option<Self> {
        let [rows, k] = shape else { return None };
        if !matches!(k_width, 1 | 2 | 4) || *k < 8 * k_width || log2(warps)? < 2 {
            return None;
        }
        let flat = |r: i64, c: i64| if r < *rows && c < *k { (r * k + c) as u64 } else { 0 };
        let mut register: Vec<u64> = (0..log2(k_width)?).map(|bit| flat(0, 1 << bit)).collect();
        register.push(flat(8, 0));
        let mut col = 4 * k_width;
        while col < *k {
            register.push(flat(0, col));
            col *= 2;
        }
        let lane = vec![flat(0, k_width), flat(0, 2 * k_width), flat(1, 0), flat(2, 0), flat(4, 0)];
        let mut warp = vec![flat(16, 0), flat(32, 0)];
        let mut covered = 64;
        for _ in 0..log2(warps / 4)? {
            warp.push(flat(covered, 0));
            covered *= 2;
        }
        while covered < *rows {
            register.push(flat(covered, 0));
            covered *= 2;
        }
        Some(Self { shape: shape.to_vec(), register, lane, warp })
    }

    /// The layout with bits `a` and `b` of every basis's flat index
    /// swapped: the same threads' elements with those two index bits
    /// exchanged (a permutation of the tile's elements).
    pub fn swap_bits(&self, a: u32, b: u32) -> Self {
        let swap = |basis: u64| {
            let (x, y) = ((basis >> a) & 1, (basis >> b) & 1);
            (basis & !((1 << a) | (1 << b))) | (x << b) | (y << a)
        };
        let map = |bases: &[u64]| bases.iter().map(|&basis| swap(basis)).collect();
        Self { shape: self.shape.clone(), register: map(&self.register), lane: map(&self.lane), warp: map(&self.warp) }
    }

    /// The layout with bits `low..=high` of every basis's flat index
    /// rotated up by one, bit `high` to `low`: a permutation of the tile's
    /// elements, as [`Self::swap_bits`].
    pub fn rotate_bits(&self, low: u32, high: u32) -> Self {
        let width = high - low + 1;
        let field = ((1u64 << width) - 1) << low;
        let rotate = |basis: u64| {
            let bits = (basis & field) >> low;
            let rotated = ((bits << 1) | (bits >> (width - 1))) & ((1 << width) - 1);
            (basis & !field) | (rotated << low)
        };
        let map = |bases: &[u64]| bases.iter().map(|&basis| rotate(basis)).collect();
        Self { shape: self.shape.clone(), register: map(&self.register), lane: map(&self.lane), warp: map(&self.warp) }
    }

    /// The registers `ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16`
    /// gives a warp from a tile of 1-byte elements, four 32-bit registers
    /// an instruction, the instructions' one after the other: row `i` of
    /// 8x8 matrix `m` (16 bytes, eight b16 columns) starts at the element
    /// `rows(i) ^ matrices(m)` (XOR of the set bits' bases), its bytes
    /// along `bytes` (bases of byte 1, 2, 4 and 8 of the row). Transposed,
    /// lane `l` gets b16 column `l / 4` of rows `2 (l % 4)` (the low
    /// half) and the next: a register's byte 0 and 1 are a row's pair,
    /// 2 and 3 the next row's; lanes 1 and 2 pick the rows, lanes 4, 8
    /// and 16 the columns. Register bits 2 on are the matrices (two an
    /// instruction, then the instructions).
    pub fn ldmatrix_trans_bytes(
        shape: &[i64],
        rows: [u64; 3],
        matrices: &[u64],
        bytes: [u64; 4],
        warp: &[u64],
    ) -> Self {
        let mut register = vec![bytes[0], rows[0]];
        register.extend_from_slice(matrices);
        let lane = vec![rows[1], rows[2], bytes[1], bytes[2], bytes[3]];
        Self { shape: shape.to_vec(), register, lane, warp: warp.to_vec() }
    }

    /// The first element of the row each lane addresses in the loads of
    /// [`Self::ldmatrix_trans_bytes`] (four matrices an instruction): lane
    /// `8 m + i` row `i` of matrix `m`; register bits are the instruction.
    pub fn ldmatrix_rows(shape: &[i64], rows: [u64; 3], matrices: &[u64], warp: &[u64]) -> Option<Self> {
        let (&[m0, m1], instructions) = (matrices.get(..2)?, matrices.get(2..)?) else { return None };
        let lane = vec![rows[0], rows[1], rows[2], m0, m1];
        Some(Self { shape: shape.to_vec(), register: instructions.to_vec(), lane, warp: warp.to_vec() })
    }

    /// For each thread (lane, then warp bits above the lane's), the
    /// register of `source` that holds each register's element in the
    /// same thread; `None` where a thread's element is none of its
    /// registers in `source` (the conversion would move data between
    /// threads).
    pub fn thread_sources(&self, source: &LinearLayout) -> Option<Vec<Vec<usize>>> {
        if self.shape != source.shape {
            return None;
        }
        // Both layouts are linear, so a thread's elements are its register
        // parts shifted by its lane and warp part: source register `r`
        // holds this thread's element `e` exactly where
        // `register_index(r) = e ^ source.apply(0, l, w)`. One map of the
        // source's register parts (the lowest register first, where several
        // hold one element) serves every thread; `ldmatrix::plan` asks
        // this of sixteen candidates per operand, each of up to 256
        // threads, which a map per thread made most of a kernel's compile.
        let lowest = |held: &mut dyn FnMut(u64, usize)| {
            for r in (0..source.registers()).rev() {
                held(source.register_index(r), r);
            }
        };
        const NONE: u32 = u32::MAX;
        let dense = source.elements() <= 1 << 20;
        let mut table = vec![NONE; if dense { source.elements() as usize } else { 0 }];
        let mut map = std::collections::HashMap::new();
        if dense {
            lowest(&mut |e, r| {
                // (An element past the tile, from a basis out of range, is
                // held by no thread's element either: left out.)
                if let Some(slot) = table.get_mut(e as usize) {
                    *slot = r as u32;
                }
            });
        } else {
            lowest(&mut |e, r| {
                map.insert(e, r);
            });
        }
        let find = |e: u64| match dense {
            true => table.get(e as usize).copied().filter(|&r| r != NONE).map(|r| r as usize),
            false => map.get(&e).copied(),
        };
        let own: Vec<u64> = (0..self.registers()).map(|r| self.register_index(r)).collect();
        let threads = (WARP as u64) << self.warp.len().max(source.warp.len());
        (0..threads)
            .map(|t| {
                let (l, w) = (t % WARP as u64, t / WARP as u64);
                let shift = self.apply(0, l, w) ^ source.apply(0, l, w);
                own.iter().map(|&e| find(e ^ shift)).collect()
            })
            .collect()
    }

    /// Whether every basis is zero or one bit, no bit twice.
    pub fn simple(&self) -> bool {
        let mut seen = 0u64;
        self.register.iter().chain(&self.lane).chain(&self.warp).all(|&b| {
            if b == 0 {
                return true;
            }
            let fresh = b.count_ones() == 1 && seen & b == 0;
            seen |= b;
            fresh
        })
    }

    /// Whether every element of the tile is held by some thread.
    pub fn surjective(&self) -> bool {
        let all = self.register.iter().chain(&self.lane).chain(&self.warp).fold(0u64, |a, &b| a | b);
        all == self.elements() - 1 && self.simple()
    }

    /// The element of register `r` of lane `l` of warp `w`.
    pub fn apply(&self, r: u64, l: u64, w: u64) -> u64 {
        let part = |bases: &[u64], bits: u64| {
            bases.iter().enumerate().filter(|(i, _)| bits >> i & 1 == 1).fold(0, |a, (_, &b)| a ^ b)
        };
        part(&self.register, r) ^ part(&self.lane, l) ^ part(&self.warp, w)
    }

    /// The flat register part of register `r`.
    pub fn register_index(&self, r: usize) -> u64 {
        self.apply(r as u64, 0, 0)
    }

    fn map_bases(&self, shape: Vec<i64>, f: impl Fn(Vec<i64>) -> Vec<i64>) -> Self {
        let old = &self.shape;
        let map = |bases: &[u64]| bases.iter().map(|&b| flatten(&shape, &f(unflatten(old, b)))).collect();
        Self { register: map(&self.register), lane: map(&self.lane), warp: map(&self.warp), shape: shape.clone() }
    }

    /// The layout with dim `dim` removed: every basis loses that component
    /// (so bases along it become zero; registers are kept, see
    /// [`Self::slice`]).
    pub fn project(&self, dim: usize) -> Self {
        let mut shape = self.shape.clone();
        shape.remove(dim);
        self.map_bases(shape, |mut index| {
            index.remove(dim);
            index
        })
    }

    /// The layout of a reduction's result along `dim`: the projection, the
    /// registers that fold together dropped.
    pub fn slice(&self, dim: usize) -> Self {
        let mut sliced = self.project(dim);
        sliced.register.retain(|&b| b != 0);
        sliced
    }

    /// The same elements as a tile of `shape` (row-major).
    pub fn reshape(&self, shape: &[i64]) -> Self {
        Self { shape: shape.to_vec(), ..self.clone() }
    }

    /// The layout of `permute(tile, permutation)`: result dim `i` is dim
    /// `permutation[i]` of this tile.
    pub fn permute(&self, permutation: &[usize]) -> Self {
        let shape = permutation.iter().map(|&d| self.shape[d]).collect();
        self.map_bases(shape, |index| permutation.iter().map(|&d| index[d]).collect())
    }

    /// For a broadcast to this layout from a tile of `source` (size-1 dims
    /// where this tile's are larger): the same registers, lanes and warps,
    /// each naming the source element its value comes from.
    pub fn broadcast_source(&self, source: &[i64]) -> Self {
        let shape = source.to_vec();
        self.map_bases(shape, |index| index.iter().zip(source).map(|(&i, &n)| if n == 1 { 0 } else { i }).collect())
    }

    /// The source register of each of this layout's registers when the
    /// conversion from `source` stays in registers: lanes and warps hold
    /// the same elements in both, and the source's registers span every
    /// register element of this one. `None` when threads must exchange.
    pub fn register_permutation(&self, source: &LinearLayout) -> Option<Vec<usize>> {
        if self.shape.iter().product::<i64>() != source.shape.iter().product::<i64>()
            || self.lane != source.lane
            || self.warp != source.warp
            || !source.simple()
        {
            return None;
        }
        (0..self.registers())
            .map(|r| {
                let element = self.register_index(r);
                let mut from = 0usize;
                let mut rest = element;
                for (i, &b) in source.register.iter().enumerate() {
                    if b != 0 && rest & b == b {
                        from |= 1 << i;
                        rest ^= b;
                    }
                }
                (rest == 0).then_some(from)
            })
            .collect()
    }

    /// Elements a thread holds contiguously along the innermost dim from
    /// register 0: the vector width of its memory accesses.
    pub fn contiguous(&self) -> usize {
        let innermost = *self.shape.last().unwrap_or(&1) as u64;
        let mut width = 1usize;
        for (i, &b) in self.register.iter().enumerate() {
            if b != 1 << i || (1u64 << (i + 1)) > innermost {
                break;
            }
            width *= 2;
        }
        width
    }
}

/// The coalesced layout the compiler gives a tile that is loaded or
/// stored: 16-byte vectors a thread along the innermost dim, lanes then
/// warps along it and then along the outer dims, warps on the outermost
/// dims first (so a row's reduction stays within a warp when the tile has
/// as many rows as warps).
pub fn coalesced(shape: &[i64], element_bytes: i64, warps: i64) -> Layout {
    let rank = shape.len();
    let inner = rank - 1;
    let vector = (16 / element_bytes.max(1)).max(1).min(shape[inner]);
    let mut size_per_thread = vec![1; rank];
    size_per_thread[inner] = vector;
    let mut left = vec![0i64; rank];
    for d in 0..rank {
        left[d] = shape[d] / size_per_thread[d];
    }
    let mut threads_per_warp = vec![1; rank];
    let mut lanes = WARP;
    for d in (0..rank).rev() {
        let take = lanes.min(left[d]).max(1);
        threads_per_warp[d] = take;
        left[d] /= take;
        lanes /= take;
    }
    threads_per_warp[inner] *= lanes;
    let mut warps_per_block = vec![1; rank];
    let mut warps_left = warps;
    for d in 0..rank {
        let take = warps_left.min(left[d].max(1));
        warps_per_block[d] = take;
        warps_left /= take;
    }
    warps_per_block[0] *= warps_left;
    Layout::Blocked { size_per_thread, threads_per_warp, warps_per_block, order: (0..rank as i64).rev().collect() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `thread_sources` as its definition says, one map per thread.
    fn sources_by_thread(to: &LinearLayout, from: &LinearLayout) -> Option<Vec<Vec<usize>>> {
        let threads = (WARP as u64) << to.warp.len().max(from.warp.len());
        (0..threads)
            .map(|t| {
                let (l, w) = (t % WARP as u64, t / WARP as u64);
                let held: std::collections::HashMap<u64, usize> =
                    (0..from.registers()).rev().map(|r| (from.apply(r as u64, l, w), r)).collect();
                (0..to.registers()).map(|r| held.get(&to.apply(r as u64, l, w)).copied()).collect()
            })
            .collect()
    }

    #[test]
    fn thread_sources_match_a_map_per_thread() {
        let accumulator = LinearLayout::wgmma(&[128, 64], &[8, 1], 64).unwrap();
        let operand = LinearLayout::wgmma_operand(&[128, 64], 8, 1).unwrap();
        let bytes = LinearLayout::wgmma_operand(&[128, 64], 8, 4).unwrap();
        // A register permutation (register bits exchanged), one that moves
        // data between threads (a lane bit swapped with a register bit),
        // a layout holding one element in two registers (a zero basis), and
        // one with fewer warps than the other.
        let mut registers_swapped = accumulator.clone();
        registers_swapped.register.swap(0, 2);
        let mut across_threads = accumulator.clone();
        std::mem::swap(&mut across_threads.register[1], &mut across_threads.lane[2]);
        let mut broadcast = accumulator.clone();
        broadcast.register.push(0);
        let mut fewer_warps = accumulator.clone();
        fewer_warps.warp.pop();
        fewer_warps.register.push(accumulator.warp[2]);
        // Two registers on one non-zero basis: registers 0 and the last
        // hold the same elements, and the lowest must be named.
        let mut twice = accumulator.clone();
        twice.register.push(accumulator.register[0]);
        let layouts = [accumulator, operand, bytes, registers_swapped, across_threads, broadcast, fewer_warps, twice];
        let mut found = 0;
        for to in &layouts {
            for from in &layouts {
                let want = sources_by_thread(to, from);
                found += usize::from(want.is_some());
                assert_eq!(to.thread_sources(from), want);
            }
        }
        // Some pairs convert within threads, some do not.
        assert!(found > layouts.len() && found < layouts.len() * layouts.len());
    }

    /// The same past the dense table's size (a map of the register parts).
    #[test]
    fn thread_sources_of_a_large_tile_match_a_map_per_thread() {
        let big = LinearLayout::wgmma(&[1024, 2048], &[8, 1], 256).unwrap();
        assert!(big.elements() > 1 << 20);
        let mut swapped = big.clone();
        swapped.register.swap(0, 3);
        let mut across_threads = big.clone();
        std::mem::swap(&mut across_threads.register[1], &mut across_threads.lane[2]);
        for (to, from) in [(&big, &swapped), (&swapped, &big), (&big, &across_threads)] {
            assert_eq!(to.thread_sources(from), sources_by_thread(to, from));
        }
        assert!(big.thread_sources(&swapped).is_some() && big.thread_sources(&across_threads).is_none());
    }
}
