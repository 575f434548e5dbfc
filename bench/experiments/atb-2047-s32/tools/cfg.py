import re,sys
# usage: cfg.py file.nvd [from_line to_line]: labels, branches (with direction), memory/mma/barrier ops, counts between
f=sys.argv[1]; lo=int(sys.argv[2]) if len(sys.argv)>2 else 1; hi=int(sys.argv[3]) if len(sys.argv)>3 else 10**9
lines=open(f).read().split('\n')
lab={}
for i,l in enumerate(lines,1):
    m=re.match(r'^(\.L_x_\d+):',l)
    if m: lab[m.group(1)]=i
n=0
for i,l in enumerate(lines,1):
    if i<lo or i>hi: continue
    m=re.match(r'^(\.L_x_\d+):',l)
    if m: print(f'{i:6d} {m.group(1)}:   [{n} instr before]'); n=0; continue
    m=re.match(r'\s+/\*([0-9a-f]+)\*/\s+(.*?)\s*;',l)
    if not m: continue
    s=m.group(2); n+=1
    if re.search(r'\bBRA\b|BSSY|BSYNC|EXIT|BAR\.|HGMMA|LDG|STS|WARPSYNC|DEPBAR|CALL|RET',s):
        t=re.search(r'\((\.L_x_\d+)\)',s)
        d=''
        if t and 'BRA' in s: d='  <-- back' if lab[t.group(1)]<i else '  --> fwd'
        print(f'{i:6d}   {s[:110]}{d}')
