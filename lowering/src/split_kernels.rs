//! `tile-split-kernels` and `tile-join-binaries`: each kernel of a
//! `gpu.module` serialised on its own, in parallel, then one PTX again.
//!
//! Summary: `gpu-module-to-binary` hands a `gpu.module` to LLVM whole, so
//! its kernels (the general kernel, the TMA variant, a widened instance's
//! variants) go through LLVM's optimiser and the NVPTX back end
//! one after another on one thread. `tile-split-kernels` wraps a copy of
//! the `gpu.module` for each kernel (the others erased, every global and
//! device function kept) in a `builtin.module` of its own, so that
//! `builtin.module(gpu-module-to-binary)` nested under the top module runs
//! on MLIR's thread pool, a kernel a thread; `tile-join-binaries` then
//! joins the parts' PTX (one header, each part's globals and functions,
//! the declarations two parts both make once) into one `gpu.binary` named
//! as the `gpu.module` was, where the wrappers were.
//!
//! Before (`gpu-module-to-binary` alone):
//! ```mlir
//! gpu.module @tile_kernels [#nvvm.target<...>] { llvm.func @k ... llvm.func @k__tma ... }
//! ```
//! After `tile-split-kernels`:
//! ```mlir
//! module @tile_kernels__tile_part0 attributes {gpu.container_module} {
//!   gpu.module @tile_kernels [#nvvm.target<...>] { llvm.func @k ... }
//! }
//! module @tile_kernels__tile_part1 attributes {gpu.container_module} {
//!   gpu.module @tile_kernels [#nvvm.target<...>] { llvm.func @k__tma ... }
//! }
//! ```
//! and after `builtin.module(gpu-module-to-binary{format=isa})` and
//! `tile-join-binaries`, one `gpu.binary @tile_kernels` whose PTX has
//! every kernel, in the `gpu.module`'s order.
//!
//! Why: compile time (issue #21). Each kernel's code is what it was: a
//! kernel compiled alone is what a program of one kernel always was (LLVM
//! demotes a shared-memory global that only one kernel uses into it, as
//! for any single-kernel program); only the PTX's order of globals moves.
//!
//! Caveats: only PTX (`format=isa`) parts are joined; a symbol two parts
//! define differently (never seen: globals are either demoted or
//! identical, libdevice functions compile the same) fails the pass.

use crate::{
    pass::{PassInfo, TilePass},
    rewrite::{emit_error, op_name},
};
use melior::{
    ContextRef,
    ir::OperationRef,
    pass::{ExternalPass, RunExternalPass},
};
use mlir_sys::{MlirOperation, MlirStringRef};

/// A wrapper module's name: the `gpu.module`'s, this, and the kernel's
/// index (a module only takes dialect-prefixed attributes, and the tile
/// dialect's verifier refuses names it does not know).
const PART: &str = "__tile_part";

fn string_ref(text: &str) -> MlirStringRef {
    MlirStringRef { data: text.as_ptr().cast(), length: text.len() }
}

/// The ops of a single-block region's block, in order.
fn block_ops(block: mlir_sys::MlirBlock) -> Vec<MlirOperation> {
    let mut ops = Vec::new();
    // SAFETY: walking a live block's op list.
    unsafe {
        let mut op = mlir_sys::mlirBlockGetFirstOperation(block);
        while !op.ptr.is_null() {
            ops.push(op);
            op = mlir_sys::mlirOperationGetNextInBlock(op);
        }
    }
    ops
}

fn body(op: MlirOperation) -> mlir_sys::MlirBlock {
    // SAFETY: `op` is a live op with one region of one block (a module).
    unsafe { mlir_sys::mlirRegionGetFirstBlock(mlir_sys::mlirOperationGetRegion(op, 0)) }
}

fn name_of(op: MlirOperation) -> String {
    // SAFETY: a live op.
    unsafe { op_name(OperationRef::from_raw(op)) }
}

fn is_kernel(op: MlirOperation) -> bool {
    // SAFETY: attribute queries of a live op.
    unsafe {
        name_of(op) == "llvm.func"
            && (!mlir_sys::mlirOperationGetDiscardableAttributeByName(op, string_ref("gpu.kernel")).ptr.is_null()
                || !mlir_sys::mlirOperationGetDiscardableAttributeByName(op, string_ref("nvvm.kernel")).ptr.is_null())
    }
}

