//! Every kernel in `examples/` on the CPU target, against the plain-Rust
//! references of `tile_tests::reference`, on random data whose sizes are not
//! multiples of the tiles, with poisoned outputs.

use crate::support::{context, root};
use tile_lowering::{compile, cpu::CpuKernel};
use tile_runtime::{Arg, Array, DType, Grid, Scalar};
use tile_tests::reference::{self as r, Rng, assert_close, poisoned, values};

/// Compiles `examples/<name>.mlir` for the CPU.
fn kernel(name: &str) -> CpuKernel {
    let context = context();
    let path = root().join("examples").join(format!("{name}.mlir"));
    let module = compile::parse_file(&context, &path).unwrap_or_else(|e| panic!("{name}: {e}"));
    CpuKernel::compile(&context, module, None).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn grid(x: u64, y: u64, z: u64) -> Grid {
    Grid::new([x, y, z]).expect("valid grid")
}

/// Runs a matmul example on `m x n x k` and checks it against `sum |a||b|`
/// scaled by `relative` (the accumulation's rounding).
fn check_matmul(name: &str, input: DType, output: DType, (m, n, k): (usize, usize, usize), relative: f64) {
    let kernel = kernel(name);
    let mut rng = Rng::new((m * 31 + n * 7 + k) as u64);
    let (mut a, mut b) = if matches!(input, DType::F8E4M3FN | DType::F8E5M2) {
        (r::random_f8(&mut rng, input, &[m, k]), r::random_f8(&mut rng, input, &[k, n]))
    } else {
        (r::random_float(&mut rng, input, &[m, k], 1.0), r::random_float(&mut rng, input, &[k, n], 1.0))
    };
    let mut c = poisoned(output, &[m, n]);
    let (want, magnitude) = r::matmul(&values(&a), &values(&b), m, n, k);
    let tiles = (m.div_ceil(128) * n.div_ceil(128)) as u64;
    kernel.launch(&mut [Arg::Array(&mut a), Arg::Array(&mut b), Arg::Array(&mut c)], grid(tiles, 1, 1)).unwrap();
    let out_ulp = match output {
        DType::F16 => 1.0 / 1024.0,
        DType::BF16 => 1.0 / 128.0,
        _ => 0.0,
    };
    assert_close(&format!("{name} {m}x{n}x{k}"), &values(&c), &want, |i| {
        relative * magnitude[i] + out_ulp * want[i].abs() + 1e-6
    });
}

#[test]
fn matmul_f16_f32_ragged() {
    check_matmul("matmul", DType::F16, DType::F32, (300, 200, 100), 1e-5);
    check_matmul("matmul", DType::F16, DType::F32, (129, 257, 200), 1e-5);
}

#[test]
fn matmul_f16_f16_ragged() {
    // An f16 accumulator rounds every partial sum.
    check_matmul("matmul_f16_f16", DType::F16, DType::F16, (300, 200, 100), 5e-3);
}

#[test]
fn matmul_bf16_f32_ragged() {
    check_matmul("matmul_bf16", DType::BF16, DType::F32, (300, 200, 100), 1e-5);
}

#[test]
fn matmul_bf16_bf16_ragged() {
    // An f32 accumulator, rounded to bf16 once.
    check_matmul("matmul_bf16_bf16", DType::BF16, DType::BF16, (300, 200, 100), 1e-5);
}

#[test]
fn matmul_f32_ragged() {
    check_matmul("matmul_f32", DType::F32, DType::F32, (130, 140, 150), 1e-5);
}

#[test]
fn matmul_f8_ragged() {
    check_matmul("matmul_f8", DType::F8E4M3FN, DType::F32, (200, 130, 70), 1e-5);
}

#[test]
fn softmax_ragged_rows() {
    let kernel = kernel("softmax");
    let rows = 1001;
    let mut rng = Rng::new(1);
    let mut x = r::random_float(&mut rng, DType::F32, &[rows, 1024], 4.0);
    let mut y = poisoned(DType::F32, &[rows, 1024]);
    let want = r::softmax(&values(&x), 1024);
    kernel.launch(&mut [Arg::Array(&mut x), Arg::Array(&mut y)], grid(rows.div_ceil(4) as u64, 1, 1)).unwrap();
    assert_close("softmax", &values(&y), &want, |i| 1e-6 + 1e-5 * want[i].abs());
}

#[test]
fn layernorm_ragged() {
    let kernel = kernel("layernorm");
    let (rows, n) = (37, 1000);
    let mut rng = Rng::new(2);
    let mut x = r::random_float(&mut rng, DType::F32, &[rows, n], 3.0);
    let mut w = r::random_float(&mut rng, DType::F32, &[n], 1.0);
    let mut b = r::random_float(&mut rng, DType::F32, &[n], 1.0);
    let mut y = poisoned(DType::F32, &[rows, n]);
    let eps = 1e-5f32;
    let want = r::layernorm(&values(&x), &values(&w), &values(&b), n, eps as f64);
    let mut args = [
        Arg::Array(&mut x),
        Arg::Array(&mut w),
        Arg::Array(&mut b),
        Arg::Array(&mut y),
        Arg::Scalar(Scalar::Index(n as i64)),
        Arg::Scalar(Scalar::F32(eps)),
    ];
    kernel.launch(&mut args, grid(rows.div_ceil(4) as u64, 1, 1)).unwrap();
    assert_close("layernorm", &values(&y), &want, |i| 1e-4 + 1e-4 * want[i].abs());
}

#[test]
fn fused_elementwise_grid_stride() {
    let kernel = kernel("fused_elementwise");
    let len = 5000;
    let mut rng = Rng::new(3);
    let mut x = r::random_float(&mut rng, DType::F32, &[len], 2.0);
    let mut y = r::random_float(&mut rng, DType::F16, &[len], 2.0);
    let mut z = poisoned(DType::F16, &[len]);
    let alpha = 0.7f32;
    let want = r::fused_elementwise(&values(&x), &values(&y), alpha as f64);
    // 2 blocks for 5 tiles: the grid-stride loop covers the rest.
    let mut args = [Arg::Array(&mut x), Arg::Array(&mut y), Arg::Array(&mut z), Arg::Scalar(Scalar::F32(alpha))];
    kernel.launch(&mut args, grid(2, 1, 1)).unwrap();
    assert_close("fused_elementwise", &values(&z), &want, |i| 1e-6 + want[i].abs() / 1024.0);
}

#[test]
fn column_sum_ragged() {
    let kernel = kernel("column_sum");
    let (rows, cols) = (333, 300);
    let mut rng = Rng::new(4);
    let mut x = r::random_float(&mut rng, DType::F32, &[rows, cols], 1.0);
    let mut s = poisoned(DType::F32, &[cols]);
    let want = r::column_sum(&values(&x), cols);
    kernel.launch(&mut [Arg::Array(&mut x), Arg::Array(&mut s)], grid(cols.div_ceil(128) as u64, 1, 1)).unwrap();
    assert_close("column_sum", &values(&s), &want, |_| 1e-4);
}

#[test]
fn transpose3d_on_a_3d_grid() {
    let kernel = kernel("transpose3d");
    let (batch, rows, cols) = (5, 37, 29);
    let mut rng = Rng::new(5);
    let data: Vec<i32> = (0..batch * rows * cols).map(|_| rng.int(-1000, 1000)).collect();
    let mut x = Array::from_i32(&[batch, rows, cols], &data).unwrap();
    let mut y = poisoned(DType::I32, &[batch, cols, rows]);
    let mut m = poisoned(DType::I32, &[batch, rows]);
    let (want_y, want_m) = r::transpose3d(&data, batch, rows, cols);
    let g = grid(rows.div_ceil(16) as u64, cols.div_ceil(32) as u64, batch.div_ceil(2) as u64);
    kernel.launch(&mut [Arg::Array(&mut x), Arg::Array(&mut y), Arg::Array(&mut m)], g).unwrap();
    assert_eq!(y.to_i32().unwrap(), want_y, "transpose3d: Y");
    assert_eq!(m.to_i32().unwrap(), want_m, "transpose3d: M");
}

#[test]
fn thread_count_does_not_change_results() {
    let kernel = kernel("softmax");
    let rows = 97;
    let mut rng = Rng::new(6);
    let x = r::random_float(&mut rng, DType::F32, &[rows, 1024], 2.0);
    let run = |threads: usize| {
        let (mut x, mut y) = (x.clone(), poisoned(DType::F32, &[rows, 1024]));
        kernel.launch_on(&mut [Arg::Array(&mut x), Arg::Array(&mut y)], grid(25, 1, 1), threads).unwrap();
        y.bytes().to_vec()
    };
    assert_eq!(run(1), run(3));
}

#[test]
fn out_of_range_tiles_read_padding_and_write_nothing() {
    // Blocks past the data (grid larger than the tile count) must not fault
    // or write; the rows that exist still get their softmax.
    let kernel = kernel("softmax");
    let rows = 6;
    let mut rng = Rng::new(7);
    let mut x = r::random_float(&mut rng, DType::F32, &[rows, 1024], 2.0);
    let mut y = poisoned(DType::F32, &[rows, 1024]);
    let want = r::softmax(&values(&x), 1024);
    kernel.launch(&mut [Arg::Array(&mut x), Arg::Array(&mut y)], grid(64, 1, 1)).unwrap();
    assert_close("softmax", &values(&y), &want, |i| 1e-6 + 1e-5 * want[i].abs());
}

#[test]
fn arguments_are_checked_before_launch() {
    use tile_runtime::tile_abi::Error;
    let kernel = kernel("matmul");
    let mut a = poisoned(DType::F16, &[4, 4]);
    let mut b = poisoned(DType::F16, &[4, 4]);
    let mut wrong_type = poisoned(DType::F16, &[4, 4]);
    let mut rank1 = poisoned(DType::F32, &[4]);
    let g = grid(1, 1, 1);
    let err = kernel.launch(&mut [Arg::Array(&mut a), Arg::Array(&mut b)], g).unwrap_err();
    assert!(matches!(err, Error::ArgumentCount { expected: 3, got: 2, .. }), "{err}");
    let err = kernel.launch(&mut [Arg::Array(&mut a), Arg::Array(&mut b), Arg::Array(&mut wrong_type)], g).unwrap_err();
    assert!(matches!(err, Error::DType { index: 2, .. }), "{err}");
    let err = kernel.launch(&mut [Arg::Array(&mut a), Arg::Array(&mut b), Arg::Array(&mut rank1)], g).unwrap_err();
    assert!(matches!(err, Error::Rank { index: 2, .. }), "{err}");
    let err =
        kernel.launch(&mut [Arg::Array(&mut a), Arg::Array(&mut b), Arg::Scalar(Scalar::F32(1.0))], g).unwrap_err();
    assert!(matches!(err, Error::ArgumentKind { index: 2, .. }), "{err}");

    let static_kernel = self::kernel("softmax");
    let mut x = poisoned(DType::F32, &[4, 1000]);
    let mut y = poisoned(DType::F32, &[4, 1024]);
    let err = static_kernel.launch(&mut [Arg::Array(&mut x), Arg::Array(&mut y)], g).unwrap_err();
    assert!(matches!(err, Error::Shape { index: 0, dim: 1, expected: 1024, got: 1000 }), "{err}");
    assert!(Grid::new([0, 1, 1]).is_err());
}
