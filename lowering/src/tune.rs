//! The compiler's side of autotuning: which configurations a kernel has,
//! and the kernel instantiated for one of them.
//!
//! A kernel states what may be tuned with a `tile.tune` dictionary: for
//! each knob, the values to try.
//!
//! ```mlir
//! func.func @matmul(...) attributes {tile.kernel, tile.tune = {
//!     tile_m = array<i64: 64, 128>, tile_n = array<i64: 64, 128, 256>,
//!     num_stages = array<i64: 2, 3, 4>, occupancy = array<i64: 1, 2>}} {
//! ```
//!
//! `tile_m`, `tile_n` and `tile_k` size the `tile.mma`'s `M`, `N` and `K`
//! tiles (and every tile the program ties to them, see
//! [`crate::specialize`]); `num_stages`, `occupancy`, `num_ctas`,
//! `warp_specialize`, `persistent` and `pingpong` (0 or 1) and `split_k`
//! are the hints. The
//! program as written is the default configuration, always tried first. The space is exhaustive: every combination is compiled
//! and timed by the runtime's `tile_runtime::tune::Tuner`.
//!
//! The choice is applied by setting `tile.config` on the kernel and
//! running `tile-specialize`, which is also the first pass of both
//! pipelines, so `tile-opt` users can instantiate a configuration by hand.
//! A program whose grid depends on its tile sizes computes it from
//! `tile.num_tiles` (as the contract's matmul does), so that it follows;
//! `tile-run --grid tiles:I` sizes the launch by the tiles of parameter
//! `I` in the instantiated kernel.

use crate::{
    compile::{Error, Result, run_pipeline},
    rewrite::{BlockProbe, Probe},
    specialize::{CONFIG, TILE_KEYS, TUNE},
};
use melior::{
    Context,
    ir::{
        Attribute, BlockLike, Module, OperationRef, RegionLike, ValueLike,
        attribute::{DenseI64ArrayAttribute, DictionaryAttribute, StringAttribute},
        operation::{OperationLike, OperationMutLike, WalkOrder, WalkResult},
    },
};
use std::collections::BTreeMap;
use tile_abi::Config;
use tile_dialect::types::PartitionViewType;

/// The compiler's version and a hash of its source: part of every tuning
/// key, so that a new compiler tunes anew.
pub const COMPILER_ID: &str = env!("TILE_COMPILER_ID");

/// A kernel's tuning space.
#[derive(Clone, Debug)]
pub struct Tunable {
    /// The program as written.
    pub default: Config,
    /// For each knob, the values to try.
    pub space: BTreeMap<String, Vec<i64>>,
}

impl Tunable {
    /// Every configuration, the default first.
    pub fn configs(&self) -> Vec<Config> {
        Config::product(&self.default, &self.space)
    }

    /// Whether a configuration may change the tile sizes (and with them
    /// the grid a program needs).
    pub fn resizes_tiles(&self) -> bool {
        self.space.keys().any(|k| TILE_KEYS.iter().any(|(t, _)| t == k))
    }
}

fn kernel_op<'c, 'm>(module: &'m Module<'c>, name: &str) -> Result<OperationRef<'c, 'm>> {
    let mut next = module.body().first_operation();
    while let Some(op) = next {
        let named = op
            .attribute("sym_name")
            .ok()
            .and_then(|a| StringAttribute::try_from(a).ok())
            .is_some_and(|s| s.value() == name);
        if named && op.has_attribute(tile_dialect::attrs::KERNEL) {
            return Ok(op);
        }
        next = op.next_in_block();
    }
    Err(Error::NoKernel { name: name.to_string(), available: crate::compile::kernels(module).join(", ") })
}

/// The tuning space of kernel `name`, or `None` if it has no `tile.tune`.
pub fn tunable(module: &Module, name: &str) -> Result<Option<Tunable>> {
    let kernel = kernel_op(module, name)?;
    let Ok(attribute) = kernel.attribute(TUNE) else { return Ok(None) };
    let invalid = |why: String| Error::Invalid(format!("kernel @{name}: {TUNE}: {why}"));
    let dict = DictionaryAttribute::try_from(attribute).map_err(|_| invalid("not a dictionary".into()))?;
    let mut space = BTreeMap::new();
    for i in 0..dict.len() {
        let (key, values) = dict.element(i).map_err(|_| invalid("unreadable".into()))?;
        let key = key.as_string_ref().as_str().unwrap_or_default().to_string();
        if tile_dialect::attrs::knob(&key).is_none() {
            let known: Vec<&str> = tile_dialect::attrs::KNOBS.iter().map(|k| k.key).collect();
            return Err(invalid(format!("unknown knob '{key}' ({})", known.join(", "))));
        }
        let values = DenseI64ArrayAttribute::try_from(values)
            .map_err(|_| invalid(format!("'{key}' is not an array<i64: ...>")))?;
        let values: Vec<i64> = (0..values.len()).filter_map(|j| values.element(j).ok()).collect();
        space.insert(key, values);
    }
    // The default: the mma's tile sizes and the hints as written (or the
    // compiler's defaults), for the knobs the space names.
    let mut default = BTreeMap::new();
    let mma = first_mma(kernel);
    for (key, dim) in TILE_KEYS {
        if space.contains_key(key) {
            let (m, k, n) = mma.ok_or_else(|| invalid(format!("'{key}' needs a tile.mma to size")))?;
            default.insert(
                key.to_string(),
                match dim {
                    crate::specialize::Dim::M => m,
                    crate::specialize::Dim::N => n,
                    crate::specialize::Dim::K => k,
                },
            );
        }
    }
    // A hint the kernel does not set is the default the compiler uses.
    for knob in &tile_dialect::attrs::HINT_KNOBS {
        if let (true, Some(fallback)) = (space.contains_key(knob.key), knob.default) {
            default.insert(knob.key.to_string(), crate::rewrite::hint(kernel, knob.key).unwrap_or(fallback));
        }
    }
    Ok(Some(Tunable { default: Config(default), space }))
}