fn symbol(op: MlirOperation) -> String {
    // SAFETY: a live op; a string attribute's text.
    unsafe {
        let attr = mlir_sys::mlirOperationGetAttributeByName(op, string_ref("sym_name"));
        if attr.ptr.is_null() || !mlir_sys::mlirAttributeIsAString(attr) {
            return String::new();
        }
        tile_dialect::string_ref_text(mlir_sys::mlirStringAttrGetValue(attr))
    }
}

/// The `tile-split-kernels` pass.
#[derive(Clone, Default)]
pub struct SplitKernels;

impl TilePass for SplitKernels {
    const INFO: PassInfo = PassInfo {
        argument: "tile-split-kernels",
        name: "TileSplitKernels",
        summary: "Wrap a copy of each gpu.module for each of its kernels in a builtin.module of its own, so that a \
                  nested gpu-module-to-binary serialises the kernels in parallel (tile-join-binaries joins them)",
        op_name: "builtin.module",
    };
    crate::pass_type_id!();
}

impl<'c> RunExternalPass<'c> for SplitKernels {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, _pass: ExternalPass<'_>) {
        let top = operation.to_raw();
        let block = body(top);
        for module in block_ops(block) {
            if name_of(module) != "gpu.module" {
                continue;
            }
            let kernels: Vec<String> =
                block_ops(body(module)).into_iter().filter(|op| is_kernel(*op)).map(symbol).collect();
            let module_name = symbol(module);
            // SAFETY: ops created here are inserted into live blocks before
            // the original `gpu.module`, which is destroyed last; each clone
            // lacks only kernels, which nothing inside a gpu.module calls.
            // The other kernels are taken out of the module while it is
            // cloned (a clone of the whole module, then erasing them, copied
            // each kernel once per kernel) and put back where they were.
            unsafe {
                let context = mlir_sys::mlirOperationGetContext(module);
                let location = mlir_sys::mlirOperationGetLocation(module);
                let inner = body(module);
                let ops = block_ops(inner);
                for (index, kernel) in kernels.iter().enumerate() {
                    let others: Vec<usize> =
                        (0..ops.len()).filter(|&i| is_kernel(ops[i]) && symbol(ops[i]) != *kernel).collect();
                    for &i in &others {
                        mlir_sys::mlirOperationRemoveFromParent(ops[i]);
                    }
                    let clone = mlir_sys::mlirOperationClone(module);
                    for &i in &others {
                        match i.checked_sub(1) {
                            Some(before) => mlir_sys::mlirBlockInsertOwnedOperationAfter(inner, ops[before], ops[i]),
                            None => mlir_sys::mlirBlockInsertOwnedOperation(inner, 0, ops[i]),
                        }
                    }
                    let wrapper = mlir_sys::mlirModuleGetOperation(mlir_sys::mlirModuleCreateEmpty(location));
                    mlir_sys::mlirOperationSetDiscardableAttributeByName(
                        wrapper,
                        string_ref("gpu.container_module"),
                        mlir_sys::mlirUnitAttrGet(context),
                    );
                    let wrapper_name = format!("{module_name}{PART}{index}");
                    mlir_sys::mlirOperationSetAttributeByName(
                        wrapper,
                        string_ref("sym_name"),
                        mlir_sys::mlirStringAttrGet(context, string_ref(&wrapper_name)),
                    );
                    mlir_sys::mlirBlockAppendOwnedOperation(body(wrapper), clone);
                    mlir_sys::mlirBlockInsertOwnedOperationBefore(block, module, wrapper);
                }
                if !kernels.is_empty() {
                    mlir_sys::mlirOperationDestroy(module);
                }
            }
        }
    }
}

/// The `tile-join-binaries` pass.
#[derive(Clone, Default)]
pub struct JoinBinaries;

impl TilePass for JoinBinaries {
    const INFO: PassInfo = PassInfo {
        argument: "tile-join-binaries",
        name: "TileJoinBinaries",
        summary: "Join the PTX of the gpu.binary ops in tile-split-kernels' wrapper modules into one gpu.binary \
                  named as their gpu.module",
        op_name: "builtin.module",
    };
    crate::pass_type_id!();
}

