# lit configuration for tile: runs tile-opt over .mlir files and checks the
# output with FileCheck. Run with `scripts/test.sh`, or directly:
#   /usr/lib/llvm-22/bin/lit -v lit/
import os
import lit.formats

config.name = "tile"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)

root = os.path.dirname(config.test_source_root)
llvm_bin = os.environ.get("TILE_LLVM_BIN", "/usr/lib/llvm-22/bin")
tools = os.environ.get("TILE_TOOLS_DIR", os.path.join(root, "target", "debug"))

if not os.path.exists(os.path.join(tools, "tile-opt")):
    lit_config.fatal(f"tile-opt not found in {tools}: build it first "
                     "(cargo build), or point TILE_TOOLS_DIR at its directory")
# Tools are found on PATH: ours first, then LLVM's FileCheck, not, count.
config.environment["PATH"] = os.pathsep.join(
    [tools, llvm_bin, os.environ.get("PATH", "")])
config.environment["LLVM_SYMBOLIZER_PATH"] = os.path.join(llvm_bin, "llvm-symbolizer")
config.substitutions.append(("%examples", os.path.join(root, "examples")))
