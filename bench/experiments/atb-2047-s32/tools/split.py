import re,sys
# usage: split.py in.ptx entry out.ptx -- the module header (every line before the first .entry) + that entry
lines=open(sys.argv[1]).read().split('\n'); name=sys.argv[2]
starts=[i for i,l in enumerate(lines) if re.match(r'^\.visible \.entry\s+\w+\(',l)]
hdr=lines[:starts[0]]
ends=starts[1:]+[len(lines)]
for s,e in zip(starts,ends):
    if re.match(r'^\.visible \.entry\s+(\w+)\(',lines[s]).group(1)!=name: continue
    body=lines[s:e]
    # drop the next entry's .globl comment / blank tail
    # up to the entry's closing brace (module-level lines after it belong to the next entry)
    last=max(i for i,l in enumerate(body) if l=='}')
    body=body[:last+1]
    hdr=[l for l in hdr if not l.strip().startswith('// .globl')]
    open(sys.argv[3],'w').write('\n'.join(hdr+body)+'\n')
    break
else: sys.exit('no entry '+name)
