//! The kernel attributes: their names, the keys of `tile.hints`,
//! `tile.tune` and `tile.config` with the values each takes, and the
//! reference page rendered from them (`docs/kernel-attributes.md`).
//!
//! This file is the one source of truth for them: the crate exports it as
//! `tile_dialect::attrs`, and `build.rs` compiles it too and writes the
//! names and the knob table into `KernelAttrs.h.inc`, which the dialect's
//! C++ verifier checks against. It therefore depends on nothing but `core`
//! and `std` (no crates, no melior).
//!
//! Invariant: a key's values here are exactly those the verifier and
//! `tile-specialize` accept; a maximum is there only where the compiler
//! cannot honour a larger value (each knob's doc says why).

/// `func.func` unit attribute: the function is a kernel.
pub const KERNEL: &str = "tile.kernel";
/// Kernel dictionary: code-generation hints, keys in [`HINT_KNOBS`].
pub const HINTS: &str = "tile.hints";
/// Kernel dictionary: the autotuner's space, an `array<i64: ...>` of
/// values to try per key of [`KNOBS`].
pub const TUNE: &str = "tile.tune";
/// Kernel dictionary: one configuration, an integer per key of [`KNOBS`],
/// which `tile-specialize` applies and removes.
pub const CONFIG: &str = "tile.config";
/// Written by `tile-assign-layouts` (and `convert-tile-to-registers`): the
/// threads of a kernel's block.
pub const BLOCK_SIZE: &str = "tile.block_size";
/// Written by `tile-use-tma` and `tile-finish-widening`: the kernel a
/// variant specialises.
pub const VARIANT_OF: &str = "tile.variant_of";
/// Written by `convert-tile-to-gpu`: a kernel's dynamic shared memory.
pub const SHARED_MEMORY: &str = "tile.shared_memory";
/// Written by `tile-persist-blocks`: a variant's blocks walk several
/// tiles; its last argument is the program's 1-D grid.
pub const PERSISTENT: &str = "tile.persistent";
/// Written by `tile-stream-k` on a persistent variant whose last tiles'
/// K loops are shared out among the blocks: `array<i64: elements, arg,
/// dim, tile>`, the elements of one partial tile and what the K loop's
/// trip count counts (see [`ATTRS`]).
pub const STREAM_K: &str = "tile.stream_k";
/// Written by `tile-stream-k` on the K loop of a walk whose K bounds
/// change from one walk to the next: the index of the walk loop's
/// iteration argument that holds the ring position of this walk's first K
/// tile (`registers::tma::base`).
pub const RING_BASE: &str = "tile.ring_base";
/// Written by `tile-widen-blocks`: the kernel whose instance for wider
/// tiles this function is (until `tile-finish-widening`).
pub const WIDE_OF: &str = "tile.wide_of";
/// Written by `tile-widen-blocks` on a widened instance, and kept on its
/// variants: `array<i64: arg, row_dim, column_dim, program_rows,
/// program_columns, rows, columns>`.
pub const RETILED: &str = "tile.retiled";
/// Written by `tile-group-blocks` on a kernel whose every block id along x
/// at its top level it relabelled: the `G` (an `i64`) of its order, `G`
/// tile rows walked column by column; `0` where it relabelled only some.
pub const GROUPED: &str = "tile.grouped";
/// Written by `tile-split-last-wave` on a variant that may run a slice of
/// its grid along x: its last two arguments are the slice's first block
/// and the whole grid along x; the value (an `i64`) is its block order's
/// `G` ([`GROUPED`], 1 for row-major).
pub const GRID_SLICE: &str = "tile.grid_slice";
/// Written by `convert-tile-to-registers`: the kernel's code is per thread
/// already, its tiles in registers (`tile-distribute` leaves it be).
pub const REGISTERS: &str = "tile.registers";
/// Written by `tile-assign-layouts` (or `tile-slice-clusters`): each
/// program block runs as a cluster of this many blocks of
/// `tile.block_size` threads, which the layouts' warps span (unless
/// [`SLICED`]).
pub const CLUSTER: &str = "tile.cluster";
/// Written by `tile-slice-clusters` beside [`CLUSTER`]: each block of the
/// cluster computes its own rows of the program block's mma tiles (the
/// program sliced along them), so the layouts span one block.
pub const SLICED: &str = "tile.sliced";
/// Written by `tile-prefetch-loads` on the loads it issues ahead:
/// `array<i64: ring, distance, index, slots>`, which ring of shared-memory
/// slots the tile goes to if it stays in shared memory (an mma operand),
/// how many iterations ahead the loop loads, which of the first tiles this
/// load is (`-1`: the one in the loop) and the ring's slots.
pub const RING: &str = "tile.ring";
/// Written by `tile-use-tma` on the ring loads of a kernel's TMA variant:
/// the index of the `!llvm.ptr` argument (a [`TMA`] descriptor) the
/// Tensor Memory Accelerator fills the load's ring slots through.
pub const TMA_LOAD: &str = "tile.tma_load";
/// Written by `tile-use-tma` on `tile.tma_load` loads of a sliced
/// cluster's kernel ([`SLICED`]) that read the same tile in every block:
/// each block asks for `1 / tile.cluster` of its rows for all of them.
pub const TMA_MULTICAST: &str = "tile.tma_multicast";
/// Written by `tile-use-tma` on the stores of a kernel's TMA variant whose
/// tile the TMA writes out: the index of the `!llvm.ptr` argument (a
/// [`TMA`] descriptor) it stores through.
pub const TMA_STORE: &str = "tile.tma_store";
/// Argument attribute written by `tile-use-tma`: the `!llvm.ptr`
/// is a TMA descriptor, `{arg, box, swizzle}`.
pub const TMA: &str = "tile.tma";

