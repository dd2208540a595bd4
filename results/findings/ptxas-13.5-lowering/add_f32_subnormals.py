# cp.reduce.async.bulk .add.f32 on subnormal operands, on the GPU through the driver (cuModuleLoadData of PTX 9.0:
# driver 580 does not take PTX 9.4, so .add.noftz.f32 itself cannot be JIT-compiled there; ptxas 13.5 encodes it as
# this same instruction). Prints dst + src -> result for six pairs. python3 add_f32_subnormals.py (needs libcuda).
import ctypes as C,struct
P=""".version 9.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 a,.param .u64 i){
.reg .b32 %r<9>;.reg .b64 %d<9>;.reg .pred %p<3>;.shared .align 16 .b8 s[64];
ld.param.u64 %d1,[a];ld.param.u64 %d3,[i];mov.u32 %r1,%tid.x;setp.ne.u32 %p1,%r1,0;@%p1 bra D;
mov.u32 %r6,s;mov.u32 %r2,0;
L:mul.wide.u32 %d4,%r2,4;add.u64 %d5,%d3,%d4;ld.global.u32 %r3,[%d5];shl.b32 %r4,%r2,2;add.u32 %r5,%r6,%r4;st.shared.u32 [%r5],%r3;add.u32 %r2,%r2,1;setp.lt.u32 %p2,%r2,16;@%p2 bra L;
fence.proxy.async.shared::cta;
cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%d1],[%r6],64;
cp.async.bulk.commit_group;cp.async.bulk.wait_group 0;
D:ret;}"""
c=C.CDLL("libcuda.so.1")
def k(r):
 if r:raise SystemExit("cuda error %d"%r)
k(c.cuInit(0));d=C.c_int();k(c.cuDeviceGet(C.byref(d),0));x=C.c_void_p();k(c.cuCtxCreate_v2(C.byref(x),0,d))
m=C.c_void_p();k(c.cuModuleLoadData(C.byref(m),C.c_char_p(P.encode()+b"\0")));f=C.c_void_p();k(c.cuModuleGetFunction(C.byref(f),m,b"k"))
D=[0x10000,0x80010000,0x3f800000,0x800000,0x123,0]+[0x3f800000]*10
S=[0x10000,0x20000,0x10000,0x80000001,0,0x456]+[0]*10
a=C.c_uint64();i=C.c_uint64();k(c.cuMemAlloc_v2(C.byref(a),64));k(c.cuMemAlloc_v2(C.byref(i),64))
k(c.cuMemcpyHtoD_v2(a,struct.pack("16I",*D),64));k(c.cuMemcpyHtoD_v2(i,struct.pack("16I",*S),64))
g=(C.c_void_p*2)(C.cast(C.byref(a),C.c_void_p),C.cast(C.byref(i),C.c_void_p))
k(c.cuLaunchKernel(f,1,1,1,32,1,1,0,None,g,None));k(c.cuCtxSynchronize())
o=C.create_string_buffer(64);k(c.cuMemcpyDtoH_v2(o,a,64));R=struct.unpack("16I",o.raw)
n=C.create_string_buffer(100);c.cuDeviceGetName(n,100,d);v=C.c_int();c.cuDriverGetVersion(C.byref(v))
print(n.value.decode(),v.value)
for j in range(6):print("%08x + %08x -> %08x"%(D[j],S[j],R[j]))
