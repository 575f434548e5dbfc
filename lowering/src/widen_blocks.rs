//! `tile-widen-blocks`: a variant whose blocks each compute two of the
//! program's output tiles, for launches of one block per output tile; and
//! one whose blocks each compute part of one, for launches of too few tiles
//! to fill the GPU. `tile-finish-widening` ([`crate::finish_widening`])
//! makes the instances' variants the kernel's.
//!
//! Summary: a Hopper block of two warpgroups that computes a 128x128 tile
//! with 16-bit wgmmas tops out near 0.9 of the vendor's GEMM; 128x256 tiles
//! (each warpgroup's wgmma `m64n256`) reach it. Where a kernel's block
//! finds its output tile by splitting its block id row-major (`bid / n`,
//! `bid % n`, `n` a `tile.num_tiles` of a kernel argument's view), a launch
//! of one block per such tile can run the kernel instantiated for tiles
//! twice as large along one dim (`tile_n = 256` for 128x128 tiles, `tile_m
//! = 128` for 64x128 ones) on half as many blocks: `tile.num_tiles`
//! follows the wider views, and every value the block id reaches is a
//! tile coordinate along the widened dim or along dims that keep their
//! size, so each wide block computes exactly what the two blocks it
//! replaces computed. `tile-widen-blocks` makes that instance, `@K__wide`,
//! beside kernel `@K` (through [`crate::specialize`]), marked
//! `tile.wide_of = @K` and `tile.retiled`, its K loops widened where their
//! rows are narrower than 128 bytes ([`crate::widen_k`]: 64x128x32 tiles
//! become 128x128x64, the A B programs' block, for its TMA variant and
//! its own threads' copies alike); the pipeline compiles it as any
//! kernel, so its TMA and wgmma variants are made by the passes that make
//! `@K`'s. `tile-finish-widening`, after `tile-use-tma`, makes those
//! variants `@K`'s (tried first, with `tile.retiled`). Where the instance's
//! tiles are 128x128 (a 64x128 program's), `@K__wide` itself becomes
//! `@K`'s last variant: rows the TMA cannot describe then run the wider
//! blocks' threads' copies, as a 128x128 program's kernel would; a
//! 128x256 instance is erased. A 64x128 program's 128x128 instance is
//! widened again along N, `@K__wide__wide` (128x256 tiles, four of the
//! program's; its `tile.retiled` counts the program's tiles and its
//! `tile.wide_of` names `@K`), whose variants are then tried first: the
//! A B programs' wide block, faster than the 128x128 one on the tensor
//! cores (BENCHMARKS.md, session 30, run 5). The runtime takes such
//! a variant only when the launch's grid along x is the tile count that
//! `tile.retiled` names, and launches it on the wider tiles' count (see
//! `tile_abi::Retiled`).
//!
//! Narrow blocks: a launch of fewer program tiles than SMs (the decode
//! step of a GEMM, M = 16) leaves SMs idle while each busy one multiplies
//! a 128x128 tile that is mostly padding rows: its tensor cores, not
//! memory, bound it (BENCHMARKS.md, session 43). The same check admits
//! `@K__narrow`, the kernel instantiated for 64x64 tiles (`tile_m = 64,
//! tile_n = 64` for 128x128 program tiles; `tile_n = 64` for 64x128 ones):
//! four (or two) times the blocks, each a quarter (or half) of the
//! tensor-core work, their loads `num_stages = 4` deep unless the program
//! asks for a depth (the blocks are few, so their deeper rings cost no
//! occupancy that matters). Its `tile.retiled` has the smaller tile; the runtime
//! takes it only where the program's blocks leave SMs idle and its own
//! take at most two waves of them, so it never competes with a wide
//! variant. A kernel that walks its tiles itself (a hand-written
//! persistent loop: `scf.for %t = %bid to %tiles_m * %tiles_n step
//! %num_blocks`, the grid's size read nowhere else, nothing carried from
//! tile to tile, every store in the walk) gets the narrow instance alone,
//! its `tile.retiled` marked as a walk: on a grid of more blocks than the
//! program's tiles, the runtime launches it on one block a narrow tile,
//! which computes the same as any grid since each block takes every
//! grid-size-th tile of the walk.
//!
//! The same pass makes `@K__widek` of a kernel whose K loops take K tiles
//! narrower than 128-byte rows ([`crate::widen_k`]): an instance with only
//! those loops widened, no `tile.retiled`. Its TMA variant takes the
//! wider steps on the TMA's rings; the kernel itself keeps its steps,
//! since its `cp.async` copies of wider tiles measured slower (2047^3:
//! 73 TFLOP/s against 52, BENCHMARKS.md, session 27).
//! `tile-finish-widening` puts its TMA variant after the kernel's own
//! variants but before the kernel's TMA variant, which stays for where the
//! instance's cannot run (too large for shared memory, dropped by
//! `convert-tile-to-gpu`), and erases an instance's variant that leaves a
//! shared tile to the threads' copies (`@K__widek__tma`: 20 TFLOP/s
//! against 14 for the 64x128x32 program at M = 16).
//!
//! Before:
//! ```mlir
//! func.func @linear(%X: memref<?x?xf16>, %W: memref<?x?xf16>, %Y: memref<?x?xf16>) attributes {tile.kernel} {
//!   %py = tile.partition_view %Y : memref<?x?xf16> -> !tile.partition_view<128x128xf16>
//!   %bid = tile.block_id x : index
//!   %tiles_n = tile.num_tiles %py dim 1 : !tile.partition_view<128x128xf16>
//!   %bm = arith.divui %bid, %tiles_n : index
//!   %bn = arith.remui %bid, %tiles_n : index
//!   ... tile.mma ... : tensor<128x64xf16>, tensor<64x128xf16> into tensor<128x128xf32> ...
//! ```
//! After `tile-widen-blocks` (the instance's locations are named
//! `"tile.widened"`, and remarks there are not said twice):
//! ```mlir
//! func.func @linear(...) attributes {tile.kernel} { ... }
//! func.func @linear__wide(...) attributes {tile.kernel, tile.wide_of = @linear,
//!     tile.retiled = array<i64: 2, 0, 1, 128, 128, 128, 256>} {
//!   %py = tile.partition_view %Y : memref<?x?xf16> -> !tile.partition_view<128x256xf16>
//!   ... tile.mma ... : tensor<128x64xf16>, tensor<64x256xf16> into tensor<128x256xf32> ...
//! ```
//! After `tile-finish-widening`: `@linear`, then `@linear__wide__tma`
//! (`tile.variant_of = @linear`, `tile.retiled` as above), then `@linear`'s
//! own variants.
//!
//! tf32 (an mma of f32 operands) gets the wide instance of 128x128 program
//! tiles alone, in K steps of 32 where the program's are larger (split by
//! the specialiser, as a `tile_k` configuration is, once the blocks are
//! checked; only in a loop over every K tile at its index, `widen_k`'s
//! form, and only where M and N keep their sizes): four ring slots of 48
//! KiB, and the f32 tile is then staged for its TMA store in the B ring's
//! memory (four slots of 32 KiB). With the program's K steps of 64 only
//! two slots would fit (BENCHMARKS.md, session 45: 369 TFLOP/s against 344
//! at 4096^3). A `num_stages` or `occupancy` hint that leaves fewer slots
//! leaves the staging no room: the variant is then dropped (a remark at
//! `convert-tile-to-gpu`), and the kernel's own variants run.
//!
//! Caveats: only kernels with one `tile.mma` on f16 or bf16 tiles of 128x128
//! or 64x128 (tf32: 128x128), no `tile.config` or `tile.tune` (the tuner tries tile sizes
//! itself), and only `tile`, `arith`, `math` and `scf.for` ops among which
//! nothing reads a position inside a tile (`tile.iota`) or reduces one
//! (`tile.reduce`), and no wide variant of a persistent loop over the
//! grid's size (it ran slower: `bench/experiments/persistent-wide.patch`,
//! BENCHMARKS.md session 21). The check that a block does the work of
//! the ones it replaces is conservative: a tile count of a dim that
//! changes may be read only as the block id's divisor (or the walk's
//! bound), no array but the counted one may be stored (another number of
//! blocks would store it another number of times; where the count is odd,
//! a wide block would write past the program's last tile, and narrow
//! blocks would leave part of one unwritten), the counted one only at the
//! block's row and column coordinates, and the counted view changes along
//! the retiled coordinates' dims alone. A 64x64 instance of 128x128 tiles
//! is first checked one coordinate at a time (64x128, 128x64): square
//! tiles keep every view's shape where the coordinates are swapped or a
//! tile transposed. Wide ones need 16-bit outputs, or outputs of their
//! operands' type (tf32's f32), staged in the rings' memory: an f16 GEMM's
//! f32 128x256 tile would need room of its own, which does not fit beside
//! the rings. A launch of
//! another grid, of too few wide blocks to fill the GPU or of too many
//! narrow ones for two waves, runs `@K` and its variants as before. The
//! pass says which kernels it retiles (`WideBlocks`, `NarrowBlocks`), and
//! why it leaves an mma kernel alone (`WideBlocks`).