/// `(M, K, N)` of the kernel's first `tile.mma`.
fn first_mma(kernel: OperationRef) -> Option<(i64, i64, i64)> {
    let mut found = None;
    kernel.walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok("tile.mma") {
            let a = op.operand_at(0).and_then(crate::build::tile_of).map(|(s, _)| s);
            let b = op.operand_at(1).and_then(crate::build::tile_of).map(|(s, _)| s);
            if let (Some(a), Some(b)) = (a, b) {
                found = Some((a[0], a[1], b[1]));
            }
            return WalkResult::Interrupt;
        }
        WalkResult::Advance
    });
    found
}

/// Instantiates kernel `name` for `config` (`tile-specialize`).
pub fn apply(context: &Context, module: &mut Module, name: &str, config: &Config) -> Result<()> {
    let entries: Vec<String> = config.0.iter().map(|(k, v)| format!("{k} = {v} : i64")).collect();
    let attribute = Attribute::parse(context, &format!("{{{}}}", entries.join(", ")))
        .ok_or_else(|| Error::Invalid(format!("configuration '{config}' is not a dictionary of integers")))?;
    let kernel = kernel_op(module, name)?;
    // SAFETY: a live op of the module, changed only through this handle.
    let mut kernel = unsafe { melior::ir::operation::OperationRefMut::from_raw(kernel.to_raw()) };
    kernel.set_attribute(CONFIG, attribute);
    run_pipeline(context, module, "builtin.module(tile-specialize)")
}

/// The tile shape of the partition views of kernel parameter `param`
/// (all of them must agree).
pub fn view_tiles(module: &Module, name: &str, param: usize) -> Result<Vec<i64>> {
    let kernel = kernel_op(module, name)?;
    let entry = kernel.region_at(0).and_then(|r| r.first_block()).ok_or(Error::NoKernels)?;
    let argument =
        entry.argument_at(param).ok_or_else(|| Error::Invalid(format!("kernel @{name} has no parameter #{param}")))?;
    let mut shapes: Vec<Vec<i64>> = Vec::new();
    kernel.walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok("tile.partition_view")
            && op.operand_at(0).is_some_and(|v| v.to_raw().ptr == argument.to_raw().ptr)
            && let Some(view) = op.result_at(0).and_then(|r| PartitionViewType::try_from_type(r.r#type()))
        {
            shapes.push(view.shape());
        }
        WalkResult::Advance
    });
    shapes.sort();
    shapes.dedup();
    match shapes.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(Error::Invalid(format!(
            "kernel @{name}: parameter #{param} has no tile.partition_view to size the grid by"
        ))),
        _ => Err(Error::Invalid(format!(
            "kernel @{name}: parameter #{param} is viewed with several tile shapes ({shapes:?})"
        ))),
    }
}

/// Stack of each [`on_each_config`] worker: a compile's deepest recursion
/// (LLVM's code generation of the register path's large functions) is the
/// main thread's, whose stack is 8 MiB, not a spawned thread's 2 MiB.
const WORKER_STACK: usize = 64 << 20;

/// At most this many [`on_each_config`] threads: each holds a context and
/// a compile's peak memory, which on a many-core host would add up to more
/// than the tuning saves.
const MAX_THREADS: usize = 16;

/// Runs `work` on each of `configs`, on up to one thread a core, and
/// returns the results in the order of `configs`. A tuner compiles every
/// configuration of a space before timing any; one after another, the
/// 16-bit examples' spaces took minutes.
///
/// Each thread makes a context of its own
/// ([`tile_dialect::create_context`], which serialises registration; no
/// thread pool of its own: the threads are the parallelism) and runs every
/// configuration it takes in it; MLIR objects never cross threads, so
/// `work` returns plain data (a bundle, a grid, an error's text). A thread
/// that cannot be started leaves its share to the others, and whatever no
/// thread ran is run on the calling thread; a panic in `work` is resumed
/// on the calling thread.
pub fn on_each_config<T: Send>(configs: &[Config], work: impl Fn(&Context, &Config) -> T + Sync) -> Vec<T> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let new_context = || {
        let context = tile_dialect::create_context();
        context.enable_multi_threading(false);
        context
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_THREADS).min(configs.len());
    // The index of the next configuration no thread has taken.
    let next = AtomicUsize::new(0);
    let mut results: Vec<Option<T>> = configs.iter().map(|_| None).collect();
    let work = &work;
    let worker = || {
        let context = new_context();
        let mut done = Vec::new();
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(config) = configs.get(index) else { break };
            done.push((index, work(&context, config)));
        }
        done
    };
    if threads > 1 {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .filter_map(|_| std::thread::Builder::new().stack_size(WORKER_STACK).spawn_scoped(scope, worker).ok())
                .collect();
            for handle in handles {
                match handle.join() {
                    Ok(done) => done.into_iter().for_each(|(index, result)| results[index] = Some(result)),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
        });
    }
    if results.iter().any(Option::is_none) {
        let context = new_context();
        for (result, config) in results.iter_mut().zip(configs) {
            if result.is_none() {
                *result = Some(work(&context, config));
            }
        }
    }
    results.into_iter().flatten().collect()
}
