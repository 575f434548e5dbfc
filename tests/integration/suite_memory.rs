//! The memory-bound and attention programs of the benchmark suite
//! (`bench/norms`, `bench/attention`, `bench/elementwise`; the table in
//! `bench/README.md`), instantiated the way the runner instantiates them:
//! on the CPU target at small, ragged sizes against the plain-Rust `f64`
//! references of `tile_tests::suite_memory` and `tile_tests::reference`,
//! on random data with poisoned outputs; and every instantiation the
//! runner uses through the GPU pipeline to PTX that ptxas accepts, but for
//! the ones listed in [`GPU_REJECTS`].

use crate::support::{context, root};
use std::process::Command;
use tile_lowering::{cpu::CpuKernel, gpu};
use tile_runtime::{Arg, Array, DType, Grid, Scalar};
use tile_tests::reference::{self as r, Rng, assert_close, poisoned, values};
use tile_tests::suite_memory as s;

/// The row lengths the runner instantiates the norms with.
const ROWS: [usize; 4] = [1024, 4096, 8192, 32768];

/// The text of `bench/<file>` with its compile-time constants replaced as
/// `bench/README.md` says: the file's `// instantiate: 1024 -> ROW, ...`
/// line names each replaceable literal, and `values` give some of the
/// names a value (`("ROW", "4096")`); every occurrence of such a literal
/// becomes the value. A name the header does not list is a test error, so
/// the tests and the files cannot drift apart silently.
fn instantiate(file: &str, values: &[(&str, String)]) -> String {
    let path = root().join("bench").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let header: Vec<(String, String)> = text
        .lines()
        .find_map(|line| line.strip_prefix("// instantiate:"))
        .map(|list| {
            list.split(',')
                .map(|pair| {
                    let (literal, name) = pair.split_once("->").unwrap_or_else(|| panic!("{file}: bad pair {pair:?}"));
                    (literal.trim().to_string(), name.trim().to_string())
                })
                .collect()
        })
        .unwrap_or_default();
    let mut out = text.clone();
    for (name, value) in values {
        let (literal, _) = header
            .iter()
            .find(|(_, n)| n == name)
            .unwrap_or_else(|| panic!("{file}: its instantiate line has no {name} ({header:?})"));
        // Beyond the header itself, the literal must be used.
        assert!(text.matches(literal.as_str()).count() > 1, "{file}: {literal} ({name}) is never used");
        out = out.replace(literal.as_str(), value);
    }
    out
}

/// An instantiation of a suite program: its file and the values of its
/// named constants.
struct Instance {
    file: &'static str,
    values: Vec<(&'static str, String)>,
}

impl Instance {
    fn new(file: &'static str, values: &[(&'static str, &str)]) -> Instance {
        Instance { file, values: values.iter().map(|&(n, v)| (n, v.to_string())).collect() }
    }

    fn label(&self) -> String {
        let values: Vec<String> = self.values.iter().map(|(n, v)| format!("{n}={v}")).collect();
        format!("{} {}", self.file, values.join(" ")).trim_end().to_string()
    }

    fn text(&self) -> String {
        instantiate(self.file, &self.values)
    }
}

/// The norm file computing in f32 on IO type `dtype` (`name` is `softmax`,
/// `layernorm` or `rmsnorm`), instantiated for rows of `row`.
fn norm_instance(name: &str, dtype: DType, row: usize) -> Instance {
    let file: &'static str = match (name, dtype) {
        ("softmax", DType::F32) => "norms/softmax_f32.mlir",
        ("softmax", _) => "norms/softmax.mlir",
        ("layernorm", DType::F32) => "norms/layernorm_f32.mlir",
        ("layernorm", _) => "norms/layernorm.mlir",
        ("rmsnorm", DType::F32) => "norms/rmsnorm_f32.mlir",
        ("rmsnorm", _) => "norms/rmsnorm.mlir",
        _ => panic!("no norm {name}"),
    };
    let row = row.to_string();
    match dtype {
        DType::F32 => Instance::new(file, &[("ROW", &row)]),
        DType::F16 => Instance::new(file, &[("ROW", &row), ("DTYPE", "f16")]),
        DType::BF16 => Instance::new(file, &[("ROW", &row), ("DTYPE", "bf16")]),
        _ => panic!("no norm on {dtype:?}"),
    }
}

