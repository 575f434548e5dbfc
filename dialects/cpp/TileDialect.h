// The tile dialect's C++ declarations: the generated ODS classes plus the
// tile-shape rules shared by the type and op verifiers.
#ifndef TILE_DIALECT_H
#define TILE_DIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "TileEnums.h.inc"
#include "TileDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "TileAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "TileTypes.h.inc"

#define GET_OP_CLASSES
#include "TileOps.h.inc"

#endif // TILE_DIALECT_H
