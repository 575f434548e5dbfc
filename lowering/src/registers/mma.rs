//! `tile.mma` on the tensor cores (Hopper `wgmma`), from tiles in
//! registers.
//!
//! The accumulator lives in registers in the `#tile.wgmma` layout, which is
//! the order `wgmma.mma_async` keeps its fragment in, so a loop carries it
//! and element-wise ops read and rescale it without moving it. The operands
//! go through shared memory: each thread writes its registers of A and of B
//! into a swizzled, K-major buffer (rows of up to 128 bytes of K, the
//! 16-byte chunks XOR-ed by the row as wgmma's 32, 64 and 128-byte swizzles
//! read them; a K wider than 128 bytes is cut into such blocks), whatever
//! layout they have: a loaded tile, a permuted one (a transposed operand)
//! or a computed one (attention's P). Then a proxy fence and a barrier, and
//! each warpgroup multiplies its 64-row blocks of the tile, one instruction
//! per 64 rows and K step, and waits.
//!
//! ```text
//! // A: M x K, B: K x N, C: M x N f32 in #tile.wgmma<warps_per_block = [4G, 1], instr_n = N>
//! store A's registers at swizzle(m * S + k * e) of buffer A, B's at swizzle(n * S + k * e) of buffer B
//! fence.proxy.async.shared::cta; bar.sync
//! wgmma.fence
//! for each 64-row block i of this warpgroup, each K step:
//!   d_i = wgmma.mma_async desc(A + rows of block i, step), desc(B, step), d_i   // m64nNk16 (k8 for tf32)
//! wgmma.commit_group; wgmma.wait_group 0
//! ```
//!
//! Caveats: the operands go through registers into shared memory every
//! time (no TMA, no ring of stages: a loop's loads are only issued one
//! iteration ahead into registers by `tile-prefetch-loads`, and each mma
//! is waited for), B is written transposed (K-major), one element at a
//! time unless its registers run along K, and the accumulator of a
//! 128-row tile takes 64 registers a thread beside the operands' (ptxas
//! reaches 255). BENCHMARKS.md, session 13, has what that costs: 0.07 to
//! 0.58 of cuBLAS, and 0.4-0.9 s to compile (LLVM's back end on the long
//! straight-line writes). f16 and bf16 operands into an f32 accumulator,
//! and f32 operands as tf32; M a multiple of 64, N a multiple of 8 up to
//! 256, K at least 32 bytes; other mmas keep the kernel on the general
//! path, with a remark saying why.

use super::{Lowering, concat, in_loop, slice};
use crate::{
    build::{At, element_bits, element_of},
    layout::LinearLayout,
    rewrite::IrValue,
};
use melior::{
    dialect::{arith, llvm, ods},
    ir::{
        Attribute, OperationRef, Type, ValueLike,
        attribute::IntegerAttribute,
        operation::{OperationBuilder, OperationLike},
        r#type::{IntegerType, MemRefType},
    },
};

/// Rows of one wgmma instruction (and of a warpgroup's share).
pub const WGMMA_M: i64 = 64;
/// Warps of a warpgroup.
pub const WARPGROUP_WARPS: i64 = 4;

/// The largest row of the swizzled operand buffers, in bytes.
const SWIZZLE: i64 = 128;

/// The wgmma element name of an operand type, and its K step.
pub fn operand_kind(element: &str) -> Option<(&'static str, i64)> {
    match element {
        "f16" => Some(("f16", 16)),
        "bf16" => Some(("bf16", 16)),
        "f32" => Some(("tf32", 8)),
        _ => None,
    }
}

/// Why the register path cannot put an mma of these shapes and types on
/// wgmma, if it cannot.
pub fn unsupported(a: (&[i64], &str), b: (&[i64], &str), accumulator: &str) -> Option<String> {
    let ([m, k], [_, n]) = (a.0, b.0) else { return Some("it is not two-dimensional".into()) };
    if a.1 != b.1 || operand_kind(a.1).is_none() || accumulator != "f32" {
        return Some(format!(
            "its types ({} x {} -> {accumulator}) are not f16, bf16 or f32 (tf32) operands into f32",
            a.1, b.1
        ));
    }
    let bytes = element_bytes_of(a.1);
    if m % WGMMA_M != 0 || n % 8 != 0 || *n > 256 || k * bytes < 32 {
        return Some(format!("its {m}x{n}x{k} shape is not a multiple of 64 rows, 8 to 256 columns and 32 bytes of K"));
    }
    None
}

