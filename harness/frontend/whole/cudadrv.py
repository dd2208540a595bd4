"""The CUDA driver API through ctypes (libcuda.so.1, the driver itself: a GPU runner needs no Python package), as
much of it as launching a Triton kernel's cubin takes: a context, module and function, device memory, a tiled
tensor map, and a launch (a cluster launch for num_ctas > 1, as Triton's own launcher does).

Triton's kernel ABI (Triton 3.6 and 3.9, measured on their PTX): the arguments in order, a host tensor descriptor
as its CUtensorMap by value (128 bytes, 64-byte aligned) followed by its shape (32-bit) and strides (64-bit),
outermost first; then two pointers, the global and profile scratch (null when the kernel asks for none).
"""
import ctypes
import os

CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4
SWIZZLE = {0: 0, 32: 1, 64: 2, 128: 3}      # CUtensorMapSwizzle by Triton's swizzle bytes
L2_PROMOTION_128B = 2
FLOAT_OOB_FILL_NONE = 0


class CudaError(Exception):
    """A driver call that failed: its name and the driver's error name."""


class _LaunchAttr(ctypes.Structure):
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", ctypes.c_uint * 16)]


class _LaunchConfig(ctypes.Structure):
    _fields_ = [("gridDimX", ctypes.c_uint), ("gridDimY", ctypes.c_uint), ("gridDimZ", ctypes.c_uint),
                ("blockDimX", ctypes.c_uint), ("blockDimY", ctypes.c_uint), ("blockDimZ", ctypes.c_uint),
                ("sharedMemBytes", ctypes.c_uint), ("hStream", ctypes.c_void_p),
                ("attrs", ctypes.POINTER(_LaunchAttr)), ("numAttrs", ctypes.c_uint)]


class TensorMap:
    """A CUtensorMap: 128 bytes at a 64-byte-aligned address inside a larger buffer."""

    def __init__(self):
        self.buf = ctypes.create_string_buffer(128 + 64)
        self.addr = (ctypes.addressof(self.buf) + 63) // 64 * 64


def _dims_strides(shape, elem_bytes):
    """The driver's globalDim and globalStrides (bytes, rank - 1 of them; one unread 0 for rank 1) of a dense tensor
    of Triton's shape (outermost first)."""
    strides, s = [], elem_bytes
    for d in reversed(shape[1:]):
        s *= d
        strides.append(s)
    return ((ctypes.c_uint64 * len(shape))(*reversed(shape)),
            (ctypes.c_uint64 * max(len(shape) - 1, 1))(*(strides or [0])))


