// RUN: tile-opt %s --tile-safe-division | FileCheck %s

// Unsigned: by zero, the quotient is all ones and the remainder the
// dividend (as NVIDIA's div.u and rem.u give); the division itself never
// sees a zero divisor.
// CHECK-LABEL: func.func @unsigned
// CHECK-SAME: (%[[X:.*]]: index, %[[Y:.*]]: index)
// CHECK: %[[Z:.*]] = arith.cmpi eq, %[[Y]], %{{.*}} : index
// CHECK: %[[D:.*]] = arith.select %[[Z]], %{{.*}}, %[[Y]] : index
// CHECK: %[[Q:.*]] = arith.divui %[[X]], %[[D]] : index
// CHECK: %[[ONES:.*]] = arith.constant -1 : index
// CHECK: %[[QS:.*]] = arith.select %[[Z]], %[[ONES]], %[[Q]] : index
// CHECK: %[[Z2:.*]] = arith.cmpi eq, %[[Y]], %{{.*}} : index
// CHECK: %[[D2:.*]] = arith.select %[[Z2]], %{{.*}}, %[[Y]] : index
// CHECK: %[[R:.*]] = arith.remui %[[X]], %[[D2]] : index
// CHECK: %[[RS:.*]] = arith.select %[[Z2]], %[[X]], %[[R]] : index
// CHECK: return %[[QS]], %[[RS]]
func.func @unsigned(%x: index, %y: index) -> (index, index) {
  %q = arith.divui %x, %y : index
  %r = arith.remui %x, %y : index
  return %q, %r : index, index
}

// Signed: MIN / -1 divides by 1 instead (the wrapped quotient, MIN, and a
// remainder of 0).
// CHECK-LABEL: func.func @signed
// CHECK-SAME: (%[[X:.*]]: i32, %[[Y:.*]]: i32)
// CHECK: %[[Z:.*]] = arith.cmpi eq, %[[Y]], %c0_i32 : i32
// CHECK: %[[MIN:.*]] = arith.cmpi eq, %[[X]], %c-2147483648_i32 : i32
// CHECK: %[[M1:.*]] = arith.cmpi eq, %[[Y]], %c-1_i32 : i32
// CHECK: %[[OVF:.*]] = arith.andi %[[MIN]], %[[M1]] : i1
// CHECK: %[[BAD:.*]] = arith.ori %[[Z]], %[[OVF]] : i1
// CHECK: %[[D:.*]] = arith.select %[[BAD]], %c1_i32, %[[Y]] : i32
// CHECK: %[[Q:.*]] = arith.divsi %[[X]], %[[D]] : i32
// CHECK: arith.select %[[Z]], %{{.*}}, %[[Q]] : i32
// CHECK: arith.remsi
func.func @signed(%x: i32, %y: i32) -> (i32, i32) {
  %q = arith.divsi %x, %y : i32
  %r = arith.remsi %x, %y : i32
  return %q, %r : i32, i32
}

// Constant divisors that cannot trap stay as they are; -1 is one only for
// unsigned division.
// CHECK-LABEL: func.func @constants
// CHECK: %[[A:.*]] = arith.divui %{{.*}}, %c8_i32 : i32
// CHECK-NEXT: %[[B:.*]] = arith.divsi %{{.*}}, %c8_i32 : i32
// CHECK-NEXT: %[[C:.*]] = arith.divui %{{.*}}, %c-1_i32 : i32
// CHECK-NEXT: arith.constant 0 : i32
// CHECK: %[[D:.*]] = arith.divsi
// CHECK: %[[DS:.*]] = arith.select %{{.*}}, %{{.*}}, %[[D]] : i32
// CHECK: return %[[A]], %[[B]], %[[C]], %[[DS]]
func.func @constants(%x: i32) -> (i32, i32, i32, i32) {
  %c8 = arith.constant 8 : i32
  %cm1 = arith.constant -1 : i32
  %a = arith.divui %x, %c8 : i32
  %b = arith.divsi %x, %c8 : i32
  %c = arith.divui %x, %cm1 : i32
  %d = arith.divsi %x, %cm1 : i32
  return %a, %b, %c, %d : i32, i32, i32, i32
}

// Vectors get splat constants.
// CHECK-LABEL: func.func @vector
// CHECK: %[[Z:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK: %[[Q:.*]] = arith.divui
// CHECK: %[[ONES:.*]] = arith.constant dense<-1> : vector<4xi32>
// CHECK: arith.select %[[Z]], %[[ONES]], %[[Q]] : vector<4xi1>, vector<4xi32>
func.func @vector(%x: vector<4xi32>, %y: vector<4xi32>) -> vector<4xi32> {
  %q = arith.divui %x, %y : vector<4xi32>
  return %q : vector<4xi32>
}
