//! A compiled GPU module: PTX plus what a launch needs to know.

use crate::{Result, Signature};
use serde::{Deserialize, Serialize};

/// One kernel of a bundle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelInfo {
    /// Name and parameter ABI. On the GPU a memref parameter is passed as
    /// its descriptor's fields (allocated and aligned pointer, offset, sizes,
    /// strides), each a kernel parameter of 8 bytes; scalars as themselves.
    pub signature: Signature,
    /// Threads per block, as the compiler chose them.
    pub block: [u32; 3],
    /// Dynamic shared memory in bytes.
    pub shared_memory: u32,
    /// Blocks of the cluster each program block runs as (1: none): the
    /// runtime launches this many times the program's grid along `x`, in
    /// clusters of this many blocks.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub cluster: u32,
    /// Specialised versions of the kernel, best first. A launch takes the
    /// first whose requirements the arguments meet (every TMA descriptor
    /// can be encoded), else the kernel itself, which takes any arguments
    /// (unless it is [`Self::deferred`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<Variant>,
    /// The kernel itself is not in the PTX, only its variants: it was
    /// compiled with its general kernel deferred (the compiler's
    /// `General::Deferred`), for arguments a variant takes. Nothing of the
    /// kernel itself launches, so `block` and `shared_memory` are zero
    /// and `cluster` is 1; a launch that no variant takes is refused
    /// (the runtime's `Error::Deferred`), and the caller compiles the
    /// kernel whole.
    #[serde(default, skip_serializing_if = "is_false")]
    pub deferred: bool,
}

/// A specialised kernel: same arguments as the kernel it belongs to, then
/// one device pointer per TMA descriptor.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Variant {
    /// The PTX entry.
    pub name: String,
    pub block: [u32; 3],
    pub shared_memory: u32,
    /// Descriptors to encode, in the order of their kernel parameters.
    pub tma: Vec<TmaDescriptor>,
    /// Whether each block walks several of the program's tile blocks: it
    /// takes the program's (1-D) grid size as an extra last parameter and
    /// is launched with as many blocks as are resident at once.
    #[serde(default)]
    pub persistent: bool,
    /// Blocks of the cluster each program block runs as (1: none), as
    /// [`KernelInfo::cluster`]: the launch has that many times the
    /// program's grid along x (a persistent variant: as many clusters as
    /// are resident at once, at most one a program block).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub cluster: u32,
    /// The variant's blocks each compute a larger tile of one array than
    /// the program's blocks do (`tile-widen-blocks`): it runs only where
    /// the launch's grid along x is the program's tile count of that
    /// array, on its own tiles' count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retiled: Option<Retiled>,
    /// A persistent variant whose last tiles' K iterations its blocks
    /// share (`tile-stream-k`): between the descriptors and the program's
    /// grid it takes a workspace, flags and the schedule
    /// ([`StreamK::schedule`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_k: Option<StreamK>,
    /// The variant may run a slice of its grid along x
    /// (`tile-split-last-wave`): after the descriptors it takes the slice's
    /// first block along x, which it adds to each block's id, and the whole
    /// grid along x, which it reads as its block count. A launch of the
    /// whole grid passes 0 and the grid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid_slice: Option<GridSlice>,
}

/// How a variant that may run a slice of its grid orders its blocks
/// ([`Variant::grid_slice`]), which says which program tiles a slice of
/// its blocks computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GridSlice {
    /// The tile rows its consecutive blocks walk column by column
    /// (`tile-group-blocks`' `G`; 1: row-major).
    pub group: u32,
}

impl GridSlice {
    /// Where to end a launch of a wide variant's `rows x wide_columns`
    /// blocks, each two of the program's tiles side by side, so that the
    /// rest of the program's tiles run as the program's own blocks in a
    /// launch after it (docs/tail-wave.md): `None` where the wide blocks'
    /// last wave (of `wide_wave` resident blocks) is full or at least half
    /// full, or the program blocks left (`2 (W - split)`) would not run in
    /// one wave of `program_wave`.
    ///
    /// Both launches order their blocks by [`GridSlice::group`], so the
    /// split falls where the wide blocks before it cover exactly the
    /// program's blocks before `2 split`: at a column of the group of rows
    /// that holds the last whole wave's end (row-major, anywhere). The
    /// wide launch then keeps up to `G - 1` of its last whole wave's
    /// blocks fewer than it could.
    pub fn last_wave_split(&self, rows: u64, wide_columns: u64, wide_wave: u64, program_wave: u64) -> Option<u64> {
        let wide = rows.checked_mul(wide_columns)?;
        let tail = wide.checked_rem(wide_wave)?;
        if wide < wide_wave || tail == 0 || 2 * tail >= wide_wave {
            return None;
        }
        let full = wide - tail;
        let group = u64::from(self.group.max(1));
        let split = if group == 1 {
            full
        } else {
            let first = full / (group * wide_columns) * group;
            let height = group.min(rows - first).max(1);
            let offset = full - first * wide_columns;
            first * wide_columns + offset / height * height
        };
        let program = 2 * (wide - split);
        (split > 0 && program <= program_wave).then_some(split)
    }
}

