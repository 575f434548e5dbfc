import re,sys,collections
# usage: pathcount.py file.ptx entry_label stop_label taken_preds(comma)
f,start,stop=sys.argv[1],sys.argv[2],sys.argv[3]
taken=set(sys.argv[4].split(',')) if len(sys.argv)>4 and sys.argv[4] else set()
lines=open(f).read().split('\n')
# strip inline asm braces: treat lines; skip comments/blank/{ }/.reg
blocks=collections.OrderedDict(); order=[]; cur=None
for l in lines:
    s=l.strip()
    m=re.match(r'^(\$L__BB\w+):',s)
    if m:
        cur=m.group(1); blocks[cur]=[]; order.append(cur); continue
    if cur is None: continue
    if not s or s.startswith('//') or s in ('{','}') or s.startswith('.reg') : continue
    if s.startswith('.visible') or s.startswith('.entry'): cur=None; continue
    blocks[cur].append(s)
nxt={order[i]:order[i+1] if i+1<len(order) else None for i in range(len(order))}
b=start; cnt=collections.Counter(); total=0; visited=[]
steps=0
while True:
    steps+=1
    if steps>10000: print('loop?'); break
    visited.append(b)
    jumped=False
    for s in blocks[b]:
        op=s.split()[0]
        if op.startswith('@'):
            pred=op[1:].lstrip('!'); neg=op[1:].startswith('!')
            ins=s.split()[1]
            total+=1; cnt[ins.split('.')[0]]+=1
            if ins.startswith('bra'):
                tgt=s.split()[-1].rstrip(';')
                t=(pred in taken)!=neg
                if t: b=tgt; jumped=True; break
            continue
        total+=1
        key=op.split('.')[0]
        if op.startswith('ld.') or op.startswith('st.') or op.startswith('cp.async') : key=op
        cnt[key]+=1
        if op.startswith('bra'):
            b=s.split()[-1].rstrip(';'); jumped=True; break
        if op.startswith('ret'): jumped=True; b=None; break
    if b is None: break
    if not jumped: b=nxt[b]
    if b==stop: break
print('total',total)
for k,v in cnt.most_common(): print(f'  {k}: {v}')
print('blocks',len(visited))