/// The attention file (causal or not) for head dim `d`.
fn attention_instance(causal: bool, d: usize) -> Instance {
    let file = match (causal, d) {
        (false, 64) => "attention/flash_d64.mlir",
        (false, 128) => "attention/flash_d128.mlir",
        (true, 64) => "attention/flash_causal_d64.mlir",
        (true, 128) => "attention/flash_causal_d128.mlir",
        _ => panic!("no attention program for head dim {d}"),
    };
    Instance::new(file, &[])
}

/// Query rows of an attention block (the programs' Q tile).
const QUERY_ROWS: usize = 128;

/// Every instantiation `scripts/bench-suite.py` runs (bench/README.md,
/// "Shapes the runner uses").
fn suite_instances() -> Vec<Instance> {
    let mut all = Vec::new();
    for name in ["softmax", "layernorm", "rmsnorm"] {
        for dtype in [DType::F16, DType::BF16, DType::F32] {
            for row in ROWS {
                all.push(norm_instance(name, dtype, row));
            }
        }
    }
    for causal in [false, true] {
        for d in [64, 128] {
            all.push(attention_instance(causal, d));
        }
    }
    for file in ["elementwise/add.mlir", "elementwise/axpy_gelu.mlir", "elementwise/column_sum.mlir"] {
        all.push(Instance::new(file, &[]));
    }
    all
}

fn cpu_kernel(instance: &Instance) -> CpuKernel {
    let context = context();
    let label = instance.label();
    CpuKernel::compile_text(&context, &instance.text(), &label, None).unwrap_or_else(|e| panic!("{label}: {e}"))
}

fn grid(x: usize, y: usize) -> Grid {
    Grid::new([x as u64, y as u64, 1]).expect("valid grid")
}

/// Rows per CPU run: a few, more for the short rows. A block takes one
/// whole row (rows are the tile's width), so nothing here is ragged; what
/// the sizes check is the row reductions at every length the suite uses.
fn rows_for(row: usize) -> usize {
    if row <= 4096 { 7 } else { 3 }
}

/// The tolerance of a norm's output `want`: the rounding of the output to
/// `dtype` (half a unit, and a unit allowed for f32's own error near a
/// rounding boundary) and f32's accumulation over the row, relative (it
/// grows with the row: about 1e-5 seen at 32768); plus `floor`, the
/// absolute error where the result comes from cancellation, and f16's
/// subnormal spacing (softmax's smallest outputs are subnormal in f16).
fn norm_tolerance(dtype: DType, want: f64, floor: f64) -> f64 {
    let (unit, subnormal) = match dtype {
        DType::F16 => (1.0 / 1024.0, 2f64.powi(-24)),
        DType::BF16 => (1.0 / 128.0, 0.0),
        _ => (0.0, 0.0),
    };
    want.abs() * (unit + 3e-5) + floor + subnormal
}

#[test]
fn softmax_on_the_cpu() {
    for dtype in [DType::F16, DType::BF16, DType::F32] {
        for row in ROWS {
            let instance = norm_instance("softmax", dtype, row);
            let kernel = cpu_kernel(&instance);
            let rows = rows_for(row);
            let mut rng = Rng::new(row as u64 + 100);
            // A scale of 4: exponentials over several orders of magnitude.
            let mut x = r::random_float(&mut rng, dtype, &[rows, row], 4.0);
            let mut y = poisoned(dtype, &[rows, row]);
            let want = r::softmax(&values(&x), row);
            kernel.launch(&mut [Arg::Array(&mut x), Arg::Array(&mut y)], grid(rows, 1)).unwrap();
            assert_close(&instance.label(), &values(&y), &want, |i| norm_tolerance(dtype, want[i], 1e-12));
        }
    }
}

