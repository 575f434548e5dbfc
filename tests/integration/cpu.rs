//! Every kernel in `examples/` on the CPU target, against the plain-Rust
//! references of `tile_tests::reference`, on random data whose sizes are not
//! multiples of the tiles, with poisoned outputs.

use crate::support::{context, root};
use tile_lowering::{compile, cpu::CpuKernel};
use tile_runtime::{Arg, Array, DType, Grid, Scalar};
use tile_tests::reference::{self as r, Rng, assert_close, poisoned, values};

/// Compiles `examples/<name>.mlir` for the CPU.
fn kernel(name: &str) -> CpuKernel {
    compile_file(&root().join("examples").join(format!("{name}.mlir")), None)
}

/// Compiles kernel `name` (or the only one) of `tests/kernels/<file>.mlir`.
fn test_kernel(file: &str, name: Option<&str>) -> CpuKernel {
    compile_file(&root().join("tests/kernels").join(format!("{file}.mlir")), name)
}

fn compile_file(path: &std::path::Path, name: Option<&str>) -> CpuKernel {
    let context = context();
    let what = format!("{} {name:?}", path.display());
    let module = compile::parse_file(&context, path).unwrap_or_else(|e| panic!("{what}: {e}"));
    CpuKernel::compile(&context, module, name).unwrap_or_else(|e| panic!("{what}: {e}"))
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
}

/// Every loop shape of `tests/kernels/loops.mlir` (a commuted add, a
/// subtraction, a fresh tile, swapped tiles, one value yielded twice, an
/// `scf.if` and `arith.select` choosing the next value) computes its
/// recurrence; each failed to bufferize before `tile-carry-in-place`.
#[test]
fn loops_carry_tiles_in_every_shape() {
    let (rows, cols) = (333, 300);
    let mut rng = Rng::new(8);
    let x = r::random_float(&mut rng, DType::F32, &[rows, cols], 1.0);
    let parts = r::row_tile_sums(&values(&x), cols, 64);
    for name in
        ["commuted_add", "subtract", "fresh", "swap", "pure_swap", "twice", "if_choice", "select_choice", "nested"]
    {
        let kernel = test_kernel("loops", Some(name));
        let (mut x, mut a, mut b) = (x.clone(), poisoned(DType::F32, &[cols]), poisoned(DType::F32, &[cols]));
        let g = grid(cols.div_ceil(128) as u64, 1, 1);
        kernel.launch(&mut [Arg::Array(&mut x), Arg::Array(&mut a), Arg::Array(&mut b)], g).unwrap();
        let (want_a, want_b) = r::carried_tiles(name, &parts, cols);
        assert_close(&format!("{name}: A"), &values(&a), &want_a, |i| 1e-4 * (1.0 + want_a[i].abs()));
        assert_close(&format!("{name}: B"), &values(&b), &want_b, |i| 1e-4 * (1.0 + want_b[i].abs()));
    }
}

/// `examples/attention.mlir`: the online softmax carries the running max,
/// the running sum and the output together; 1000 keys are not a multiple
/// of the key tile, so the last tile's padding is masked.
#[test]
fn attention_online_softmax_ragged() {
    let kernel = kernel("attention");
    let (n, d) = (1000, 64);
    let mut rng = Rng::new(9);
    let mut q = r::random_float(&mut rng, DType::F16, &[n, d], 1.0);
    let mut k = r::random_float(&mut rng, DType::F16, &[n, d], 1.0);
    let mut v = r::random_float(&mut rng, DType::F16, &[n, d], 1.0);
    let mut o = poisoned(DType::F32, &[n, d]);
    let want = r::attention(&values(&q), &values(&k), &values(&v), n, d, 0.125);
    let mut args = [
        Arg::Array(&mut q),
        Arg::Array(&mut k),
        Arg::Array(&mut v),
        Arg::Array(&mut o),
        Arg::Scalar(Scalar::Index(n as i64)),
    ];
    kernel.launch(&mut args, grid(n.div_ceil(64) as u64, 1, 1)).unwrap();
    // The probabilities are rounded to f16 before they weight V.
    assert_close("attention", &values(&o), &want, |_| 2e-3);
}

