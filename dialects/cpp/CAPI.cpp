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
#include "mlir/IR/Remarks.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/CommandLine.h"
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

/// An optimization remark of category `tile` (MLIR's remark engine: shown
/// only when a filter such as `tile-opt --remarks-filter=tile` enables it,
/// printed as a `remark:` diagnostic at `location`). `kind`: 0 missed (the
/// compiler could not take the fast way), 1 passed (it took it), 2
/// analysis. `name` names the remark, `subcategory` the pass.
void tileEmitRemark(MlirLocation location, int kind, MlirStringRef name,
                    MlirStringRef subcategory, MlirStringRef reason) {
  auto opts = mlir::remark::RemarkOpts::name(unwrap(name))
                  .category("tile")
                  .subCategory(unwrap(subcategory));
  auto loc = unwrap(location);
  // A widened instance (tile-widen-blocks) repeats its kernel's ops, and
  // would repeat its remarks; what happens to one of its variants
  // (a remark named `Variant...`: dropped, not made persistent) is its own
  // news.
  if (auto named = llvm::dyn_cast<mlir::NameLoc>(loc);
      named && named.getName() == "tile.widened" &&
      !unwrap(name).starts_with("Variant"))
    return;
  std::string text = unwrap(reason).str();
  switch (kind) {
  case 0:
    mlir::remark::missed(loc, opts) << text;
    break;
  case 1:
    mlir::remark::passed(loc, opts) << text;
    break;
  default:
    mlir::remark::analysis(loc, opts) << text;
    break;
  }
}

/// Turns on the remarks of `context` whose category matches the regular
/// expression `filter`, printed as `remark:` diagnostics (what `tile-opt
/// --remarks-filter=FILTER` does); false if the engine could not start.
bool tileEnableRemarks(MlirContext context, MlirStringRef filter) {
  // The engine builds a filter only for the kinds that have one.
  std::string pattern = unwrap(filter).str();
  mlir::remark::RemarkCategories categories{pattern, pattern, pattern,
                                            pattern, pattern};
  return mlir::succeeded(mlir::remark::enableOptimizationRemarks(
      *unwrap(context), nullptr,
      std::make_unique<mlir::remark::RemarkEmittingPolicyAll>(), categories,
      /*printAsEmitRemarks=*/true));
}

/// Sets LLVM command-line options (LLVM's options are global to the
/// process); false, with LLVM's reason given to `emit`, if one is not
/// known or its value does not parse.
bool tileSetLLVMOptions(int argc, const char *const *argv,
                        MlirStringCallback emit, void *emitData) {
  std::string errors;
  llvm::raw_string_ostream stream(errors);
  bool ok = llvm::cl::ParseCommandLineOptions(argc, argv, "tile", &stream);
  stream.flush();
  if (!ok)
    emit(MlirStringRef{errors.data(), errors.size()}, emitData);
  return ok;
}

/// MLIR's `mlir-opt` main with the given registry; returns the exit code.
int tileOptMain(int argc, char **argv, MlirDialectRegistry registry) {
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "tile-opt: the tile compiler's MLIR optimizer driver\n",
      *unwrap(registry)));
}
}
