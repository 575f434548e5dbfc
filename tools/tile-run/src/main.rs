//! `tile-run`: compile a tile kernel, run it on `.npy` data, save and time
//! the results, as the language contract describes:
//!
//! ```text
//! tile-run KERNEL.mlir --grid X[,Y[,Z]] [--kernel NAME] [--target cpu|cuda]
//!          [--save I=PATH.npy]... [--bench N] ARG...
//! ```
//!
//! `--grid tiles:I` launches one block per tile of memref parameter `I`
//! (a 1-D grid), as the kernel's partition view of it tiles it: the grid
//! then follows the tile sizes of a tuned configuration.
//!
//! A kernel with a `tile.tune` space is autotuned on the GPU before it
//! runs (see `tile_lowering::tune`): every configuration is compiled and
//! timed on the arguments, once per kernel, shapes, device and compiler;
//! the choice is cached (`TILE_TUNE_CACHE`, `TILE_TUNE=0` turns tuning off).
//! The configurations' PTX is assembled by `ptxas` processes in parallel
//! (`TILE_PTXAS`, else `$CUDA_HOME/bin/ptxas`, `ptxas` on `PATH` or
//! `/usr/local/cuda/bin/ptxas`; a `TILE_PTXAS` path that does not exist
//! forces the driver's JIT), each falling back to the driver's JIT where
//! that fails; after a first tuning a line says which, and how long each
//! phase took.
//! `--config k=v,...` runs one configuration instead. While tuning, a
//! configuration that cannot launch on the device (its block's threads or
//! shared memory, its clusters) is dropped before anything is timed, and
//! one whose outputs disagree with the kernel as written on the same
//! arguments is dropped however fast it is: a line on standard error says
//! which and why. A configuration whose launch does not finish in time
//! (20 times the kernel as written's, at least a second) ends the run with
//! an error naming it: a hung kernel cannot be stopped without losing the
//! GPU, so tuning cannot go on past it.
//!
//! Scalars are parsed as their type: an integer must be in its type's
//! range and an f32 must not overflow (`1e400` is an error, not infinity);
//! NaN and the infinities are accepted when spelled so (`nan`, `inf`,
//! `-inf`), and a value too small for an f32 rounds to zero or a subnormal,
//! as any conversion to f32 does.
//!
//! Every error (bad flags, an invalid program, a wrong `.npy`, a `--save`
//! path that cannot be written, a failed launch) is printed as one message
//! and exits with code 1; `--save` paths are checked before the kernel is
//! compiled or run.

use anyhow::{Context as _, Result, anyhow, bail};
use clap::Parser;
use melior::ir::{BlockLike, RegionLike, ValueLike, operation::OperationLike};
use std::{
    collections::{HashMap, HashSet},
    num::IntErrorKind,
    path::{Path, PathBuf},
    process::ExitCode,
    rc::Rc,
    time::{Duration, Instant},
};
use tile_lowering::{
    compile,
    cpu::CpuKernel,
    gpu,
    rewrite::{BlockProbe, Probe},
    tune,
};
use tile_runtime::{
    Arg, Array, Bundle, Grid, Param, Scalar, ScalarType,
    cuda::{Cuda, DeviceArgs, Timing},
    npy,
    tune::{Config, Tolerance, TrialError, Trials, TuneError, TuneKey, Tuner, disagreement, poison_byte},
};