/// [`TMA`] field: the memref argument the descriptor describes.
pub const TMA_ARG: &str = "arg";
/// [`TMA`] field: the box, one extent per dim of that argument.
pub const TMA_BOX: &str = "box";
/// [`TMA`] field: the swizzle in bytes, one of [`TMA_SWIZZLES`].
pub const TMA_SWIZZLE: &str = "swizzle";
/// [`TMA`] field (a unit attribute, absent when false): the variant runs
/// without the descriptor, which the runtime passes as a null pointer
/// where it cannot describe the array.
pub const TMA_OPTIONAL: &str = "optional";
/// The largest extent of a TMA box dim (the hardware's limit).
pub const TMA_MAX_BOX: i64 = 256;
/// The swizzles a TMA descriptor may have, in bytes (0: none).
pub const TMA_SWIZZLES: [i64; 4] = [0, 32, 64, 128];

/// The most threads a block may have (CUDA's limit): the range of
/// [`BLOCK_SIZE`] is 1 to this.
pub const MAX_BLOCK_SIZE: i64 = 1024;
/// The most blocks of a portable thread block cluster (CUDA's limit): the
/// range of [`CLUSTER`] is 2 to this, and no `num_ctas` or `split_k`
/// beyond it can be honoured.
pub const MAX_CLUSTER: i64 = 8;
/// The most elements of a tile (the language contract's limit), so the
/// largest tile extent.
pub const MAX_TILE_ELEMENTS: i64 = 1 << 20;
/// The most bytes a tile may take (an `i1` element takes a byte): the
/// shared memory of one Hopper block, 227 KiB, where the GPU keeps a tile
/// that does not fit in registers. With power-of-two dims the largest tile
/// is 128 KiB.
pub const MAX_TILE_BYTES: i64 = 227 * 1024;

