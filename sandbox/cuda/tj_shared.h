// tj_shared.h: __shared__ arrays with a race detector and bounds checks (part of tj_cuda.h).
//
// The translator turns `__shared__ float s[256];` into a per-block array reached through a View:
// s[i] gives a Ref that records every read and write of an element. Per element the shadow keeps
// the last writer and the readers of the current barrier epoch; an access that conflicts with
// another thread's access of the same epoch (write/read, read/write, write/write) is a race,
// unless both threads are lanes of one warp and a warp collective came between them.
// Elements start as 0xFF bytes (NaN for floats), so reading what nobody wrote gives a wrong result.
// Element types that are not arithmetic (float4, structs) are reached as plain references: no race
// detection for them, and none through a raw pointer taken from the array (atomics, decay).
#pragma once
#include <memory>

namespace tj {

struct Shadow {
  int writer = -1;
  unsigned wepoch = 0, wclock = 0;
  int reader = -1;  // -2: several threads
  unsigned repoch = 0, rclock = 0;
  int rwarp = -1;   // the warp of all readers of the epoch, or -2 if they are from several
};

struct Site {
  const char* name;
  size_t elem;
  long dims[4] = {1, 1, 1, 1};
  int ndim;
  bool dynamic;
  // per block:
  unsigned serial = 0;
  unsigned char* data = nullptr;
  Shadow* shadow = nullptr;
  long count = 0;

  Site(const char* n, size_t e, std::initializer_list<long> d, bool dyn = false)
      : name(n), elem(e), ndim(static_cast<int>(d.size())), dynamic(dyn) {
    int i = 0;
    for (long v : d) dims[i++] = v;
  }
};

TJ_CORE std::string shape_str(const Site& s) {
  if (s.ndim <= 1) return std::to_string(s.count) + " elements";
  std::string r = "shape ";
  for (int i = 0; i < s.ndim; ++i) r += "[" + std::to_string(s.dims[i]) + "]";
  return r;
}

// This block's storage of a site, made on first use.
TJ_CORE Site& storage(Site& s) {
  Block* b = g_block;
  if (!b) report("misuse", std::string("__shared__ array ") + s.name + " used outside a kernel");
  if (s.serial == b->serial) return s;
  s.serial = b->serial;
  if (s.dynamic) {
    s.count = static_cast<long>(g_launch->dyn_shared / s.elem);
    s.dims[0] = s.count;
  } else {
    s.count = 1;
    for (int i = 0; i < s.ndim; ++i) {
      if (s.dims[i] <= 0)
        report("bad shared array", where() + ": __shared__ array " + s.name +
                                       " has a dimension of " + std::to_string(s.dims[i]));
      s.count *= s.dims[i];
    }
    b->shared_bytes += s.count * s.elem;
    if (b->shared_bytes > shared_limit())
      report("bad launch", "kernel " + kernel_name() + " uses " +
                               std::to_string(b->shared_bytes) +
                               " bytes of shared memory per block (the __shared__ arrays up to " +
                               s.name + " and the dynamic part); the limit is " +
                               std::to_string(shared_limit()));
  }
  size_t bytes = s.count * s.elem;
  if (s.dynamic && b->dyn) {
    s.data = b->dyn;
  } else {
    if (s.dynamic) bytes = g_launch->dyn_shared;  // exact: ASan sees a step past its end
    s.data = static_cast<unsigned char*>(std::malloc(bytes ? bytes : 1));
    std::memset(s.data, 0xFF, bytes);
    b->owned.push_back(s.data);
    if (s.dynamic) b->dyn = s.data;
  }
  s.shadow = static_cast<Shadow*>(std::malloc(sizeof(Shadow) * (s.count ? s.count : 1)));
  std::uninitialized_fill_n(s.shadow, s.count ? s.count : 1, Shadow{});
  b->owned.push_back(s.shadow);
  return s;
}

TJ_CORE std::string index_str(const Site& s, const long* idx, int n) {
  std::string r = s.name;
  for (int i = 0; i < n; ++i) r += "[" + std::to_string(idx[i]) + "]";
  return r;
}

TJ_CORE std::string since(const Block& b) {
  return b.epoch ? "since the barrier on line " + std::to_string(b.epoch_line)
                 : "since the kernel started";
}

[[noreturn]] TJ_CORE void race(const Site& s, const long* idx, int n, const char* mine,
                              const char* theirs, int other) {
  std::string who = other == -2 ? "other threads" : "thread " + std::to_string(other);
  report("race", "kernel " + kernel_name() + ", block " + dim_str(blockIdx) + ": thread " +
                     std::to_string(g_cur->lin) + " " + mine + " " + index_str(s, idx, n) +
                     ", which " + who + " " + theirs + " " + since(*g_block) +
                     " (threads numbered x + y*blockDim.x + ...); put a __syncthreads() "
                     "between the two accesses");
}

TJ_CORE void access(Site& s, long flat, const long* idx, int n, bool write) {
  Thread& t = self("a __shared__ array access");
  Block& b = *g_block;
  Shadow& sh = s.shadow[flat];
  const int me = t.lin, warp = me / 32;
  const unsigned ep = b.epoch, clk = b.warp_clock[warp];
  auto ordered = [&](int other, unsigned other_clock) {
    return other >= 0 && other / 32 == warp && other_clock != clk;
  };
  if (sh.writer >= 0 && sh.writer != me && sh.wepoch == ep && !ordered(sh.writer, sh.wclock))
    race(s, idx, n, write ? "writes" : "reads", "wrote", sh.writer);
  if (write) {
    bool other_reader = sh.reader == -2 || (sh.reader >= 0 && sh.reader != me);
    bool warp_ordered = sh.rwarp == warp && sh.rclock != clk;
    if (sh.repoch == ep && other_reader && !warp_ordered)
      race(s, idx, n, "writes", "read", sh.reader);
    sh.writer = me;
    sh.wepoch = ep;
    sh.wclock = clk;
  } else {
    if (sh.repoch != ep || sh.reader == -1) {
      sh.reader = me;
      sh.rwarp = warp;
    } else if (sh.reader != me) {
      sh.reader = -2;
      if (sh.rwarp != warp) sh.rwarp = -2;
    }
    sh.repoch = ep;
    sh.rclock = clk;
  }
}

[[noreturn]] TJ_CORE void shared_oob(const Site& s, const long* idx, int n, bool write) {
  report("out of bounds", std::string("out-of-bounds ") + (write ? "write" : "read") + " of " +
                              index_str(s, idx, n) + " in kernel " + kernel_name() +
                              " (__shared__ " + s.name + " has " + shape_str(s) + "), block " +
                              dim_str(blockIdx) + (g_cur ? ", thread " + dim_str(g_cur->idx) : ""));
}

template <class T>
struct Ref {
  Site* s;
  long flat;
  long idx[4];
  int n;
  bool oob;

