// RUN: tile-opt %s -split-input-file -verify-diagnostics --convert-tile-to-scf

// expected-error @+1 {{kernel @k: the module already defines @k.block}}
func.func @k(%A: memref<?xf32>) attributes {tile.kernel} {
  return
}
func.func private @k.block()