/// Every attribute the dialect owns, as the reference lists them; the
/// verifier rejects any other `tile.` attribute.
pub static ATTRS: [Attr; 22] = [
    Attr {
        name: KERNEL,
        on: "`func.func`",
        by: "the program",
        value: Form::Unit,
        doc: "Marks a kernel: its arguments are memrefs (rank 1 to 3, a tile element type) and `index`, `i32`, \
              `i64` or `f32` scalars; it returns nothing.",
    },
    Attr {
        name: HINTS,
        on: "kernel",
        by: "the program; `tile-specialize`",
        value: Form::Text("dictionary of integers"),
        doc: "Code-generation hints (the knobs below that are hints). Hints never change results: the compiler \
              honours or ignores them, and ignores unknown keys.",
    },
    Attr {
        name: TUNE,
        on: "kernel",
        by: "the program",
        value: Form::Text("dictionary of non-empty `array<i64: ...>`"),
        doc: "The autotuner's space: for each knob, the values to try (the kernel as written is tried first). \
              `tile-specialize` drops it.",
    },
    Attr {
        name: CONFIG,
        on: "kernel",
        by: "the tuner, or by hand",
        value: Form::Text("dictionary of integers"),
        doc: "One configuration: `tile-specialize` resizes the mma's tiles to its tile sizes, moves its hints into \
              `tile.hints` and removes it.",
    },
    Attr {
        name: BLOCK_SIZE,
        on: "kernel, kernel variant",
        by: "`tile-assign-layouts`, `convert-tile-to-registers`",
        value: Form::Integer { min: 1, max: MAX_BLOCK_SIZE },
        doc: "The threads of a block: chosen from the tiles by `tile-assign-layouts`, and a producer warp's more \
              by `convert-tile-to-registers` (else 256).",
    },
    Attr {
        name: VARIANT_OF,
        on: "kernel variant",
        by: "`tile-use-tma`, `tile-finish-widening`",
        value: Form::Text("flat symbol reference"),
        doc: "The kernel this variant specialises; the runtime falls back to that kernel (where the bundle has it: `tile-defer-general-kernels` leaves it out).",
    },
    Attr {
        name: SHARED_MEMORY,
        on: "kernel",
        by: "`convert-tile-to-gpu`",
        value: Form::Integer { min: 0, max: i64::MAX },
        doc: "The bytes of dynamic shared memory a block needs.",
    },
    Attr {
        name: PERSISTENT,
        on: "kernel variant",
        by: "`tile-persist-blocks`",
        value: Form::Unit,
        doc: "The variant's blocks each walk several tiles; its last argument, an `index`, is the program's 1-D \
              grid, and the runtime launches it on the resident blocks.",
    },
    Attr {
        name: STREAM_K,
        on: "kernel variant",
        by: "`tile-stream-k`",
        value: Form::Text("`array<i64: elements, arg, dim, tile>`"),
        doc: "The variant (also `tile.persistent`) shares its last tiles' K iterations among its blocks: the \
              elements of one partial tile, and the memref argument, dim and tile size whose tile count is the K \
              loop's trip count. Before its last argument it takes the workspace (`memref<?xf32>`, a slot of \
              that many elements for each launched block), the flags (`memref<?xi32>`, one for each launched \
              block, zero at the launch and left zero) and the schedule's seven `index`es \
              (`tile_lowering::stream_k::SCHEDULE`).",
    },
    Attr {
        name: GROUPED,
        on: "kernel",
        by: "`tile-group-blocks`",
        value: Form::Integer { min: 0, max: i64::MAX },
        doc: "The kernel's block ids along x (those at its top level) are relabelled so that consecutive blocks \
              walk this many tile rows column by column; `0` where only some of them are.",
    },
    Attr {
        name: GRID_SLICE,
        on: "kernel variant",
        by: "`tile-split-last-wave`",
        value: Form::Integer { min: 1, max: i64::MAX },
        doc: "The variant may run a slice of its grid along x: its last two arguments, `index`es, are the \
              slice's first block, added to each block id along x, and the whole grid along x, its block count. \
              The value is its block order's group of rows (`tile.grouped`, 1 for row-major), from which the \
              runtime chooses where a wide variant's launch ends and the program's blocks take over.",
    },
    Attr {
        name: RING_BASE,
        on: "`scf.for`",
        by: "`tile-stream-k`",
        value: Form::Integer { min: 0, max: i64::MAX },
        doc: "A K loop whose bounds change from one walk of its enclosing loop to the next: the index of the \
              walk's iteration argument that holds the ring position of the loop's first tile.",
    },
    Attr {
        name: WIDE_OF,
        on: "kernel",
        by: "`tile-widen-blocks`",
        value: Form::Text("flat symbol reference"),
        doc: "The kernel this function instantiates for tiles twice as large along one dim. \
              `tile-finish-widening` makes its variants that kernel's, and the function itself that \
              kernel's last variant where its tiles are 128x128 (else erases it).",
    },
    Attr {
        name: RETILED,
        on: "kernel, kernel variant",
        by: "`tile-widen-blocks`",
        value: Form::Text(
            "`array<i64: arg, row_dim, column_dim, program_rows, program_columns, rows, columns[, 1]>`, dims \
             distinct and >= 0, sizes >= 1",
        ),
        doc: "The variant computes the tiles `rows x columns` of memref argument `arg` (along its dims `row_dim`, \
              `column_dim`) where the program computes `program_rows x program_columns`: the runtime takes it only \
              for a launch whose grid along x is the program's tile count of that array, and launches it on its \
              own tiles' count. An eighth element 1: the kernel walks the tiles itself, each block every \
              grid-size-th from its id (a persistent loop, read nowhere else); the runtime takes the variant \
              for a one-dimensional grid of more blocks than the program has tiles, and launches it on one \
              block a tile of its own.",
    },
    Attr {
        name: REGISTERS,
        on: "kernel",
        by: "`convert-tile-to-registers`",
        value: Form::Unit,
        doc: "The kernel's tiles are in registers and its code is per thread: `tile-distribute` leaves it as it is.",
    },
    Attr {
        name: RING,
        on: "`tile.load`",
        by: "`tile-prefetch-loads`",
        value: Form::Text(
            "`array<i64: ring, distance, index, slots>`, distance >= 1, -1 <= index < distance, slots > distance",
        ),
        doc: "The load is issued ahead: if its tile stays in shared memory (an mma operand), it goes to slot \
              `(iteration + distance) % slots` of ring `ring` (`index`: the iteration it loads before the loop, \
              `-1` in the loop).",
    },
    Attr {
        name: TMA_LOAD,
        on: "`tile.load` with `tile.ring`",
        by: "`tile-use-tma`",
        value: Form::Text("non-negative integer: a `tile.tma` argument of the kernel"),
        doc: "The load's ring slots are filled by the TMA through the descriptor passed as this argument, each slot \
              with an mbarrier that the mma reading it waits on (else the threads copy the tile with `cp.async`).",
    },
    Attr {
        name: TMA_MULTICAST,
        on: "`tile.load` with `tile.tma_load`, in a kernel with `tile.sliced`",
        by: "`tile-use-tma`",
        value: Form::Unit,
        doc: "Every block of the cluster reads the same tile: block `r` asks the TMA for the `r`-th of \
              `tile.cluster` equal parts of its rows (the descriptor's box), multicast into every block's slot, and \
              a slot is refilled once every block's consumers gave it back.",
    },
    Attr {
        name: TMA_STORE,
        on: "`tile.store` of a tile in registers",
        by: "`tile-use-tma`",
        value: Form::Text("non-negative integer: a `tile.tma` argument of the kernel"),
        doc: "The threads write the tile's registers to shared memory, laid out as the descriptor's swizzled boxes, \
              and one thread stores the boxes with the TMA (which clips them at the array's edges), instead of \
              every thread storing its registers to global memory.",
    },
    Attr {
        name: CLUSTER,
        on: "kernel",
        by: "`tile-assign-layouts`, `tile-slice-clusters`",
        value: Form::Integer { min: 2, max: MAX_CLUSTER },
        doc: "Each program block runs as a cluster of this many blocks of `tile.block_size` threads: the layouts' \
              warps span the cluster, `tile.block_id x` is the cluster's, and exchanges between warps go through \
              distributed shared memory. With `tile.sliced`, each block runs its own slice of the program block \
              instead.",
    },
    Attr {
        name: SLICED,
        on: "kernel with `tile.cluster`",
        by: "`tile-slice-clusters`",
        value: Form::Unit,
        doc: "Each block of the cluster computes `1 / tile.cluster` of the rows of the program block's mma tiles \
              (its rank among the cluster's blocks picks which); loads that do not depend on its rank read the \
              same tile in every block, which the TMA may multicast. The layouts span one block.",
    },
    Attr {
        name: TMA,
        on: "`!llvm.ptr` kernel argument",
        by: "`tile-use-tma`",
        value: Form::Text("`{arg = N : i64, box = array<i64: ...>, swizzle = N : i64}`, and a unit `optional`"),
        doc: "A TMA descriptor of memref argument `arg`, which the runtime encodes and passes by address: `box` \
              has one extent per dim of that argument, `swizzle` is in bytes (limits below the table). An \
              `optional` one (a store's) the runtime passes as a null pointer where it cannot describe the array, \
              and the kernel does without it.",
    },
];