/// Compile a tile kernel and run it on .npy data.
#[derive(Parser, Debug)]
#[command(name = "tile-run", version)]
struct Cli {
    /// The tile program (.mlir).
    kernel_file: PathBuf,
    /// Blocks along x, y and z: X[,Y[,Z]]; or tiles:I, one block per tile
    /// of memref parameter I.
    #[arg(long, value_parser = parse_grid, required_unless_present_any = ["emit_ptx", "emit_bundle"])]
    grid: Option<GridSpec>,
    /// Run this configuration of the kernel's tuning space (such as
    /// tile_m=64,tile_n=256,num_stages=3) instead of tuning.
    #[arg(long, value_parser = parse_config)]
    config: Option<Config>,
    /// The kernel to run, when the module has several.
    #[arg(long)]
    kernel: Option<String>,
    /// Where to run: cpu or cuda (default: cuda where a GPU is present,
    /// else cpu).
    #[arg(long)]
    target: Option<Target>,
    /// Write memref parameter I (0-based) to PATH after the run.
    #[arg(long = "save", value_name = "I=PATH", value_parser = parse_save)]
    saves: Vec<(usize, PathBuf)>,
    /// Time N launches and print the median.
    #[arg(long, value_name = "N")]
    bench: Option<u32>,
    /// With --bench on the GPU: first launch the kernel, untimed, for at
    /// least MS milliseconds, so that the times are those of a sustained
    /// load rather than of an idle GPU's boost.
    #[arg(long, value_name = "MS", requires = "bench")]
    bench_warmup_ms: Option<u64>,
    /// CPU threads for the CPU target (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Write the kernel's PTX (GPU target) to PATH and exit without running.
    #[arg(long, value_name = "PATH")]
    emit_ptx: Option<PathBuf>,
    /// Write the compiled bundle (PTX plus metadata, JSON) to PATH.
    #[arg(long, value_name = "PATH")]
    emit_bundle: Option<PathBuf>,
    /// The GPU to compile for.
    #[arg(long, default_value = tile_lowering::gpu::DEFAULT_CHIP)]
    chip: String,
    /// On the GPU, always run the general kernel, never a specialised
    /// variant (such as the TMA + wgmma one of a matmul).
    #[arg(long)]
    no_variants: bool,
    /// On the GPU, pass over the variants whose names hold PART (such as
    /// `__wgmma`); repeatable. For comparing variants of one bundle.
    #[arg(long = "skip-variant", value_name = "PART")]
    skip_variants: Vec<String>,
    /// Print the compiler's remarks (stderr): where it could not take the
    /// fast way, such as the register path, the tensor cores or a
    /// prefetch, and why; and transformations worth knowing about.
    #[arg(short, long)]
    verbose: bool,
    /// One per kernel parameter: a .npy file for a memref, a number for a
    /// scalar.
    #[arg(allow_negative_numbers = true)]
    args: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Target {
    Cpu,
    Cuda,
}

/// How many blocks to launch.
#[derive(Clone, Copy, Debug)]
enum GridSpec {
    Fixed(Grid),
    /// One block per tile of this memref parameter.
    Tiles(usize),
}

fn parse_grid(text: &str) -> Result<GridSpec, String> {
    if let Some(index) = text.strip_prefix("tiles:") {
        return index.parse().map(GridSpec::Tiles).map_err(|_| format!("'{index}' is not a parameter index"));
    }
    Grid::parse(text).map(GridSpec::Fixed).map_err(|e| format!("{e} (or tiles:I)"))
}

fn parse_config(text: &str) -> Result<Config, String> {
    text.parse().map_err(|e: tile_runtime::tile_abi::Error| e.to_string())
}

fn parse_save(text: &str) -> Result<(usize, PathBuf), String> {
    let (index, path) = text.split_once('=').ok_or_else(|| format!("'{text}' is not I=PATH"))?;
    let index = index.parse().map_err(|_| format!("'{index}' is not a parameter index"))?;
    Ok((index, PathBuf::from(path)))
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() { 1 } else { 0 });
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("tile-run: error: {}", tile_runtime::error_chain(error.as_ref()));
            ExitCode::from(1)
        }
    }
}

/// Turns the compiler's remarks on and prints each once as it comes. The
/// tuner compiles its configurations in contexts of its own, without
/// remarks: those shown are of the kernel that runs.
fn show_remarks(context: &melior::Context) -> Result<()> {
    if !tile_lowering::remarks::enable(context, "tile") {
        anyhow::bail!("MLIR's remark engine did not start");
    }
    let mut seen = std::collections::HashSet::new();
    context.attach_diagnostic_handler(move |diagnostic| {
        if !matches!(diagnostic.severity(), melior::diagnostic::DiagnosticSeverity::Remark) {
            return false;
        }
        let text = tile_dialect::diagnostics::diagnostic_text(&diagnostic);
        if seen.insert(text.clone()) {
            eprintln!("{text}");
        }
        true
    });
    Ok(())
}

/// Fails unless `path` can be written, without changing it: an existing
/// file is opened for writing (not truncated), a new one is created and
/// removed again. A directory, a missing directory or a read-only place
/// is then found before the kernel runs, not after.
fn check_writable(path: &Path) -> std::io::Result<()> {
    if path.exists() {
        return std::fs::OpenOptions::new().write(true).open(path).map(drop);
    }
    std::fs::OpenOptions::new().write(true).create_new(true).open(path)?;
    std::fs::remove_file(path)
}

