import re,sys
# usage: model.py loop.ctl taken_labels L [L...]
# One warp's K step on the interior path, in order: each instruction issues `stall` cycles after the previous
# one; an LDG sets its write scoreboard ready L cycles after it issues (a scoreboard is ready when all loads
# on it are); any other producer (LDC, LDS, S2R...) sets it ready 30 cycles later; an instruction that
# waits on a scoreboard issues no earlier than it is ready. Loads of the previous K step are taken as
# complete at the loop head. No other warp, no memory throughput: a latency-only lower bound.
f=sys.argv[1]; taken=set(sys.argv[2].split(',')); Ls=[int(x) for x in sys.argv[3:]]
rows=[]; labels={}
for l in open(f):
    m=re.match(r'^(\.L_x_\d+):',l.rstrip())
    if m: labels[m.group(1)]=len(rows); rows.append(None); continue
    m=re.match(r'\s*([0-9a-f]+) st\s*(\d+) (.) wr(.) rd(.) wait\[([0-9, ]*)\]\s*(.*)$',l.rstrip())
    if m: rows.append((int(m.group(2)),m.group(4),m.group(5),m.group(6).strip(),m.group(7)))
path=[]; i=0
while i<len(rows):
    r=rows[i]
    if r is None: i+=1; continue
    path.append(r); t=r[4]; toks=t.split(); pred=toks[0] if toks[0].startswith('@') else None; op=toks[1] if pred else toks[0]
    if op=='BRA':
        tgt=re.search(r'\((\.L_x_\d+)\)',t).group(1)
        if tgt not in labels: break
        if pred is None or tgt in taken: i=labels[tgt]; continue
    i+=1
for L in Ls:
    t=0; ready={}; waited=0
    for stall,wr,rd,wait,text in path:
        w=[x.strip() for x in wait.split(',') if x.strip()]
        need=max([ready.get(x,0) for x in w]+[t])
        waited+=need-t; t=need
        if wr!='-':
            lat=L if 'LDG' in text else 30
            ready[wr]=max(ready.get(wr,0),t+lat)
        if rd!='-': ready[rd]=max(ready.get(rd,0),t+20)
        t+=stall
    print(f'L={L}: {t} cycles ({waited} waiting)')
