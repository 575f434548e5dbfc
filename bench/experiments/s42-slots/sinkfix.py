import re,sys
f,out=sys.argv[1:3]
s=open(f).read()
pat=re.compile(r'\tmin\.u64 \t(%rd\d+), (%rd\d+), (\d+);\n\tcvt\.u32\.u64 \t(%r\d+), \1;\n\tshl\.b32 \t(%r\d+), \4, 6;\n')
defs=[(m[0],m[5]) for m in pat.finditer(s)]
# only those defined before the outer loop header (hoisted)
hdr=s.index('$L__BB0_4:') if '$L__BB0_4:' in s else 0
n=0
for txt,r in defs:
    i=s.index(txt)
    if i>hdr: continue
    s=s[:i]+s[i+len(txt):]
    # insert before each cp.async using r
    L=s.split('\n'); o=[]
    for l in L:
        if 'cp.async.bulk.tensor' in l and re.search(re.escape(r)+r'\b',l):
            o.append(txt.rstrip('\n')); n+=1
        o.append(l)
    s='\n'.join(o)
print('sunk',n,file=sys.stderr)
open(out,'w').write(s)
