// tj_cuda.h: CUDA's execution model on a CPU, for checking the correctness of CUDA C++ kernels
// where there is no GPU. Each CUDA thread of a block is a fiber (ucontext) and the fibers of a
// block run one at a time on one OS thread; a fiber runs until it reaches a barrier, a warp
// collective or its end, then the next one runs. Blocks run one after the other.
//
// Why the order matters: between two barriers the threads of a block run in a fixed adversarial
// order (last thread first by default; TJ_CUDA_ORDER=forward|reverse|shuffle[:seed]), so code that
// forgets a __syncthreads() sees stale or poisoned (NaN) shared memory deterministically, and the
// shared-memory race detector (tj_shared.h) reports the conflicting pair whatever the order.
// A barrier that can never release is reported as a deadlock, with the thread ids, not a hang.
//
// Reports (race, deadlock, bad launch, shared-memory out of bounds) are one line on stderr,
// "TJ-CUDA <kind>: <message>", after which the process exits with status 86 (kReportExit).
// Global-memory out-of-bounds accesses are left to AddressSanitizer (build with
// -fsanitize=address,undefined); this header tells ASan about every fiber switch.
#pragma once
#define TJ_CUDA_EMULATION 1

#include <cfloat>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define TJ_ASAN 1
#include <sanitizer/common_interface_defs.h>
#endif

// CUDA's qualifiers mean nothing on a CPU.
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __forceinline__ inline
// __noinline__ is not defined here: glibc spells __attribute__((__noinline__)). The translator
// rewrites the student's __noinline__.
#define __launch_bounds__(...)
#define __align__(n) alignas(n)

struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};

// The built-in variables: the scheduler sets them before each switch into a fiber.
inline dim3 threadIdx{0, 0, 0};
inline dim3 blockIdx{0, 0, 0};
inline dim3 blockDim{1, 1, 1};
inline dim3 gridDim{1, 1, 1};
constexpr int warpSize = 32;

// The emulator's own functions: inline by default. Built with TJ_CUDA_PREBUILT, their bodies are
// only declarations for this file (GCC's gnu_inline: never emitted here) and come from tj_core.o,
// compiled once per compiler and flags (build.py): that halves the compile of a submission.
#if defined(TJ_CUDA_CORE_BUILD)
#define TJ_CORE
#elif defined(TJ_CUDA_PREBUILT)
#define TJ_CORE inline __attribute__((gnu_inline))
#else
#define TJ_CORE inline
#endif

namespace tj {

constexpr int kReportExit = 86;
constexpr int kMaxThreads = 1024;

enum class St : unsigned char { Ready, Barrier, Warp, Done };
enum WarpKind { kShflIdx, kShflUp, kShflDown, kShflXor, kBallot, kSyncWarp };

struct Thread {
  ucontext_t ctx;
  St st = St::Ready;
  dim3 idx;
  int lin = 0;           // linear index in the block: x + y*bx + z*bx*by
  int line = 0;          // the student's line where it waits
  const char* what = "";  // what it waits at
  // A warp collective in progress: this lane's operands, then its result.
  int wkind = 0, warg = 0, wwidth = 32, pred = 0;
  unsigned wmask = 0;
  uint64_t wval = 0, wres = 0;
  void* stack = nullptr;
  void* fake_stack = nullptr;
  void* sp = nullptr;  // the saved stack pointer (the fast switch)
};

struct Block {
  std::vector<Thread> th;
  int n = 0;
  unsigned epoch = 0;      // barriers released so far in this block
  int epoch_line = 0;      // the line of the last released barrier (0: kernel start)
  std::vector<unsigned> warp_clock;  // warp collectives released so far, per warp
  unsigned serial = 0;     // distinct for every block run, to reset shared arrays
  size_t shared_bytes = 0;
  std::vector<void*> owned;  // this block's shared allocations, freed when it ends
  unsigned char* dyn = nullptr;  // the dynamic shared memory: every extern __shared__ aliases it
  int bar_count = 0;       // __syncthreads_count/and/or: predicates of the arrivals
};

struct LaunchInfo {
  const char* kernel = nullptr;
  size_t dyn_shared = 0;
  void (*body)(void*) = nullptr;
  void* arg = nullptr;
};

inline LaunchInfo* g_launch = nullptr;
inline Block* g_block = nullptr;
inline Thread* g_cur = nullptr;
inline ucontext_t g_sched;
inline void* g_sched_sp = nullptr;
inline unsigned g_serial = 0;
inline const void* g_main_stack_lo = nullptr;
inline size_t g_main_stack_size = 0;

[[noreturn]] TJ_CORE void report(const char* kind, const std::string& msg) {
  std::fflush(stdout);
#ifdef TJ_ASAN
  // The stack names the student's line of the access (the caller reads the first .cu frame).
  if (g_cur) __sanitizer_print_stack_trace();
#endif
  std::fprintf(stderr, "\nTJ-CUDA %s: %s\n", kind, msg.c_str());
  std::fflush(stderr);
  _exit(kReportExit);
}

TJ_CORE std::string kernel_name() { return g_launch ? g_launch->kernel : "(host code)"; }

TJ_CORE std::string dim_str(dim3 d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

TJ_CORE std::string where() {
  std::string s = "kernel " + kernel_name() + ", block " + dim_str(blockIdx);
  if (g_cur) s += ", thread " + dim_str(g_cur->idx);
  return s;
}

// "0-15, 17, 20-31"
TJ_CORE std::string ranges(const std::vector<int>& ids) {
  std::string s;
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!s.empty()) s += ", ";
    s += std::to_string(ids[i]);
    if (j > i) s += "-" + std::to_string(ids[j]);
    i = j + 1;
  }
  return s;
}

