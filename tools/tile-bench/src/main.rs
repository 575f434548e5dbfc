//! `tile-bench`: tile matmuls beside cuBLAS, in one process, on the same
//! device arrays.
//!
//! ```text
//! tile-bench [--dtypes f16,bf16] [--shapes 1024x1024x1024,...] [--runs 50]
//!            [--warmup 5] [--csv PATH] [--no-variants] [--skip-variant PART]
//!            [--kernel DTYPE=PATH] [--config KEY=VALUE,...]
//! ```
//!
//! For each dtype it compiles the contract-form matmul with that dtype in
//! and out (`examples/matmul_f16_f16.mlir`, `examples/matmul_bf16_bf16.mlir`)
//! and reports the `.mlir`-to-PTX time and the JIT load time. For each
//! shape it fills A and B with random values, poisons both outputs with
//! NaN, runs the tile kernel and `cublasGemmEx` (f32 compute) into separate
//! outputs, checks that they agree with each other and, on sampled
//! elements, with an f64 reference, then times both: after the warm-up,
//! launches alternate between the two, each after an L2 flush, and the
//! median of `--runs` is reported as TFLOP/s with the ratio tile/cuBLAS.
//!
//! A kernel with a `tile.tune` space (both examples have one) is autotuned
//! for each shape first: every configuration is compiled once and timed
//! on the shape's arrays (median of 10 launches, L2 flushed), through the
//! runtime's tuner and its cache (`TILE_TUNE_CACHE`; `TILE_TUNE=0` runs
//! the kernel as written); `--config` runs one configuration instead. The
//! chosen configuration is then checked and timed as above. While tuning,
//! configurations that cannot launch (block threads, shared memory,
//! clusters) are dropped before anything is timed, and so is any whose C
//! (poisoned before its first run) disagrees with the kernel as written's
//! on the same A and B; a line on standard error names each. A launch that
//! does not finish in time (20 times the kernel as written's, at least a
//! second) ends the run with an error naming its configuration: a hung
//! kernel cannot be stopped without losing the GPU.
//!
//! Every error (no GPU, no cuBLAS, a failed check) is one message and exit
//! code 1; a failed check still prints the table first.

use anyhow::{Context as _, Result, bail};
use clap::Parser;
use std::{
    collections::HashMap,
    process::ExitCode,
    rc::Rc,
    time::{Duration, Instant},
};
use tile_lowering::{compile, gpu, tune};
use tile_runtime::{
    Arg, Array, Bundle, DType, Grid,
    cublas::Cublas,
    cuda::{Cuda, DeviceArgs, Timing},
    tune::{Config, Tolerance, TrialError, Trials, TuneError, TuneKey, Tuner, disagreement, poison_byte},
};

/// Time tile matmuls beside cuBLAS.
#[derive(Parser, Debug)]
#[command(name = "tile-bench", version)]
struct Cli {
    /// Element types, in and out: f16, bf16.
    #[arg(long, value_delimiter = ',', default_value = "f16,bf16")]
    dtypes: Vec<String>,
    /// Shapes MxNxK.
    #[arg(long, value_delimiter = ',', value_parser = parse_shape,
          default_value = "1024x1024x1024,2048x2048x2048,4096x4096x4096,8192x8192x8192,8192x8192x512,128x8192x8192")]
    shapes: Vec<[usize; 3]>,
    /// Timed launches of each, after the warm-up.
    #[arg(long, default_value_t = 50)]
    runs: usize,
    /// Untimed launches of each first.
    #[arg(long, default_value_t = 5)]
    warmup: usize,
    /// Also write the table as CSV to PATH.
    #[arg(long, value_name = "PATH")]
    csv: Option<std::path::PathBuf>,
    /// Run the general kernel, never a specialised variant.
    #[arg(long)]
    no_variants: bool,
    /// Pass over the variants whose names hold PART (such as `__wgmma`);
    /// repeatable.
    #[arg(long = "skip-variant", value_name = "PART")]
    skip_variants: Vec<String>,
    /// Benchmark the matmul in PATH for DTYPE instead of the example (same
    /// parameters: A, B, C of DTYPE; a 1-D grid, one block per tile of C).
    #[arg(long = "kernel", value_name = "DTYPE=PATH", value_parser = parse_kernel)]
    kernels: Vec<(String, std::path::PathBuf)>,
    /// Run this configuration of the kernels' tuning space (such as
    /// tile_m=64,tile_n=256) instead of tuning.
    #[arg(long, value_parser = parse_config)]
    config: Option<Config>,
}