fn element_bytes_of(name: &str) -> i64 {
    if name == "f32" { 4 } else { 2 }
}

/// Lowers one `tile.mma`.
pub fn lower<'c>(lowering: &mut Lowering<'c>, op: OperationRef<'c, 'c>) -> Option<()> {
    let context = lowering.context;
    let (a, b, c) = (op.operand(0).ok()?, op.operand(1).ok()?, op.operand(2).ok()?);
    let result = op.result(0).ok()?;
    // Loop-carried operands have their register types by now: shapes come
    // from the layouts, the element type from the registers.
    let (la, lb, lc) = (lowering.layout(a)?, lowering.layout(b)?, lowering.layout(c)?);
    let (ra, rb, rc) = (lowering.registers(a)?, lowering.registers(b)?, lowering.registers(c)?);
    let element = element_of(ra.r#type())?;
    let (m, k, n) = (la.shape[0], la.shape[1], lb.shape[1]);
    let (kind, k_step) = operand_kind(&element.to_string())?;
    let bytes = (element_bits(element)? / 8) as i64;
    let row = (k * bytes).min(SWIZZLE);
    let atom_k = row / bytes;
    let at = At::before(context, op)?;

    // The operands, K-major and swizzled, in shared memory.
    let buffer_a = scratch(lowering, m * k, element)?;
    let buffer_b = scratch(lowering, n * k, element)?;
    if in_loop(op) {
        // The last iteration's wgmmas read the buffers (each warpgroup
        // waited for its own; the barrier waits for the others).
        lowering.barrier(&at)?;
    }
    let operand = |rows: i64, row_dim: usize| Operand { rows, row_dim, row, atom_k, bytes };
    write(lowering, &at, buffer_a, ra, &la, &operand(m, 0))?;
    write(lowering, &at, buffer_b, rb, &lb, &operand(n, 1))?;
    at.insert(
        OperationBuilder::new("nvvm.fence.proxy", at.location)
            .add_attributes(&[
                (
                    melior::ir::Identifier::new(context, "kind"),
                    Attribute::parse(context, "#nvvm.proxy_kind<async.shared>")?,
                ),
                (melior::ir::Identifier::new(context, "space"), Attribute::parse(context, "#nvvm.shared_space<cta>")?),
            ])
            .build()
            .ok()?,
    );
    lowering.barrier(&at)?;

    // This warpgroup's rows: 64 g, then every 64 G rows below.
    let warpgroups = lc.warps() / WARPGROUP_WARPS;
    let warpgroup = at.divui(lowering.warp, at.index(WARPGROUP_WARPS)?)?;
    let base_a = shared_address(&at, buffer_a)?;
    let base_b = shared_address(&at, buffer_b)?;
    let own_rows = at.muli(warpgroup, at.index(WGMMA_M * row)?)?;
    let base_a = at.addi(base_a, own_rows)?;
    let per_block = (n / 2) as usize;
    let blocks = lc.registers() / per_block;
    let f32_type = Type::float32(context);
    let fragment = llvm::r#type::r#struct(context, &vec![f32_type; per_block], false);
    let i64_type: Type = IntegerType::new(context, 64).into();
    let shape = Attribute::parse(context, &format!("#nvvm.shape<m = {WGMMA_M}, n = {n}, k = {k_step}>"))?;
    let type_ab = Attribute::parse(context, &format!("#nvvm.wgmma_type<{kind}>"))?;
    let type_d = Attribute::parse(context, "#nvvm.wgmma_type<f32>")?;
    at.insert(OperationBuilder::new("nvvm.wgmma.fence.aligned", at.location).build().ok()?);
    let mut parts = Vec::new();
    for block in 0..blocks {
        let mut fragment_value = at.add(llvm::undef(fragment, at.location))?;
        let registers = slice(&at, rc, block * per_block, per_block)?;
        for i in 0..per_block {
            let value = super::extract(&at, registers, i)?;
            fragment_value = at.add(llvm::insert_value(
                context,
                fragment_value,
                melior::ir::attribute::DenseI64ArrayAttribute::new(context, &[i as i64]),
                value,
                at.location,
            ))?;
        }
        let block_rows = block as i64 * warpgroups * WGMMA_M * row;
        for step in 0..k / k_step {
            let (atom, within) = ((step * k_step) / atom_k, (step * k_step) % atom_k * bytes);
            let offset_a = atom * m * row + block_rows + within;
            let offset_b = atom * n * row + within;
            let descriptor_a = descriptor(&at, at.addi(base_a, at.index(offset_a)?)?, row, i64_type)?;
            let descriptor_b = descriptor(&at, at.addi(base_b, at.index(offset_b)?)?, row, i64_type)?;
            let named = |name: &str, value: Attribute<'c>| (melior::ir::Identifier::new(context, name), value);
            fragment_value = at.add(
                OperationBuilder::new("nvvm.wgmma.mma_async", at.location)
                    .add_operands(&[fragment_value, descriptor_a, descriptor_b])
                    .add_results(&[fragment])
                    .add_attributes(&[
                        named("shape", shape),
                        named("typeA", type_ab),
                        named("typeB", type_ab),
                        named("typeD", type_d),
                        named("scaleD", Attribute::parse(context, "#nvvm.wgmma_scale_out<one>")?),
                        named("scaleA", Attribute::parse(context, "#nvvm.wgmma_scale_in<one>")?),
                        named("scaleB", Attribute::parse(context, "#nvvm.wgmma_scale_in<one>")?),
                        named("layoutA", Attribute::parse(context, "#nvvm.mma_layout<row>")?),
                        named("layoutB", Attribute::parse(context, "#nvvm.mma_layout<col>")?),
                    ])
                    .build()
                    .ok()?,
            )?;
        }
        parts.push(fragment_value);
    }
    at.insert(OperationBuilder::new("nvvm.wgmma.commit.group.sync.aligned", at.location).build().ok()?);
    at.insert(
        OperationBuilder::new("nvvm.wgmma.wait.group.sync.aligned", at.location)
            .add_attributes(&[(
                melior::ir::Identifier::new(context, "group"),
                IntegerAttribute::new(i64_type, 0).into(),
            )])
            .build()
            .ok()?,
    );
    let mut registers = Vec::new();
    for part in parts {
        let values: Vec<IrValue> = (0..per_block)
            .map(|i| {
                at.add(llvm::extract_value(
                    context,
                    part,
                    melior::ir::attribute::DenseI64ArrayAttribute::new(context, &[i as i64]),
                    f32_type,
                    at.location,
                ))
            })
            .collect::<Option<_>>()?;
        // Pairs joined by shuffles, not one long chain of inserts: LLVM's
        // SLP vectoriser spends most of a second on a 64-element chain.
        let pairs: Vec<IrValue> =
            values.chunks(2).map(|pair| super::from_elements(&at, pair)).collect::<Option<_>>()?;
        registers.push(concat(&at, pairs)?);
    }
    let value = concat(&at, registers)?;
    lowering.map(result.into(), value);
    Some(())
}

/// How an operand sits in its buffer: `rows` rows (M of A, N of B, the
/// tile's dim `row_dim`) of `row` bytes of K, blocks of `atom_k` elements
/// of K after one another.
struct Operand {
    rows: i64,
    row_dim: usize,
    row: i64,
    atom_k: i64,
    bytes: i64,
}

/// A 1024-byte aligned shared buffer (a swizzle pattern repeats every 1024
/// bytes at most, and the descriptors assume it starts a repetition).
fn scratch<'c>(lowering: &Lowering<'c>, elements: i64, element: Type<'c>) -> Option<IrValue<'c>> {
    let context = lowering.context;
    let r#type = MemRefType::new(element, &[elements], None, None);
    let alignment = IntegerAttribute::new(IntegerType::new(context, 64).into(), 1024);
    lowering.entry.add(melior::dialect::memref::alloc(
        context,
        r#type,
        &[],
        &[],
        Some(alignment),
        lowering.entry.location,
    ))
}

/// Writes a thread's registers of an operand into its K-major swizzled
/// buffer.
fn write<'c>(
    lowering: &mut Lowering<'c>,
    at: &At<'c, 'c>,
    buffer: IrValue<'c>,
    registers: IrValue<'c>,
    layout: &LinearLayout,
    operand: &Operand,
) -> Option<()> {
    let k_dim = 1 - operand.row_dim;
    let shape = &layout.shape;
    // Registers that run along K, up to a 16-byte chunk, go as one vector.
    let k_stride = if k_dim == 1 { 1 } else { shape[1] as u64 };
    let mut width = 1usize;
    while (width as i64) * operand.bytes < 16
        && layout.register.get(width.trailing_zeros() as usize) == Some(&(k_stride * width as u64))
    {
        width *= 2;
    }
    let columns = shape[1];
    let mask = (operand.row - 16).max(0) & 0x70;
    super::convert::write_chunks(lowering, at, registers, layout, width, |at, chunk, flat| {
        let (i, j) = (at.divui(flat, at.index(columns)?)?, at.remui(flat, at.index(columns)?)?);
        let (row, kk) = if operand.row_dim == 0 { (i, j) } else { (j, i) };
        // Byte offset: the K block, then the row, then the swizzled
        // position in the row.
        let atom = at.divui(kk, at.index(operand.atom_k)?)?;
        let within = at.remui(kk, at.index(operand.atom_k)?)?;
        let x = at.addi(at.muli(row, at.index(operand.row)?)?, at.muli(within, at.index(operand.bytes)?)?)?;
        let swizzled = at.xori(x, at.andi(at.add(arith::shrui(x, at.index(3)?, at.location))?, at.index(mask)?)?)?;
        let block = at.muli(atom, at.index(operand.rows * operand.row)?)?;
        let offset = at.addi(block, swizzled)?;
        let index = at.divui(offset, at.index(operand.bytes)?)?;
        at.insert(super::convert::aligned_store_at(at, chunk, buffer, &[index], width * operand.bytes as usize)?);
        Some(())
    })
}