#[test]
fn layernorm_on_the_cpu() {
    for dtype in [DType::F16, DType::BF16, DType::F32] {
        for row in ROWS {
            let instance = norm_instance("layernorm", dtype, row);
            let kernel = cpu_kernel(&instance);
            let rows = rows_for(row);
            let mut rng = Rng::new(row as u64 + 200);
            let mut x = r::random_float(&mut rng, dtype, &[rows, row], 3.0);
            let mut w = r::random_float(&mut rng, dtype, &[row], 1.0);
            let mut b = r::random_float(&mut rng, dtype, &[row], 1.0);
            let mut y = poisoned(dtype, &[rows, row]);
            // Larger than usual, so that mishandling eps shows even in f16.
            let eps = 1e-2f32;
            let want = r::layernorm(&values(&x), &values(&w), &values(&b), row, eps as f64);
            let mut args = [
                Arg::Array(&mut x),
                Arg::Array(&mut w),
                Arg::Array(&mut b),
                Arg::Array(&mut y),
                Arg::Scalar(Scalar::F32(eps)),
            ];
            kernel.launch(&mut args, grid(rows, 1)).unwrap();
            // x^ w + b cancels: f32's relative error (2e-5 seen at rows of
            // 32768) on terms below 2.8 (|x^| < 1.8, |w|, |b| < 1).
            assert_close(&instance.label(), &values(&y), &want, |i| norm_tolerance(dtype, want[i], 6e-5));
        }
    }
}

#[test]
fn rmsnorm_on_the_cpu() {
    for dtype in [DType::F16, DType::BF16, DType::F32] {
        for row in ROWS {
            let instance = norm_instance("rmsnorm", dtype, row);
            let kernel = cpu_kernel(&instance);
            let rows = rows_for(row);
            let mut rng = Rng::new(row as u64 + 300);
            let mut x = r::random_float(&mut rng, dtype, &[rows, row], 3.0);
            let mut w = r::random_float(&mut rng, dtype, &[row], 1.0);
            let mut y = poisoned(dtype, &[rows, row]);
            // Larger than usual, so that mishandling eps shows even in f16.
            let eps = 1e-2f32;
            let want = s::rmsnorm(&values(&x), &values(&w), row, eps as f64);
            let mut args = [Arg::Array(&mut x), Arg::Array(&mut w), Arg::Array(&mut y), Arg::Scalar(Scalar::F32(eps))];
            kernel.launch(&mut args, grid(rows, 1)).unwrap();
            assert_close(&instance.label(), &values(&y), &want, |i| norm_tolerance(dtype, want[i], 1e-6))
        }
    }
}

/// Both attention programs at head dims 64 and 128 on 3 heads of 200
/// positions: the last query and key tiles are ragged (keys past S must
/// get no weight), and the causal program's diagonal tiles are partly
/// masked while its loop stops at the diagonal.
///
/// Each program runs as written and after `tile-pipeline-mma` (which the
/// GPU pipeline applies: its second mma one iteration late, the last one
/// after the loop), so that the rewrite's values are checked here too.
#[test]
fn flash_attention_on_the_cpu() {
    let (heads, seq) = (3, 200);
    for (causal, d, pipelined) in
        [false, true].into_iter().flat_map(|c| [64, 128].into_iter().flat_map(move |d| [(c, d, false), (c, d, true)]))
    {
        {
            let instance = attention_instance(causal, d);
            let kernel = match pipelined {
                false => cpu_kernel(&instance),
                true => pipelined_kernel(&instance),
            };
            let mut rng = Rng::new(400 + d as u64 + causal as u64);
            // Q and K in [-2, 2): scores of a few units after the scale, so
            // the softmax is far from uniform and a wrongly masked key shows.
            let mut q = r::random_float(&mut rng, DType::F16, &[heads, seq, d], 2.0);
            let mut k = r::random_float(&mut rng, DType::F16, &[heads, seq, d], 2.0);
            let mut v = r::random_float(&mut rng, DType::F16, &[heads, seq, d], 1.0);
            let mut o = poisoned(DType::F16, &[heads, seq, d]);
            let scale = 1.0 / (d as f64).sqrt();
            let want = s::multi_head_attention(&values(&q), &values(&k), &values(&v), (heads, seq, d), scale, causal);
            let mut args = [
                Arg::Array(&mut q),
                Arg::Array(&mut k),
                Arg::Array(&mut v),
                Arg::Array(&mut o),
                Arg::Scalar(Scalar::Index(seq as i64)),
            ];
            kernel.launch(&mut args, grid(seq.div_ceil(QUERY_ROWS), heads)).unwrap();
            // O is rounded to f16 (half a unit, |want| / 2048; a unit is
            // allowed), and the probabilities are rounded to f16 before they
            // weight V (|V| < 1): at most 2^-11 if every rounding went the
            // same way, but they are independent and average out (1.2e-4
            // at worst here). 3e-4 still catches a single padding key that
            // gets weight (5e-4 and more).
            let label = format!("{}{}", instance.label(), if pipelined { " (tile-pipeline-mma)" } else { "" });
            assert_close(&label, &values(&o), &want, |i| 3e-4 + want[i].abs() / 1024.0);
        }
    }
}

