//! The `tile-bench` tool's bad inputs: one message, exit code 1, before it
//! touches a GPU (so these run without one too).

use crate::support::tool;
use std::process::Command;

fn bench(args: &[&str]) -> (i32, String) {
    let output = Command::new(tool("tile-bench")).args(args).output().expect("run tile-bench");
    (output.status.code().unwrap_or(-1), String::from_utf8_lossy(&output.stderr).into_owned())
}

#[test]
fn bad_inputs_exit_1_with_one_message() {
    for (args, message) in [
        (&["--dtypes", "f32"][..], "unknown dtype 'f32' (f16, bf16)"),
        (&["--kernel", "f8=/tmp/k.mlir"][..], "unknown dtype 'f8' (f16, bf16)"),
        (&["--kernel", "f16"][..], "'f16' is not DTYPE=PATH"),
        (&["--shapes", "12x3"][..], "'12x3' is not MxNxK with positive sizes"),
        (&["--shapes", "0x8x8"][..], "'0x8x8' is not MxNxK with positive sizes"),
        (&["--shapes", "100000x100000x8"][..], "a 100000x100000 operand exceeds 2^31 elements"),
        (&["--runs", "many"][..], "invalid value 'many'"),
    ] {
        let (code, stderr) = bench(args);
        assert_eq!(code, 1, "tile-bench {args:?}: {stderr}");
        assert!(stderr.contains(message), "tile-bench {args:?}: expected '{message}' in: {stderr}");
    }
}