/// An attribute of the dialect, as the reference lists it.
#[derive(Clone, Copy, Debug)]
pub struct Attr {
    /// Its name, `tile.` included.
    pub name: &'static str,
    /// What it is found on.
    pub on: &'static str,
    /// Who writes it.
    pub by: &'static str,
    /// The values it takes.
    pub value: Form,
    /// One line on what it means.
    pub doc: &'static str,
}

/// The value of an [`Attr`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// A unit attribute.
    Unit,
    /// An integer in `min..=max` (`i64::MAX`: no maximum).
    Integer { min: i64, max: i64 },
    /// Anything else, described in words.
    Text(&'static str),
}

impl Form {
    /// The values in words, for the reference.
    pub fn describe(&self) -> String {
        match *self {
            Form::Unit => "unit".to_string(),
            Form::Integer { min, max: i64::MAX } => format!("integer, at least {min}"),
            Form::Integer { min, max } => format!("integer, {min} to {max}"),
            Form::Text(text) => text.to_string(),
        }
    }
}

/// What sort of value a knob takes, beyond its range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Off (0) or on (1).
    Flag,
    /// A count.
    Count,
    /// A tile extent: a power of two. Only in `tile.config` and
    /// `tile.tune`, never a hint.
    Extent,
}

/// A key of `tile.hints`, `tile.tune` and `tile.config`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Knob {
    /// The dictionary key.
    pub key: &'static str,
    /// Flag, count or tile extent.
    pub kind: Kind,
    /// The least value.
    pub min: i64,
    /// The largest value; `None` where the compiler has no limit.
    pub max: Option<i64>,
    /// What the compiler does without the knob (`None`: the kernel as
    /// written).
    pub default: Option<i64>,
    /// One line on what it does, and why its maximum is what it is.
    pub doc: &'static str,
}

