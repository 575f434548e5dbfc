import os,re,sys,subprocess
# usage: ctrl.py file.cubin head_label [end_label]: the loop's straight-line instructions from head_label to the
# back branch, with the control bits (stall, yield, write/read scoreboard, wait mask) decoded from the encoding
# (Volta+ 128-bit: high word bits 41-44 stall, 45 yield, 46-48 write SB, 49-51 read SB, 52-57 wait mask; 7 = none).
cub=sys.argv[1]; head=sys.argv[2]; end=sys.argv[3] if len(sys.argv)>3 else None
out=subprocess.run([os.environ.get('NVDISASM','/tmp/ptxdiff/site2/nvidia/cu13/bin/nvdisasm'),'-hex','-c',cub],capture_output=True,text=True).stdout.split('\n')
ins=[]; cur=None; label=None
i=0
while i<len(out):
    l=out[i]
    m=re.match(r'^(\.L_x_\d+):',l)
    if m: label=m.group(1); ins.append(('LABEL',label)); i+=1; continue
    m=re.match(r'\s+/\*([0-9a-f]+)\*/\s+(.*?)\s*;\s*/\* 0x([0-9a-f]+) \*/',l)
    if m:
        addr,text,lo=m.group(1),m.group(2),int(m.group(3),16)
        hi=int(re.search(r'/\* 0x([0-9a-f]+) \*/',out[i+1]).group(1),16)
        ctl=hi>>41
        stall=ctl&0xf; yld=(ctl>>4)&1; wr=(ctl>>5)&7; rd=(ctl>>8)&7; wait=(ctl>>11)&0x3f
        ins.append((addr,text,stall,yld,wr,rd,wait)); i+=2; continue
    i+=1
# slice
s=[k for k,x in enumerate(ins) if x[0]=='LABEL' and x[1]==head][0]
sl=[]
for x in ins[s+1:]:
    if x[0]=='LABEL':
        if x[1]==end: break
        sl.append(x); continue
    sl.append(x)
    if x[1].startswith('BRA') and head in x[1]: break
for x in sl:
    if x[0]=='LABEL': print(f'{x[1]}:'); continue
    addr,text,stall,yld,wr,rd,wait=x
    w=','.join(str(b) for b in range(6) if wait>>b&1)
    print(f'{addr:>6} st{stall:2d} {"Y" if yld else " "} wr{wr if wr!=7 else "-"} rd{rd if rd!=7 else "-"} wait[{w:11s}] {text[:90]}')
