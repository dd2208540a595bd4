; cp.reduce.async.bulk.tensor (.add, 1-D tile) next to the tensor copy's store: the same operands, one call each.
; PTX ISA: both "Requires sm_90 or higher" and "Introduced in PTX ISA version 8.0".
target triple = "nvptx64-nvidia-cuda"
declare void @llvm.nvvm.cp.async.bulk.tensor.reduce.add.tile.1d(ptr addrspace(3), ptr, i32, i64, i1)

define ptx_kernel void @reduce_add_1d(ptr addrspace(3) %src, ptr %tmap, i32 %c0, i64 %policy) {
  call void @llvm.nvvm.cp.async.bulk.tensor.reduce.add.tile.1d(ptr addrspace(3) %src, ptr %tmap, i32 %c0, i64 %policy, i1 0)
  ret void
}