impl Knob {
    /// Whether `value` is one the knob takes.
    pub fn accepts(&self, value: i64) -> bool {
        value >= self.min
            && self.max.is_none_or(|max| value <= max)
            && (self.kind != Kind::Extent || (value > 0 && value & (value - 1) == 0))
    }

    /// `Ok` if the knob takes `value`, else the message that says what it
    /// takes, e.g. `'num_stages' = 9 is not a positive integer up to 8`.
    pub fn check(&self, value: i64) -> Result<(), String> {
        if self.accepts(value) { Ok(()) } else { Err(format!("'{}' = {value} is not {}", self.key, self.expected())) }
    }

    /// The values the knob takes, as a singular noun phrase for messages
    /// ("must be ..."): `0 or 1`, `a positive integer up to 8`.
    pub fn expected(&self) -> String {
        match (self.kind, self.min, self.max) {
            (Kind::Flag, ..) => "0 or 1".to_string(),
            (Kind::Extent, _, Some(max)) => format!("a power of two tile extent up to {max}"),
            (Kind::Extent, _, None) => "a power of two tile extent".to_string(),
            (Kind::Count, 1, Some(max)) => format!("a positive integer up to {max}"),
            (Kind::Count, 1, None) => "a positive integer".to_string(),
            (Kind::Count, min, Some(max)) => format!("an integer from {min} to {max}"),
            (Kind::Count, min, None) => format!("an integer of at least {min}"),
        }
    }

    /// [`Knob::expected`] in the plural, for the values of a `tile.tune`
    /// list ("values must be ..."): `positive integers up to 8`.
    pub fn expected_plural(&self) -> String {
        match (self.kind, self.min, self.max) {
            (Kind::Flag, ..) => "0 or 1".to_string(),
            (Kind::Extent, _, Some(max)) => format!("powers of two up to {max}"),
            (Kind::Extent, _, None) => "powers of two".to_string(),
            (Kind::Count, 1, Some(max)) => format!("positive integers up to {max}"),
            (Kind::Count, 1, None) => "positive integers".to_string(),
            (Kind::Count, min, Some(max)) => format!("integers from {min} to {max}"),
            (Kind::Count, min, None) => format!("integers of at least {min}"),
        }
    }

