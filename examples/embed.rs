//! Embedding tile in a Rust program: compile a kernel from its text, run it
//! on random data, and check the result against a reference: on the CPU
//! (a JIT-compiled function), then, where there is a GPU, on the GPU (a
//! bundle of PTX and metadata, launched through `tile-runtime`).
//!
//! ```text
//! cargo run -p tile-run --example embed [-- OUT_DIR]
//! ```
//! With `OUT_DIR`, the example also writes its input and a poisoned output
//! as `.npy` files there, ready for `tile-run`.

use anyhow::{Context as _, Result, ensure};
use std::path::PathBuf;
use tile_lowering::{cpu::CpuKernel, gpu};
use tile_runtime::{Arg, Array, DType, Grid, cuda::Cuda, npy};

const ROWS: usize = 1000;
const COLS: usize = 1024;

fn main() -> Result<()> {
    let out_dir = std::env::args().nth(1).map(PathBuf::from);

    // One context per thread that compiles; it registers every dialect the
    // language uses. Kernels outlive it: the JIT keeps its own code.
    let context = tile_dialect::create_context();
    let kernel = CpuKernel::compile_text(&context, include_str!("softmax.mlir"), "softmax.mlir", None)?;
    let params: Vec<String> = kernel.signature().params.iter().map(ToString::to_string).collect();
    println!("compiled @{}({}) for the cpu", kernel.signature().name, params.join(", "));

    // Random rows; the output starts as NaN so that an unwritten element shows.
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let values: Vec<f32> = (0..ROWS * COLS)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 40) as f32 / (1u64 << 24) as f32 * 8.0 - 4.0
        })
        .collect();
    let mut x = Array::from_f32(DType::F32, &[ROWS, COLS], &values).context("input")?;
    let mut y = Array::filled_bytes(DType::F32, &[ROWS, COLS], 0xFF);
    if let Some(dir) = &out_dir {
        npy::write(&dir.join("x.npy"), &x)?;
        npy::write(&dir.join("y.npy"), &y)?;
    }

    // The example handles 4 rows per block.
    let grid = Grid::new([ROWS.div_ceil(4) as u64, 1, 1])?;
    kernel.launch(&mut [Arg::Array(&mut x), Arg::Array(&mut y)], grid)?;

    let worst = check(&values, &y)?;
    println!("softmax of {ROWS}x{COLS} on the cpu matches the reference (largest error {worst:.1e})");

    // The GPU: the same text compiled to a bundle, launched by the runtime.
    match Cuda::new() {
        Err(why) => println!("no GPU run: {why}"),
        Ok(cuda) => {
            let bundle =
                gpu::compile_text(&context, include_str!("softmax.mlir"), "softmax.mlir", None, gpu::DEFAULT_CHIP)?;
            let info = &bundle.kernels[0];
            println!(
                "compiled @{} for {} ({} threads a block, {} bytes of shared memory)",
                info.signature.name, bundle.chip, info.block[0], info.shared_memory
            );
            let mut y = Array::filled_bytes(DType::F32, &[ROWS, COLS], 0xFF);
            cuda.launch(&bundle, "softmax", &mut [Arg::Array(&mut x), Arg::Array(&mut y)], grid, 1)?;
            let worst = check(&values, &y)?;
            println!("softmax of {ROWS}x{COLS} on {} matches the reference (largest error {worst:.1e})", cuda.name());
        }
    }
    Ok(())
}

/// The largest error of `y` against softmax of `values` (in f64), or an
/// error if one is out of bounds.
fn check(values: &[f32], y: &Array) -> Result<f64> {
    let got = y.to_f32().context("f32 output")?;
    let mut worst = 0f64;
    for (row, out) in values.chunks(COLS).zip(got.chunks(COLS)) {
        let max = row.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
        let sum: f64 = row.iter().map(|&v| (v as f64 - max).exp()).sum();
        for (&v, &o) in row.iter().zip(out) {
            let want = (v as f64 - max).exp() / sum;
            let error = (o as f64 - want).abs();
            ensure!(error <= 1e-6 + 1e-5 * want, "softmax differs: got {o}, want {want}");
            worst = worst.max(error);
        }
    }
    Ok(worst)
}