fn parse_config(text: &str) -> Result<Config, String> {
    text.parse().map_err(|e: tile_runtime::tile_abi::Error| e.to_string())
}

/// A kernel compiled for one configuration.
struct Compiled {
    bundle: Bundle,
    /// The tile shape of C (parameter 2): the grid has one block per tile.
    tiles: [usize; 2],
    /// `.mlir` to PTX.
    ms: f64,
}

impl Compiled {
    /// One block per tile of an `m x n` C.
    fn grid(&self, m: usize, n: usize) -> Grid {
        Grid([(m.div_ceil(self.tiles[0]) * n.div_ceil(self.tiles[1])) as u64, 1, 1])
    }
}

/// Compiles each configuration of one program once.
struct Kernels<'a> {
    context: &'a melior::Context,
    text: String,
    file: String,
    name: String,
    compiled: HashMap<Option<Config>, Rc<Compiled>>,
}

impl Kernels<'_> {
    fn get(&mut self, config: Option<&Config>) -> Result<Rc<Compiled>> {
        if let Some(found) = self.compiled.get(&config.cloned()) {
            return Ok(found.clone());
        }
        let compiled = Rc::new(compile_config(self.context, &self.text, &self.file, &self.name, config)?);
        self.compiled.insert(config.cloned(), compiled.clone());
        Ok(compiled)
    }

    /// Compiles every configuration of `configs` not compiled yet, in
    /// parallel ([`tune::on_each_config`]: a context a thread); one that
    /// fails is left for [`Self::get`] to report.
    fn compile_all(&mut self, configs: &[Config]) {
        let missing: Vec<Config> =
            configs.iter().filter(|c| !self.compiled.contains_key(&Some((*c).clone()))).cloned().collect();
        let (text, file, name) = (&self.text, &self.file, &self.name);
        let results = tune::on_each_config(&missing, |context, config| {
            compile_config(context, text, file, name, Some(config)).map_err(|e| e.to_string())
        });
        for (config, result) in missing.into_iter().zip(results) {
            if let Ok(compiled) = result {
                self.compiled.insert(Some(config), Rc::new(compiled));
            }
        }
    }
}

/// Kernel `name` of program `text` instantiated for `config` (as written
/// for `None`) and compiled, with its C tile shape and compile time.
fn compile_config(
    context: &melior::Context,
    text: &str,
    file: &str,
    name: &str,
    config: Option<&Config>,
) -> Result<Compiled> {
    let start = Instant::now();
    let mut module = compile::parse(context, text, file)?;
    if let Some(config) = config {
        tune::apply(context, &mut module, name, config)?;
    }
    let tiles = match tune::view_tiles(&module, name, 2)?[..] {
        [rows, cols] => [rows as usize, cols as usize],
        _ => bail!("@{name}: C's tiles are not 2-D"),
    };
    let bundle = gpu::compile(context, module, Some(name), gpu::DEFAULT_CHIP)?;
    Ok(Compiled { bundle, tiles, ms: start.elapsed().as_secs_f64() * 1e3 })
}

fn parse_kernel(text: &str) -> Result<(String, std::path::PathBuf), String> {
    let (dtype, path) = text.split_once('=').ok_or_else(|| format!("'{text}' is not DTYPE=PATH"))?;
    Ok((dtype.to_string(), path.into()))
}

fn parse_shape(text: &str) -> Result<[usize; 3], String> {
    let dims: Vec<usize> = text
        .split('x')
        .map(|d| d.trim().parse::<usize>())
        .collect::<Result<_, _>>()
        .map_err(|e| format!("'{text}': {e}"))?;
    match dims[..] {
        [m, n, k] if m > 0 && n > 0 && k > 0 => Ok([m, n, k]),
        _ => Err(format!("'{text}' is not MxNxK with positive sizes")),
    }
}

/// One row of the table.
struct Row {
    dtype: &'static str,
    shape: [usize; 3],
    entry: String,
    /// Blocks launched along x (persistent: the resident ones), and per
    /// cluster.
    blocks: u32,
    cluster: u32,
    config: String,
    tile_ms: f64,
    cublas_ms: f64,
    check: String,
}