    /// The values in a few words, for the reference's table.
    pub fn range(&self) -> String {
        match (self.kind, self.max) {
            (Kind::Flag, _) => "0 or 1".to_string(),
            (Kind::Extent, Some(max)) => format!("power of two, {} to {max}", self.min),
            (Kind::Extent, None) => format!("power of two, at least {}", self.min),
            (Kind::Count, Some(max)) => format!("{} to {max}", self.min),
            (Kind::Count, None) => format!("{} or more", self.min),
        }
    }

    /// Whether the knob is a hint (else a tile size of `tile.config` and
    /// `tile.tune` only).
    pub fn is_hint(&self) -> bool {
        self.kind != Kind::Extent
    }
}

/// Each knob by itself, for callers that read one (`knob::NUM_STAGES.key`,
/// `knob::NUM_STAGES.max`).
pub mod knob {
    use super::{Kind, Knob, MAX_CLUSTER, MAX_TILE_ELEMENTS};

    /// `tile_m`: the mma's M tile.
    pub const TILE_M: Knob = Knob {
        key: "tile_m",
        kind: Kind::Extent,
        min: 1,
        max: Some(MAX_TILE_ELEMENTS),
        default: None,
        doc: "The `tile.mma`'s M tile, and every tile the program ties to it.",
    };
    /// `tile_n`: the mma's N tile.
    pub const TILE_N: Knob = Knob {
        key: "tile_n",
        kind: Kind::Extent,
        min: 1,
        max: Some(MAX_TILE_ELEMENTS),
        default: None,
        doc: "The `tile.mma`'s N tile, and every tile the program ties to it.",
    };
    /// `tile_k`: the mma's K tile.
    pub const TILE_K: Knob = Knob {
        key: "tile_k",
        kind: Kind::Extent,
        min: 1,
        max: Some(MAX_TILE_ELEMENTS),
        default: None,
        doc: "The `tile.mma`'s K tile, and every tile the program ties to it.",
    };
    /// `num_stages`: the TMA ring's stages.
    pub const NUM_STAGES: Knob = Knob {
        key: "num_stages",
        kind: Kind::Count,
        min: 1,
        max: Some(8),
        default: Some(4),
        doc: "Tiles of each loop's loads in flight, the one in use included (`tile-prefetch-loads` issues them \
              `num_stages - 1` iterations ahead; an mma loop's operand rings fewer where they do not fit). Maximum: \
              the furthest ahead a ring goes, plus one.",
    };
    /// `occupancy`: blocks an SM should hold.
    pub const OCCUPANCY: Knob = Knob {
        key: "occupancy",
        kind: Kind::Count,
        min: 1,
        max: Some(32),
        default: Some(1),
        doc: "Blocks an SM should hold at once: the mma loops' operand rings shrink to their share of its shared \
              memory (`tile-prefetch-loads`). Registers are not limited for it. Maximum: the most blocks an SM \
              holds.",
    };
    /// `num_ctas`: blocks per cluster.
    pub const NUM_CTAS: Knob = Knob {
        key: "num_ctas",
        kind: Kind::Count,
        min: 1,
        max: Some(MAX_CLUSTER),
        default: Some(1),
        doc: "Blocks per cluster (down to a power of two). With a `tile.mma`: each block of the cluster computes \
              `1 / num_ctas` of the mma's rows (`tile.sliced`; at least 64 a block), and the tiles every block reads \
              alike (B) are multicast by the TMA where a producer warp runs. Without: the blocks a tile block runs as (`tile.cluster`), which the \
              compiler otherwise chooses from the tiles. Maximum: a portable cluster's size.",
    };
    /// `warp_specialize`: a producer warpgroup.
    pub const WARP_SPECIALIZE: Knob = Knob {
        key: "warp_specialize",
        kind: Kind::Flag,
        min: 0,
        max: Some(1),
        default: Some(0),
        doc: "A producer that requests the mma loops' tiles while the others multiply: a warp in the TMA \
              variant, which, unasked, has one where its rings are too shallow for the consumers to request far ahead, or where a \
              persistent kernel's rings continue from one walk to the next (0 turns it off); a warpgroup that gives \
              its registers to the consumers (`setmaxnreg`) where two consumer warpgroups' accumulators take 128 a thread.",
    };
    /// `persistent`: resident blocks that walk several tiles.
    pub const PERSISTENT: Knob = Knob {
        key: "persistent",
        kind: Kind::Flag,
        min: 0,
        max: Some(1),
        default: Some(0),
        doc: "Resident blocks that each walk several tiles of a 1-D grid (`tile.persistent`): the TMA variant \
              (`tile-persist-blocks`; not a widened instance, a \
              cluster whose layouts span its blocks or a 2-D grid, each with a remark; a sliced cluster walks \
              the tiles as one), whose rings continue from one tile to the next.",
    };
    /// `split_k`: blocks that share a tile's K loop.
    pub const SPLIT_K: Knob = Knob {
        key: "split_k",
        kind: Kind::Count,
        min: 1,
        max: Some(MAX_CLUSTER),
        default: Some(1),
        doc: "Blocks of a cluster that split each tile's K loop (`tile-split-k`: each sums its part of the \
              accumulator into the first block's through distributed shared memory, `tile.cluster_sum`); not with \
              `persistent`. Maximum: a portable cluster's size.",
    };
    /// `stream_k`: the last tiles' K loops shared out among the blocks.
    pub const STREAM_K: Knob = Knob {
        key: "stream_k",
        kind: Kind::Flag,
        min: 0,
        max: Some(1),
        default: Some(0),
        doc: "A persistent variant (`persistent = 1`) whose last wave of tiles would leave multiprocessors idle \
              shares that wave's K iterations evenly among its blocks (`tile-stream-k`): the whole waves stay a \
              tile a block, and each tile split among blocks is summed by the block that ran its first K \
              iteration (`tile.partial_store`, `tile.partial_sum`, through a workspace the runtime holds). \
              Faster only where the last wave is less than about half full (BENCHMARKS.md, session 47).",
    };
    /// `group_m`: tile rows that consecutive blocks walk together.
    pub const GROUP_M: Knob = Knob {
        key: "group_m",
        kind: Kind::Count,
        min: 1,
        max: Some(1024),
        default: Some(8),
        doc: "Tile rows that consecutive blocks (or a persistent loop's consecutive tiles) walk column by column \
              where the kernel splits its index row-major (`tile-group-blocks`), so that the blocks resident at \
              once share operand tiles in L2. 1 keeps the program's order.",
    };
    /// `pingpong`: consumer warpgroups taking turns at the tensor cores.
    pub const PINGPONG: Knob = Knob {
        key: "pingpong",
        kind: Kind::Flag,
        min: 0,
        max: Some(1),
        default: Some(0),
        doc: "The two consumer warpgroups take turns at the tensor cores, in a kernel's one loop of several mmas (attention): each issues its wgmmas in turn, so that \
              one's softmax runs beside the other's mmas; unasked where a producer warp requests the tiles (0 \
              turns it off), otherwise only when asked.",
    };
    /// `swap_operands`: a tf32 mma with B loaded N-major computed
    /// transposed.
    pub const SWAP_OPERANDS: Knob = Knob {
        key: "swap_operands",
        kind: Kind::Flag,
        min: 0,
        max: Some(1),
        default: Some(1),
        doc: "A tf32 or 8-bit float `tile.mma` whose B is loaded N-major (which wgmma reads from shared memory \
              only K-major) is computed transposed, `C^T = B^T A^T`: B stays in shared memory as loaded, the \
              threads read B^T's fragments from it for wgmma's register form, wgmma reads A where it is, and no \
              thread writes B K-major into shared memory (BENCHMARKS.md, sessions 23 and 25). 0 writes B K-major \
              instead.",
    };
}

