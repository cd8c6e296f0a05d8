"""tools/gpu/icd_probe.py: asks an OpenCL ICD library for its platforms directly (no loader),
to tell "the driver does not load" from "the driver has no platform" on a GPU machine:
    python3 tools/gpu/icd_probe.py /path/to/libnvidia-opencl.so.1"""
import ctypes, sys

lib = sys.argv[1]
try:
    h = ctypes.CDLL(lib, mode=ctypes.RTLD_GLOBAL)
except OSError as e:
    sys.exit(f"dlopen {lib}: {e}")
gfa = h.clGetExtensionFunctionAddress
gfa.restype = ctypes.c_void_p
gfa.argtypes = [ctypes.c_char_p]
addr = gfa(b"clIcdGetPlatformIDsKHR")
if not addr:
    sys.exit("clGetExtensionFunctionAddress(clIcdGetPlatformIDsKHR): NULL")
f = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint, ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint))(addr)
n = ctypes.c_uint(0)
rc = f(0, None, ctypes.byref(n))
print(f"clIcdGetPlatformIDsKHR: rc {rc}, {n.value} platforms")