/// What a stream-K variant's launch needs ([`Variant::stream_k`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamK {
    /// The f32 elements of one partial tile: the workspace holds one for
    /// each launched block (a 1-D memref), and the flags (a 1-D i32
    /// memref) one for each launched block, zero at the launch; the
    /// kernel leaves them zero.
    pub elements: u64,
    /// The tile's K loop runs over the tiles of memref argument `arg`
    /// along dim `dim`, `tile` elements each.
    pub arg: usize,
    pub dim: usize,
    pub tile: u64,
}

impl StreamK {
    /// The K loop's trip count for an argument of `shape`.
    pub fn trips(&self, shape: &[usize]) -> Option<u64> {
        let extent = *shape.get(self.dim)? as u64;
        (self.tile > 0).then(|| extent.div_ceil(self.tile))
    }

    /// The schedule the kernel takes after its flags, for `tiles` program
    /// tiles of `trips` K iterations on `blocks` resident blocks, sharing
    /// the iterations of the last partial wave and of `waves` whole waves
    /// before it: the whole tiles `D` before the shared ones, `D / G`,
    /// `D % G`, the shared iterations a block `R / G` and `R % G` (with
    /// `R = (T - D) trips`), and the magic number and shift that divide by `trips`
    /// (`n / trips = (n m) >> s` for `n < 2^31`). Nothing is shared where
    /// the last wave is full or at least half full (sharing it measured
    /// slower than what it saves: BENCHMARKS.md, session 47, as CUTLASS's
    /// heuristic keeps such a wave), where a block would get no iteration
    /// (its owner would wait for it), or where the iterations reach 2^31
    /// (the kernel's division would not be exact).
    pub fn schedule(tiles: u64, trips: u64, blocks: u64, waves: u64) -> [u64; 7] {
        let blocks = blocks.max(1);
        let full = tiles / blocks;
        let fits = tiles.checked_mul(trips).is_some_and(|n| n < 1 << 31);
        let kept = full.saturating_sub(waves) * blocks;
        let tail = tiles % blocks;
        let share = fits && tail > 0 && 2 * tail < blocks && (tiles - kept) * trips >= blocks;
        let whole = if share { kept } else { tiles };
        let shared = (tiles - whole) * trips;
        let (magic, shift) = match trips {
            0 => (0, 0),
            d => {
                let bits = u64::from(64 - (d - 1).leading_zeros()); // ceil(log2 d)
                let shift = 31 + bits;
                ((1u64 << shift).div_ceil(d), shift)
            }
        };
        [whole, whole / blocks, whole % blocks, shared / blocks, shared % blocks, magic, shift]
    }
}

/// How a variant's grid follows from the program's (`Variant::retiled`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Retiled {
    /// Index of the memref argument whose tiles the grid counts.
    pub arg: usize,
    /// Its dims the tiles are counted along (the block's row, then its
    /// column), outermost first.
    pub dims: [usize; 2],
    /// The program's tile along those dims.
    pub program_tile: [u32; 2],
    /// The variant's tile along those dims.
    pub tile: [u32; 2],
    /// The kernel walks the tiles itself (a hand-written persistent loop:
    /// each block takes every grid-size-th tile from its id, and the
    /// compiler checked that this is all it reads of the grid), so any grid
    /// computes the same: the runtime takes the variant for a 1-D grid of
    /// more blocks than program tiles, and launches it on one block a tile
    /// of its own.
    #[serde(default, skip_serializing_if = "is_false")]
    pub walk: bool,
}