/// The tile sizes of `tile.config` and `tile.tune`, in the order M, N, K.
pub static TILE_KNOBS: [Knob; 3] = [knob::TILE_M, knob::TILE_N, knob::TILE_K];

/// The knobs that are hints: `tile.hints` keys, and `tile.config` and
/// `tile.tune` keys that `tile-specialize` moves into `tile.hints`.
pub static HINT_KNOBS: [Knob; 10] = [
    knob::NUM_STAGES,
    knob::OCCUPANCY,
    knob::NUM_CTAS,
    knob::WARP_SPECIALIZE,
    knob::PERSISTENT,
    knob::STREAM_K,
    knob::SPLIT_K,
    knob::PINGPONG,
    knob::GROUP_M,
    knob::SWAP_OPERANDS,
];

/// Every key of `tile.config` and `tile.tune`: the tile sizes, then the
/// hints.
pub static KNOBS: [Knob; 13] = [
    knob::TILE_M,
    knob::TILE_N,
    knob::TILE_K,
    knob::NUM_STAGES,
    knob::OCCUPANCY,
    knob::NUM_CTAS,
    knob::WARP_SPECIALIZE,
    knob::PERSISTENT,
    knob::STREAM_K,
    knob::SPLIT_K,
    knob::PINGPONG,
    knob::GROUP_M,
    knob::SWAP_OPERANDS,
];

