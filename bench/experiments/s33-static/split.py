#!/usr/bin/env python3
"""split.py MODULE.ptx ENTRY OUT.ptx: writes the module header (everything
before the first .entry/.func) plus the one entry ENTRY."""
import re, sys
text = open(sys.argv[1]).read()
starts = [m.start() for m in re.finditer(r'^\.(?:visible|weak|extern)?\s*\.entry\s+\w+\(|^\.visible \.entry \w+\(', text, re.M)]
starts = sorted(set(m.start() for m in re.finditer(r'^(?:\.visible\s+)?\.entry\s+(\w+)\(', text, re.M)))
header = text[:starts[0]]
bounds = starts + [len(text)]
for a, b in zip(bounds, bounds[1:]):
    name = re.match(r'(?:\.visible\s+)?\.entry\s+(\w+)\(', text[a:]).group(1)
    if name == sys.argv[2]:
        open(sys.argv[3], 'w').write(header + text[a:b])
        break
else:
    sys.exit('no entry ' + sys.argv[2])