impl Row {
    /// `132`, or `66x2` for 66 clusters of 2 blocks.
    fn blocks_text(&self) -> String {
        if self.cluster > 1 {
            format!("{}x{}", self.blocks / self.cluster, self.cluster)
        } else {
            self.blocks.to_string()
        }
    }

    fn tflops(&self, ms: f64) -> f64 {
        let [m, n, k] = self.shape;
        2.0 * m as f64 * n as f64 * k as f64 / (ms * 1e-3) / 1e12
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() { 1 } else { 0 });
        }
    };
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("tile-bench: error: {}", tile_runtime::error_chain(error.as_ref()));
            ExitCode::from(1)
        }
    }
}

fn run(cli: &Cli) -> Result<()> {
    if let Some(other) =
        cli.dtypes.iter().chain(cli.kernels.iter().map(|(d, _)| d)).find(|d| !matches!(d.as_str(), "f16" | "bf16"))
    {
        bail!("unknown dtype '{other}' (f16, bf16)");
    }
    // cuBLAS takes int dims and leading dims; refuse larger shapes before
    // touching the GPU or allocating their host arrays.
    for &[m, n, k] in &cli.shapes {
        for (rows, cols) in [(m, k), (k, n), (m, n)] {
            if rows.checked_mul(cols).is_none_or(|elements| elements > i32::MAX as usize) {
                bail!("{m}x{n}x{k}: a {rows}x{cols} operand exceeds 2^31 elements");
            }
        }
    }
    let cuda = Cuda::new()?.use_variants(!cli.no_variants).skip_variants(cli.skip_variants.clone());
    let cublas = Cublas::new(&cuda)?;
    println!(
        "tile-bench on {}: median of {} runs after {} warm-up, L2 flushed before each",
        cuda.name(),
        cli.runs,
        cli.warmup
    );
    let context = tile_dialect::create_context();
    let tuner = Tuner::from_env();
    let mut rows = Vec::new();
    for dtype in &cli.dtypes {
        let (dtype, name, source): (DType, &'static str, &str) = match dtype.as_str() {
            "f16" => (DType::F16, "f16", include_str!("../../../examples/matmul_f16_f16.mlir")),
            "bf16" => (DType::BF16, "bf16", include_str!("../../../examples/matmul_bf16_bf16.mlir")),
            other => bail!("unknown dtype '{other}' (f16, bf16)"),
        };
        let (file, text) = match cli.kernels.iter().rev().find(|(d, _)| d == name) {
            Some((_, path)) => (
                path.display().to_string(),
                std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?,
            ),
            None => (format!("matmul_{name}_{name}.mlir"), source.to_string()),
        };
        let module = compile::parse(&context, &text, &file)?;
        let kernel = compile::select_kernel(&module, None)?;
        let tunable = tune::tunable(&module, &kernel)?;
        drop(module);
        let mut kernels =
            Kernels { context: &context, text, file: file.clone(), name: kernel.clone(), compiled: HashMap::new() };
        let default = kernels.get(cli.config.as_ref())?;
        let mut loaded_ms = None;
        for &shape in &cli.shapes {
            let row =
                bench(cli, &cuda, &cublas, &mut kernels, tunable.as_ref(), &tuner, dtype, name, shape, &mut loaded_ms)?;
            if let Some(ms) = loaded_ms.take().filter(|_| rows.iter().all(|r: &Row| r.dtype != name)) {
                println!(
                    "{name}: @{kernel} ({file}) compiled to PTX in {:.0} ms, JIT-loaded in {ms:.0} ms",
                    default.ms
                );
                println!(
                    "{:<5} {:>20} {:>10} {:>10} {:>7}  {:<28} {:>8}  {:<52} check",
                    "dtype", "MxNxK", "tile", "cuBLAS", "ratio", "entry", "blocks", "config"
                );
            }
            println!(
                "{:<5} {:>20} {:>10.1} {:>10.1} {:>7.3}  {:<28} {:>8}  {:<52} {}",
                row.dtype,
                format!("{}x{}x{}", shape[0], shape[1], shape[2]),
                row.tflops(row.tile_ms),
                row.tflops(row.cublas_ms),
                row.cublas_ms / row.tile_ms,
                format!("@{}", row.entry),
                row.blocks_text(),
                row.config,
                row.check
            );
            rows.push(row);
        }
    }
    if let Some(path) = &cli.csv {
        let mut text =
            String::from("dtype,m,n,k,entry,blocks,config,tile_ms,cublas_ms,tile_tflops,cublas_tflops,ratio,check\n");
        for row in &rows {
            let [m, n, k] = row.shape;
            text += &format!(
                "{},{m},{n},{k},{},{},{},{:.5},{:.5},{:.1},{:.1},{:.4},{}\n",
                row.dtype,
                row.entry,
                row.blocks_text(),
                row.config.replace(',', " "),
                row.tile_ms,
                row.cublas_ms,
                row.tflops(row.tile_ms),
                row.tflops(row.cublas_ms),
                row.cublas_ms / row.tile_ms,
                row.check
            );
        }
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    let failed: Vec<String> =
        rows.iter().filter(|r| r.check != "ok").map(|r| format!("{} {:?}", r.dtype, r.shape)).collect();
    if !failed.is_empty() {
        bail!("tile and cuBLAS disagree on {}", failed.join(", "));
    }
    Ok(())
}

/// A small, fast generator (xorshift64*), so that 8192^2 inputs take
/// moments, not the seconds a cryptographic one would.
struct Rng(u64);

impl Rng {
    /// Uniform in [-1, 1).
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let bits = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40;
        bits as f32 / (1u64 << 23) as f32 - 1.0
    }
}

