"""Counts the instructions of a Hopper cubin's mma loop without a
disassembler (BENCHMARKS.md, session 40, run 7).

  table:  python3 sass_ops.py table DEVICE.sass... > optable.json
          (from `cuobjdump --dump-sass` output made on the device: the low
          12 bits of each instruction's first 64-bit word name it)
  count:  python3 sass_ops.py count optable.json KERNEL.cubin ENTRY
          (the instructions from the first HGMMA's mbarrier wait to past
          the last HGMMA: how many, the uniform ones, the R2URs)
"""
import collections, json, re, struct, sys


def table(paths):
    ops = collections.defaultdict(collections.Counter)
    for path in paths:
        for line in open(path):
            m = re.match(r'\s+/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_.]+).*?/\* (0x[0-9a-f]{16}) \*/', line)
            if m:
                ops[int(m[2], 16) & 0xfff][m[1].split('.')[0]] += 1
    return {k: v.most_common(1)[0][0] for k, v in ops.items()}


def sections(data):
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    headers = [struct.unpack_from('<IIQQQQ', data, shoff + i * shentsize) for i in range(shnum)]
    names = headers[shstrndx][4]
    return {data[names + h[0]: data.index(b'\0', names + h[0])].decode(): data[h[4]: h[4] + h[5]] for h in headers}


def mnemonics(optable, cubin, entry):
    text = sections(open(cubin, 'rb').read())['.text.' + entry]
    words = [struct.unpack_from('<Q', text, i)[0] & 0xfff for i in range(0, len(text), 16)]
    return [optable.get(w, f'?{w:03x}') for w in words]


def mma_loop(ops):
    first = ops.index('HGMMA')
    last = len(ops) - 1 - ops[::-1].index('HGMMA')
    start = max(i for i in range(first) if ops[i] == 'SYNCS')
    return ops[start:last + 8]


if __name__ == '__main__':
    if sys.argv[1] == 'table':
        json.dump(table(sys.argv[2:]), sys.stdout)
    else:
        optable = {int(k): v for k, v in json.load(open(sys.argv[2])).items()}
        loop = mma_loop(mnemonics(optable, sys.argv[3], sys.argv[4]))
        print(f'{len(loop)} instructions, {sum(o.startswith("U") for o in loop)} uniform, {loop.count("R2UR")} R2UR')