/// bf16 add, mul, exp and sqrt on the CPU: each computed in f32 and
/// rounded to bf16, within half a bf16 unit (2^-8 relative) of the exact
/// result but for f32's own rounding; a unit is allowed.
#[test]
fn bf16_elementwise_arithmetic() {
    let kernel = test_kernel("bf16_elementwise", None);
    let len = 1000;
    let mut rng = Rng::new(10);
    let mut x = r::random_float(&mut rng, DType::BF16, &[len], 3.0);
    let positive: Vec<f32> = (0..len).map(|_| rng.uniform().abs() * 50.0).collect();
    let mut y = Array::from_f32(DType::BF16, &[len], &positive).unwrap();
    let mut outputs: Vec<Array> = (0..4).map(|_| poisoned(DType::BF16, &[len])).collect();
    let (xs, ys) = (values(&x), values(&y));
    let [s, p, e, q] = &mut outputs[..] else { unreachable!() };
    let mut args = [Arg::Array(&mut x), Arg::Array(&mut y), Arg::Array(s), Arg::Array(p), Arg::Array(e), Arg::Array(q)];
    kernel.launch(&mut args, grid(len.div_ceil(64) as u64, 1, 1)).unwrap();
    type Op = fn(f64, f64) -> f64;
    let checks: [(&str, Op); 4] =
        [("add", |x, y| x + y), ("mul", |x, y| x * y), ("exp", |x, _| x.exp()), ("sqrt", |_, y| y.sqrt())];
    for ((what, op), got) in checks.into_iter().zip(&outputs) {
        let want: Vec<f64> = xs.iter().zip(&ys).map(|(&x, &y)| op(x, y)).collect();
        assert_close(&format!("bf16 {what}"), &values(got), &want, |i| want[i].abs() / 128.0 + 1e-30);
    }
}