impl<'c> RunExternalPass<'c> for JoinBinaries {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        let top = operation.to_raw();
        let block = body(top);
        // The wrappers of each gpu.module, in order, grouped by its name.
        let mut groups: Vec<(String, Vec<MlirOperation>)> = Vec::new();
        for op in block_ops(block) {
            if name_of(op) != "builtin.module" {
                continue;
            }
            let wrapper_name = symbol(op);
            let Some(at) = wrapper_name.rfind(PART) else { continue };
            let name = wrapper_name[..at].to_string();
            match groups.iter_mut().find(|(n, _)| *n == name) {
                Some((_, parts)) => parts.push(op),
                None => groups.push((name, vec![op])),
            }
        }
        for (name, wrappers) in groups {
            let mut binaries = Vec::new();
            for wrapper in &wrappers {
                match block_ops(body(*wrapper)).into_iter().find(|op| name_of(*op) == "gpu.binary") {
                    Some(binary) => binaries.push(binary),
                    None => {
                        // SAFETY: a live op's location.
                        let location =
                            unsafe { melior::ir::Location::from_raw(mlir_sys::mlirOperationGetLocation(*wrapper)) };
                        emit_error(location, "tile-join-binaries: a kernel's module has no gpu.binary");
                        pass.signal_failure();
                        return;
                    }
                }
            }
            // SAFETY: attribute reads of live gpu.binary ops; the joined
            // binary replaces the first part's `objects` and name and moves
            // before the wrappers, which are destroyed after.
            unsafe {
                let mut texts = Vec::new();
                let mut first_object = None;
                for binary in &binaries {
                    let objects = mlir_sys::mlirOperationGetAttributeByName(*binary, string_ref("objects"));
                    if objects.ptr.is_null() || mlir_sys::mlirArrayAttrGetNumElements(objects) != 1 {
                        emit_error(
                            melior::ir::Location::from_raw(mlir_sys::mlirOperationGetLocation(*binary)),
                            "tile-join-binaries: a part's gpu.binary has not one object",
                        );
                        pass.signal_failure();
                        return;
                    }
                    let object = mlir_sys::mlirArrayAttrGetElement(objects, 0);
                    texts.push(tile_dialect::string_ref_text(mlir_sys::mlirGPUObjectAttrGetObject(object)));
                    first_object.get_or_insert(object);
                }
                let object = first_object.expect("a group has a part");
                let joined = match join_ptx(&texts) {
                    Ok(joined) => joined,
                    Err(why) => {
                        emit_error(
                            melior::ir::Location::from_raw(mlir_sys::mlirOperationGetLocation(binaries[0])),
                            &format!("tile-join-binaries: {why}"),
                        );
                        pass.signal_failure();
                        return;
                    }
                };
                let context = mlir_sys::mlirOperationGetContext(binaries[0]);
                let properties = if mlir_sys::mlirGPUObjectAttrHasProperties(object) {
                    mlir_sys::mlirGPUObjectAttrGetProperties(object)
                } else {
                    mlir_sys::MlirAttribute { ptr: std::ptr::null() }
                };
                let new = mlir_sys::mlirGPUObjectAttrGet(
                    context,
                    mlir_sys::mlirGPUObjectAttrGetTarget(object),
                    mlir_sys::mlirGPUObjectAttrGetFormat(object),
                    string_ref(&joined),
                    properties,
                );
                let array = mlir_sys::mlirArrayAttrGet(context, 1, &new);
                mlir_sys::mlirOperationSetAttributeByName(binaries[0], string_ref("objects"), array);
                mlir_sys::mlirOperationSetAttributeByName(
                    binaries[0],
                    string_ref("sym_name"),
                    mlir_sys::mlirStringAttrGet(context, string_ref(&name)),
                );
                mlir_sys::mlirOperationMoveBefore(binaries[0], wrappers[0]);
                for wrapper in wrappers {
                    mlir_sys::mlirOperationDestroy(wrapper);
                }
            }
        }
    }
}

/// A top-level statement of a PTX module: its text, and whether it is a
/// definition (a function body or a variable) of symbol `name`.
struct Statement {
    text: String,
    name: String,
    defines: bool,
}

