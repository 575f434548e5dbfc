// C entry points that MLIR's own C API lacks: registering a pass created by
// Rust (an external pass) into MLIR's global pass registry, so that textual
// pipelines and the `mlir-opt` flags find it by name, and running MLIR's own
// `MlirOptMain` for `tile-opt`.
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include <memory>

extern "C" {

/// A factory that returns a fresh external pass (mlirCreateExternalPass).
typedef MlirPass (*TilePassFactory)(void *userData);

/// Registers a pass whose argument and description are those of the passes
/// `factory` makes. `userData` must outlive the registry (it is static data).
void tileRegisterPass(TilePassFactory factory, void *userData) {
  mlir::registerPass([factory, userData]() -> std::unique_ptr<mlir::Pass> {
    return std::unique_ptr<mlir::Pass>(unwrap(factory(userData)));
  });
}

/// MLIR's `mlir-opt` main with the given registry; returns the exit code.
int tileOptMain(int argc, char **argv, MlirDialectRegistry registry) {
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "tile-opt: the tile compiler's MLIR optimizer driver\n",
      *unwrap(registry)));
}
}
