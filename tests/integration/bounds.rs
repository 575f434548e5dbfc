//! The contract's bounds rule for every tile coordinate: out-of-bounds
//! elements take the view's padding and are never written, also where
//! `coordinate x tile` would wrap (the CPU target here; the GPU's general
//! kernel shares the lowering, and `scripts/gpu_check.py` runs the same
//! kernel on the device).

use crate::support::{context, root};
use tile_lowering::{compile, cpu::CpuKernel};
use tile_runtime::{Arg, DType, Grid, Scalar};
use tile_tests::reference::{Rng, poisoned, random_float, values};

#[test]
fn far_coordinates_read_padding_and_write_nothing() {
    let context = context();
    let path = root().join("tests/kernels/far_coordinates.mlir");
    let module = compile::parse_file(&context, &path).expect("parse");
    let kernel = CpuKernel::compile(&context, module, None).expect("compile");
    let mut rng = Rng::new(60);
    // 40 elements: tiles 0 and 1 whole, tile 2 ragged (8 elements).
    let x = random_float(&mut rng, DType::F32, &[40], 1.0);
    let xs = values(&x);
    let cases: [(i64, Option<usize>); 10] = [
        (0, Some(0)),
        (1, Some(16)),
        (2, Some(32)),
        (3, None),
        (-1, None),
        (i64::MAX, None),
        ((1 << 60) + 1, None),
        ((1 << 60) + 2, None),
        (i64::MIN, None),
        (i64::MIN + 1, None),
    ];
    for (coordinate, first) in cases {
        let mut x = x.clone();
        let mut y = poisoned(DType::F32, &[16]);
        let z_before = random_float(&mut rng, DType::F32, &[40], 1.0);
        let mut z = z_before.clone();
        let args =
            &mut [Arg::Array(&mut x), Arg::Array(&mut y), Arg::Array(&mut z), Arg::Scalar(Scalar::I64(coordinate))];
        kernel.launch(args, Grid::new([1, 1, 1]).expect("grid")).expect("launch");
        let (got, z_after) = (values(&y), values(&z));
        for (e, &value) in got.iter().enumerate() {
            let want = first.map(|f| f + e).filter(|&i| i < xs.len()).map_or(f64::NEG_INFINITY, |i| xs[i]);
            assert!(value == want, "coordinate {coordinate}: element {e} is {value}, want {want}");
        }
        for (i, (&after, &before)) in z_after.iter().zip(&values(&z_before)).enumerate() {
            let written = first.is_some_and(|f| (f..f + 16).contains(&i));
            let want = if written { 7.0 } else { before };
            assert!(after == want, "coordinate {coordinate}: Z[{i}] is {after}, want {want}");
        }
    }
}
