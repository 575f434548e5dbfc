import re,sys,collections
# usage: sasspath.py file.sass start_label stop_label taken_labels(comma)
f,start,stop=sys.argv[1],sys.argv[2],sys.argv[3]
taken=set(sys.argv[4].split(',')) if len(sys.argv)>4 else set()
blocks=collections.OrderedDict(); order=[]; cur=None
for l in open(f):
    m=re.match(r'^(\.L_x_\d+):',l)
    if m: cur=m.group(1); blocks[cur]=[]; order.append(cur); continue
    m=re.match(r'\s+/\*[0-9a-f]+\*/\s+(.*?)\s*;',l)
    if m and cur: blocks[cur].append(m.group(1))
nxt={order[i]:order[i+1] for i in range(len(order)-1)}
b=start; cnt=collections.Counter(); total=0; path=[]
while True:
    path.append(b); jumped=False
    for s in blocks[b]:
        toks=s.split()
        pred=None
        if toks[0].startswith('@'): pred=toks[0]; toks=toks[1:]
        op=toks[0]; total+=1
        k=op.split('.')[0]
        if k in('LDG','STS','LDGSTS','LDS','HGMMA','BAR'): k=op
        cnt[k]+=1
        if op=='BRA':
            tgt=re.search(r'\((\.L_x_\d+)\)',s).group(1)
            if pred is None or tgt in taken: b=tgt; jumped=True; break
    if not jumped: b=nxt.get(b)
    if b is None or b==stop: break
print('total',total, 'blocks',len(path))
print(' '.join(f'{k}:{v}' for k,v in cnt.most_common()))