use crate::{
    build::tile_type,
    pass::{PassInfo, TilePass},
    rewrite::{BlockProbe, IrValue, Probe, defining_op, detach, op_name, uses},
};
use melior::{
    ContextRef,
    ir::{
        Attribute, BlockLike, Location, OperationRef, RegionLike, Value, ValueLike,
        attribute::{DenseI64ArrayAttribute, FlatSymbolRefAttribute, StringAttribute},
        operation::{OperationLike, OperationMutLike, WalkOrder, WalkResult},
    },
    pass::{ExternalPass, RunExternalPass},
};
use tile_dialect::{
    attrs::{self, CONFIG, PERSISTENT, TUNE, VARIANT_OF, knob},
    types::PartitionViewType,
};

/// The suffix of a widened instance's name.
pub const WIDE_SUFFIX: &str = "__wide";

/// The suffix of a narrowed instance's name.
pub const NARROW_SUFFIX: &str = "__narrow";

/// The suffix of an instance whose K loops take wider steps.
pub const WIDE_K_SUFFIX: &str = "__widek";

/// The K tile of a tf32 program's wide instance (see [`plan`]).
const TF32_WIDE_K: i64 = 32;

/// The ring depth (`num_stages`) of a narrow instance whose program asks
/// for none: 64x64 blocks ran up to 9% faster with it than with the
/// prefetcher's default at the decode step and other launches of few
/// tiles (the suite's decode cases 5% on average), and no case slower
/// beyond the spread between rounds (BENCHMARKS.md, session 46).
const NARROW_STAGES: i64 = 4;

/// The location name that marks a widened instance's ops: remarks there
/// repeat the kernel's and are not said.
pub const WIDENED_LOCATION: &str = "tile.widened";

/// The `tile-widen-blocks` pass.
#[derive(Clone, Default)]
pub struct WidenBlocks;

impl TilePass for WidenBlocks {
    const INFO: PassInfo = PassInfo {
        argument: "tile-widen-blocks",
        name: "TileWidenBlocks",
        summary: "Instantiate kernels that find their output tile row-major from the block id (or walk the tiles) \
                  for tiles twice as large along one dim, and for tiles a quarter or half as large (tile.wide_of), \
                  for launches of one block per output tile",
        op_name: "builtin.module",
    };
    crate::pass_type_id!();
}

/// How an instance's tiles compare with the program's along one of the
/// block's two coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scale {
    Same,
    Twice,
    Half,
}

impl Scale {
    fn apply(self, size: i64) -> i64 {
        match self {
            Scale::Same => size,
            Scale::Twice => 2 * size,
            Scale::Half => size / 2,
        }
    }
}