// ---- fibers --------------------------------------------------------------------------------

TJ_CORE size_t stack_bytes() {
  static size_t b = [] {
    const char* e = std::getenv("TJ_CUDA_STACK_KIB");
    long kib = e ? std::atol(e) : 256;
    return static_cast<size_t>(kib < 16 ? 16 : kib) * 1024;
  }();
  return b;
}

// One stack per thread slot, kept across blocks and launches; the lowest page is a guard.
TJ_CORE void* stack_for(int slot) {
  static std::vector<void*> pool;
  while (static_cast<int>(pool.size()) <= slot) {
    void* p = mmap(nullptr, stack_bytes(), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) report("out of memory", "cannot map a stack for a CUDA thread");
    mprotect(p, 4096, PROT_NONE);
    pool.push_back(p);
  }
  return pool[slot];
}

// The switch: on x86-64, six callee-saved registers, the FP control words and the stack pointer
// (swapcontext also saves the signal mask, two system calls per switch: 3x slower). Elsewhere, or
// with TJ_CUDA_UCONTEXT defined, ucontext.
#if defined(__x86_64__) && !defined(TJ_CUDA_UCONTEXT)
#define TJ_FAST_SWITCH 1
}  // namespace tj
extern "C" void tj_switch_stack(void** save_sp, void* to_sp);
asm(R"(
  .text
  .weak tj_switch_stack
  .type tj_switch_stack,@function
tj_switch_stack:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size tj_switch_stack, .-tj_switch_stack
)");
namespace tj {
#endif

TJ_CORE void fiber_main() {
#ifdef TJ_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &g_main_stack_lo, &g_main_stack_size);
#endif
  g_launch->body(g_launch->arg);
  g_cur->st = St::Done;
#ifdef TJ_ASAN
  __sanitizer_start_switch_fiber(nullptr, g_main_stack_lo, g_main_stack_size);
#endif
#ifdef TJ_FAST_SWITCH
  tj_switch_stack(&g_cur->sp, g_sched_sp);  // never resumed
#endif
  setcontext(&g_sched);
}

// A new thread's first switch "returns" into fiber_main on its own stack.
TJ_CORE void prepare(Thread& t, const ucontext_t& base) {
#ifdef TJ_FAST_SWITCH
  (void)base;
  auto top = (reinterpret_cast<uintptr_t>(t.stack) + stack_bytes()) & ~uintptr_t(15);
  auto* sp = reinterpret_cast<uint64_t*>(top);
  *--sp = 0;                                           // fiber_main's return address: none
  *--sp = reinterpret_cast<uint64_t>(&fiber_main);     // where the switch's ret goes
  for (int i = 0; i < 6; ++i) *--sp = 0;               // rbp rbx r12 r13 r14 r15
  *--sp = 0x1F80ull | (0x037Full << 32);               // MXCSR, x87 control word: defaults
  t.sp = sp;
#else
  t.ctx = base;
  t.ctx.uc_stack.ss_sp = t.stack;
  t.ctx.uc_stack.ss_size = stack_bytes();
  t.ctx.uc_link = nullptr;
  makecontext(&t.ctx, fiber_main, 0);
#endif
}

TJ_CORE void enter(Thread& t) {
  g_cur = &t;
  threadIdx = t.idx;
#ifdef TJ_ASAN
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, t.stack, stack_bytes());
#endif
#ifdef TJ_FAST_SWITCH
  tj_switch_stack(&g_sched_sp, t.sp);
#else
  swapcontext(&g_sched, &t.ctx);
#endif
#ifdef TJ_ASAN
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
  g_cur = nullptr;
}

// Called on a fiber: back to the scheduler until this thread is released.
TJ_CORE void yield() {
  Thread& t = *g_cur;
#ifdef TJ_ASAN
  __sanitizer_start_switch_fiber(&t.fake_stack, g_main_stack_lo, g_main_stack_size);
#endif
#ifdef TJ_FAST_SWITCH
  tj_switch_stack(&t.sp, g_sched_sp);
#else
  swapcontext(&t.ctx, &g_sched);
#endif
#ifdef TJ_ASAN
  __sanitizer_finish_switch_fiber(t.fake_stack, nullptr, nullptr);
#endif
  g_cur = &t;
  threadIdx = t.idx;
}

TJ_CORE Thread& self(const char* what) {
  if (!g_cur) report("misuse", std::string(what) + " called outside a kernel (in host code)");
  return *g_cur;
}

// ---- the run order ---------------------------------------------------------------------------

struct Order {
  int kind = 1;  // 0 forward, 1 reverse, 2 shuffle
  uint64_t seed = 1;
};

TJ_CORE const Order& order() {
  static Order o = [] {
    Order r;
    const char* e = std::getenv("TJ_CUDA_ORDER");
    if (!e) return r;
    std::string s(e);
    if (s == "forward") r.kind = 0;
    if (s.rfind("shuffle", 0) == 0) {
      r.kind = 2;
      if (s.size() > 8) r.seed = std::strtoull(s.c_str() + 8, nullptr, 10) + 1;
    }
    return r;
  }();
  return o;
}

TJ_CORE void run_order(std::vector<int>& ids, unsigned epoch) {
  const Order& o = order();
  if (o.kind == 1) {
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int>(ids.size() - 1 - i);
  } else {
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int>(i);
  }
  if (o.kind == 2) {
    uint64_t x = o.seed * 0x9E3779B97F4A7C15ull + epoch + g_serial * 7919ull;
    for (size_t i = ids.size(); i > 1; --i) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      std::swap(ids[i - 1], ids[x % i]);
    }
  }
}

}  // namespace tj

#include "tj_sched.h"
#include "tj_shared.h"
#include "tj_device.h"
#include "tj_runtime.h"
