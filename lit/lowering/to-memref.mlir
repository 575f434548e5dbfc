// RUN: tile-opt %s -split-input-file --convert-tile-to-memref | FileCheck %s

// A load clamps the tile coordinate to [-1, dim/4 + 1] (so that 4i cannot
// wrap), then the tile's rows [4i, 4i+4) to [0, dim), reads that part
// through a subview and inserts it into a tile of the padding value.
// CHECK-LABEL: func.func @load_neg_inf
// CHECK-SAME: (%[[X:.*]]: memref<?x8xf32>, %[[I:.*]]: index)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[CM1:.*]] = arith.constant -1 : index
// CHECK-DAG: %[[PAD:.*]] = arith.constant dense<0xFF800000> : tensor<4x8xf32>
// CHECK: %[[DIM:.*]] = memref.dim %[[X]], %[[C0]]
// CHECK: %[[TILES:.*]] = arith.divui %[[DIM]], %[[C4]]
// CHECK: %[[BEYOND:.*]] = arith.addi %[[TILES]], %[[C1]]
// CHECK: %[[AT0:.*]] = arith.maxsi %[[I]], %[[CM1]]
// CHECK: %[[AT:.*]] = arith.minsi %[[AT0]], %[[BEYOND]]
// CHECK: %[[FIRST:.*]] = arith.muli %[[AT]], %[[C4]]
// CHECK: %[[END:.*]] = arith.addi %[[FIRST]], %[[C4]]
// CHECK: %[[LO0:.*]] = arith.maxsi %[[FIRST]], %[[C0]]
// CHECK: %[[LO:.*]] = arith.minsi %[[LO0]], %[[DIM]]
// CHECK: %[[HI0:.*]] = arith.maxsi %[[END]], %[[C0]]
// CHECK: %[[HI:.*]] = arith.minsi %[[HI0]], %[[DIM]]
// CHECK: %[[ROWS:.*]] = arith.subi %[[HI]], %[[LO]]
// CHECK: %[[SKIP0:.*]] = arith.subi %[[LO]], %[[FIRST]]
// CHECK: %[[SKIP1:.*]] = arith.maxsi %[[SKIP0]], %[[C0]]
// CHECK: %[[SKIP:.*]] = arith.minsi %[[SKIP1]], %[[C4]]
// CHECK: %[[SUB:.*]] = memref.subview %[[X]][%[[LO]], %{{.*}}] [%[[ROWS]], %{{.*}}] [1, 1] : memref<?x8xf32> to memref<?x?xf32, strided<[8, 1], offset: ?>>
// CHECK: %[[PART:.*]] = bufferization.to_tensor %[[SUB]] restrict
// CHECK: %[[T:.*]] = tensor.insert_slice %[[PART]] into %[[PAD]][%[[SKIP]], %{{.*}}] [%[[ROWS]], %{{.*}}] [1, 1] : tensor<?x?xf32> into tensor<4x8xf32>
// CHECK: return %[[T]]
// CHECK-NOT: tile.
func.func @load_neg_inf(%X: memref<?x8xf32>, %i: index) -> tensor<4x8xf32> {
  %c0 = arith.constant 0 : index
  %v = tile.partition_view %X : memref<?x8xf32> -> !tile.partition_view<4x8xf32, padding = neg_inf>
  %t = tile.load %v[%i, %c0] : !tile.partition_view<4x8xf32, padding = neg_inf> -> tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}

// -----

// Padding values per element type; integer views pad with zero.
// CHECK-LABEL: func.func @paddings
// CHECK-DAG: arith.constant dense<0x7E00> : tensor<16xf16>
// CHECK-DAG: arith.constant dense<0x7F80> : tensor<16xbf16>
// CHECK-DAG: arith.constant dense<0> : tensor<16xi8>
func.func @paddings(%A: memref<?xf16>, %B: memref<?xbf16>, %C: memref<?xi8>, %i: index)
    -> (tensor<16xf16>, tensor<16xbf16>, tensor<16xi8>) {
  %va = tile.partition_view %A : memref<?xf16> -> !tile.partition_view<16xf16, padding = nan>
  %vb = tile.partition_view %B : memref<?xbf16> -> !tile.partition_view<16xbf16, padding = pos_inf>
  %vc = tile.partition_view %C : memref<?xi8> -> !tile.partition_view<16xi8>
  %a = tile.load %va[%i] : !tile.partition_view<16xf16, padding = nan> -> tensor<16xf16>
  %b = tile.load %vb[%i] : !tile.partition_view<16xbf16, padding = pos_inf> -> tensor<16xbf16>
  %c = tile.load %vc[%i] : !tile.partition_view<16xi8> -> tensor<16xi8>
  return %a, %b, %c : tensor<16xf16>, tensor<16xbf16>, tensor<16xi8>
}

// -----

// A store writes only the in-bounds part: extract it from the tile and
// materialize it in the matching subview of the memref, whose strides
// (here dynamic) the subview keeps.
// CHECK-LABEL: func.func @store_masked
// CHECK-SAME: (%[[T:.*]]: tensor<2x4x8xi32>, %[[Y:.*]]: memref<?x?x?xi32, strided<[?, ?, 1]>>
// CHECK: %[[PART:.*]] = tensor.extract_slice %[[T]][%{{.*}}, %{{.*}}, %{{.*}}] [%[[S0:.*]], %[[S1:.*]], %[[S2:.*]]] [1, 1, 1] : tensor<2x4x8xi32> to tensor<?x?x?xi32>
// CHECK: %[[SUB:.*]] = memref.subview %[[Y]][%{{.*}}, %{{.*}}, %{{.*}}] [%[[S0]], %[[S1]], %[[S2]]] [1, 1, 1] : memref<?x?x?xi32, strided<[?, ?, 1]>> to memref<?x?x?xi32, strided<[?, ?, 1], offset: ?>>
// CHECK: bufferization.materialize_in_destination %[[PART]] in restrict writable %[[SUB]]
// CHECK-NOT: tile.
func.func @store_masked(%t: tensor<2x4x8xi32>, %Y: memref<?x?x?xi32, strided<[?, ?, 1]>>, %i: index, %j: index, %k: index) {
  %v = tile.partition_view %Y : memref<?x?x?xi32, strided<[?, ?, 1]>> -> !tile.partition_view<2x4x8xi32>
  tile.store %t, %v[%i, %j, %k] : tensor<2x4x8xi32> -> !tile.partition_view<2x4x8xi32>
  return
}

// -----

// num_tiles is ceildiv(dim, tile dim) = (dim + 63) / 64.
// CHECK-LABEL: func.func @num_tiles
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C63:.*]] = arith.constant 63 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[DIM:.*]] = memref.dim %{{.*}}, %[[C1]]
// CHECK: %[[BIASED:.*]] = arith.addi %[[DIM]], %[[C63]]
// CHECK: %[[N:.*]] = arith.divui %[[BIASED]], %[[C64]]
// CHECK: return %[[N]]
func.func @num_tiles(%A: memref<?x?xf16>) -> index {
  %v = tile.partition_view %A : memref<?x?xf16> -> !tile.partition_view<128x64xf16>
  %n = tile.num_tiles %v dim 1 : !tile.partition_view<128x64xf16>
  return %n : index
}