/// A command-line scalar of type `ty`, or why `text` is none: an integer
/// must be within its type's range; an f32 must not overflow to infinity
/// unless spelled as one (`inf`, `infinity`; `nan` is a NaN).
fn parse_scalar(ty: ScalarType, text: &str) -> std::result::Result<Scalar, String> {
    let name = ty.mlir_name();
    let integer = |error: std::num::ParseIntError, (min, max): (i64, i64)| match error.kind() {
        IntErrorKind::PosOverflow | IntErrorKind::NegOverflow => {
            format!("{text} is out of range for {name} ({min}..={max})")
        }
        _ => format!("'{text}' is not an {name} number"),
    };
    let wide = (i64::MIN, i64::MAX);
    match ty {
        ScalarType::I32 => text.parse().map(Scalar::I32).map_err(|e| integer(e, (i32::MIN.into(), i32::MAX.into()))),
        ScalarType::I64 => text.parse().map(Scalar::I64).map_err(|e| integer(e, wide)),
        ScalarType::Index => text.parse().map(Scalar::Index).map_err(|e| integer(e, wide)),
        ScalarType::F32 => {
            let value: f32 = text.parse().map_err(|_| format!("'{text}' is not an {name} number"))?;
            let spelled = text.trim_start_matches(['+', '-']).to_ascii_lowercase();
            if value.is_infinite() && spelled != "inf" && spelled != "infinity" {
                return Err(format!("{text} is out of range for {name} (finite values are within ±{:e})", f32::MAX));
            }
            Ok(Scalar::F32(value))
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    let context = tile_dialect::create_context();
    if cli.verbose {
        show_remarks(&context)?;
    }
    let file = cli.kernel_file.display().to_string();
    let text = std::fs::read_to_string(&cli.kernel_file).with_context(|| format!("reading {file}"))?;
    let module = compile::parse(&context, &text, &file)?;
    let name = compile::select_kernel(&module, cli.kernel.as_deref())?;
    let signature = compile::signature(&module, &name)?;
    let tunable = tune::tunable(&module, &name)?;
    drop(module);
    let program = Program { context: &context, text: &text, file: &file, name: &name };

    if cli.emit_ptx.is_some() || cli.emit_bundle.is_some() {
        let bundle = gpu::compile(&context, program.instantiate(cli.config.as_ref())?, Some(&name), &cli.chip)?;
        if let Some(path) = &cli.emit_ptx {
            std::fs::write(path, &bundle.ptx).with_context(|| format!("writing {}", path.display()))?;
        }
        if let Some(path) = &cli.emit_bundle {
            std::fs::write(path, bundle.to_json()).with_context(|| format!("writing {}", path.display()))?;
        }
        return Ok(());
    }
    let grid_spec = cli.grid.context("--grid is required to run a kernel")?;

    // The GPU where one is present, unless the user chose.
    let cuda = match cli.target {
        Some(Target::Cpu) => None,
        Some(Target::Cuda) => Some(Cuda::new().context("--target cuda")?),
        None => Cuda::new().ok(),
    }
    .map(|cuda| cuda.use_variants(!cli.no_variants).skip_variants(cli.skip_variants.clone()));

    if cli.args.len() != signature.params.len() {
        let params: Vec<String> = signature.params.iter().map(|p| p.to_string()).collect();
        bail!("kernel @{name} takes {} arguments ({}), got {}", params.len(), params.join(", "), cli.args.len());
    }
    for (index, path) in &cli.saves {
        if !matches!(signature.params.get(*index), Some(Param::Memref { .. })) {
            bail!("--save {index}: parameter #{index} of @{name} is not a memref");
        }
        check_writable(path).map_err(|e| anyhow!("--save {index}={}: {e}", path.display()))?;
    }

    let mut arrays: Vec<Option<Array>> = Vec::new();
    let mut scalars = Vec::new();
    for (index, (param, text)) in signature.params.iter().zip(&cli.args).enumerate() {
        match param {
            Param::Memref { dtype, .. } => {
                let array = npy::read(text.as_ref(), *dtype).with_context(|| format!("argument #{index} ({param})"))?;
                arrays.push(Some(array));
                scalars.push(None);
            }
            Param::Scalar(scalar_type) => {
                let value = parse_scalar(*scalar_type, text).map_err(|why| anyhow!("argument #{index}: {why}"))?;
                arrays.push(None);
                scalars.push(Some(value));
            }
        }
    }
    let repeat = cli.bench.map_or(1, |n| n.max(1) as usize);
    let shapes: Vec<Option<Vec<usize>>> = arrays.iter().map(|a| a.as_ref().map(|a| a.shape().to_vec())).collect();
    let launch = Launch { spec: grid_spec, shapes: &shapes };

    let (target, times_ms, config, grid) = if let Some(cuda) = &cuda {
        // The variants alone first: the general kernel is most of the
        // compile time, and only arguments no variant takes need it.
        let mut general = if cli.no_variants { gpu::General::Compiled } else { gpu::General::Deferred };
        let config = match (&cli.config, &tunable) {
            (Some(config), _) => Some(config.clone()),
            (None, Some(tunable)) => {
                let (config, tuned) =
                    autotune(cuda, &program, tunable, &cli.chip, &launch, (&mut arrays, &scalars), general)?;
                general = tuned;
                config
            }
            (None, None) => None,
        };
        let module = program.instantiate(config.as_ref())?;
        let grid = launch.grid(&module, &name)?;
        let bundle = gpu::compile_with(&context, module, Some(&name), &cli.chip, general)?;
        let warm_up = std::time::Duration::from_millis(cli.bench_warmup_ms.unwrap_or(0));
        let launched =
            match cuda.launch_report_warm(&bundle, &name, &mut make_args(&mut arrays, &scalars), grid, repeat, warm_up)
            {
                Err(tile_runtime::Error::Deferred { passed_over, .. }) => {
                    if cli.verbose {
                        eprintln!(
                            "tile-run: compiling @{name}'s general kernel: no variant takes these arguments ({})",
                            passed_over.join("; ")
                        );
                    }
                    let module = program.instantiate(config.as_ref())?;
                    let bundle = gpu::compile(&context, module, Some(&name), &cli.chip)?;
                    cuda.launch_report_warm(
                        &bundle,
                        &name,
                        &mut make_args(&mut arrays, &scalars),
                        grid,
                        repeat,
                        warm_up,
                    )?
                }
                other => other?,
            };
        let entry = if launched.entry == name { String::new() } else { format!(" as @{}", launched.entry) };
        let mut passed_over: String = launched.passed_over.iter().map(|why| format!("; passed over {why}")).collect();
        if let Some((tail, blocks)) = &launched.last_wave {
            passed_over.insert_str(0, &format!("; the last wave: @{tail} on {blocks} blocks"));
        }
        (
            format!("cuda ({}){entry}{passed_over}", cuda.name()),
            launched.times.into_iter().map(f64::from).collect::<Vec<_>>(),
            config,
            grid,
        )
    } else {
        // The CPU runs the kernel as written, or the configuration asked for.
        let config = cli.config.clone();
        let module = program.instantiate(config.as_ref())?;
        let grid = launch.grid(&module, &name)?;
        let kernel = CpuKernel::compile(&context, module, Some(&name))?;
        let threads = cli.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        let mut times = Vec::new();
        for _ in 0..repeat {
            let start = Instant::now();
            kernel.launch_on(&mut make_args(&mut arrays, &scalars), grid, threads)?;
            times.push(start.elapsed().as_secs_f64() * 1e3);
        }
        ("cpu".to_string(), times, config, grid)
    };
    let target = match &config {
        Some(config) => format!("{target}, config {config}"),
        None => target,
    };
    let mut sorted = times_ms.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    // To a tenth of a microsecond: in whole microseconds, a kernel of tens
    // of them reads in steps of several percent (bench-suite.py's rates
    // come from this figure).
    if cli.bench.is_some() {
        println!("@{name} on {target}, grid {:?}: median of {} launches {median:.4} ms", grid.0, sorted.len());
    } else {
        eprintln!("tile-run: @{name} on {target}, grid {:?}: {median:.4} ms", grid.0);
    }

    for (index, path) in &cli.saves {
        let array = arrays[*index].as_ref().context("saved parameter is a memref")?;
        npy::write(path, array)?;
    }
    Ok(())
}

/// The program being run, instantiated per configuration.
struct Program<'a> {
    context: &'a melior::Context,
    text: &'a str,
    file: &'a str,
    name: &'a str,
}

impl Program<'_> {
    /// The module with the kernel instantiated for `config` (as written
    /// for `None`).
    fn instantiate(&self, config: Option<&Config>) -> Result<melior::ir::Module<'_>> {
        let mut module = compile::parse(self.context, self.text, self.file)?;
        if let Some(config) = config {
            tune::apply(self.context, &mut module, self.name, config)?;
        }
        Ok(module)
    }
}

