// Input from a file or stdin, output to stdout or -o; exit code 1 with a
// located diagnostic on any error.
// RUN: tile-opt %s | FileCheck %s
// RUN: cat %s | tile-opt - | FileCheck %s
// RUN: tile-opt %s -o %t && FileCheck %s < %t
// RUN: not tile-opt %s.missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: echo 'func.func @f() { %0 = tile.iota : tensor<3xi32> return }' | not tile-opt - 2>&1 | FileCheck %s --check-prefix=INVALID
// RUN: echo 'func.func @f() { %0 = tile.iota : tensor<3xi32> return }' | tile-opt - ; test $? -eq 1
// RUN: printf '\x00\xff\xfe garbage {{{' | not tile-opt - 2>&1 | FileCheck %s --check-prefix=GARBAGE
// RUN: not tile-opt --no-such-flag %s 2>&1 | FileCheck %s --check-prefix=FLAG

// CHECK: tile.iota : tensor<8xi32>
// MISSING: cannot open input file
// INVALID: <stdin>:1:23: error: 'tile.iota' op result dim 0 is 3, which is not a power of two
// GARBAGE: <stdin>:1:{{[0-9]+}}: error: unexpected character
// FLAG: Unknown command line argument '--no-such-flag'
func.func @f() {
  %0 = tile.iota : tensor<8xi32>
  return
}