#[allow(clippy::too_many_arguments)]
fn bench(
    cli: &Cli,
    cuda: &Cuda,
    cublas: &Cublas,
    kernels: &mut Kernels,
    tunable: Option<&tune::Tunable>,
    tuner: &Tuner,
    dtype: DType,
    name: &'static str,
    [m, n, k]: [usize; 3],
    loaded_ms: &mut Option<f64>,
) -> Result<Row> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (m * 31 + n * 17 + k) as u64);
    let a: Vec<f32> = (0..m * k).map(|_| rng.next()).collect();
    let b: Vec<f32> = (0..k * n).map(|_| rng.next()).collect();
    let poison = vec![f32::NAN; m * n];
    let array =
        |shape: &[usize], values: &[f32]| Array::from_f32(dtype, shape, values).context("array of the benchmark");
    let (mut a, mut b) = (array(&[m, k], &a)?, array(&[k, n], &b)?);
    let (mut c, mut c_reference) = (array(&[m, n], &poison)?, array(&[m, n], &poison)?);
    let mut args = [Arg::Array(&mut a), Arg::Array(&mut b), Arg::Array(&mut c)];
    let mut reference = [Arg::Array(&mut c_reference)];
    let mut device = cuda.upload(&args)?;
    let cublas_out = cuda.upload(&reference)?;
    let kernel = kernels.name.clone();
    let config = choose(cli, cuda, kernels, tunable, tuner, (dtype, name), [m, n, k], &args, &mut device)?;
    let compiled = kernels.get(config.as_ref())?;
    // Tuning left some configuration's C behind: poisoned again, so that
    // the check below sees only what the chosen kernel writes.
    cuda.fill(&mut device, 2, poison_byte(dtype))?;
    let start = Instant::now();
    let mut prepared = cuda.prepare(&compiled.bundle, &kernel, &args, &device, compiled.grid(m, n))?;
    *loaded_ms = Some(start.elapsed().as_secs_f64() * 1e3);
    let gemm = || cublas.gemm(cuda, dtype, [m, n, k], (&device, 0), (&device, 1), (&cublas_out, 0));

    // One launch of each, checked before any timing.
    cuda.timed(|| cuda.enqueue(&mut prepared))?;
    cuda.timed(gemm)?;
    cuda.download(&device, &mut args)?;
    cuda.download(&cublas_out, &mut reference)?;
    let check = check(&args, &reference[0], dtype, [m, n, k])?;

    for _ in 0..cli.warmup {
        cuda.timed(|| cuda.enqueue(&mut prepared))?;
        cuda.timed(gemm)?;
    }
    let (mut tile, mut reference_ms) = (Vec::new(), Vec::new());
    for _ in 0..cli.runs.max(1) {
        cuda.flush_l2()?;
        tile.push(f64::from(cuda.timed(|| cuda.enqueue(&mut prepared))?));
        cuda.flush_l2()?;
        reference_ms.push(f64::from(cuda.timed(gemm)?));
    }
    let config = config.map_or_else(|| "as written".to_string(), |c| c.to_string());
    let (mut blocks, cluster) = (prepared.grid()[0], prepared.cluster());
    // A launch split before its last wave: both entries, and all blocks.
    let entry = match prepared.last_wave() {
        Some((tail, tail_blocks)) => {
            blocks += tail_blocks;
            format!("{}+{tail}", prepared.entry)
        }
        None => prepared.entry.clone(),
    };
    Ok(Row {
        dtype: name,
        shape: [m, n, k],
        entry,
        blocks,
        cluster,
        config,
        tile_ms: median(tile),
        cublas_ms: median(reference_ms),
        check,
    })
}