/// Integer division and remainder by a zero (or -1) run-time divisor:
/// no signal, and the values both targets define (x / 0 all ones, x % 0
/// the dividend, MIN / -1 wrapping), for tiles and for index arithmetic.
#[test]
fn division_by_zero_is_defined() {
    let kernel = test_kernel("divide", None);
    let len: usize = 200;
    let mut rng = Rng::new(11);
    let mut data: Vec<i32> = (0..len).map(|_| rng.next_u64() as i32).collect();
    data[..6].copy_from_slice(&[i32::MIN, i32::MAX, -1, 0, 1, -7]);
    let blocks = len.div_ceil(64);
    for (d, k) in [(0, 0), (-1, 7), (7, 0), (i32::MIN, 3)] {
        let mut x = Array::from_i32(&[len], &data).unwrap();
        let mut outputs: Vec<Array> = (0..4).map(|_| poisoned(DType::I32, &[len])).collect();
        let mut index = poisoned(DType::I64, &[blocks * 8]);
        let [q, r, qu, ru] = &mut outputs[..] else { unreachable!() };
        let mut args = [
            Arg::Array(&mut x),
            Arg::Array(q),
            Arg::Array(r),
            Arg::Array(qu),
            Arg::Array(ru),
            Arg::Array(&mut index),
            Arg::Scalar(Scalar::I32(d)),
            Arg::Scalar(Scalar::Index(k)),
        ];
        kernel.launch(&mut args, grid(blocks as u64, 1, 1)).unwrap();
        for (which, got) in outputs.iter().enumerate() {
            let want: Vec<i32> = data.iter().map(|&x| r::defined_division(x, d)[which]).collect();
            assert_eq!(got.to_i32().unwrap(), want, "X by {d}, result {which} (q, r, unsigned q, unsigned r)");
        }
        let got: Vec<i64> = index.bytes().chunks(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect();
        for (b, lanes) in got.chunks(8).enumerate() {
            let m = 1000 + b as i64;
            let basic = r::defined_index_division(m, k);
            // ceildivui, floordivsi, ceildivsi are expanded into the four
            // guarded ops (arith-expand): by zero, (m - 1) / 0 + 1 wraps to
            // 0, -m / 0 - 1 is -2, and -m / 0 is -1.
            let rounded =
                if k == 0 { [0, -2, -1] } else { [(m as u64).div_ceil(k as u64) as i64, (-m).div_euclid(k), -(m / k)] };
            let quotient_rem = (u64::MAX % (k.wrapping_add(7) as u64)) as i64;
            let want = [basic[0], basic[1], basic[2], basic[3], rounded[0], rounded[1], rounded[2], quotient_rem];
            assert_eq!(lanes, want, "index arithmetic of block {b} by {k}");
        }
    }
}

/// The contract's matmul on empty arrays: C without columns (or rows) has
/// no tiles, so `--grid tiles` is empty and no block runs; a block that
/// runs anyway divides by C's tile count, zero, which must not trap. With
/// K = 0, C is all zeros.
#[test]
fn matmul_on_empty_arrays() {
    let kernel = kernel("matmul");
    for (m, n, k) in [(128usize, 0usize, 64usize), (0, 128, 64), (0, 0, 0), (130, 70, 0)] {
        let tiles = (m.div_ceil(128) * n.div_ceil(128)) as u64;
        for blocks in [tiles, 1, 3] {
            let mut rng = Rng::new(12);
            let mut a = r::random_float(&mut rng, DType::F16, &[m, k], 1.0);
            let mut b = r::random_float(&mut rng, DType::F16, &[k, n], 1.0);
            let mut c = poisoned(DType::F32, &[m, n]);
            kernel
                .launch(&mut [Arg::Array(&mut a), Arg::Array(&mut b), Arg::Array(&mut c)], grid(blocks, 1, 1))
                .unwrap();
            if blocks >= tiles {
                assert_close(&format!("matmul {m}x{n}x{k}, {blocks} blocks"), &values(&c), &vec![0.0; m * n], |_| 0.0);
            }
        }
    }
}

#[test]
fn empty_grids_run_no_block() {
    let kernel = kernel("softmax");
    let mut x = poisoned(DType::F32, &[8, 1024]);
    let mut y = poisoned(DType::F32, &[8, 1024]);
    let before = y.bytes().to_vec();
    for dims in [[0, 1, 1], [2, 0, 1], [2, 1, 0]] {
        kernel.launch(&mut [Arg::Array(&mut x), Arg::Array(&mut y)], grid(dims[0], dims[1], dims[2])).unwrap();
        assert_eq!(y.bytes(), &before[..], "grid {dims:?} wrote");
    }
    // Arguments are still checked.
    let mut short = poisoned(DType::F32, &[8, 1000]);
    assert!(kernel.launch(&mut [Arg::Array(&mut x), Arg::Array(&mut short)], grid(0, 1, 1)).is_err());
}

#[test]
fn grids_past_cuda_limits_are_typed_errors() {
    use tile_runtime::tile_abi::Error;
    let kernel = kernel("softmax");
    let mut x = poisoned(DType::F32, &[4, 1024]);
    let mut y = poisoned(DType::F32, &[4, 1024]);
    for dims in [[1 << 31, 1, 1], [1, 65536, 1], [1, 1, 65536]] {
        // Built without `Grid::new`, as a caller might: the launch checks.
        let err = kernel.launch(&mut [Arg::Array(&mut x), Arg::Array(&mut y)], Grid(dims)).unwrap_err();
        assert!(matches!(err, Error::Grid(d) if d == dims), "{err}");
    }
}

/// A function the JIT cannot resolve is an error naming it, not a missing
/// entry point. (Kernels call nothing; a function beside them may.)
#[test]
fn unresolved_functions_are_named() {
    let context = context();
    let text = "func.func private @tile_test_undefined_function(f32) -> f32\n\
                func.func @helper(%s: f32) -> f32 {\n\
                  %v = func.call @tile_test_undefined_function(%s) : (f32) -> f32\n\
                  return %v : f32\n\
                }\n\
                func.func @k(%X: memref<?xf32>) attributes {tile.kernel} {\n\
                  %px = tile.partition_view %X : memref<?xf32> -> !tile.partition_view<64xf32>\n\
                  %i = tile.block_id x : index\n\
                  %t = arith.constant dense<1.0> : tensor<64xf32>\n\
                  tile.store %t, %px[%i] : tensor<64xf32> -> !tile.partition_view<64xf32>\n\
                  return\n\
                }\n";
    let error = CpuKernel::compile_text(&context, text, "helper.mlir", None).err().expect("no such function");
    let message = error.to_string();
    assert!(message.contains("@tile_test_undefined_function"), "{message}");
    assert!(!message.contains("no entry point"), "{message}");
}

/// `tests/kernels/masks.mlir` (tile-version-masks): sums of X under a mask
/// that is all true in some iterations and not in others, and under one
/// with a side the pass cannot bound, for limits below, inside and past
/// the columns (an unsigned compare), on random data with poisoned
/// outputs.
#[test]
fn masked_sums_in_loops() {
    let kernel = test_kernel("masks", None);
    let (rows, cols) = (70, 150);
    let mut rng = Rng::new(21);
    let x = r::random_float(&mut rng, DType::F32, &[rows, cols], 1.0);
    let data = values(&x);
    let blocks = rows.div_ceil(16);
    for lim in [0i32, 37, 150, 1000, -1] {
        let mut x = x.clone();
        let mut a = poisoned(DType::F32, &[rows, 32]);
        let mut b = poisoned(DType::F32, &[rows, 32]);
        let mut args = [Arg::Array(&mut x), Arg::Array(&mut a), Arg::Array(&mut b), Arg::Scalar(Scalar::I32(lim))];
        kernel.launch(&mut args, grid(blocks as u64, 1, 1)).unwrap();
        let (mut want_a, mut want_b) = (vec![0.0; rows * 32], vec![0.0; rows * 32]);
        for r in 0..rows {
            for c in 0..cols {
                let v = data[r * cols + c];
                if c <= r + 8 && (c as u32) < lim as u32 {
                    want_a[r * 32 + c % 32] += v;
                }
                if c >= 40 || v > 0.5 {
                    want_b[r * 32 + c % 32] += v;
                }
            }
        }
        let tolerance = |_| 1e-4;
        assert_close(&format!("masks A, lim {lim}"), &values(&a), &want_a, tolerance);
        assert_close(&format!("masks B, lim {lim}"), &values(&b), &want_b, tolerance);
    }
}

/// `tests/kernels/padded_mma.mlir`: an mma whose views pad with +inf.
/// Where K is not a multiple of the tile, every element of C takes
/// +inf * +inf from the last K step (zero padding would leave it finite);
/// where it is, C is the plain-Rust product.
#[test]
fn padded_mma_on_the_cpu() {
    let kernel = test_kernel("padded_mma", None);
    for (m, n, k) in [(70, 45, 100), (64, 128, 128), (130, 64, 70)] {
        let mut rng = Rng::new((m * 7 + n * 3 + k) as u64);
        let mut a = r::random_float(&mut rng, DType::F16, &[m, k], 1.0);
        let mut b = r::random_float(&mut rng, DType::F16, &[k, n], 1.0);
        let mut c = poisoned(DType::F32, &[m, n]);
        let tiles = (m.div_ceil(64) * n.div_ceil(64)) as u64;
        kernel.launch(&mut [Arg::Array(&mut a), Arg::Array(&mut b), Arg::Array(&mut c)], grid(tiles, 1, 1)).unwrap();
        let got = values(&c);
        if k % 64 == 0 {
            let (want, magnitude) = r::matmul(&values(&a), &values(&b), m, n, k);
            assert_close(&format!("padded_mma {m}x{n}x{k}"), &got, &want, |i| 1e-5 * magnitude[i] + 1e-6);
        } else {
            let finite = got.iter().filter(|v| **v != f64::INFINITY).count();
            assert_eq!(finite, 0, "padded_mma {m}x{n}x{k}: {finite} of {} elements are not +inf", got.len());
        }
    }
}

/// `tests/kernels/small_mma.mlir`: an mma of 32x32 tiles (fewer rows than a
/// wgmma's, so the GPU keeps it off the register path and says so), on
/// ragged sizes against the plain-Rust product.
#[test]
fn small_mma_on_the_cpu() {
    let kernel = test_kernel("small_mma", None);
    for (m, n, k) in [(70, 45, 100), (32, 32, 32)] {
        let mut rng = Rng::new((m * 13 + n * 5 + k) as u64);
        let mut a = r::random_float(&mut rng, DType::F16, &[m, k], 1.0);
        let mut b = r::random_float(&mut rng, DType::F16, &[k, n], 1.0);
        let mut c = poisoned(DType::F32, &[m, n]);
        let (want, magnitude) = r::matmul(&values(&a), &values(&b), m, n, k);
        let tiles = (m.div_ceil(32) * n.div_ceil(32)) as u64;
        kernel.launch(&mut [Arg::Array(&mut a), Arg::Array(&mut b), Arg::Array(&mut c)], grid(tiles, 1, 1)).unwrap();
        assert_close(&format!("small_mma {m}x{n}x{k}"), &values(&c), &want, |i| 1e-5 * magnitude[i] + 1e-6);
    }
}
