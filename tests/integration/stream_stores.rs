//! `tile-stream-stores` keeps a program's meaning: the wide-row kernel
//! (`tests/kernels/wide_rows.mlir`) as written and as the pass rewrites it
//! (a loop over four chunks of the row), both on the CPU target against an
//! `f64` reference, on ragged rows (30000 of the tile's 32768 columns, so
//! the last chunk is partly and no chunk wholly outside) and at column
//! coordinates past either end, where a coordinate scaled to chunks could
//! wrap into the array. The GPU runs the same rewrite in `tile-to-ptx`
//! (the suite's layernorm over f32 rows of 32768 on the device).

use crate::support::{context, root, tile_opt};
use tile_lowering::cpu::CpuKernel;
use tile_runtime::{Arg, DType, Grid, Scalar};
use tile_tests::reference::{Rng, random_float, values};

#[test]
fn streamed_stores_keep_the_program() {
    let path = root().join("tests/kernels/wide_rows.mlir");
    let original = std::fs::read_to_string(&path).expect("read the kernel");
    let streamed = tile_opt(&[
        path.to_str().expect("utf-8 path"),
        "--pass-pipeline=builtin.module(func.func(tile-stream-stores))",
    ]);
    assert!(
        streamed.contains("scf.for") && streamed.contains("!tile.partition_view<1x8192xf32>"),
        "tile-stream-stores left the store whole:\n{streamed}"
    );
    let context = context();
    let (rows, columns) = (3, 30000);
    let mut rng = Rng::new(70);
    let x = random_float(&mut rng, DType::F32, &[rows, columns], 2.0);
    let w = random_float(&mut rng, DType::F32, &[columns], 1.0);
    let b = random_float(&mut rng, DType::F32, &[columns], 1.0);
    let (xs, ws, bs) = (values(&x), values(&w), values(&b));
    for (label, text) in [("as written", original), ("streamed", streamed)] {
        let kernel = CpuKernel::compile_text(&context, &text, label, None).unwrap_or_else(|e| panic!("{label}: {e}"));
        for coordinate in [0, 1, -1, 1 << 62, (1 << 62) + 1, i64::MAX, i64::MIN] {
            let y_before = random_float(&mut rng, DType::F32, &[rows, columns], 5.0);
            let (mut x, mut w, mut b, mut y) = (x.clone(), w.clone(), b.clone(), y_before.clone());
            let args = &mut [
                Arg::Array(&mut x),
                Arg::Array(&mut w),
                Arg::Array(&mut b),
                Arg::Array(&mut y),
                Arg::Scalar(Scalar::I64(coordinate)),
            ];
            kernel.launch(args, Grid::new([rows as u64, 1, 1]).expect("grid")).expect("launch");
            let (got, before) = (values(&y), values(&y_before));
            for (i, (&value, &old)) in got.iter().zip(&before).enumerate() {
                let column = i % columns;
                if coordinate == 0 {
                    let want = xs[i] * ws[column] + bs[column];
                    assert!(
                        (value - want).abs() <= 1e-6 * (1.0 + want.abs()),
                        "{label}, coordinate 0: Y[{i}] is {value}, want {want}"
                    );
                } else {
                    assert!(value == old, "{label}, coordinate {coordinate}: Y[{i}] was written ({old} -> {value})");
                }
            }
        }
    }
}