/// How to size the grid: `--grid` and the arguments' array shapes.
struct Launch<'a> {
    spec: GridSpec,
    shapes: &'a [Option<Vec<usize>>],
}

impl Launch<'_> {
    /// The grid kernel `name` of `module` (an instantiated program) needs.
    fn grid(&self, module: &melior::ir::Module, name: &str) -> Result<Grid> {
        let index = match self.spec {
            GridSpec::Fixed(grid) => return Ok(grid),
            GridSpec::Tiles(index) => index,
        };
        let shape = self
            .shapes
            .get(index)
            .and_then(Option::as_ref)
            .with_context(|| format!("--grid tiles:{index}: parameter #{index} of @{name} is not a memref"))?;
        let tiles = tune::view_tiles(module, name, index)?;
        if tiles.len() != shape.len() {
            bail!("--grid tiles:{index}: the view's tiles have rank {}, the array {}", tiles.len(), shape.len());
        }
        // An empty array has no tiles: an empty grid, which runs no block.
        let blocks =
            shape.iter().zip(&tiles).try_fold(1u64, |n, (&e, &t)| n.checked_mul((e as u64).div_ceil(t as u64)));
        let blocks = blocks.with_context(|| format!("--grid tiles:{index}: the tile count overflows"))?;
        Grid::new([blocks, 1, 1]).with_context(|| format!("--grid tiles:{index}: {blocks} tiles"))
    }
}

