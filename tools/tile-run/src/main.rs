//! `tile-run`: compile a tile kernel, run it on `.npy` data, save and time
//! the results, as the language contract describes:
//!
//! ```text
//! tile-run KERNEL.mlir --grid X[,Y[,Z]] [--kernel NAME] [--target cpu|cuda]
//!          [--save I=PATH.npy]... [--bench N] ARG...
//! ```
//!
//! Every error (bad flags, an invalid program, a wrong `.npy`, a failed
//! launch) is printed as one message and exits with code 1.

use anyhow::{Context as _, Result, bail};
use clap::Parser;
use std::{path::PathBuf, process::ExitCode, time::Instant};
use tile_lowering::{compile, cpu::CpuKernel, gpu};
use tile_runtime::{Arg, Array, Grid, Param, cuda::Cuda, npy};

/// Compile a tile kernel and run it on .npy data.
#[derive(Parser, Debug)]
#[command(name = "tile-run", version)]
struct Cli {
    /// The tile program (.mlir).
    kernel_file: PathBuf,
    /// Blocks along x, y and z: X[,Y[,Z]].
    #[arg(long, value_parser = parse_grid, required_unless_present_any = ["emit_ptx", "emit_bundle"])]
    grid: Option<Grid>,
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

fn parse_grid(text: &str) -> Result<Grid, String> {
    Grid::parse(text).ok_or_else(|| format!("'{text}' is not a grid: X[,Y[,Z]] with each dim at least 1"))
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
    let module = compile::parse_file(&context, &cli.kernel_file)?;
    let name = compile::select_kernel(&module, cli.kernel.as_deref())?;
    let signature = compile::signature(&module, &name)?;

    if cli.emit_ptx.is_some() || cli.emit_bundle.is_some() {
        let bundle = gpu::compile(&context, module, Some(&name), &cli.chip)?;
        if let Some(path) = &cli.emit_ptx {
            std::fs::write(path, &bundle.ptx).with_context(|| format!("writing {}", path.display()))?;
        }
        if let Some(path) = &cli.emit_bundle {
            std::fs::write(path, bundle.to_json()).with_context(|| format!("writing {}", path.display()))?;
        }
        return Ok(());
    }
    let grid = cli.grid.context("--grid is required to run a kernel")?;

    // The GPU where one is present, unless the user chose.
    let cuda = match cli.target {
        Some(Target::Cpu) => None,
        Some(Target::Cuda) => Some(Cuda::new().context("--target cuda")?),
        None => Cuda::new().ok(),
    }
    .map(|cuda| cuda.use_variants(!cli.no_variants));

    if cli.args.len() != signature.params.len() {
        let params: Vec<String> = signature.params.iter().map(|p| p.to_string()).collect();
        bail!(
            "kernel @{name} takes {} arguments ({}), got {}",
            params.len(),
            params.join(", "),
            cli.args.len()
        );
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
                let value = scalar_type
                    .parse(text)
                    .with_context(|| format!("argument #{index}: '{text}' is not a {} number", scalar_type.mlir_name()))?;
                arrays.push(None);
                scalars.push(Some(value));
            }
        }
    }
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
    let repeat = cli.bench.map_or(1, |n| n.max(1) as usize);

    let (target, times_ms) = if let Some(cuda) = &cuda {
        let bundle = gpu::compile(&context, module, Some(&name), &cli.chip)?;
        let launched = cuda.launch_report(&bundle, &name, &mut make_args(&mut arrays, &scalars), grid, repeat)?;
        let entry = if launched.entry == name { String::new() } else { format!(" as @{}", launched.entry) };
        let passed_over: String = launched.passed_over.iter().map(|why| format!("; passed over {why}")).collect();
        (
            format!("cuda ({}){entry}{passed_over}", cuda.name()),
            launched.times.into_iter().map(f64::from).collect::<Vec<_>>(),
        )
    } else {
        let kernel = CpuKernel::compile(&context, module, Some(&name))?;
        let threads = cli.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        let mut times = Vec::new();
        for _ in 0..repeat {
            let start = Instant::now();
            kernel.launch_on(&mut make_args(&mut arrays, &scalars), grid, threads)?;
            times.push(start.elapsed().as_secs_f64() * 1e3);
        }
        ("cpu".to_string(), times)
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
