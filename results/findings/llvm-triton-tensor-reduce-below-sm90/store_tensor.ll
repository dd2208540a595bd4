; The tensor store (s2g, 1-D tile) with the same operands: the control, refused below sm_90 / PTX 8.0.
target triple = "nvptx64-nvidia-cuda"
declare void @llvm.nvvm.cp.async.bulk.tensor.s2g.tile.1d(ptr addrspace(3), ptr, i32, i64, i1)

define ptx_kernel void @store_1d(ptr addrspace(3) %src, ptr %tmap, i32 %c0, i64 %policy) {
  call void @llvm.nvvm.cp.async.bulk.tensor.s2g.tile.1d(ptr addrspace(3) %src, ptr %tmap, i32 %c0, i64 %policy, i1 0)
  ret void
}
