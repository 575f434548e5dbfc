import sys,re
# fix.py in out anchor slot Areg Abase Aoff Ash Breg Bbase Boff Bsh which
f,out,anchor,slot,Areg,Abase,Aoff,Ash,Breg,Bbase,Boff,Bsh,which=sys.argv[1:]
s=open(f).read()
m=re.search(r'\.reg \.b64 \t%rd<(\d+)>;',s); n=int(m[1])
s=s.replace(m[0],'.reg .b64 \t%%rd<%d>;'%(n+10))
a,b,c=['%%rd%d'%(n+i) for i in range(3)]
ins=(f'\tcvt.u64.u32 \t{a}, {slot};\n' if not slot.startswith('%rd') else f'\tmov.b64 \t{a}, {slot};\n')
ins+=f'\tshl.b64 \t{b}, {a}, {Ash};\n\tadd.s64 \t{b}, {b}, {Abase};\n\tadd.s64 \t{b}, {b}, {Aoff};\n\tshl.b64 \t{c}, {a}, {Bsh};\n\tadd.s64 \t{c}, {c}, {Bbase};\n\tadd.s64 \t{c}, {c}, {Boff};\n'
i=s.index(anchor); j=s.index('\n',i)+1
s=s[:j]+ins+s[j:]
k=s.index('wgmma.fence.sync.aligned',j); e=s.index('wgmma.commit_group',k)
blk=s[k:e]; nA=nB=0
if 'A' in which: blk,nA=re.subn(r'(add\.s64 \t%rd\d+, %rd\d+, )'+re.escape(Areg)+';',r'\g<1>'+b+';',blk,count=1)
if 'B' in which: blk,nB=re.subn(r'(bfe\.u64 \t%rd\d+, )'+re.escape(Breg)+', 4, 14;',r'\g<1>'+c+', 4, 14;',blk,count=1)
print('subs',nA,nB, file=sys.stderr)
s=s[:k]+blk+s[e:]
open(out,'w').write(s)
