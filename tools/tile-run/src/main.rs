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
//! `--config k=v,...` runs one configuration instead.
//!
//! Every error (bad flags, an invalid program, a wrong `.npy`, a failed
//! launch) is printed as one message and exits with code 1.

use anyhow::{Context as _, Result, bail};
use clap::Parser;
use std::{path::PathBuf, process::ExitCode, time::Instant};
use tile_lowering::{compile, cpu::CpuKernel, gpu, tune};
use tile_runtime::{
    Arg, Array, Grid, Param,
    cuda::Cuda,
    npy,
    tune::{Config, TuneKey, Tuner},
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
            eprintln!("tile-run: error: {error:#}");
            ExitCode::from(1)
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    let context = tile_dialect::create_context();
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
    .map(|cuda| cuda.use_variants(!cli.no_variants));

    if cli.args.len() != signature.params.len() {
        let params: Vec<String> = signature.params.iter().map(|p| p.to_string()).collect();
        bail!("kernel @{name} takes {} arguments ({}), got {}", params.len(), params.join(", "), cli.args.len());
    }
    for &(index, _) in &cli.saves {
        if !matches!(signature.params.get(index), Some(Param::Memref { .. })) {
            bail!("--save {index}: parameter #{index} of @{name} is not a memref");
        }
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
                let value = scalar_type.parse(text).with_context(|| {
                    format!("argument #{index}: '{text}' is not a {} number", scalar_type.mlir_name())
                })?;
                arrays.push(None);
                scalars.push(Some(value));
            }
        }
    }
    let repeat = cli.bench.map_or(1, |n| n.max(1) as usize);
    let shapes: Vec<Option<Vec<usize>>> = arrays.iter().map(|a| a.as_ref().map(|a| a.shape().to_vec())).collect();
    let launch = Launch { spec: grid_spec, shapes: &shapes };

    let (target, times_ms, config, grid) = if let Some(cuda) = &cuda {
        let config = match (&cli.config, &tunable) {
            (Some(config), _) => Some(config.clone()),
            (None, Some(tunable)) => autotune(cuda, &program, tunable, &cli.chip, &launch, &mut arrays, &scalars)?,
            (None, None) => None,
        };
        let module = program.instantiate(config.as_ref())?;
        let grid = launch.grid(&module, &name)?;
        let bundle = gpu::compile(&context, module, Some(&name), &cli.chip)?;
        let launched = cuda.launch_report(&bundle, &name, &mut make_args(&mut arrays, &scalars), grid, repeat)?;
        let entry = if launched.entry == name { String::new() } else { format!(" as @{}", launched.entry) };
        let passed_over: String = launched.passed_over.iter().map(|why| format!("; passed over {why}")).collect();
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
    if cli.bench.is_some() {
        println!("@{name} on {target}, grid {:?}: median of {} launches {median:.3} ms", grid.0, sorted.len());
    } else {
        eprintln!("tile-run: @{name} on {target}, grid {:?}: {median:.3} ms", grid.0);
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
/// on the GPU (or cached); `None` when tuning is off.
#[allow(clippy::too_many_arguments)]
fn autotune(
    cuda: &Cuda,
    program: &Program,
    tunable: &tune::Tunable,
    chip: &str,
    launch: &Launch,
    arrays: &mut [Option<Array>],
    scalars: &[Option<tile_runtime::Scalar>],
) -> Result<Option<Config>> {
    let name = program.name;
    let tuner = Tuner::from_env();
    if !tuner.enabled() {
        return Ok(None);
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
    // Tuning runs on copies of the arguments: the final run starts from
    // the inputs as read.
    let args = make_args(arrays, scalars);
    let device = cuda.upload(&args)?;
    // Each configuration is compiled once (the tuner's final round
    // measures the fastest again), and each distinct kernel measured once.
    let mut compiled: std::collections::HashMap<Config, std::result::Result<(tile_runtime::Bundle, Grid), String>> =
        std::collections::HashMap::new();
    let compile = |config: &Config| -> std::result::Result<(tile_runtime::Bundle, Grid), String> {
        let module = program.instantiate(Some(config)).map_err(|e| format!("{e:#}"))?;
        let grid = launch.grid(&module, name).map_err(|e| format!("{e:#}"))?;
        let bundle = gpu::compile(program.context, module, Some(name), chip).map_err(|e| format!("{e:#}"))?;
        Ok((bundle, grid))
    };
    let configs = match tuner.cached(&key) {
        Some(_) => tunable.configs(),
        None => {
            for config in tunable.configs() {
                let result = compile(&config);
                compiled.insert(config, result);
            }
            tile_runtime::tune::distinct(&tunable.configs(), |config| {
                compiled[config]
                    .as_ref()
                    .ok()
                    .map(|(bundle, grid)| (grid.0, tile_runtime::tune::hash(&bundle.to_json())))
            })
        }
    };
    let tuned = tuner.tune(&key, &configs, |config| {
        if !compiled.contains_key(config) {
            let result = compile(config);
            compiled.insert(config.clone(), result);
        }
        let (bundle, grid) = compiled[config].as_ref().map_err(Clone::clone)?;
        let mut prepared = cuda.prepare(bundle, name, &args, &device, *grid).map_err(|e| format!("{e:#}"))?;
        cuda.median_ms(&mut prepared, 1, 5, false).map_err(|e| format!("{e:#}"))
    })?;
    if let Some(error) = &tuned.cache_error {
        eprintln!("tile-run: warning: the tuning choice was not cached: {error}");
    }
    Ok(Some(tuned.config))
}