/// Which tile dims a kernel's block id picks, and how to retile them.
#[derive(Clone)]
struct Plan<'c> {
    /// The kernel argument whose view the tile count is of.
    arg: usize,
    /// Its view's dims the block id's quotient and remainder index.
    dims: [usize; 2],
    /// The mma's tile (rows, columns) in the program.
    tile: [i64; 2],
    /// The configuration of the instance: keys and their values.
    config: Vec<(&'static str, i64)>,
    /// How the quotient's dim (the rows) and the remainder's change.
    scale: [Scale; 2],
    /// The block id the row and column are split from, or the induction
    /// variable of the walk over the tiles (`walk`).
    index: IrValue<'c>,
    /// The loop that walks the tiles from the block id by the grid's size,
    /// whose induction variable `index` is (a hand-written persistent
    /// kernel).
    walk: Option<OperationRef<'c, 'c>>,
    /// The mma operands' element type (`f16`, `bf16`, or `f32` for tf32).
    operands: String,
    /// The K tile the instance takes once its blocks are checked to do
    /// the work of those they replace (tf32's, [`TF32_WIDE_K`]): the
    /// specialiser splits each K step, as a `tile_k` configuration does.
    k_tile: Option<i64>,
}

impl<'c> Plan<'c> {
    /// The plan of the instance with blocks of a quarter of the program's
    /// 128x128 tiles (64x64), or half its 64x128 ones; `None` for other
    /// tiles. Its loads go [`NARROW_STAGES`] deep unless `kernel` asks for
    /// a depth (`num_stages`).
    fn narrowed(&self, kernel: OperationRef) -> Option<Self> {
        // tf32's narrow blocks were never measured.
        if self.operands == "f32" {
            return None;
        }
        let (mut config, scale) = match self.tile {
            [128, 128] => (vec![("tile_m", 64), ("tile_n", 64)], [Scale::Half, Scale::Half]),
            [64, 128] => (vec![("tile_n", 64)], [Scale::Same, Scale::Half]),
            _ => return None,
        };
        let stages = knob::NUM_STAGES.key;
        if crate::rewrite::hint(kernel, stages).is_none() {
            config.push((stages, NARROW_STAGES));
        }
        Some(Plan { config, scale, ..self.clone() })
    }

    fn grows(&self) -> bool {
        self.scale.contains(&Scale::Twice)
    }

    fn configuration(&self) -> String {
        self.config.iter().map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join(", ")
    }
}

fn missed(location: Location, reason: &str) {
    crate::remarks::missed(location, WidenBlocks::INFO.argument, "WideBlocks", reason);
}

impl<'c> RunExternalPass<'c> for WidenBlocks {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, _pass: ExternalPass<'_>) {
        for raw in crate::rewrite::kernels(operation, &[CONFIG, TUNE, VARIANT_OF, PERSISTENT, attrs::WIDE_OF]) {
            // SAFETY: a live top-level function; this pass only adds
            // functions after it.
            let kernel = unsafe { OperationRef::from_raw(raw) };
            if let Some(name) = kernel.attribute("sym_name").ok().and_then(|a| StringAttribute::try_from(a).ok()) {
                widen_k_instance(kernel, name.value());
            }
            match plan(kernel) {
                Ok(None) => {}
                Ok(Some(plan)) => {
                    // (The runtime takes a narrow variant only where the
                    // program's blocks leave multiprocessors idle, a wide
                    // one only where its blocks fill them: never both.)
                    if let Some(narrow) = plan.narrowed(kernel)
                        && let Err(why) = retile(kernel, &narrow, None)
                    {
                        missed(kernel.location(), &format!("no variant with narrower blocks: {why}"));
                    }
                    if plan.walk.is_some() {
                        // bench/experiments/persistent-wide.patch makes one:
                        // ptxas gave it 203 registers, and it ran 7-11%
                        // slower.
                        missed(
                            kernel.location(),
                            "no variant with wider blocks: the kernel reads the grid's size (a persistent loop): a \
                             wide variant of it measured slower",
                        );
                        continue;
                    }
                    match retile(kernel, &plan, None) {
                        Err(why) => missed(kernel.location(), &format!("no variant with wider blocks: {why}")),
                        // A 64x128 program's 128x128 instance widened again:
                        // blocks of 128x256, four program tiles, as an A B
                        // program's wide variant (the 128x128 one stays for
                        // launches too small for these, and for its own path).
                        Ok(wide) if plan.scale[0] == Scale::Twice => {
                            if let Ok(Some(again)) = self::plan(wide)
                                && let Err(why) = retile(wide, &again, Some(kernel))
                            {
                                missed(kernel.location(), &format!("no variant with blocks of four tiles: {why}"));
                            }
                        }
                        Ok(_) => {}
                    }
                }
                Err((location, why)) => missed(location, &format!("no variant with wider or narrower blocks: {why}")),
            }
        }
    }
}

type Refusal<'c> = (Location<'c>, String);