/// Splits a PTX module after its header into top-level statements: a line
/// at depth 0 ending in `;` or a `}` back at depth 0 ends one; comments and
/// blank lines go with the statement after them.
fn statements(body: &str) -> Vec<Statement> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut depth = 0i32;
    for line in body.lines() {
        current.push_str(line);
        current.push('\n');
        let code = line.split("//").next().unwrap_or("").trim();
        depth += code.matches('{').count() as i32 - code.matches('}').count() as i32;
        let ends = depth == 0 && (code.ends_with(';') || code.ends_with('}'));
        if ends {
            let text = std::mem::take(&mut current);
            let head: String = text
                .lines()
                .map(|l| l.split("//").next().unwrap_or("").trim())
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join(" ");
            let defines = head.contains('{') || !(head.contains(".func") || head.contains(".entry"));
            let name = symbol_name(&head);
            out.push(Statement { text, name, defines });
        }
    }
    if !current.trim().is_empty() {
        out.push(Statement { text: current, name: String::new(), defines: false });
    }
    out
}

/// The symbol a statement declares: a function's name (before its
/// parameter list), or a variable's (before `[`, `=` or `;`).
fn symbol_name(head: &str) -> String {
    let before = if head.contains(".func") || head.contains(".entry") {
        // `.func (.param .b32 r) name(` or `.entry name(`: the last word
        // before the parameter list's parenthesis.
        let start = if head.contains(".func (") { head.find(')').map_or(0, |i| i + 1) } else { 0 };
        let rest = &head[start..];
        rest[..rest.find('(').unwrap_or(rest.len())].to_string()
    } else {
        head[..head.find(['[', '=', ';']).unwrap_or(head.len())].to_string()
    };
    before.split_whitespace().last().unwrap_or("").to_string()
}

/// One PTX module of several: the first's header (up to `.address_size`),
/// then each part's statements in order, a statement already there (the
/// same text) once. A symbol two parts define differently is an error.
pub fn join_ptx(parts: &[String]) -> Result<String, String> {
    let mut out = String::new();
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut defined: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    for (i, part) in parts.iter().enumerate() {
        let split = part
            .find(".address_size")
            .and_then(|at| part[at..].find('\n').map(|end| at + end + 1))
            .ok_or_else(|| format!("part {i} has no PTX header"))?;
        let (header, body) = part.split_at(split);
        if i == 0 {
            out.push_str(header);
        }
        for statement in statements(body) {
            let key: String = statement
                .text
                .lines()
                .filter(|l| {
                    let t = l.trim();
                    !t.is_empty() && !t.starts_with("//")
                })
                .collect::<Vec<_>>()
                .join("\n");
            if key.is_empty() {
                // Comments alone (the file's last lines): keep the first's.
                if i == 0 {
                    out.push_str(&statement.text);
                }
                continue;
            }
            if seen.contains(&key) {
                continue;
            }
            if statement.defines && !statement.name.is_empty() {
                if let Some(other) = defined.get(&statement.name)
                    && *other != key
                {
                    return Err(format!("symbol '{}' is defined differently by two kernels", statement.name));
                }
                defined.insert(statement.name.clone(), key.clone());
            }
            seen.insert(key);
            out.push_str(&statement.text);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::join_ptx;

    const A: &str = "//\n// Generated\n//\n\n.version 8.0\n.target sm_90a\n.address_size 64\n\n.extern .shared .align 16 .b8 s[];\n.func  (.param .b32 func_retval0) f(\n\t.param .b32 f_param_0\n)\n;\n\t// .globl\ta\n.visible .entry a(\n\t.param .u64 a_param_0\n)\n{\n\tret;\n\n}\n.func  (.param .b32 func_retval0) f(\n\t.param .b32 f_param_0\n)\n{\n\tret;\n}\n";

    #[test]
    fn joins_and_dedups() {
        let b =
            A.replace("entry a(", "entry b(").replace("a_param_0", "b_param_0").replace("// .globl\ta", "// .globl\tb");
        let joined = join_ptx(&[A.to_string(), b]).unwrap();
        assert_eq!(joined.matches(".version").count(), 1);
        assert_eq!(joined.matches(".extern .shared").count(), 1);
        assert_eq!(joined.matches(".entry a(").count(), 1);
        assert_eq!(joined.matches(".entry b(").count(), 1);
        assert_eq!(joined.matches("f_param_0\n)\n{").count(), 1);
        assert_eq!(joined.matches("f_param_0\n)\n;").count(), 1);
    }

    #[test]
    fn refuses_different_definitions() {
        let b = A.replace("entry a(", "entry b(").replace("\tret;\n}\n", "\texit;\n}\n");
        assert!(join_ptx(&[A.to_string(), b]).is_err());
    }
}