impl Retiled {
    /// The tiles of an array of `shape` along `dims`, with tiles of
    /// `tile`: `None` where a dim is missing, a tile is empty, or the
    /// count overflows.
    pub fn count(&self, shape: &[usize], tile: [u32; 2]) -> Option<u64> {
        let mut count: u64 = 1;
        for (&dim, &size) in self.dims.iter().zip(&tile) {
            let extent = *shape.get(dim)? as u64;
            if size == 0 {
                return None;
            }
            count = count.checked_mul(extent.div_ceil(u64::from(size)))?;
        }
        Some(count)
    }

    /// The tiles of an array of `shape` along each of `dims`, with tiles
    /// of `tile` (as [`Retiled::count`], per dim).
    pub fn counts(&self, shape: &[usize], tile: [u32; 2]) -> Option<[u64; 2]> {
        let mut counts = [0; 2];
        for ((&dim, &size), count) in self.dims.iter().zip(&tile).zip(&mut counts) {
            let extent = *shape.get(dim)? as u64;
            *count = (size > 0).then(|| extent.div_ceil(u64::from(size)))?;
        }
        Some(counts)
    }

    /// Whether each of the variant's tiles is two of the program's side by
    /// side along the column dim (a 128x128 program's 128x256 blocks).
    pub fn doubles_columns(&self) -> bool {
        !self.walk && self.tile == [self.program_tile[0], self.program_tile[1].saturating_mul(2)] && self.tile[0] > 0
    }

    /// Whether the variant's tiles are smaller than the program's (its
    /// blocks each compute part of a program tile).
    pub fn narrows(&self) -> bool {
        u64::from(self.tile[0]) * u64::from(self.tile[1])
            < u64::from(self.program_tile[0]) * u64::from(self.program_tile[1])
    }
}

fn one() -> u32 {
    1
}

fn is_one(value: &u32) -> bool {
    *value == 1
}

/// A tiled TMA descriptor of one memref argument
/// (`cuTensorMapEncodeTiled`), zero-filled out of bounds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TmaDescriptor {
    /// Index of the memref argument it describes.
    pub arg: usize,
    /// Elements per dim of one transfer, outermost first like the memref.
    pub box_shape: Vec<u32>,
    /// Shared-memory swizzle width in bytes: 0 (none), 32, 64 or 128.
    pub swizzle: u32,
    /// The variant runs without it: where the array cannot be described,
    /// the runtime passes a null pointer in its place and the kernel does
    /// the work the TMA would have done (a store's threads store the tile).
    #[serde(default, skip_serializing_if = "is_false")]
    pub optional: bool,
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// PTX for one chip and the kernels in it. Serialised as JSON.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bundle {
    pub chip: String,
    pub ptx: String,
    pub kernels: Vec<KernelInfo>,
}

impl Bundle {
    /// The kernel named `name`.
    pub fn kernel(&self, name: &str) -> Option<&KernelInfo> {
        self.kernels.iter().find(|k| k.signature.name == name)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    pub fn from_json(text: &str) -> Result<Bundle> {
        Ok(serde_json::from_str(text)?)
    }
}

#[cfg(test)]
mod tests {
    use super::{GridSlice, StreamK};
    use std::collections::BTreeSet;

    /// The tile (row, column) block `b` of a grid of `rows x columns`
    /// computes, its ids relabelled as `tile-group-blocks` does for `G`
    /// rows (the module documentation's arithmetic).
    fn tile_of(b: u64, rows: u64, columns: u64, group: u64) -> (u64, u64) {
        if group <= 1 {
            return (b / columns, b % columns);
        }
        let first = b / (columns * group) * group;
        let height = (rows - first).min(group).max(1);
        let in_group = b % (columns * group);
        (first + in_group % height, in_group / height)
    }

