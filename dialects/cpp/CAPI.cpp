// C entry points that MLIR's own C API lacks: registering a pass created by
// Rust (an external pass) or a named pipeline into MLIR's global pass
// registry, so that textual pipelines and the `mlir-opt` flags find them by
// name, and running MLIR's own `MlirOptMain` for `tile-opt`.
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

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

/// Expands a pipeline's options into the text of its passes, written
/// through `emit`; on failure it writes the error message instead and
/// returns false.
typedef bool (*TilePipelineBuilder)(MlirStringRef options,
                                    MlirStringCallback emit, void *emitData,
                                    void *userData);

static void appendTo(MlirStringRef text, void *out) {
  static_cast<std::string *>(out)->append(text.data, text.length);
}

/// Registers a named pipeline. The registry keeps copies of `argument` and
/// `description`; `userData` must outlive the registry (it is static data).
/// Expanding the pipeline into the enclosing pass manager, rather than
/// running a nested one, keeps `--mlir-print-ir-after-all`, timing and
/// crash reproducers working on each of its passes.
void tileRegisterPipeline(MlirStringRef argument, MlirStringRef description,
                          TilePipelineBuilder build, void *userData) {
  mlir::registerPassPipeline(
      unwrap(argument), unwrap(description),
      [build, userData](mlir::OpPassManager &pm, llvm::StringRef options,
                        llvm::function_ref<mlir::LogicalResult(
                            const llvm::Twine &)>
                            errorHandler) -> mlir::LogicalResult {
        std::string text;
        if (!build(wrap(options), appendTo, &text, userData))
          return errorHandler(text);
        std::string error;
        llvm::raw_string_ostream errorStream(error);
        if (mlir::failed(mlir::parsePassPipeline(text, pm, errorStream)))
          return errorHandler(error);
        return mlir::success();
      },
      [](llvm::function_ref<void(const mlir::detail::PassOptions &)>) {});
}

/// Parses a module from text whose locations name `sourceName`, wrapping
/// top-level ops in an implicit module as `mlir-opt` does; null on failure
/// (the errors go to the context's diagnostic handlers).
MlirModule tileParseModule(MlirContext context, MlirStringRef source,
                           MlirStringRef sourceName) {
  mlir::ParserConfig config(unwrap(context));
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(unwrap(source), config,
                                              unwrap(sourceName));
  return MlirModule{module.release().getOperation()};
}

/// Adds the translations to LLVM IR of every dialect to a registry: the GPU
/// path serializes `gpu.module`s to PTX inside a pass, and the CPU JIT
/// translates whole modules.
void tileRegisterLLVMTranslations(MlirDialectRegistry registry) {
  mlir::registerAllToLLVMIRTranslations(*unwrap(registry));
}

/// MLIR's `mlir-opt` main with the given registry; returns the exit code.
int tileOptMain(int argc, char **argv, MlirDialectRegistry registry) {
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "tile-opt: the tile compiler's MLIR optimizer driver\n",
      *unwrap(registry)));
}
}