/// The hint named `key`.
pub fn hint(key: &str) -> Option<&'static Knob> {
    HINT_KNOBS.iter().find(|k| k.key == key)
}

/// The tile size named `key`.
pub fn tile(key: &str) -> Option<&'static Knob> {
    TILE_KNOBS.iter().find(|k| k.key == key)
}

/// The `tile.config` or `tile.tune` key named `key`.
pub fn knob(key: &str) -> Option<&'static Knob> {
    KNOBS.iter().find(|k| k.key == key)
}

/// The reference page, `docs/kernel-attributes.md`, exactly. The
/// integration test `docs` fails when the committed page differs.
pub fn markdown() -> String {
    let mut md = String::new();
    md.push_str(
        "<!-- Generated from dialects/src/attrs.rs (tile_dialect::attrs::markdown); don't edit. \
         scripts/gen-docs.sh regenerates it. -->\n\
         \n\
         # Kernel attributes\n\
         \n\
         The attributes the `tile` dialect owns, and the keys of the dictionaries among them. The verifier \
         checks each attribute where it is found and the value of each key below against this table; the names \
         and the table come from one file, `dialects/src/attrs.rs` (`tile_dialect::attrs` in Rust, \
         `KernelAttrs.h.inc` in the dialect's C++).\n\
         \n\
         ## Attributes\n\
         \n\
         | Attribute | On | Written by | Value | Meaning |\n\
         |---|---|---|---|---|\n",
    );
    for attr in &ATTRS {
        md.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            attr.name,
            attr.on,
            attr.by,
            attr.value.describe(),
            attr.doc
        ));
    }
    let swizzles: Vec<String> = TMA_SWIZZLES.iter().map(i64::to_string).collect();
    let (last, rest) = swizzles.split_last().map_or(("", &[][..]), |(last, rest)| (last.as_str(), rest));
    md.push_str(&format!(
        "\n`{TMA}`: each `{TMA_BOX}` extent is 1 to {TMA_MAX_BOX}; `{TMA_SWIZZLE}` is {} or {last}.\n",
        rest.join(", ")
    ));
    md.push_str(&format!(
        "\n\
         ## Knobs\n\
         \n\
         The keys of `{HINTS}`, `{TUNE}` and `{CONFIG}`. Each value is an integer (`{HINTS}`, `{CONFIG}`: \
         `num_stages = 3 : i64`) or, in `{TUNE}`, a non-empty list of the integers to try \
         (`num_stages = array<i64: 2, 3, 4>`); every value must be in the key's range.\n\
         \n\
         * `{HINTS}`: only the hints. Hints never change results: the compiler honours or ignores them. A key \
         it does not know is ignored, never an error; a known key's value out of its range is one.\n\
         * `{TUNE}`: the tile sizes and the hints. `tile_lowering::tune` tries each combination (the kernel as \
         written first) and rejects keys it does not know.\n\
         * `{CONFIG}`: one value per key; `tile-specialize` resizes the `tile.mma`'s tiles (and every tile tied \
         to them) to the tile sizes, moves the hints into `{HINTS}`, and rejects keys it does not know.\n\
         \n\
         | Key | Values | Default | In | Meaning |\n\
         |---|---|---|---|---|\n"
    ));
    for knob in &KNOBS {
        let default = knob.default.map_or_else(|| "as written".to_string(), |d| d.to_string());
        let within = if knob.is_hint() { "hints, tune, config" } else { "tune, config" };
        md.push_str(&format!("| `{}` | {} | {default} | {within} | {} |\n", knob.key, knob.range(), knob.doc));
    }
    md
}
