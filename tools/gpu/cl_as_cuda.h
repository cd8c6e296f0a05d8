/*
 * tools/gpu/cl_as_cuda.h: just enough OpenCL C for nvcc to compile a generated program of
 * scalar code as CUDA (tools/gpu/ptx_check.sh --nvvm), so that NVIDIA's own optimiser
 * (NVVM, which its OpenCL compiler is built on too) and ptxas produce the SASS whose size
 * and registers we compare without a GPU. Covers what 256-bit element-wise programs use
 * with -DFFU_SCALAR_LOADS: the integer type names, address-space and kernel qualifiers,
 * get_global_id(0) and mul_hi; anything else fails to compile, which is the signal to use
 * the clang path instead. Measurement aid only, never part of the library.
 */
#define uint unsigned int
#define ulong unsigned long long
#define uchar unsigned char
#define __kernel extern "C" __global__
#define __global
#define restrict __restrict__
#define get_global_id(d) ((size_t)blockIdx.x * blockDim.x + threadIdx.x)
static __device__ __forceinline__ uint mul_hi(uint a, uint b)
{
	return __umulhi(a, b);
}
static __device__ __forceinline__ ulong mul_hi(ulong a, ulong b)
{
	return __umul64hi(a, b);
}
