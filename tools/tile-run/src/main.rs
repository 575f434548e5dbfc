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
use tile_lowering::{compile, cpu::CpuKernel};
use tile_runtime::{Arg, Array, Grid, Param, npy};

/// Compile a tile kernel and run it on .npy data.
#[derive(Parser, Debug)]
#[command(name = "tile-run", version)]
struct Cli {
    /// The tile program (.mlir).
    kernel_file: PathBuf,
    /// Blocks along x, y and z: X[,Y[,Z]].
    #[arg(long, value_parser = parse_grid)]
    grid: Grid,
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
    let target = match cli.target {
        Some(target) => target,
        None => Target::Cpu,
    };
    if target == Target::Cuda {
        bail!("the cuda target is not available in this build yet; use --target cpu");
    }

    let context = tile_dialect::create_context();
    let module = compile::parse_file(&context, &cli.kernel_file)?;
    let name = compile::select_kernel(&module, cli.kernel.as_deref())?;
    let signature = compile::signature(&module, &name)?;

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
    let kernel = CpuKernel::compile(&context, module, Some(&name))?;
    let threads = cli.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));

    let launch = |arrays: &mut Vec<Option<Array>>| -> Result<f64> {
        let mut args: Vec<Arg> = arrays
            .iter_mut()
            .zip(&scalars)
            .map(|(array, scalar)| match (array, scalar) {
                (Some(array), _) => Arg::Array(array),
                (None, Some(scalar)) => Arg::Scalar(*scalar),
                (None, None) => unreachable!("every parameter has an array or a scalar"),
            })
            .collect();
        let start = Instant::now();
        kernel.launch_on(&mut args, cli.grid, threads)?;
        Ok(start.elapsed().as_secs_f64())
    };
    let first = launch(&mut arrays)?;
    if let Some(n) = cli.bench {
        let mut times = (0..n.max(1)).map(|_| launch(&mut arrays)).collect::<Result<Vec<_>>>()?;
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        println!("@{name} on cpu, grid {:?}: median of {} launches {:.3} ms", cli.grid.0, times.len(), median * 1e3);
    } else {
        eprintln!("tile-run: @{name} on cpu, grid {:?}: {:.3} ms", cli.grid.0, first * 1e3);
    }

    for (index, path) in &cli.saves {
        let array = arrays[*index].as_ref().context("saved parameter is a memref")?;
        npy::write(path, array)?;
    }
    Ok(())
}
