#!/usr/bin/env python3
"""Splits a module's PTX into one file per `.entry` (module header kept):
OUT_DIR/[PREFIX]ENTRY.ptx.   usage: python3 split_entries.py FILE.ptx OUT_DIR [PREFIX]"""
import os, re, sys
text = open(sys.argv[1]).read()
out, prefix = sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else ''
os.makedirs(out, exist_ok=True)
parts = re.split(r'(?m)^(?=\.visible \.entry )', text)
for part in parts[1:]:
    name = re.match(r'\.visible \.entry (\w+)', part)[1]
    open(os.path.join(out, prefix + name + '.ptx'), 'w').write(parts[0] + part)
    print(prefix + name)