class Driver:
    def __init__(self):
        # the reasons docs/CLI.md names for a GPU verb's skip (harness/common/include/ptxcts/no_device.hpp)
        if os.environ.get("CUDA_VISIBLE_DEVICES") == "":
            raise CudaError("CUDA_VISIBLE_DEVICES is set but empty")
        try:
            self.lib = ctypes.CDLL("libcuda.so.1")
        except OSError as e:
            raise CudaError(f"no CUDA driver ({e})") from None
        try:
            self.call("cuInit", ctypes.c_uint(0))
        except CudaError as e:
            raise CudaError(f"the CUDA driver failed ({e})") from None
        dev, ctx, n = ctypes.c_int(), ctypes.c_void_p(), ctypes.c_int()
        self.call("cuDeviceGetCount", ctypes.byref(n))
        if n.value == 0:
            raise CudaError("no CUDA device on this host")
        self.call("cuDeviceGet", ctypes.byref(dev), ctypes.c_int(0))
        self.call("cuDevicePrimaryCtxRetain", ctypes.byref(ctx), dev)
        self.call("cuCtxSetCurrent", ctx)
        self.dev = dev

    def call(self, name, *args):
        r = getattr(self.lib, name)(*args)
        if r:
            s = ctypes.c_char_p()
            self.lib.cuGetErrorName(r, ctypes.byref(s))
            raise CudaError(f"{name}: {s.value.decode() if s.value else r}")

    def device(self):
        """(name, sm, driver version) of device 0."""
        buf = ctypes.create_string_buffer(256)
        self.call("cuDeviceGetName", buf, ctypes.c_int(256), self.dev)
        major, minor, ver = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        self.call("cuDeviceGetAttribute", ctypes.byref(major), ctypes.c_int(75), self.dev)
        self.call("cuDeviceGetAttribute", ctypes.byref(minor), ctypes.c_int(76), self.dev)
        self.call("cuDriverGetVersion", ctypes.byref(ver))
        return buf.value.decode(), f"sm_{major.value}{minor.value}", ver.value

    def load(self, image, name):
        mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
        self.call("cuModuleLoadData", ctypes.byref(mod), ctypes.c_char_p(image))
        self.call("cuModuleGetFunction", ctypes.byref(fn), mod, name.encode())
        return mod, fn

    def alloc(self, data):
        p = ctypes.c_uint64()
        self.call("cuMemAlloc_v2", ctypes.byref(p), ctypes.c_size_t(max(len(data), 16)))
        if data:
            self.call("cuMemcpyHtoD_v2", p, ctypes.c_char_p(bytes(data)), ctypes.c_size_t(len(data)))
        return p.value

    def write(self, ptr, data):
        self.call("cuMemcpyHtoD_v2", ctypes.c_uint64(ptr), ctypes.c_char_p(bytes(data)), ctypes.c_size_t(len(data)))

    def read(self, ptr, size):
        buf = ctypes.create_string_buffer(size)
        self.call("cuMemcpyDtoH_v2", buf, ctypes.c_uint64(ptr), ctypes.c_size_t(size))
        return buf.raw

    def tensor_map(self, elem_type, elem_bytes, ptr, shape, block, swizzle_bytes):
        """A tiled CUtensorMap of a dense tensor (Triton order: outermost first); zero OOB fill."""
        rank = len(shape)
        m = TensorMap()
        dims, gstr = _dims_strides(shape, elem_bytes)
        box = (ctypes.c_uint32 * rank)(*reversed(block))
        one = (ctypes.c_uint32 * rank)(*([1] * rank))
        self.call("cuTensorMapEncodeTiled", ctypes.c_void_p(m.addr), ctypes.c_int(elem_type), ctypes.c_uint(rank),
                  ctypes.c_void_p(ptr), dims, gstr, box, one, ctypes.c_int(0), ctypes.c_int(SWIZZLE[swizzle_bytes]),
                  ctypes.c_int(L2_PROMOTION_128B), ctypes.c_int(FLOAT_OOB_FILL_NONE))
        return m

    def tensor_map_im2col(self, elem_type, elem_bytes, ptr, shape, block, swizzle_bytes, lower, upper):
        """An im2col CUtensorMap of a dense tensor (Triton order: outermost first), block [pixels, channels]; the
        pixel box corners lower and upper (W first); zero OOB fill."""
        rank = len(shape)
        m = TensorMap()
        dims, gstr = _dims_strides(shape, elem_bytes)
        lo = (ctypes.c_int * (rank - 2))(*lower)
        hi = (ctypes.c_int * (rank - 2))(*upper)
        one = (ctypes.c_uint32 * rank)(*([1] * rank))
        self.call("cuTensorMapEncodeIm2col", ctypes.c_void_p(m.addr), ctypes.c_int(elem_type), ctypes.c_uint(rank),
                  ctypes.c_void_p(ptr), dims, gstr, lo, hi, ctypes.c_uint(block[1]), ctypes.c_uint(block[0]), one,
                  ctypes.c_int(0), ctypes.c_int(SWIZZLE[swizzle_bytes]), ctypes.c_int(L2_PROMOTION_128B),
                  ctypes.c_int(FLOAT_OOB_FILL_NONE))
        return m

    def launch(self, fn, params, threads, shared, ctas):
        """One program: ctas CTAs (a cluster of them when more than one) of threads each. params: ctypes objects
        (a TensorMap by value) in the kernel's parameter order."""
        if shared > 48 * 1024:
            self.call("cuFuncSetAttribute", fn, ctypes.c_int(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES),
                      ctypes.c_int(shared))
        ptrs = (ctypes.c_void_p * len(params))(*[p.addr if isinstance(p, TensorMap) else ctypes.addressof(p)
                                                   for p in params])
        cfg = _LaunchConfig(ctas, 1, 1, threads, 1, 1, shared, None, None, 0)
        attr = _LaunchAttr()
        if ctas > 1:
            attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
            attr.value[0], attr.value[1], attr.value[2] = ctas, 1, 1
            cfg.attrs, cfg.numAttrs = ctypes.pointer(attr), 1
        self.call("cuLaunchKernelEx", ctypes.byref(cfg), fn, ptrs, None)
        self.call("cuCtxSynchronize")