  T* ptr() const { return reinterpret_cast<T*>(s->data) + flat; }
  void touch(bool write) const {
    if (oob) shared_oob(*s, idx, n, write);
    access(*s, flat, idx, n, write);
  }
  operator T() const {
    touch(false);
    return *ptr();
  }
  const Ref& operator=(const T& v) const {
    touch(true);
    *ptr() = v;
    return *this;
  }
  const Ref& operator=(const Ref& o) const { return *this = static_cast<T>(o); }
  // A raw pointer: for atomics and pointer arithmetic; what goes through it is not tracked.
  T* operator&() const {
    if (oob && !(n == 1 && flat == s->count)) shared_oob(*s, idx, n, false);
    return ptr();
  }
#define TJ_COMPOUND(op)                 \
  template <class U>                    \
  const Ref& operator op(const U& v) const { \
    touch(false);                       \
    touch(true);                        \
    *ptr() op v;                        \
    return *this;                       \
  }
  TJ_COMPOUND(+=)
  TJ_COMPOUND(-=)
  TJ_COMPOUND(*=)
  TJ_COMPOUND(/=)
  TJ_COMPOUND(%=)
  TJ_COMPOUND(&=)
  TJ_COMPOUND(|=)
  TJ_COMPOUND(^=)
  TJ_COMPOUND(<<=)
  TJ_COMPOUND(>>=)
#undef TJ_COMPOUND
  const Ref& operator++() const { return *this += 1; }
  const Ref& operator--() const { return *this -= 1; }
  T operator++(int) const {
    T old = *this;
    *this += 1;
    return old;
  }
  T operator--(int) const {
    T old = *this;
    *this -= 1;
    return old;
  }
};

template <class T>
constexpr bool kTracked = std::is_arithmetic<T>::value;

template <class T, int K>
struct View {
  Site* s;
  long flat;
  long idx[4];
  int n;
  bool oob;

  template <class I>
  decltype(auto) operator[](I i) const {
    static_assert(std::is_integral<I>::value || std::is_enum<I>::value,
                  "a __shared__ array index must be an integer");
    long v = static_cast<long>(i);
    long dim = s->dims[n];
    long stride = 1;
    for (int d = n + 1; d < s->ndim; ++d) stride *= s->dims[d];
    bool bad = oob || v < 0 || v >= dim;
    if constexpr (K == 1) {
      if constexpr (kTracked<T>) {
        Ref<T> r{s, flat + v * stride, {idx[0], idx[1], idx[2], idx[3]}, n + 1, bad};
        r.idx[n] = v;
        return r;
      } else {
        long at[4] = {idx[0], idx[1], idx[2], idx[3]};
        at[n] = v;
        if (bad) shared_oob(*s, at, n + 1, false);
        return *(reinterpret_cast<T*>(s->data) + flat + v * stride);
      }
    } else {
      View<T, K - 1> r{s, flat + v * stride, {idx[0], idx[1], idx[2], idx[3]}, n + 1, bad};
      r.idx[n] = v;
      return r;
    }
  }
  // A 1-D array decays to a pointer, as in CUDA (e.g. to pass it to a __device__ function).
  template <int D = K, class = std::enable_if_t<D == 1>>
  operator T*() const {
    return reinterpret_cast<T*>(s->data) + flat;
  }
};

template <class T, int K>
View<T, K> shared_view(Site& s) {
  storage(s);
  return View<T, K>{&s, 0, {0, 0, 0, 0}, 0, false};
}

template <class T>
decltype(auto) shared_scalar(Site& s) {
  storage(s);
  return View<T, 1>{&s, 0, {0, 0, 0, 0}, 0, false}[0];
}

}  // namespace tj

// A shuffled shared-array element is its value (the generic version would shuffle the proxy).
template <class T>
T tj_shfl(int kind, const char* what, int line, unsigned mask, const ::tj::Ref<T>& v, int arg,
          int width = 32) {
  return tj_shfl<T>(kind, what, line, mask, static_cast<T>(v), arg, width);
}
