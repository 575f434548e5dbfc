//! Insta snapshots of the IR after each stage of `tile-to-cpu`, for the
//! contract's examples. A change in any lowering shows up here as a diff.

use crate::support::{context, root};
use tile_lowering::{compile, cpu};

fn snapshot_stages(name: &str) {
    let context = context();
    let path = root().join("examples").join(format!("{name}.mlir"));
    let mut module = compile::parse_file(&context, &path).unwrap();
    for (stage, passes) in cpu::STAGES {
        compile::run_pipeline(&context, &mut module, &format!("builtin.module({passes})"))
            .unwrap_or_else(|e| panic!("{name}, stage {stage}: {e}"));
        // Printing omits locations, which name the checkout's path.
        insta::assert_snapshot!(format!("{name}.cpu.{stage}"), module.as_operation().to_string());
    }
}

#[test]
fn matmul_cpu_stages() {
    snapshot_stages("matmul");
}

#[test]
fn softmax_cpu_stages() {
    snapshot_stages("softmax");
}
