import re,sys,collections
# usage: segments.py loop.ctl taken_labels(comma)
# Walks the interior path through a loop listing (ctl.py output), then splits it at the scoreboard events:
# the loads of each operand (first 8 LDG.E.128 = first operand, last 8 = second), the first wait on a scoreboard
# an operand's loads set, BAR.SYNC, the HGMMAs, the STS.128s; prints the instructions (and the sum of the
# stall fields, a lower bound of issue cycles for one warp) between consecutive events.
f=sys.argv[1]; taken=set(sys.argv[2].split(','))
rows=[]; labels={}
for l in open(f):
    l=l.rstrip('\n')
    m=re.match(r'^(\.L_x_\d+):',l)
    if m: labels[m.group(1)]=len(rows); rows.append(('L',m.group(1))); continue
    m=re.match(r'\s*([0-9a-f]+) st\s*(\d+) (.) wr(.) rd(.) wait\[([0-9, ]*)\]\s*(.*)$',l)
    if m: rows.append(('I',int(m.group(2)),m.group(4),m.group(6).strip(),m.group(7)))
path=[]; i=0; steps=0
while i<len(rows) and steps<5000:
    steps+=1
    r=rows[i]
    if r[0]=='L': i+=1; continue
    path.append(r)
    t=r[4]; toks=t.split(); pred=toks[0] if toks[0].startswith('@') else None; op=toks[1] if pred else toks[0]
    if op=='BRA':
        tgt=re.search(r'\((\.L_x_\d+)\)',t).group(1)
        if tgt not in labels: break   # the back edge (head label is not in the listing)
        if pred is None or tgt in taken: i=labels[tgt]; continue
    i+=1
ldg=[k for k,r in enumerate(path) if 'LDG.E.128' in r[4]]
sb=[set(),set()]
for n,k in enumerate(ldg): sb[0 if n<8 else 1].add(path[k][2])
events=[]
for n,k in enumerate(ldg): 
    if n in (0,7,8,15): events.append((k,f'LDG.128 #{n+1} ({"first" if n<8 else "second"} operand) sets SB{path[k][2]}'))
for o in (0,1):
    # a wait counts once the scoreboard was set by one of this operand's loads (not an earlier LDC's)
    armed=set()
    for k in range(ldg[8*o],len(path)):
        if k in ldg[8*o:8*o+8]: armed.add(path[k][2]); continue
        w=set(x.strip() for x in path[k][3].split(',') if x.strip())
        if w & armed: events.append((k,f'first wait on operand {o+1}\'s loads: {path[k][4][:50]}')); break
for k,r in enumerate(path):
    if 'BAR.SYNC' in r[4]: events.append((k,'BAR.SYNC'))
    if 'HGMMA' in r[4] and 'gsb0' in r[4]: events.append((k,'last HGMMA'))
    if 'WARPGROUP.DEPBAR' in r[4]: events.append((k,'WARPGROUP.DEPBAR (wait for the previous wgmma)'))
sts=[k for k,r in enumerate(path) if 'STS.128' in r[4]]
events.append((sts[0],'STS.128 #1')); events.append((sts[-1],f'STS.128 #{len(sts)}'))
events.sort()
prev=0
print(f'path: {len(path)} instructions, stall sum {sum(r[1] for r in path)}')
for k,e in events:
    seg=path[prev:k]
    print(f'  +{len(seg):4d} instr (stall sum {sum(r[1] for r in seg):4d})  -> [{k:4d}] {e}')
    prev=k
seg=path[prev:]
print(f'  +{len(seg):4d} instr (stall sum {sum(r[1] for r in seg):4d})  -> back edge')
