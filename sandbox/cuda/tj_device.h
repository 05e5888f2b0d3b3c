// tj_device.h: atomics, math and bit intrinsics of CUDA device code (part of tj_cuda.h).
// Threads run one at a time, so an atomic is a plain read-modify-write that returns the old value.
#pragma once

#define TJ_ATOMIC2(name, expr)                  \
  template <class T, class U>                   \
  inline T name(T* p, U v) {                    \
    T old = *p;                                 \
    T val = static_cast<T>(v);                  \
    *p = (expr);                                \
    return old;                                 \
  }
TJ_ATOMIC2(atomicAdd, old + val)
TJ_ATOMIC2(atomicSub, old - val)
TJ_ATOMIC2(atomicExch, val)
TJ_ATOMIC2(atomicMax, old < val ? val : old)
TJ_ATOMIC2(atomicMin, val < old ? val : old)
TJ_ATOMIC2(atomicAnd, old & val)
TJ_ATOMIC2(atomicOr, old | val)
TJ_ATOMIC2(atomicXor, old ^ val)
#undef TJ_ATOMIC2
#define atomicAdd_block atomicAdd
#define atomicMax_block atomicMax
#define atomicMin_block atomicMin

template <class T, class U, class V>
inline T atomicCAS(T* p, U compare, V val) {
  T old = *p;
  if (old == static_cast<T>(compare)) *p = static_cast<T>(val);
  return old;
}
inline unsigned atomicInc(unsigned* p, unsigned limit) {
  unsigned old = *p;
  *p = old >= limit ? 0u : old + 1u;
  return old;
}
inline unsigned atomicDec(unsigned* p, unsigned limit) {
  unsigned old = *p;
  *p = (old == 0u || old > limit) ? limit : old - 1u;
  return old;
}
inline void __threadfence() {}
inline void __threadfence_block() {}

// ---- math: the fast intrinsics are the precise functions here ---------------------------------
inline float __expf(float x) { return std::exp(x); }
inline float __exp10f(float x) { return std::pow(10.0f, x); }
inline float __logf(float x) { return std::log(x); }
inline float __log2f(float x) { return std::log2(x); }
inline float __log10f(float x) { return std::log10(x); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __tanf(float x) { return std::tan(x); }
inline float __powf(float x, float y) { return std::pow(x, y); }
inline float __fdividef(float x, float y) { return x / y; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return std::sqrt(x); }
inline float __fadd_rn(float x, float y) { return x + y; }
inline float __fsub_rn(float x, float y) { return x - y; }
inline float __fmul_rn(float x, float y) { return x * y; }
inline float __fdiv_rn(float x, float y) { return x / y; }
inline float __fmaf_rn(float x, float y, float z) { return std::fma(x, y, z); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float __frsqrt_rn(float x) { return 1.0f / std::sqrt(x); }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
inline float exp10f(float x) { return std::pow(10.0f, x); }
inline void sincosf(float x, float* s, float* c) { *s = std::sin(x), *c = std::cos(x); }
inline float normcdff(float x) { return 0.5f * std::erfc(-x / std::sqrt(2.0f)); }

inline float __int_as_float(int v) { float f; std::memcpy(&f, &v, 4); return f; }
inline int __float_as_int(float f) { int v; std::memcpy(&v, &f, 4); return v; }
inline float __uint_as_float(unsigned v) { float f; std::memcpy(&f, &v, 4); return f; }
inline unsigned __float_as_uint(float f) { unsigned v; std::memcpy(&v, &f, 4); return v; }
inline double __longlong_as_double(long long v) { double d; std::memcpy(&d, &v, 8); return d; }
inline long long __double_as_longlong(double d) { long long v; std::memcpy(&v, &d, 8); return v; }
inline int __float2int_rn(float x) { return static_cast<int>(std::nearbyint(x)); }
inline int __float2int_rz(float x) { return static_cast<int>(x); }
inline float __int2float_rn(int x) { return static_cast<float>(x); }

inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(unsigned x) { return x ? __builtin_clz(x) : 32; }
inline int __clzll(unsigned long long x) { return x ? __builtin_clzll(x) : 64; }
inline int __ffs(unsigned x) { return __builtin_ffs(static_cast<int>(x)); }
inline int __ffsll(unsigned long long x) { return __builtin_ffsll(static_cast<long long>(x)); }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline int __mul24(int a, int b) { return a * b; }
inline int __mulhi(int a, int b) { return static_cast<int>((static_cast<long long>(a) * b) >> 32); }

template <class T>
inline T __ldg(const T* p) { return *p; }

// CUDA's overloaded min/max for device code (non-templates, so a shared-array Ref converts).
inline int min(int a, int b) { return b < a ? b : a; }
inline int max(int a, int b) { return a < b ? b : a; }
inline unsigned min(unsigned a, unsigned b) { return b < a ? b : a; }
inline unsigned max(unsigned a, unsigned b) { return a < b ? b : a; }
inline long long min(long long a, long long b) { return b < a ? b : a; }
inline long long max(long long a, long long b) { return a < b ? b : a; }
inline unsigned long long min(unsigned long long a, unsigned long long b) { return b < a ? b : a; }
inline unsigned long long max(unsigned long long a, unsigned long long b) { return a < b ? b : a; }
inline float min(float a, float b) { return std::fmin(a, b); }
inline float max(float a, float b) { return std::fmax(a, b); }
inline double min(double a, double b) { return std::fmin(a, b); }
inline double max(double a, double b) { return std::fmax(a, b); }

// ---- vector types ------------------------------------------------------------------------------
#define TJ_VEC2(T, N, A) \
  struct alignas(A) N##2 { T x, y; }; \
  inline N##2 make_##N##2(T x, T y) { return N##2{x, y}; }
#define TJ_VEC4(T, N, A) \
  struct alignas(A) N##4 { T x, y, z, w; }; \
  inline N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }
TJ_VEC2(float, float, 8)
TJ_VEC4(float, float, 16)
TJ_VEC2(int, int, 8)
TJ_VEC4(int, int, 16)
TJ_VEC2(unsigned, uint, 8)
TJ_VEC4(unsigned, uint, 16)
TJ_VEC2(double, double, 16)
#undef TJ_VEC2
#undef TJ_VEC4
struct float3 { float x, y, z; };
inline float3 make_float3(float x, float y, float z) { return float3{x, y, z}; }
inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return uint3{x, y, z}; }
inline dim3 make_dim3(unsigned x, unsigned y, unsigned z) { return dim3(x, y, z); }

// ---- printf: a shared-array element prints as its value, not as the proxy object --------------
namespace tj {
template <class T>
T unref(const Ref<T>& r) { return static_cast<T>(r); }
template <class T>
const T& unref(const T& v) { return v; }
}  // namespace tj
template <class... A>
int tj_printf(const char* fmt, const A&... a) {
  return std::printf(fmt, ::tj::unref(a)...);
}
namespace std {
using ::tj_printf;
}
#define printf(...) tj_printf(__VA_ARGS__)