/// The configuration to run for this shape: `--config`, else the tuned
/// one (or cached), else the kernel as written.
#[allow(clippy::too_many_arguments)]
fn choose(
    cli: &Cli,
    cuda: &Cuda,
    kernels: &mut Kernels,
    tunable: Option<&tune::Tunable>,
    tuner: &Tuner,
    (dtype, dtype_name): (DType, &str),
    [m, n, k]: [usize; 3],
    args: &[Arg],
    device: &mut DeviceArgs,
) -> Result<Option<Config>> {
    if let Some(config) = &cli.config {
        return Ok(Some(config.clone()));
    }
    let Some(tunable) = tunable.filter(|_| tuner.enabled()) else { return Ok(None) };
    let key = TuneKey {
        kernel: kernels.name.clone(),
        source: tile_runtime::tune::hash(&kernels.text),
        args: format!("{dtype_name} {m}x{n}x{k}{}", if cli.no_variants { " no-variants" } else { "" }),
        device: cuda.name(),
        compiler: tune::COMPILER_ID.to_string(),
    };
    // Each distinct kernel once (a cached choice needs no compiling).
    let configs = match tuner.cached(&key) {
        Some(_) => tunable.configs(),
        None => {
            kernels.compile_all(&tunable.configs());
            cuda.preload(&kernels.compiled.values().map(|c| &c.bundle).collect::<Vec<_>>());
            tile_runtime::tune::distinct(&tunable.configs(), |config| {
                kernels
                    .get(Some(config))
                    .ok()
                    .map(|compiled| (compiled.tiles, tile_runtime::tune::hash(&compiled.bundle.to_json())))
            })
        }
    };
    let name = kernels.name.clone();
    let mut trials = BenchTrials { cuda, kernels, name: &name, args, device, dtype, shape: [m, n, k] };
    let tuned = match tuner.tune_checked(&key, &configs, &mut trials) {
        Ok(tuned) => tuned,
        Err(error @ TuneError::Hung { .. }) => {
            if let TuneError::Hung { tried, .. } = &error {
                report_dropped(&name, tried.iter().filter_map(|(c, r)| r.as_ref().err().map(|why| (c, why))));
            }
            // A hung kernel may still run, and nothing stops it short of
            // destroying the context, which (like freeing the device
            // arrays) may wait for it: exit at once, dropping nothing.
            eprintln!("tile-bench: error: {error}");
            std::process::exit(1)
        }
        Err(error) => return Err(error.into()),
    };
    report_dropped(&name, tuned.dropped());
    if let Some(reference) = tuned.reference.as_ref().filter(|r| Some(*r) != configs.first()) {
        eprintln!("tile-bench: tuning @{name}: the kernel as written did not run; C was checked against {reference}");
    }
    if let Some(error) = &tuned.cache_error {
        eprintln!("tile-bench: warning: the tuning choice was not cached: {error}");
    }
    Ok(Some(tuned.config))
}

/// A line on standard error for each configuration the tuner dropped.
fn report_dropped<'a>(name: &str, dropped: impl Iterator<Item = (&'a Config, &'a TrialError)>) {
    for (config, why) in dropped {
        eprintln!("tile-bench: tuning @{name}: dropped {config}: {why}");
    }
}

/// The tuner's steps for one shape, on the benchmark's device arrays: A
/// and B are only read, C (argument 2) is poisoned before each checked
/// run and compared.
struct BenchTrials<'a, 'k, 'g> {
    cuda: &'a Cuda,
    kernels: &'a mut Kernels<'k>,
    name: &'a str,
    args: &'a [Arg<'g>],
    device: &'a mut DeviceArgs,
    dtype: DType,
    shape: [usize; 3],
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