/// The kernel's arguments: each an array or a scalar.
fn make_args<'a>(arrays: &'a mut [Option<Array>], scalars: &[Option<tile_runtime::Scalar>]) -> Vec<Arg<'a>> {
    arrays
        .iter_mut()
        .zip(scalars)
        .filter_map(|(array, scalar)| match (array, scalar) {
            (Some(array), _) => Some(Arg::Array(array)),
            (None, Some(scalar)) => Some(Arg::Scalar(*scalar)),
            (None, None) => None,
        })
        .collect()
}

/// The fastest configuration of `tunable` for these arguments, measured
/// on the GPU (or cached); `None` when tuning is off. Configurations are
/// compiled as `general` says, or whole where the first one's variants do
/// not take the arguments: what it settled on comes back with the
/// choice. Configurations the tuner dropped are said on standard error; a
/// configuration that hung ends the process here (see [`hung`]).
fn autotune(
    cuda: &Cuda,
    program: &Program,
    tunable: &tune::Tunable,
    chip: &str,
    launch: &Launch,
    (arrays, scalars): (&mut [Option<Array>], &[Option<tile_runtime::Scalar>]),
    general: gpu::General,
) -> Result<(Option<Config>, gpu::General)> {
    let name = program.name;
    let tuner = Tuner::from_env();
    if !tuner.enabled() {
        return Ok((None, general));
    }
    if matches!(launch.spec, GridSpec::Fixed(_)) && tunable.resizes_tiles() {
        bail!(
            "kernel @{name} has tunable tile sizes (tile.tune), so the grid it needs depends on the configuration: \
             give --grid tiles:I (one block per tile of parameter I), a --config, or set TILE_TUNE=0"
        );
    }
    let described: Vec<String> = arrays
        .iter()
        .zip(scalars)
        .map(|(array, scalar)| match (array, scalar) {
            (Some(array), _) => format!("{}{:?}", array.dtype().mlir_name(), array.shape()),
            (None, Some(scalar)) => format!("{scalar:?}"),
            (None, None) => String::new(),
        })
        .collect();
    let key = TuneKey {
        kernel: name.to_string(),
        source: tile_runtime::tune::hash(program.text),
        args: described.join(","),
        device: cuda.name(),
        compiler: tune::COMPILER_ID.to_string(),
    };
    // Tuning runs on device copies of the arguments: the host arrays stay
    // the inputs as read, for the final run.
    let device = cuda.upload(&make_args(arrays, scalars))?;
    let roles = roles(&program.instantiate(None)?, name, arrays.len());
    let mut trials =
        GpuTrials { cuda, program, launch, chip, general, compiled: HashMap::new(), arrays, scalars, roles, device };
    // Each configuration is compiled once (the tuner's final round
    // measures the fastest again), and each distinct kernel tried once.
    // Where a first tuning's time goes, said once it is done.
    let mut phases = None;
    let configs = match tuner.cached(&key) {
        Some(_) => tunable.configs(),
        None => {
            let start = Instant::now();
            // Arguments no variant takes (rows the TMA cannot describe) run
            // the general kernels: then every configuration is compiled
            // whole, so that `distinct` tells apart the kernels that run.
            if general == gpu::General::Deferred
                && let Some(first) = tunable.configs().first()
                && trials.refused(first)
            {
                trials.general = gpu::General::Compiled;
                trials.compiled.clear();
            }
            trials.compile_all(&tunable.configs());
            let compiled = start.elapsed();
            let bundles: Vec<&Bundle> =
                trials.compiled.values().filter_map(|r| r.as_ref().ok()).map(|(b, _)| &**b).collect();
            let preloaded = cuda.preload(&bundles);
            phases = Some((
                compiled,
                start.elapsed() - compiled,
                preloaded.describe(cuda.assembler().map(|p| p.version())),
                Instant::now(),
            ));
            tile_runtime::tune::distinct(&tunable.configs(), |config| {
                trials.compiled[config]
                    .as_ref()
                    .ok()
                    .map(|(bundle, grid)| (grid.0, tile_runtime::tune::hash(&bundle.to_json())))
            })
        }
    };
    let tuned = match tuner.tune_checked(&key, &configs, &mut trials) {
        Ok(tuned) => tuned,
        Err(error @ TuneError::Hung { .. }) => {
            if let TuneError::Hung { tried, .. } = &error {
                report_dropped(name, tried.iter().filter_map(|(c, r)| r.as_ref().err().map(|why| (c, why))));
            }
            hung(&error)
        }
        Err(error) => return Err(error.into()),
    };
    report_dropped(name, tuned.dropped());
    if let Some((compiled, loaded, how, timing)) = phases {
        eprintln!(
            "tile-run: tuning @{name}: {} configurations compiled in {:.1} s, {how} in {:.1} s; \
             {} distinct kernels run and timed in {:.1} s",
            tunable.configs().len(),
            compiled.as_secs_f64(),
            loaded.as_secs_f64(),
            configs.len(),
            timing.elapsed().as_secs_f64()
        );
    }
    if let Some(reference) = tuned.reference.as_ref().filter(|r| Some(*r) != configs.first()) {
        eprintln!(
            "tile-run: tuning @{name}: the kernel as written did not run; outputs were checked against {reference}"
        );
    }
    if let Some(error) = &tuned.cache_error {
        eprintln!("tile-run: warning: the tuning choice was not cached: {error}");
    }
    Ok((Some(tuned.config), trials.general))
}