/// The CPU kernel of `instance` after `tile-pipeline-mma`, which must have
/// rewritten its loop (a second mma after it).
fn pipelined_kernel(instance: &Instance) -> CpuKernel {
    let context = context();
    let label = instance.label();
    let mut module = tile_lowering::compile::parse(&context, &instance.text(), &label).expect("parse");
    tile_lowering::compile::run_pipeline(&context, &mut module, "builtin.module(func.func(tile-pipeline-mma))")
        .unwrap_or_else(|e| panic!("{label}: {e}"));
    let text = module.as_operation().to_string();
    let (body, after) = text.split_once("scf.yield").expect("a loop");
    assert!(body.contains("tile.mma") && after.contains("tile.mma"), "{label}: the loop was not pipelined:\n{text}");
    CpuKernel::compile_text(&context, &text, &label, None).unwrap_or_else(|e| panic!("{label}: {e}"))
}

/// Two f32 vectors of 5000 elements, not a multiple of the 1024-element
/// tile, for the elementwise programs.
fn vectors(seed: u64) -> (Array, Array, usize) {
    let len = 5000;
    let mut rng = Rng::new(seed);
    (r::random_float(&mut rng, DType::F32, &[len], 2.0), r::random_float(&mut rng, DType::F32, &[len], 2.0), len)
}

#[test]
fn add_on_the_cpu() {
    let (mut x, mut y, len) = vectors(500);
    let want: Vec<f64> = values(&x).iter().zip(&values(&y)).map(|(x, y)| x + y).collect();
    let add = Instance::new("elementwise/add.mlir", &[]);
    let mut z = poisoned(DType::F32, &[len]);
    cpu_kernel(&add)
        .launch(&mut [Arg::Array(&mut x), Arg::Array(&mut y), Arg::Array(&mut z)], grid(len.div_ceil(1024), 1))
        .unwrap();
    // One f32 rounding of the exact sum.
    assert_close(&add.label(), &values(&z), &want, |i| want[i].abs() * 2f64.powi(-24));
}

#[test]
fn axpy_gelu_on_the_cpu() {
    let (mut x, mut y, len) = vectors(501);
    let a = 0.7f32;
    let want = s::axpy_gelu(&values(&x), &values(&y), a as f64);
    let gelu = Instance::new("elementwise/axpy_gelu.mlir", &[]);
    let context = context();
    let kernel = CpuKernel::compile_text(&context, &gelu.text(), &gelu.label(), None)
        .unwrap_or_else(|e| panic!("{}: {e}", gelu.label()));
    let mut z = poisoned(DType::F32, &[len]);
    let mut args = [Arg::Array(&mut x), Arg::Array(&mut y), Arg::Array(&mut z), Arg::Scalar(Scalar::F32(a))];
    kernel.launch(&mut args, grid(len.div_ceil(1024), 1)).unwrap();
    // f32 arithmetic and f32 erf, a few units of f32 each.
    assert_close(&gelu.label(), &values(&z), &want, |i| 1e-6 + 1e-5 * want[i].abs());
}

#[test]
fn column_sum_on_the_cpu() {
    let column_sum = Instance::new("elementwise/column_sum.mlir", &[]);
    let (rows, cols) = (333, 300); // ragged in both tile dims
    let mut rng = Rng::new(502);
    let mut x = r::random_float(&mut rng, DType::F32, &[rows, cols], 1.0);
    let mut sums = poisoned(DType::F32, &[cols]);
    let want = r::column_sum(&values(&x), cols);
    cpu_kernel(&column_sum)
        .launch(&mut [Arg::Array(&mut x), Arg::Array(&mut sums)], grid(cols.div_ceil(128), 1))
        .unwrap();
    // 333 f32 additions of values below 1.
    assert_close(&column_sum.label(), &values(&sums), &want, |_| 1e-4);
}