/// The widening of `kernel`, `None` for a kernel without a 16-bit or tf32
/// mma (no remark), or why it is not widened.
fn plan<'c>(kernel: OperationRef<'c, '_>) -> Result<Option<Plan<'c>>, Refusal<'c>> {
    let mut mmas = Vec::new();
    let mut block_ids = Vec::new();
    let mut grid_sizes = Vec::new();
    let mut refused: Option<Refusal> = None;
    kernel.walk(WalkOrder::PreOrder, |op| {
        let name = op_name(op);
        let along_x = op.attribute("axis").is_ok_and(|a| a.to_string().ends_with("x>"));
        if name == "tile.num_blocks" && along_x {
            // Allowed as a walk's step alone (below).
            grid_sizes.push(op.to_raw());
            return WalkResult::Advance;
        }
        let allowed = matches!(
            name.as_str(),
            "func.func"
                | "func.return"
                | "scf.for"
                | "scf.yield"
                | "tile.partition_view"
                | "tile.load"
                | "tile.store"
                | "tile.mma"
                | "tile.permute"
                | "tile.reshape"
                | "tile.broadcast"
                | "tile.splat"
                | "tile.num_tiles"
                | "tile.block_id"
        ) || crate::layout::assign::elementwise(&name)
            || name == "arith.constant";
        match name.as_str() {
            "tile.mma" => mmas.push(op.to_raw()),
            "tile.block_id" if along_x => block_ids.push(op.to_raw()),
            _ => {}
        }
        if !allowed && refused.is_none() {
            // SAFETY: the location lives in the context.
            let location = unsafe { Location::from_raw(op.location().to_raw()) };
            refused = Some((location, format!("the kernel holds {name}, which may tell tiles apart by position")));
        }
        WalkResult::Advance
    });
    // SAFETY: ops of the kernel, alive for this function.
    let mmas: Vec<OperationRef> = mmas.into_iter().map(|r| unsafe { OperationRef::from_raw(r) }).collect();
    let [mma] = mmas.as_slice() else { return Ok(None) };
    let a = mma.operand_at(0).and_then(|v| tile_type(v.r#type()));
    let result = mma.result_at(0).and_then(|r| tile_type(r.r#type()));
    let (Some((a_shape, element)), Some((shape, _))) = (a, result) else { return Ok(None) };
    let operands = element.to_string();
    if !matches!(operands.as_str(), "f16" | "bf16" | "f32") {
        return Ok(None);
    }
    if let Some(refusal) = refused {
        return Err(refusal);
    }
    let (rows, columns) = (shape.first().copied().unwrap_or(0), shape.get(1).copied().unwrap_or(0));
    let (config, scale) = match (rows, columns) {
        (128, 128) => (vec![("tile_n", 256)], [Scale::Same, Scale::Twice]),
        (64, 128) if operands != "f32" => (vec![("tile_m", 128)], [Scale::Twice, Scale::Same]),
        _ if operands == "f32" => {
            return Err((mma.location(), format!("its {rows}x{columns} tf32 tiles are not 128x128")));
        }
        _ => return Err((mma.location(), format!("its {rows}x{columns} tiles are not 128x128 or 64x128"))),
    };
    // tf32's wide block takes K steps of 32 (128-byte rows): four ring
    // slots of 48 KiB, whose memory then holds the 128 KiB f32 tile staged
    // for its store (BENCHMARKS.md, session 45); K steps of 64 leave room
    // for two slots alone.
    let depth = a_shape.get(1).copied().unwrap_or(0);
    let k_tile = (operands == "f32" && depth > TF32_WIDE_K).then_some(TF32_WIDE_K);
    if k_tile.is_some() && depth % TF32_WIDE_K != 0 {
        return Err((mma.location(), format!("its K tile of {depth} is not a multiple of {TF32_WIDE_K}")));
    }
    // Split K steps sum the same products only in a loop over every K tile
    // at the index (`widen_k`'s form): a fixed K tile, another bound or no
    // loop would keep its iterations and lose half of each step.
    if k_tile.is_some() && !crate::widen_k::in_k_loop(*mma) {
        return Err((
            mma.location(),
            format!(
                "its K tiles of {depth} could be split to {TF32_WIDE_K} only in a loop from 0 by 1 over the tile \
                 count of its operands' views, the index their K coordinate"
            ),
        ));
    }
    // SAFETY: as above.
    let block_ids: Vec<OperationRef> = block_ids.into_iter().map(|r| unsafe { OperationRef::from_raw(r) }).collect();
    let [block_id] = block_ids.as_slice() else {
        return Err((kernel.location(), "it reads the block id along x in other than one place".into()));
    };
    let at = block_id.location();
    let id: Value = block_id.result_at(0).ok_or_else(|| (at, String::new()))?.into();
    // SAFETY: as above.
    let grid_sizes: Vec<OperationRef> = grid_sizes.into_iter().map(|r| unsafe { OperationRef::from_raw(r) }).collect();
    let walk = match grid_sizes.as_slice() {
        [] => None,
        [size] => match walk_of(id, *size) {
            Some(walk) => Some(walk),
            None => return Err((
                size.location(),
                "the kernel reads the grid's size other than as the step of a walk over its tiles from the block id"
                    .into(),
            )),
        },
        [size, ..] => return Err((size.location(), "the kernel reads the grid's size in several places".into())),
    };
    // The walk's induction variable takes the block id's place.
    let (id, r#loop) = match walk {
        // SAFETY: the loop is an op of the kernel, alive for this function.
        Some((r#loop, iv)) => (iv, Some(unsafe { OperationRef::from_raw(r#loop.to_raw()) })),
        None => (id, None),
    };
    // Every use of the id is `id / n` or `id % n`, one `n`.
    let mut count = None;
    let mut parts = [Vec::new(), Vec::new()];
    for (user, position) in uses(id) {
        let part = match op_name(user).as_str() {
            "arith.divui" if position == 0 => 0,
            "arith.remui" if position == 0 => 1,
            _ => return Err((at, "the block id is read other than as id / n and id % n".into())),
        };
        let n = user.operand_at(1).ok_or_else(|| (at, String::new()))?;
        match count {
            None => count = Some(detach(n)),
            Some(c) if c == detach(n) => {}
            Some(_) => return Err((at, "the block id is divided by two different counts".into())),
        }
        parts[part].push(detach(user.result_at(0).ok_or_else(|| (at, String::new()))?.into()));
    }
    let Some(count) = count.filter(|_| parts.iter().all(|p| !p.is_empty())) else {
        return Err((at, "the block id is not split into a row and a column (id / n and id % n)".into()));
    };
    // `n` is a tile count of a kernel argument's view.
    let tiles = defining_op(count).filter(|d| op_name(*d) == "tile.num_tiles");
    let Some(tiles) = tiles else {
        return Err((at, "the block id is split by a count that is not a tile.num_tiles".into()));
    };
    let dim = tiles
        .attribute("dim")
        .ok()
        .and_then(|a| melior::ir::attribute::IntegerAttribute::try_from(a).ok())
        .map(|a| a.value() as usize);
    let view = tiles.operand_at(0).and_then(defining_op).filter(|d| op_name(*d) == "tile.partition_view");
    let entry = kernel.region_at(0).and_then(|r| r.first_block());
    let arg = view.and_then(|v| v.operand_at(0)).zip(entry).and_then(|(m, e)| crate::rewrite::argument_of(m, e));
    let (Some(dim), Some(arg)) = (dim.filter(|&d| d >= 1), arg) else {
        return Err((at, "the block id is split by the tile count of a view that is not of a kernel argument".into()));
    };
    // The row and the column are only tile coordinates.
    for value in parts.iter().flatten() {
        for (user, position) in uses(*value) {
            let coordinate = match op_name(user).as_str() {
                "tile.load" => position >= 1,
                "tile.store" => position >= 2,
                _ => false,
            };
            if !coordinate {
                return Err((at, "the block's row or column is read other than as a tile coordinate".into()));
            }
        }
    }
    if let Some(r#loop) = r#loop {
        check_walk(r#loop, kernel, arg, dim, count).map_err(|why| (r#loop.location(), why.into()))?;
    }
    Ok(Some(Plan {
        arg,
        dims: [dim - 1, dim],
        tile: [rows, columns],
        config,
        scale,
        index: detach(id),
        walk: r#loop,
        operands,
        k_tile,
    }))
}

/// Where the block id along x is only the lower bound of an `scf.for`
/// whose step is the grid's size along x (`size`, read nowhere else),
/// the loop and its induction variable: a walk in which each block takes
/// every `size`-th tile from its id, as a hand-written persistent kernel
/// does.
fn walk_of<'c, 'a>(id: Value<'c, 'a>, size: OperationRef<'c, 'a>) -> Option<(OperationRef<'c, 'a>, Value<'c, 'a>)> {
    let (starts, steps) = (uses(id), uses(size.result_at(0)?.into()));
    let ([(r#loop, 0)], [(stepped, 2)]) = (starts.as_slice(), steps.as_slice()) else { return None };
    if op_name(*r#loop) != "scf.for" || stepped.to_raw().ptr != r#loop.to_raw().ptr {
        return None;
    }
    let iv = r#loop.region_at(0)?.first_block()?.argument_at(0)?;
    Some((*r#loop, iv.into()))
}

/// Checks that `walk` goes over every tile of the counted view (of
/// argument `arg`, the tile count `count` along `dim`), carrying nothing
/// from one to the next: its upper bound is
/// that count times the count along `dim - 1` of a view of the same
/// argument, read nowhere else, and every `tile.store` of the kernel is in
/// the walk (a launch of fewer blocks, one a tile, then computes the same:
/// see `tile_abi::Retiled::walk`).
fn check_walk(
    walk: OperationRef,
    kernel: OperationRef,
    arg: usize,
    dim: usize,
    count: IrValue,
) -> Result<(), &'static str> {
    const WHY: &str = "the walk's bound is not the product of the counted view's tile counts";
    // A value carried from tile to tile would depend on which tiles a
    // block walked before, which the grid decides.
    if walk.region_at(0).and_then(|r| r.first_block()).is_none_or(|b| b.argument_count() != 1) {
        return Err("the walk carries values from one tile to the next");
    }
    let bound = walk.operand_at(1).ok_or(WHY)?;
    let product = defining_op(bound).filter(|d| op_name(*d) == "arith.muli").ok_or(WHY)?;
    if uses(detach(bound)).len() != 1 {
        return Err("the walk's bound is read elsewhere");
    }
    let factors = [product.operand_at(0).ok_or(WHY)?, product.operand_at(1).ok_or(WHY)?];
    let rows = match factors {
        [a, b] if detach(a) == count => b,
        [a, b] if detach(b) == count => a,
        _ => return Err(WHY),
    };
    let rows = defining_op(rows).filter(|d| op_name(*d) == "tile.num_tiles").ok_or(WHY)?;
    let rows_dim = rows
        .attribute("dim")
        .ok()
        .and_then(|a| melior::ir::attribute::IntegerAttribute::try_from(a).ok())
        .map(|a| a.value());
    if rows_dim != Some(dim as i64 - 1) || !views_argument(rows.operand_at(0), kernel, arg) {
        return Err(WHY);
    }
    let container = walk.to_raw().ptr as usize;
    let mut outside = false;
    kernel.walk(WalkOrder::PreOrder, |op| {
        if op_name(op) == "tile.store" && !crate::rewrite::inside(op, container) {
            outside = true;
        }
        WalkResult::Advance
    });
    if outside {
        return Err("the kernel stores a tile outside its walk over the tiles");
    }
    Ok(())
}

/// Makes `@K__wide` (or `@K__narrow`, for a plan that shrinks the tiles)
/// after `kernel`, or says why not (and makes nothing). `original`: the
/// kernel `kernel` is itself a wide instance of, whose program tiles the
/// new instance's `tile.retiled` counts.
fn retile<'c, 'a>(
    kernel: OperationRef<'c, 'a>,
    plan: &Plan,
    original: Option<OperationRef<'c, 'a>>,
) -> Result<OperationRef<'c, 'a>, String> {
    let context = kernel.context();
    // SAFETY: the context outlives the pass.
    let context = unsafe { context.to_ref() };
    let name_of = |op: OperationRef| {
        op.attribute("sym_name")
            .ok()
            .and_then(|a| StringAttribute::try_from(a).ok())
            .map(|s| s.value().to_string())
            .ok_or("the kernel has no name")
    };
    let name = name_of(kernel)?;
    let of = match original {
        Some(p) => name_of(p)?,
        None => name.clone(),
    };
    // A wide instance's own program tile, from its `tile.retiled`.
    let program_tile = original.map(|_| {
        kernel
            .attribute(attrs::RETILED)
            .ok()
            .and_then(|a| DenseI64ArrayAttribute::try_from(a).ok())
            .and_then(|r| Some([r.element(3).ok()?, r.element(4).ok()?]))
    });
    if program_tile == Some(None) {
        return Err("the instance widened again has no tile.retiled".into());
    }
    let block = kernel.block().ok_or("the kernel is not in a module")?;
    // Square tiles halved along both coordinates keep every view's shape
    // wherever the two coordinates are swapped or a tile transposed: each
    // coordinate is first checked alone, halved with the other kept.
    if plan.scale == [Scale::Half, Scale::Half] {
        for (key, scale) in [("tile_m", [Scale::Half, Scale::Same]), ("tile_n", [Scale::Same, Scale::Half])] {
            let size = plan.config.iter().find(|(k, _)| *k == key).map_or(64, |(_, v)| *v);
            let probe = Plan { config: vec![(key, size)], scale, ..plan.clone() };
            let (copy, _) = instantiate(context, block, kernel, &probe)?;
            // SAFETY: the copy was just made; nothing refers to it.
            unsafe { mlir_sys::mlirOperationDestroy(copy.to_raw()) };
        }
    }
    let (wide, shapes) = instantiate(context, block, kernel, plan)?;
    let erase = |why: String| {
        // SAFETY: the copy was just made; nothing refers to it.
        unsafe { mlir_sys::mlirOperationDestroy(wide.to_raw()) };
        Err(why)
    };
    // SAFETY: the copy, changed only through this handle here.
    let mut wide_mut = unsafe { melior::ir::operation::OperationRefMut::from_raw(wide.to_raw()) };
    let wide_name = format!("{name}{}", if plan.grows() { WIDE_SUFFIX } else { NARROW_SUFFIX });
    if find_named(block, &wide_name).is_some() {
        return erase(format!("the module already has a @{wide_name}"));
    }
    wide_mut.set_attribute("sym_name", StringAttribute::new(context, &wide_name).into());
    wide_mut.set_attribute(attrs::WIDE_OF, FlatSymbolRefAttribute::new(context, &of).into());
    let [program, tile] = shapes;
    let program = program_tile.flatten().unwrap_or(program);
    let mut retiled =
        vec![plan.arg as i64, plan.dims[0] as i64, plan.dims[1] as i64, program[0], program[1], tile[0], tile[1]];
    // A walk's blocks take every grid-size-th tile: an eighth element says
    // so (`tile_abi::Retiled::walk`).
    if plan.walk.is_some() {
        retiled.push(1);
    }
    wide_mut.set_attribute(attrs::RETILED, DenseI64ArrayAttribute::new(context, &retiled).into());
    // The instance's K steps widen with its tiles (its TMA variant's rings
    // and, for a 128x128 instance kept as a variant, its own copies: the A
    // B programs' 128x128x64 block); `@K` keeps its steps (see `widen_k`'s
    // caveats).
    if let Some(k) = plan.k_tile {
        let config = Attribute::parse(context, &format!("{{tile_k = {k} : i64}}"));
        let Some(config) = config else { return erase("could not build its K tile's configuration".into()) };
        let before = mma_shapes(wide);
        wide_mut.set_attribute(CONFIG, config);
        if let Err((_, why)) = crate::specialize::specialize(wide) {
            return erase(format!("the instance does not take K tiles of {k}: {why}"));
        }
        // The specialiser resizes every dim the data flow ties to K: the
        // blocks checked above stay as they were only where M and N are
        // not among them.
        let kept = match (before, mma_shapes(wide)) {
            (Some([a, b, d]), Some([a2, b2, d2])) => {
                d == d2 && a[0] == a2[0] && b[1] == b2[1] && a2[1] == k && b2[0] == k
            }
            _ => false,
        };
        if !kept {
            return erase(format!(
                "the K tile is tied to the block's rows or columns: K tiles of {k} would resize them"
            ));
        }
    }
    let k_steps = match (crate::widen_k::widen_loops(context, wide).first(), plan.k_tile) {
        (Some(w), _) => format!(", in K steps of {}", w.widened()),
        (None, Some(k)) => format!(", in K steps of {k}"),
        (None, None) => String::new(),
    };
    if !plan.grows() {
        // A walk runs on any grid: its variant is for grids of more blocks
        // than program tiles, launched on one block a narrow tile.
        let launches = if plan.walk.is_some() {
            "for launches of more blocks than program tiles (the walk then takes one narrow tile a block)"
        } else {
            "for launches of one block per tile too few to fill the GPU"
        };
        crate::remarks::passed(
            kernel.location(),
            WidenBlocks::INFO.argument,
            "NarrowBlocks",
            &format!(
                "a variant's blocks each compute {} of the program's {}x{} output tiles ({}x{}{k_steps}), \
                 {launches}",
                if program[0] * program[1] == 4 * tile[0] * tile[1] { "a quarter" } else { "half" },
                program[0],
                program[1],
                tile[0],
                tile[1]
            ),
        );
        return Ok(wide);
    }
    let tiles = match (tile[0] * tile[1]) / (program[0] * program[1]).max(1) {
        2 => "two".to_string(),
        4 => "four".to_string(),
        n => n.to_string(),
    };
    crate::remarks::passed(
        original.unwrap_or(kernel).location(),
        WidenBlocks::INFO.argument,
        "WideBlocks",
        &format!(
            "a variant's blocks each compute {tiles} of the program's {}x{} output tiles ({}x{}{k_steps}), for \
             launches of one block per tile",
            program[0], program[1], tile[0], tile[1]
        ),
    );
    Ok(wide)
}

/// The shapes of the one `tile.mma`'s A, B and result in `function`.
fn mma_shapes(function: OperationRef) -> Option<[Vec<i64>; 3]> {
    let mut shapes = None;
    function.walk(WalkOrder::PreOrder, |op| {
        if op_name(op) == "tile.mma" {
            let shape = |v: Option<Value>| v.and_then(|v| tile_type(v.r#type())).map(|(s, _)| s);
            shapes = shape(op.operand_at(0))
                .zip(shape(op.operand_at(1)))
                .zip(shape(op.result_at(0).map(Into::into)))
                .map(|((a, b), d)| [a, b, d]);
        }
        WalkResult::Advance
    });
    shapes
}

/// `kernel` instantiated for `plan`'s configuration, right after it, and
/// the counted view's tile before and after ([`same_work`]); else why not
/// (and no copy).
fn instantiate<'c, 'a>(
    context: &'c melior::Context,
    block: melior::ir::BlockRef<'c, 'a>,
    kernel: OperationRef<'c, 'a>,
    plan: &Plan,
) -> Result<(OperationRef<'c, 'a>, [[i64; 2]; 2]), String> {
    let copy = instance(context, block, kernel);
    let erase = |why: String| {
        // SAFETY: the copy was just made; nothing refers to it.
        unsafe { mlir_sys::mlirOperationDestroy(copy.to_raw()) };
        Err(why)
    };
    // SAFETY: the copy, changed only through this handle here.
    let mut copy_mut = unsafe { melior::ir::operation::OperationRefMut::from_raw(copy.to_raw()) };
    let entries: Vec<String> = plan.config.iter().map(|(k, v)| format!("{k} = {v} : i64")).collect();
    let config = Attribute::parse(context, &format!("{{{}}}", entries.join(", ")));
    let Some(config) = config else { return erase("could not build its configuration".into()) };
    copy_mut.set_attribute(CONFIG, config);
    if let Err((_, why)) = crate::specialize::specialize(copy) {
        return erase(format!("the kernel does not instantiate for {}: {why}", plan.configuration()));
    }
    match same_work(kernel, copy, plan) {
        Ok(shapes) => Ok((copy, shapes)),
        Err(why) => erase(why),
    }
}

/// A copy of `kernel` right after it, its ops' locations named
/// [`WIDENED_LOCATION`] (remarks there would repeat the kernel's).
fn instance<'c, 'a>(
    context: &'c melior::Context,
    block: melior::ir::BlockRef<'c, 'a>,
    kernel: OperationRef<'c, 'a>,
) -> OperationRef<'c, 'a> {
    // SAFETY: mlirOperationClone returns a new op owned by the caller,
    // which the block takes over.
    let copy = unsafe { melior::ir::operation::Operation::from_raw(mlir_sys::mlirOperationClone(kernel.to_raw())) };
    let copy = block.insert_operation_after(kernel, copy);
    let widened = mlir_sys::MlirStringRef { data: WIDENED_LOCATION.as_ptr().cast(), length: WIDENED_LOCATION.len() };
    copy.walk(WalkOrder::PreOrder, |op| {
        // SAFETY: live ops of the copy; a location is replaced by another
        // that wraps it.
        unsafe {
            let named = mlir_sys::mlirLocationNameGet(context.to_raw(), widened, op.location().to_raw());
            mlir_sys::mlirOperationSetLocation(op.to_raw(), named);
        }
        WalkResult::Advance
    });
    copy
}

/// Makes `@K__widek`, an instance of `kernel` whose K loops take several
/// steps at once ([`crate::widen_k`]), if any of its loops widens; says so.
fn widen_k_instance(kernel: OperationRef, name: &str) {
    let context = kernel.context();
    // SAFETY: the context outlives the pass.
    let context = unsafe { context.to_ref() };
    let Some(block) = kernel.block() else { return };
    let instance_name = format!("{name}{WIDE_K_SUFFIX}");
    if find_named(block, &instance_name).is_some() {
        return;
    }
    let copy = instance(context, block, kernel);
    let widened = crate::widen_k::widen_loops(context, copy);
    let Some(first) = widened.first() else {
        // SAFETY: the copy was just made; nothing refers to it.
        unsafe { mlir_sys::mlirOperationDestroy(copy.to_raw()) };
        return;
    };
    // SAFETY: the copy, changed only through this handle here.
    let mut copy_mut = unsafe { melior::ir::operation::OperationRefMut::from_raw(copy.to_raw()) };
    copy_mut.set_attribute("sym_name", StringAttribute::new(context, &instance_name).into());
    copy_mut.set_attribute(attrs::WIDE_OF, FlatSymbolRefAttribute::new(context, name).into());
    crate::remarks::passed(
        kernel.location(),
        WidenBlocks::INFO.argument,
        "WideKSteps",
        &format!(
            "a variant whose rings the TMA fills takes K steps of {} ({} of the program's at once), where it can; the \
             kernel, which runs where the TMA cannot describe the arrays, keeps its steps (wider ones measured slower \
             there)",
            first.widened(),
            first.widened() / first.narrow()
        ),
    );
}

/// Checks that each wide block computes what the blocks it replaces did:
/// the view dims that grew are exactly those the widened coordinate
/// indexes, in every load and store. Returns the tile of the counted
/// argument's view along the plan's dims, before and after.
fn same_work(kernel: OperationRef, wide: OperationRef, plan: &Plan) -> Result<[[i64; 2]; 2], String> {
    let accesses = |function: OperationRef| {
        let mut found = Vec::new();
        function.walk(WalkOrder::PreOrder, |op| {
            if matches!(op_name(op).as_str(), "tile.load" | "tile.store") {
                found.push(op.to_raw());
            }
            WalkResult::Advance
        });
        found
    };
    let (before, after) = (accesses(kernel), accesses(wide));
    if before.len() != after.len() {
        return Err("the instance has other loads and stores".into());
    }
    // Which of the block's coordinates a value is: the quotient (0) or the
    // remainder (1) of the block id.
    let coordinate = |value: Value| {
        defining_op(value).filter(|d| d.operand_at(0).is_some_and(|i| detach(i) == plan.index)).and_then(|d| {
            match op_name(d).as_str() {
                "arith.divui" => Some(0),
                "arith.remui" => Some(1),
                _ => None,
            }
        })
    };
    for (b, a) in before.into_iter().zip(after) {
        // SAFETY: live ops of the two functions.
        let (b, a) = unsafe { (OperationRef::from_raw(b), OperationRef::from_raw(a)) };
        let (view_at, first_index) = if op_name(b) == "tile.load" { (0, 1) } else { (1, 2) };
        let shape = |op: OperationRef| {
            op.operand_at(view_at).and_then(|v| PartitionViewType::try_from_type(v.r#type())).map(|t| t.shape())
        };
        let (Some(old), Some(new)) = (shape(b), shape(a)) else { return Err("a view has no tile shape".into()) };
        for (i, (o, n)) in old.iter().zip(&new).enumerate() {
            let index =
                b.operand_at(first_index + i).ok_or_else(|| "a load or store lacks a coordinate".to_string())?;
            let changed = n != o;
            // The coordinate that indexes this dim, if it is one the plan
            // retiles, and how.
            let scale = coordinate(index).map(|c| plan.scale[c]).filter(|s| *s != Scale::Same);
            if changed && scale.is_none_or(|s| s.apply(*o) != *n) {
                return Err(format!(
                    "a view's dim {i} goes from {o} to {n}, not as the tile of the coordinate that indexes it"
                ));
            }
            if op_name(b) == "tile.store" {
                // Another array's store would be made by another number of
                // blocks (a read-modify-write counts them), or where the
                // counted array's last program tile is half of a wide one,
                // reach further, or leave part of a narrow one unwritten.
                if !views_argument(b.operand_at(1), kernel, plan.arg) {
                    return Err("the kernel stores another array than the counted one".into());
                }
                // The counted array: its row by the quotient, its column by
                // the remainder, as the runtime counts its tiles.
                let wanted = plan.dims.iter().position(|d| *d == i);
                if wanted.is_some_and(|w| coordinate(index) != Some(w)) {
                    return Err(format!(
                        "the counted array's dim {i} is stored at other than the block's coordinate for it"
                    ));
                }
            }
            if !changed && scale.is_some() {
                return Err(format!(
                    "a {} at dim {i} of its view is indexed by a retiled coordinate of the block",
                    op_name(b)
                ));
            }
        }
    }
    // A tile count of a dim that changes is read only as the block id's
    // divisor: anything else would see another count.
    let counts = |function: OperationRef| {
        let mut found = Vec::new();
        function.walk(WalkOrder::PreOrder, |op| {
            if op_name(op) == "tile.num_tiles" {
                found.push(op.to_raw());
            }
            WalkResult::Advance
        });
        found
    };
    for (b, a) in counts(kernel).into_iter().zip(counts(wide)) {
        // SAFETY: live ops of the two functions.
        let (b, a) = unsafe { (OperationRef::from_raw(b), OperationRef::from_raw(a)) };
        let dim = b
            .attribute("dim")
            .ok()
            .and_then(|a| melior::ir::attribute::IntegerAttribute::try_from(a).ok())
            .and_then(|a| usize::try_from(a.value()).ok());
        let extent = |op: OperationRef| {
            op.operand_at(0)
                .and_then(|v| PartitionViewType::try_from_type(v.r#type()))
                .and_then(|t| dim.and_then(|d| t.shape().get(d).copied()))
        };
        if extent(b) == extent(a) {
            continue;
        }
        let Some(count) = b.result_at(0) else { return Err("a tile count has no result".into()) };
        // (In a walk, also a factor of its bound, checked by `check_walk`.)
        let bound = plan.walk.and_then(|w| w.operand_at(1)).and_then(defining_op).map(|d| d.to_raw().ptr);
        let divisor_only = uses(count.into()).iter().all(|(user, position)| {
            let divisor = *position == 1
                && matches!(op_name(*user).as_str(), "arith.divui" | "arith.remui")
                && user.operand_at(0).is_some_and(|i| detach(i) == plan.index);
            divisor || Some(user.to_raw().ptr) == bound
        });
        if !divisor_only {
            return Err("a tile count of a view that changes is read other than as the block id's divisor".into());
        }
    }
    // The counted argument's view, before and after.
    let view_of = |function: OperationRef| -> Option<(Vec<i64>, String)> {
        let entry = function.region_at(0)?.first_block()?;
        let argument = entry.argument_at(plan.arg)?;
        let mut shapes = Vec::new();
        for (user, _) in uses(argument.into()) {
            if op_name(user) == "tile.partition_view" {
                let view = PartitionViewType::try_from_type(user.result_at(0)?.r#type())?;
                shapes.push((view.shape(), view.element_type().to_string()));
            }
        }
        shapes.dedup();
        (shapes.len() == 1).then(|| shapes.remove(0))
    };
    let (Some((old, element)), Some((new, _))) = (view_of(kernel), view_of(wide)) else {
        return Err("the counted argument is viewed with several tile shapes".into());
    };
    // The wide tile is staged for its TMA store in the memory of the
    // operands' rings once its loop is done: a 16-bit one, or tf32's f32
    // in its B ring (four slots of 32 KiB); an f32 tile of 16-bit
    // operands would need a buffer of its own, too large beside them.
    if plan.grows() && !matches!(element.as_str(), "f16" | "bf16") && element != plan.operands {
        return Err(format!(
            "its {element} output tiles would not fit in shared memory beside the {} operands' rings, twice as large",
            plan.operands
        ));
    }
    let pick = |shape: &[i64]| -> Option<[i64; 2]> { Some([*shape.get(plan.dims[0])?, *shape.get(plan.dims[1])?]) };
    match (pick(&old), pick(&new)) {
        (Some(old), Some(new)) if (0..2).all(|i| new[i] == plan.scale[i].apply(old[i])) => Ok([old, new]),
        _ => Err("the counted argument's view does not change as the block's coordinates are retiled".into()),
    }
}

/// Whether `view` is a `tile.partition_view` of `kernel`'s argument `arg`.
fn views_argument(view: Option<Value>, kernel: OperationRef, arg: usize) -> bool {
    let entry = kernel.region_at(0).and_then(|r| r.first_block());
    view.and_then(defining_op)
        .filter(|d| op_name(*d) == "tile.partition_view")
        .and_then(|d| d.operand_at(0))
        .zip(entry)
        .and_then(|(m, e)| crate::rewrite::argument_of(m, e))
        == Some(arg)
}

/// The top-level function `@name` (written with the `@`).
pub(crate) fn find<'c, 'a>(body: melior::ir::BlockRef<'c, 'a>, symbol: &str) -> Option<OperationRef<'c, 'a>> {
    find_named(body, symbol.strip_prefix('@')?.trim_matches('"'))
}

/// The top-level op named `name`.
fn find_named<'c, 'a>(body: melior::ir::BlockRef<'c, 'a>, name: &str) -> Option<OperationRef<'c, 'a>> {
    let mut next = body.first_operation();
    while let Some(op) = next {
        if op
            .attribute("sym_name")
            .ok()
            .and_then(|a| StringAttribute::try_from(a).ok())
            .is_some_and(|s| s.value() == name)
        {
            return Some(op);
        }
        next = op.next_in_block();
    }
    None
}