impl Trials for BenchTrials<'_, '_, '_> {
    type Outputs = Array;

    fn check(&mut self, config: &Config) -> std::result::Result<(), TrialError> {
        let compiled = self.kernels.get(Some(config)).map_err(|e| failed(format!("{e:#}")))?;
        let grid = compiled.grid(self.shape[0], self.shape[1]);
        match self.cuda.try_prepare(&compiled.bundle, self.name, self.args, self.device, grid) {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(refused)) => Err(TrialError::CannotLaunch(format!("@{}: {}", refused.entry, refused.reason))),
            Err(e) => Err(failed(e)),
        }
    }

    fn run(&mut self, config: &Config, limit: Duration) -> std::result::Result<(Array, f64), TrialError> {
        let compiled = self.kernels.get(Some(config)).map_err(|e| failed(format!("{e:#}")))?;
        let [m, n, _] = self.shape;
        self.cuda.fill(self.device, 2, poison_byte(self.dtype)).map_err(failed)?;
        let cuda = self.cuda;
        let mut prepared =
            cuda.prepare(&compiled.bundle, self.name, self.args, self.device, compiled.grid(m, n)).map_err(failed)?;
        let ms = timing(cuda.timed_within(limit, || cuda.enqueue(&mut prepared)).map_err(failed)?)?;
        drop(prepared);
        let mut c = Array::zeros(self.dtype, &[m, n]);
        cuda.read_into(self.device, 2, &mut c).map_err(failed)?;
        Ok((c, ms))
    }

    fn compare(&self, reference: &Array, got: &Array) -> std::result::Result<(), TrialError> {
        disagreement(2, reference, got, Tolerance::new(Some(self.shape[2])))
    }

    fn time(&mut self, config: &Config, limit: Duration) -> std::result::Result<f64, TrialError> {
        let compiled = self.kernels.get(Some(config)).map_err(|e| failed(format!("{e:#}")))?;
        let grid = compiled.grid(self.shape[0], self.shape[1]);
        let mut prepared =
            self.cuda.prepare(&compiled.bundle, self.name, self.args, self.device, grid).map_err(failed)?;
        timing(self.cuda.median_ms_within(&mut prepared, 2, 10, true, limit).map_err(failed)?)
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn values(arg: &Arg) -> Result<Vec<f32>> {
    match arg {
        Arg::Array(array) => array.to_f32().context("output values"),
        Arg::Scalar(_) => bail!("an output is a scalar"),
    }
}

/// "ok", or what differs. The tile result must match cuBLAS's element by
/// element within two output roundings (plus the f32 sums' reordering),
/// and both must match an f64 reference on sampled elements.
fn check(args: &[Arg], reference: &Arg, dtype: DType, [m, n, k]: [usize; 3]) -> Result<String> {
    let (a, b, got, want) = (values(&args[0])?, values(&args[1])?, values(&args[2])?, values(reference)?);
    let epsilon = if dtype == DType::BF16 { 1.0 / 128.0 } else { 1.0 / 1024.0 };
    // |sum| of k products of [-1, 1) values is about sqrt(k)/3; f32
    // accumulation in another order differs by far less than this floor.
    let floor = 1e-5 * (k as f64).sqrt();
    let mut bad = 0usize;
    let mut worst = 0.0f64;
    for (g, w) in got.iter().zip(&want) {
        let (g, w) = (f64::from(*g), f64::from(*w));
        let error = (g - w).abs();
        // Written so that a NaN error fails too.
        let within = error <= 2.0 * epsilon * w.abs() + floor;
        if !within {
            bad += 1;
        }
        if error.is_finite() {
            worst = worst.max(error);
        }
    }
    if bad > 0 {
        return Ok(format!("FAIL: {bad} of {} differ from cuBLAS (largest {worst:.3e})", m * n));
    }
    // Sampled elements against f64 sums of the inputs as rounded.
    let mut rng = Rng(12345);
    for _ in 0..256 {
        let i = ((rng.next() + 1.0) * 0.5 * m as f32) as usize % m;
        let j = ((rng.next() + 1.0) * 0.5 * n as f32) as usize % n;
        let exact: f64 = (0..k).map(|l| f64::from(a[i * k + l]) * f64::from(b[l * n + j])).sum();
        for (who, value) in [("tile", got[i * n + j]), ("cuBLAS", want[i * n + j])] {
            let error = (f64::from(value) - exact).abs();
            let within = error <= epsilon * exact.abs() + floor;
            if !within {
                return Ok(format!("FAIL: {who} [{i},{j}] = {value}, f64 reference {exact:.6}"));
            }
        }
    }
    Ok("ok".into())
}