/// The reference's erf against tabulated values (the standard library has
/// none to compare with), either side of its switch between methods.
#[test]
fn reference_erf_matches_tables() {
    for (x, want) in [
        (0.0, 0.0),
        (0.5, 0.520_499_877_813_046_5),
        (1.0, 0.842_700_792_949_714_9),
        (2.0, 0.995_322_265_018_952_7),
        (2.9999, 0.999_977_895_573_517_8),
        (3.0, 0.999_977_909_503_001_4),
        (4.0, 0.999_999_984_582_742_1),
        (-1.0, -0.842_700_792_949_714_9),
        (-3.5, -0.999_999_256_901_627_6),
    ] {
        let got = tile_tests::suite::erf(x);
        assert!((got - want).abs() < 1e-12, "erf({x}) = {got}, want {want}");
    }
}

/// Instantiations that the GPU pipeline rejects today, each with a text
/// its error contains (none since the attention kernels' tiles went to
/// registers and their mmas to wgmma, session 13).
const GPU_REJECTS: &[(&str, &str)] = &[];

/// Every instantiation the runner uses compiles to PTX for sm_90a that
/// ptxas accepts, except those of [`GPU_REJECTS`], which must still fail
/// as listed: one that starts compiling fails the test, so the list stays
/// true.
#[test]
fn suite_compiles_to_ptx_that_ptxas_accepts() {
    let Some(toolkit) = gpu::find_toolkit() else {
        println!("skipping: no CUDA toolkit with nvvm/libdevice (set CUDA_HOME or install nvidia-cuda-nvcc-cu12)");
        return;
    };
    let ptxas = toolkit.join("bin/ptxas");
    let mut problems = Vec::new();
    let instances = suite_instances();
    for (label, _) in GPU_REJECTS {
        assert!(instances.iter().any(|i| i.label() == *label), "GPU_REJECTS lists {label}, which the suite never uses");
    }
    for instance in instances {
        let label = instance.label();
        let known = GPU_REJECTS.iter().find(|(l, _)| *l == label).map(|&(_, why)| why);
        let context = context();
        let result = gpu::compile_text(&context, &instance.text(), &label, None, gpu::DEFAULT_CHIP);
        match (result, known) {
            (Ok(_), Some(_)) => problems.push(format!("{label}: compiles now; take it off GPU_REJECTS")),
            (Err(e), Some(why)) if !e.to_string().contains(why) => {
                problems.push(format!("{label}: rejected, but not for \"{why}\": {e}"))
            }
            (Err(_), Some(_)) => {}
            (Err(e), None) => problems.push(format!("{label}: {e}")),
            (Ok(bundle), None) if !ptxas.exists() => {
                assert!(bundle.ptx.contains(".target sm_90a"), "{label}: PTX for sm_90a");
                println!("skipping ptxas for {label}: {} not found", ptxas.display());
            }
            (Ok(bundle), None) => {
                // Every tile.mma of the suite runs on the tensor cores.
                if instance.text().contains("tile.mma") && !bundle.ptx.contains("wgmma.mma_async") {
                    problems.push(format!("{label}: a tile.mma without wgmma.mma_async in the PTX"));
                }
                if let Err(log) = run_ptxas(&ptxas, &bundle.ptx, &label) {
                    problems.push(format!("{label}: ptxas: {log}"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Runs ptxas for sm_90a on `ptx`; its messages when it refuses.
fn run_ptxas(ptxas: &std::path::Path, ptx: &str, label: &str) -> Result<(), String> {
    let name: String = label.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    let path = std::env::temp_dir().join(format!("tile-suite-memory-{}-{name}.ptx", std::process::id()));
    std::fs::write(&path, ptx).unwrap();
    let out = Command::new(ptxas).args(["-arch=sm_90a", "-o", "/dev/null"]).arg(&path).output().unwrap();
    let _ = std::fs::remove_file(&path);
    if out.status.success() { Ok(()) } else { Err(String::from_utf8_lossy(&out.stderr).into_owned()) }
}
