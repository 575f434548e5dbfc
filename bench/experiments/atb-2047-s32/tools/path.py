import re,sys,collections
# usage: path.py file.nvd head_label taken_labels(comma) [notaken_default]
# Walks one path from head_label: a predicated BRA is taken iff its target is in `taken`; an unconditional
# BRA is followed; stops when it reaches head_label again (the back edge) or leaves the loop (a label in stop=).
f,start=sys.argv[1],sys.argv[2]
taken=set(x for x in sys.argv[3].split(',') if x) if len(sys.argv)>3 else set()
blocks=collections.OrderedDict(); order=[]; cur=None
for l in open(f):
    m=re.match(r'^(\.L_x_\d+):',l)
    if m: cur=m.group(1); blocks[cur]=[]; order.append(cur); continue
    m=re.match(r'\s+/\*[0-9a-f]+\*/\s+(.*?)\s*;',l)
    if m and cur: blocks[cur].append(m.group(1))
nxt={order[i]:order[i+1] for i in range(len(order)-1)}
b=start; cnt=collections.Counter(); total=0; path=[]; seq=[]
steps=0
while True:
    steps+=1
    if steps>500: print('too long'); break
    path.append(b); jumped=False
    for s in blocks[b]:
        toks=s.split(); pred=None
        if toks[0].startswith('@'): pred=toks[0]; toks=toks[1:]
        op=toks[0]; total+=1
        k=op.split('.')[0]
        if k in('LDG','STS','LDGSTS','LDS','HGMMA','BAR','ISETP','SEL','LOP3','IMAD','IADD3','PRMT'): k=op if k in ('LDG','STS','HGMMA','BAR') else k
        cnt[k]+=1
        if k in ('LDG','STS','HGMMA','BAR','BRA','BSSY','BSYNC','WARPGROUP','DEPBAR','LDGDEPBAR','MEMBAR'): seq.append((pred or '')+op)
        if op=='BRA':
            tgt=re.search(r'\((\.L_x_\d+)\)',s).group(1)
            if pred is None or tgt in taken: b=tgt; jumped=True; break
    if not jumped: b=nxt.get(b)
    if b is None or b==start: break
print('total',total,'blocks',len(path),'path',' '.join(path))
print(' '.join(f'{k}:{v}' for k,v in sorted(cnt.items(), key=lambda x:-x[1])))
if '-s' in sys.argv: print(' '.join(seq))