/// A line on standard error for each configuration the tuner dropped.
fn report_dropped<'a>(name: &str, dropped: impl Iterator<Item = (&'a Config, &'a TrialError)>) {
    for (config, why) in dropped {
        eprintln!("tile-run: tuning @{name}: dropped {config}: {why}");
    }
}

/// Ends the process after a hung launch: the kernel may still run, and
/// nothing can stop it short of destroying the GPU context, which (like
/// freeing the device arrays) may wait for it. Exiting at once, without
/// dropping anything, leaves the driver to tear the context down.
fn hung(error: &TuneError) -> ! {
    eprintln!("tile-run: error: {error}");
    std::process::exit(1)
}

/// How a kernel uses a memref parameter, as far as its tile ops tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// Never stored to: left as uploaded between tuning runs.
    Input,
    /// Stored to, never loaded: poisoned before each checked run.
    Output,
    /// Both, or used in a way the walk cannot follow: restored to the
    /// input as read before each checked run.
    InOut,
}

/// The role of each of the `count` parameters of kernel `name` (scalars
/// count as inputs): views of a parameter stored to by `tile.store` make
/// it an output, loaded too an in-out one. Any use the walk cannot follow
/// (a memref parameter used other than by `tile.partition_view`, a view
/// that is not one of a parameter) makes the parameters concerned in-out,
/// which is never wrong, only slower.
fn roles(module: &melior::ir::Module, name: &str, count: usize) -> Vec<Role> {
    let unknown = vec![Role::InOut; count];
    let mut next = module.body().first_operation();
    let kernel = loop {
        let Some(op) = next else { return unknown };
        let named = op
            .attribute("sym_name")
            .ok()
            .and_then(|a| melior::ir::attribute::StringAttribute::try_from(a).ok())
            .is_some_and(|s| s.value() == name);
        if named {
            break op;
        }
        next = op.next_in_block();
    };
    let Some(entry) = kernel.region_at(0).and_then(|r| r.first_block()) else { return unknown };
    let params: Vec<_> = (0..count).filter_map(|i| entry.argument_at(i)).map(|a| a.to_raw().ptr).collect();
    if params.len() != count {
        return unknown;
    }
    let param = |value: melior::ir::Value| params.iter().position(|&p| p == value.to_raw().ptr);
    // Views of parameters; parameters used otherwise.
    let mut views: HashMap<*const std::ffi::c_void, usize> = HashMap::new();
    let mut untraced: HashSet<usize> = HashSet::new();
    let (mut loaded, mut stored) = (HashSet::new(), HashSet::new());
    let mut lost = false;
    kernel.walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
        let op_name = op.name().as_string_ref().as_str().unwrap_or("").to_string();
        let view_of = |index: usize| op.operand_at(index).map(|v| views.get(&v.to_raw().ptr).copied());
        match op_name.as_str() {
            "tile.partition_view" => {
                if let (Some(index), Some(result)) = (op.operand_at(0).and_then(param), op.result_at(0)) {
                    views.insert(result.to_raw().ptr, index);
                }
            }
            "tile.load" => match view_of(0) {
                Some(Some(index)) => {
                    loaded.insert(index);
                }
                _ => lost = true,
            },
            "tile.store" => match view_of(1) {
                Some(Some(index)) => {
                    stored.insert(index);
                }
                _ => lost = true,
            },
            _ => {
                for operand in (0..op.operand_count()).filter_map(|i| op.operand_at(i)) {
                    if let Some(index) = param(operand) {
                        untraced.insert(index);
                    }
                }
            }
        }
        melior::ir::operation::WalkResult::Advance
    });
    if lost {
        return unknown;
    }
    (0..count)
        .map(|i| match (loaded.contains(&i), stored.contains(&i), untraced.contains(&i)) {
            (_, _, true) | (true, true, _) => Role::InOut,
            (false, true, _) => Role::Output,
            _ => Role::Input,
        })
        .collect()
}