    #[test]
    fn the_wide_blocks_before_a_split_cover_the_program_blocks_before_twice_it() {
        let mut splits = 0;
        for group in [1u32, 2, 8] {
            for rows in 1..=40u64 {
                for wide_columns in 1..=50u64 {
                    for (wide_wave, program_wave) in [(132, 132), (132, 264), (16, 16)] {
                        let slice = GridSlice { group };
                        let Some(split) = slice.last_wave_split(rows, wide_columns, wide_wave, program_wave) else {
                            continue;
                        };
                        splits += 1;
                        let (g, columns) = (u64::from(group), 2 * wide_columns);
                        let wide: BTreeSet<(u64, u64)> = (0..split)
                            .flat_map(|w| {
                                let (r, c) = tile_of(w, rows, wide_columns, g);
                                [(r, 2 * c), (r, 2 * c + 1)]
                            })
                            .collect();
                        let program: BTreeSet<(u64, u64)> =
                            (0..2 * split).map(|p| tile_of(p, rows, columns, g)).collect();
                        assert_eq!(wide, program, "G {group}, {rows}x{wide_columns} wide, split {split}");
                        // The rest: one wave of the program's blocks, after
                        // all but fewer than G of the whole waves' blocks.
                        let total = rows * wide_columns;
                        let full = total / wide_wave * wide_wave;
                        assert!(2 * (total - split) <= program_wave && full - split < g.max(1));
                        assert!(2 * (total - full) < wide_wave);
                    }
                }
            }
        }
        assert!(splits > 1000, "{splits}");
        // The suite's 4000x11008: 32 rows of 43 wide tiles on 132 SMs.
        assert_eq!(GridSlice { group: 8 }.last_wave_split(32, 43, 132, 132), Some(1320));
        // A last wave at least half full, or whole waves: no split.
        assert_eq!(GridSlice { group: 8 }.last_wave_split(32, 16, 132, 132), None);
        assert_eq!(GridSlice { group: 8 }.last_wave_split(33, 4, 132, 132), None);
        assert_eq!(GridSlice { group: 8 }.last_wave_split(2, 4, 132, 132), None);
    }

    /// The kernel's arithmetic (`tile-stream-k`) on the schedule: each
    /// block's whole tiles and shared range.
    fn ranges(tiles: u64, trips: u64, blocks: u64, waves: u64) -> Vec<(Vec<u64>, u64, u64)> {
        let [whole, own_q, own_r, q, r, magic, shift] = StreamK::schedule(tiles, trips, blocks, waves);
        (0..blocks)
            .map(|b| {
                let own = own_q + u64::from(b < own_r);
                let wholes = (0..own).map(|j| b + j * blocks).collect();
                let start = whole * trips + b * q + b.min(r);
                let end = start + q + u64::from(b < r);
                if end > start {
                    // The kernel's divisions by the trip count.
                    assert_eq!((start * magic) >> shift, start / trips);
                    assert_eq!(((end + trips - 1) * magic) >> shift, end.div_ceil(trips));
                }
                (wholes, start, end)
            })
            .collect()
    }

    #[test]
    fn every_tile_and_iteration_is_computed_once() {
        for (tiles, trips, blocks, waves) in [
            (512, 64, 132, 0),
            (512, 64, 132, 1),
            (450, 64, 132, 0),
            (450, 64, 132, 1),
            (1376, 64, 132, 0),
            (528, 64, 132, 0),
            (228, 16, 132, 0),
            (10, 2, 132, 0),
            (130, 3, 132, 0),
            (300, 1, 132, 0),
            (7, 1000, 3, 1),
            (1, 5, 1, 0),
        ] {
            let [whole, ..] = StreamK::schedule(tiles, trips, blocks, waves);
            let mut done = vec![0u32; (tiles * trips) as usize];
            for (wholes, start, end) in ranges(tiles, trips, blocks, waves) {
                for t in wholes {
                    assert!(t < whole, "{tiles} {trips} {blocks}: whole tile {t} past {whole}");
                    for k in 0..trips {
                        done[(t * trips + k) as usize] += 1;
                    }
                }
                // A block with a shared range has at least one iteration of it
                // where anything is shared (its tile's owner waits for it).
                assert!(whole == tiles || end > start, "{tiles} {trips} {blocks}: an empty range");
                for i in start..end {
                    done[i as usize] += 1;
                }
            }
            assert!(done.iter().all(|&n| n == 1), "{tiles} {trips} {blocks} {waves}: not each once");
            // Shared only where the last wave is less than half full and
            // every block gets an iteration.
            let kept = (tiles / blocks).saturating_sub(waves) * blocks;
            let tail = tiles % blocks;
            assert_eq!(whole == tiles, tail == 0 || 2 * tail >= blocks || (tiles - kept) * trips < blocks);
        }
    }

    #[test]
    fn the_division_by_the_trip_count_is_exact_below_2_31() {
        for trips in (1..300).chain([511, 512, 513, 4095, 65535, 65536, 1 << 20, (1 << 31) - 1]) {
            let [.., magic, shift] = StreamK::schedule(200, trips, 132, 0);
            for n in (0..5000u64).chain([(1 << 31) - 1, (1 << 31) - 2, trips * 1000, trips * 1000 - 1]) {
                if n < 1 << 31 {
                    assert_eq!((n * magic) >> shift, n / trips, "{n} / {trips}");
                }
            }
        }
    }
}
