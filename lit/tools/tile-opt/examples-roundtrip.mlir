// Every example round-trips byte-identically: printing the printed form again
// gives the same text.
// RUN: for f in %examples/*.mlir; do tile-opt $f > %t.1 && tile-opt %t.1 > %t.2 && diff %t.1 %t.2 || exit 1; echo "roundtrip $(basename $f)"; done | FileCheck %s
// CHECK-DAG: roundtrip matmul.mlir
// CHECK-DAG: roundtrip softmax.mlir