/// The shared-memory address of a buffer (bytes, `index`).
fn shared_address<'c>(at: &At<'c, 'c>, buffer: IrValue<'c>) -> Option<IrValue<'c>> {
    let context = at.context;
    let generic =
        at.add(ods::memref::extract_aligned_pointer_as_index(context, Type::index(context), buffer, at.location))?;
    let i64_type: Type = IntegerType::new(context, 64).into();
    let generic = at.add(arith::index_cast(generic, i64_type, at.location))?;
    let pointer = at.add(ods::llvm::inttoptr(context, llvm::r#type::pointer(context, 0), generic, at.location))?;
    let shared = at.add(ods::llvm::addrspacecast(context, llvm::r#type::pointer(context, 3), pointer, at.location))?;
    let address = at.add(ods::llvm::ptrtoint(context, i64_type, shared, at.location))?;
    at.add(arith::index_cast(address, Type::index(context), at.location))
}

/// A wgmma matrix descriptor of a K-major operand at shared `address`,
/// rows of `row` bytes swizzled: the address, the stride of 8 rows, the
/// swizzle mode (128, 64, 32 bytes: 1, 2, 3).
fn descriptor<'c>(at: &At<'c, 'c>, address: IrValue<'c>, row: i64, i64_type: Type<'c>) -> Option<IrValue<'c>> {
    let mode: i64 = match row {
        128 => 1,
        64 => 2,
        _ => 3,
    };
    let fixed = (1i64 << 16) | (((8 * row) >> 4) << 32) | (mode << 62);
    let start = at.andi(at.add(arith::shrui(address, at.index(4)?, at.location))?, at.index(0x3FFF)?)?;
    let start = at.add(arith::index_cast(start, i64_type, at.location))?;
    let fixed = at.int(i64_type, fixed)?;
    at.add(arith::ori(start, fixed, at.location))
}