/// What the tuner needs of a configuration, on the GPU: compile it, check
/// it can launch, run it once on poisoned outputs (with a deadline) to
/// compare with the kernel as written, and time it.
struct GpuTrials<'a> {
    cuda: &'a Cuda,
    program: &'a Program<'a>,
    launch: &'a Launch<'a>,
    chip: &'a str,
    /// How configurations are compiled: their variants alone first.
    general: gpu::General,
    compiled: HashMap<Config, std::result::Result<(Rc<Bundle>, Grid), String>>,
    /// The arguments as read; never changed.
    arrays: &'a mut [Option<Array>],
    scalars: &'a [Option<Scalar>],
    roles: Vec<Role>,
    device: DeviceArgs,
}

impl GpuTrials<'_> {
    /// Compiles `config` unless it was, as `self.general` says (its
    /// variants alone: [`Trials::check`] compiles it whole where no
    /// variant takes the arguments).
    fn compile(&mut self, config: &Config) {
        if !self.compiled.contains_key(config) {
            let result = compile_config(self.program, self.launch, self.chip, config, self.general);
            self.compiled.insert(config.clone(), result.map(|(bundle, grid)| (Rc::new(bundle), grid)));
        }
    }

    /// Compiles every configuration of `configs`, in parallel
    /// ([`tune::on_each_config`]: a context a thread), as [`Self::compile`].
    fn compile_all(&mut self, configs: &[Config]) {
        let (launch, chip, general) = (self.launch, self.chip, self.general);
        let (text, file, name) = (self.program.text, self.program.file, self.program.name);
        let configs: Vec<Config> = configs.iter().filter(|c| !self.compiled.contains_key(*c)).cloned().collect();
        let results = tune::on_each_config(&configs, |context, config| {
            compile_config(&Program { context, text, file, name }, launch, chip, config, general)
        });
        for (config, result) in configs.iter().zip(results) {
            self.compiled.insert(config.clone(), result.map(|(bundle, grid)| (Rc::new(bundle), grid)));
        }
    }

    /// Whether `config` compiled with its general kernel deferred has no
    /// variant that takes the arguments (`Error::Deferred`).
    fn refused(&mut self, config: &Config) -> bool {
        let Ok((bundle, grid)) = self.kernel(config) else { return false };
        let args = make_args(self.arrays, self.scalars);
        let prepared = self.cuda.try_prepare(&bundle, self.program.name, &args, &self.device, grid);
        matches!(prepared, Err(tile_runtime::Error::Deferred { .. }))
    }

    /// The compiled kernel of `config` and its grid.
    fn kernel(&mut self, config: &Config) -> std::result::Result<(Rc<Bundle>, Grid), TrialError> {
        self.compile(config);
        self.compiled[config].clone().map_err(TrialError::Failed)
    }

    /// Resets the device arrays before a checked run: outputs poisoned,
    /// in-out arrays back to the inputs as read.
    fn reset(&mut self) -> tile_runtime::Result<()> {
        for (index, role) in self.roles.iter().enumerate() {
            let Some(array) = &self.arrays[index] else { continue };
            match role {
                Role::Input => {}
                Role::Output => self.cuda.fill(&mut self.device, index, poison_byte(array.dtype()))?,
                Role::InOut => self.cuda.write(&mut self.device, index, array.bytes())?,
            }
        }
        Ok(())
    }
}

fn failed(error: impl std::fmt::Display) -> TrialError {
    TrialError::Failed(error.to_string())
}

fn timing(timing: Timing) -> std::result::Result<f64, TrialError> {
    match timing {
        Timing::Done(ms) => Ok(ms),
        Timing::Hung { waited } => Err(TrialError::Hung { seconds: waited.as_secs_f64() }),
    }
}

/// `program` instantiated for `config` and compiled (`general`: whole, or
/// its variants alone), with the grid it needs; else the error's text.
fn compile_config(
    program: &Program,
    launch: &Launch,
    chip: &str,
    config: &Config,
    general: gpu::General,
) -> std::result::Result<(Bundle, Grid), String> {
    let module = program.instantiate(Some(config)).map_err(|e| tile_runtime::error_chain(e.as_ref()))?;
    let grid = launch.grid(&module, program.name).map_err(|e| tile_runtime::error_chain(e.as_ref()))?;
    let bundle = gpu::compile_with(program.context, module, Some(program.name), chip, general)
        .map_err(|e| tile_runtime::error_chain(&e))?;
    Ok((bundle, grid))
}

impl Trials for GpuTrials<'_> {
    /// The outputs and in-out arrays after the run, by argument index.
    type Outputs = Vec<(usize, Array)>;

    fn check(&mut self, config: &Config) -> std::result::Result<(), TrialError> {
        let (bundle, grid) = self.kernel(config)?;
        let args = make_args(self.arrays, self.scalars);
        match self.cuda.try_prepare(&bundle, self.program.name, &args, &self.device, grid) {
            Ok(Ok(_)) => return Ok(()),
            Ok(Err(refused)) => {
                return Err(TrialError::CannotLaunch(format!("@{}: {}", refused.entry, refused.reason)));
            }
            Err(tile_runtime::Error::Deferred { .. }) => {}
            Err(e) => return Err(failed(e)),
        }
        drop(args);
        // No variant takes these arguments: the kernel whole (a bundle with
        // nothing deferred, so this recurses once), which `run` and `time`
        // then launch.
        let result = compile_config(self.program, self.launch, self.chip, config, gpu::General::Compiled);
        self.compiled.insert(config.clone(), result.map(|(bundle, grid)| (Rc::new(bundle), grid)));
        self.check(config)
    }

    fn run(&mut self, config: &Config, limit: Duration) -> std::result::Result<(Self::Outputs, f64), TrialError> {
        let (bundle, grid) = self.kernel(config)?;
        self.reset().map_err(failed)?;
        let (cuda, name) = (self.cuda, self.program.name);
        let ms = {
            let args = make_args(self.arrays, self.scalars);
            let mut prepared = cuda.prepare(&bundle, name, &args, &self.device, grid).map_err(failed)?;
            timing(cuda.timed_within(limit, || cuda.enqueue(&mut prepared)).map_err(failed)?)?
        };
        let mut outputs = Vec::new();
        for (index, role) in self.roles.iter().enumerate() {
            if let (Role::Output | Role::InOut, Some(array)) = (role, &self.arrays[index]) {
                let mut out = Array::zeros(array.dtype(), array.shape());
                cuda.read_into(&self.device, index, &mut out).map_err(failed)?;
                outputs.push((index, out));
            }
        }
        Ok((outputs, ms))
    }

    fn compare(&self, reference: &Self::Outputs, got: &Self::Outputs) -> std::result::Result<(), TrialError> {
        for ((index, expected), (_, actual)) in reference.iter().zip(got) {
            disagreement(*index, expected, actual, Tolerance::default())?;
        }
        Ok(())
    }

    fn time(&mut self, config: &Config, limit: Duration) -> std::result::Result<f64, TrialError> {
        let (bundle, grid) = self.kernel(config)?;
        let args = make_args(self.arrays, self.scalars);
        let mut prepared = self.cuda.prepare(&bundle, self.program.name, &args, &self.device, grid).map_err(failed)?;
        timing(self.cuda.median_ms_within(&mut prepared, 1, 5, false, limit).map_err(failed)?)
    }
}
