// tj_sched.h: barriers, warp collectives, the block scheduler and kernel launches (part of
// tj_cuda.h; include that instead).
#pragma once

namespace tj {

// ---- barriers ---------------------------------------------------------------------------------

TJ_CORE int barrier(int line, const char* what, int pred = 0) {
  Thread& t = self(what);
  t.st = St::Barrier;
  t.line = line;
  t.what = what;
  t.pred = pred != 0;
  yield();
  return g_block->bar_count;
}

// ---- warp collectives --------------------------------------------------------------------------

template <class T>
uint64_t to_bits(T v) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
                "warp shuffles take values of at most 8 bytes");
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}

template <class T>
T from_bits(uint64_t b) {
  T v;
  std::memcpy(&v, &b, sizeof(T));
  return v;
}

TJ_CORE uint64_t warp_op(int kind, unsigned mask, uint64_t val, int arg, int width, int pred,
                        const char* what, int line) {
  Thread& t = self(what);
  if (width <= 0 || width > 32 || (width & (width - 1)))
    report("bad warp operation", where() + ": width " + std::to_string(width) + " of " + what +
                                     " on line " + std::to_string(line) +
                                     " is not a power of two from 1 to 32");
  t.st = St::Warp;
  t.wkind = kind;
  t.wmask = mask;
  t.wval = val;
  t.warg = arg;
  t.wwidth = width;
  t.pred = pred != 0;
  t.line = line;
  t.what = what;
  yield();
  return t.wres;
}

// Results of one released collective: lanes holds the thread index of each lane (-1: none).
TJ_CORE void warp_results(Block& b, const int* lanes, unsigned members) {
  unsigned ballot = 0;
  for (int l = 0; l < 32; ++l)
    if ((members >> l & 1u) && b.th[lanes[l]].pred) ballot |= 1u << l;
  for (int l = 0; l < 32; ++l) {
    if (!(members >> l & 1u)) continue;
    Thread& t = b.th[lanes[l]];
    int w = t.wwidth, base = l / w * w, src = l;
    switch (t.wkind) {
      case kShflIdx: src = base + (t.warg & (w - 1)); break;
      case kShflUp: src = l - t.warg >= base ? l - t.warg : l; break;
      case kShflDown: src = l + t.warg < base + w ? l + t.warg : l; break;
      case kShflXor: src = (l ^ t.warg) < base + w && (l ^ t.warg) >= base ? l ^ t.warg : l; break;
      default: break;
    }
    if (t.wkind == kBallot) {
      t.wres = ballot & t.wmask;
    } else {
      // Reading a lane that is not part of this collective is undefined on a GPU; we give back
      // the reader's own value.
      t.wres = (members >> src & 1u) ? b.th[lanes[src]].wval : t.wval;
    }
    t.st = St::Ready;
  }
}

// Releases every warp group whose lanes have all arrived. Lanes arriving with the same mask form a
// group; the group is complete when every existing lane of the mask is there.
TJ_CORE bool release_warps(Block& b) {
  bool any = false;
  int nwarps = (b.n + 31) / 32;
  for (int w = 0; w < nwarps; ++w) {
    int lanes[32];
    unsigned exist = 0, waiting = 0;
    for (int l = 0; l < 32; ++l) {
      int i = w * 32 + l;
      lanes[l] = i < b.n ? i : -1;
      if (i < b.n) exist |= 1u << l;
      if (i < b.n && b.th[i].st == St::Warp) waiting |= 1u << l;
    }
    while (waiting) {
      int first = __builtin_ctz(waiting);
      unsigned mask = b.th[lanes[first]].wmask;
      unsigned members = 0;
      for (int l = 0; l < 32; ++l)
        if ((waiting >> l & 1u) && b.th[lanes[l]].wmask == mask) members |= 1u << l;
      waiting &= ~members;
      unsigned needed = mask & exist;
      if (!(members & (1u << first) & needed)) {
        report("bad warp operation",
               "kernel " + kernel_name() + ", block " + dim_str(blockIdx) + ": thread " +
                   std::to_string(lanes[first]) + " calls " + b.th[lanes[first]].what +
                   " on line " + std::to_string(b.th[lanes[first]].line) +
                   " with a mask that leaves out its own lane");
      }
      if (members != needed) continue;
      for (int l = 0; l < 32; ++l) {
        const Thread& a = b.th[lanes[first]];
        const Thread& t = b.th[lanes[l] < 0 ? lanes[first] : lanes[l]];
        if ((members >> l & 1u) && (t.wkind != a.wkind || t.line != a.line))
          report("bad warp operation",
                 "kernel " + kernel_name() + ", block " + dim_str(blockIdx) + ": lanes of warp " +
                     std::to_string(w) + " meet at different warp operations (" + a.what +
                     " on line " + std::to_string(a.line) + ", " + t.what + " on line " +
                     std::to_string(t.line) + ")");
      }
      warp_results(b, lanes, members);
      ++b.warp_clock[w];
      any = true;
    }
  }
  return any;
}

// ---- deadlock ----------------------------------------------------------------------------------

[[noreturn]] TJ_CORE void deadlock(Block& b) {
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  for (int i = 0; i < b.n; ++i) {
    const Thread& t = b.th[i];
    std::string key = t.st == St::Done
                          ? std::string("have exited")
                          : std::string("wait at ") + t.what + " on line " + std::to_string(t.line);
    bool found = false;
    for (auto& g : groups)
      if (g.first == key) g.second.push_back(i), found = true;
    if (!found) groups.push_back({key, {i}});
  }
  std::string msg = "kernel " + kernel_name() + ", block " + dim_str(blockIdx) +
                    ": no thread can go on (threads are numbered x + y*blockDim.x + "
                    "z*blockDim.x*blockDim.y): ";
  for (size_t k = 0; k < groups.size(); ++k) {
    if (k) msg += "; ";
    msg += "threads " + ranges(groups[k].second) + " " + groups[k].first;
  }
  msg += ". Every thread of a block must reach the same __syncthreads(), and every lane named in "
         "a warp operation's mask must reach it; a barrier inside a branch that not all threads "
         "take never releases.";
  report("deadlock", msg);
}

// ---- a block ------------------------------------------------------------------------------------

TJ_CORE void run_block(Block& b) {
  std::vector<int> ids(b.n);
  for (;;) {
    run_order(ids, b.epoch);
    for (int i : ids)
      if (b.th[i].st == St::Ready) enter(b.th[i]);
    if (release_warps(b)) continue;
    int done = 0, at_bar = 0, count = 0;
    for (const Thread& t : b.th) {
      done += t.st == St::Done;
      at_bar += t.st == St::Barrier;
      count += t.st == St::Barrier && t.pred;
    }
    if (done == b.n) return;
    if (at_bar == b.n) {
      b.bar_count = count;
      b.epoch_line = b.th[0].line;
      ++b.epoch;
      for (Thread& t : b.th) t.st = St::Ready;
      continue;
    }
    deadlock(b);
  }
}

TJ_CORE size_t& shared_limit() {
  static size_t limit = 48 * 1024;
  return limit;
}

// When a sanitizer stops the process, say where the emulation was: the caller names the kernel.
TJ_CORE void on_death() {
  std::fflush(stdout);  // what the program printed before the report (CASE lines) is kept
  std::fprintf(stderr, "\nTJ-CUDA-CONTEXT kernel=%s block=%s thread=%s\n",
               g_launch ? g_launch->kernel : "-", g_launch ? dim_str(blockIdx).c_str() : "-",
               g_cur ? dim_str(g_cur->idx).c_str() : "-");
}

TJ_CORE void launch_raw(LaunchInfo& li, dim3 grid, dim3 block) {
#ifdef TJ_ASAN
  static bool hooked = (__sanitizer_set_death_callback(on_death), true);
  (void)hooked;
#endif
  const std::string k = li.kernel;
  unsigned long nt = static_cast<unsigned long>(block.x) * block.y * block.z;
  if (nt == 0 || grid.x == 0 || grid.y == 0 || grid.z == 0)
    report("bad launch", "kernel " + k + " launched with an empty grid " + dim_str(grid) +
                             " or block " + dim_str(block) + "; every dimension must be >= 1");
  if (nt > kMaxThreads || block.z > 64)
    report("bad launch", "kernel " + k + " launched with blocks of " + dim_str(block) + " = " +
                             std::to_string(nt) +
                             " threads; a block holds at most 1024 threads (z at most 64)");
  if (grid.y > 65535 || grid.z > 65535)
    report("bad launch", "kernel " + k + " launched with grid " + dim_str(grid) +
                             "; gridDim.y and gridDim.z are at most 65535");
  if (li.dyn_shared > shared_limit())
    report("bad launch", "kernel " + k + " asks for " + std::to_string(li.dyn_shared) +
                             " bytes of dynamic shared memory; the limit is " +
                             std::to_string(shared_limit()) + " bytes per block");
  LaunchInfo* outer = g_launch;
  if (outer && g_cur) report("misuse", "kernel " + k + " launched from inside a kernel");
  g_launch = &li;
  ucontext_t base;
  getcontext(&base);
  gridDim = grid;
  blockDim = block;
  Block b;
  b.n = static_cast<int>(nt);
  b.th.resize(nt);
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        blockIdx = dim3(bx, by, bz);
        // One Block per launch, reset for each block: a fresh vector of threads per block
        // cost more (page faults) than the block's work.
        b.epoch = 0;
        b.epoch_line = 0;
        b.warp_clock.assign((nt + 31) / 32, 0);
        b.serial = ++g_serial;
        b.shared_bytes = li.dyn_shared;
        b.owned.clear();
        b.dyn = nullptr;
        b.bar_count = 0;
        for (int i = 0; i < b.n; ++i) {
          Thread& t = b.th[i];
          t.st = St::Ready;
          t.lin = i;
          t.idx = dim3(i % block.x, i / block.x % block.y, i / (block.x * block.y));
          t.stack = stack_for(i);
          t.fake_stack = nullptr;
          prepare(t, base);  // one getcontext per launch (ucontext): it costs a system call
        }
        g_block = &b;
        run_block(b);
        for (void* p : b.owned) std::free(p);
        g_block = nullptr;
      }
  g_launch = outer;
}

template <class... P>
struct Launcher {
  void (*fn)(P...);
  const char* name;
  dim3 grid, block;
  size_t shmem;

  template <class... A>
  void operator()(A&&... a) const {
    static_assert(sizeof...(A) == sizeof...(P), "wrong number of kernel arguments");
    using Call = std::pair<void (*)(P...), std::tuple<std::decay_t<P>...>>;
    Call call{fn, std::tuple<std::decay_t<P>...>(std::forward<A>(a)...)};
    LaunchInfo li;
    li.kernel = name;
    li.dyn_shared = shmem;
    li.arg = &call;
    li.body = [](void* p) {
      Call& c = *static_cast<Call*>(p);
      std::apply(c.first, c.second);  // a copy of every argument per thread, like a GPU
    };
    launch_raw(li, grid, block);
  }
};

// What the translator makes of `kernel<<<grid, block, shmem, stream>>>(args)`.
template <class... P>
Launcher<P...> launcher(void (*fn)(P...), const char* name, dim3 grid, dim3 block,
                        size_t shmem = 0, const void* stream = nullptr) {
  (void)stream;
  return Launcher<P...>{fn, name, grid, block, shmem};
}

}  // namespace tj

#define __syncthreads() ::tj::barrier(__LINE__, "__syncthreads()")
#define __syncthreads_count(p) ::tj::barrier(__LINE__, "__syncthreads_count()", (p))
#define __syncthreads_and(p) \
  (::tj::barrier(__LINE__, "__syncthreads_and()", (p)) == static_cast<int>(::tj::g_block->n))
#define __syncthreads_or(p) (::tj::barrier(__LINE__, "__syncthreads_or()", (p)) != 0)

template <class T>
T tj_shfl(int kind, const char* what, int line, unsigned mask, T v, int arg, int width = 32) {
  return ::tj::from_bits<T>(
      ::tj::warp_op(kind, mask, ::tj::to_bits(v), arg, width, 0, what, line));
}
#define __shfl_sync(m, v, ...) tj_shfl(::tj::kShflIdx, "__shfl_sync()", __LINE__, m, v, __VA_ARGS__)
#define __shfl_up_sync(m, v, ...) \
  tj_shfl(::tj::kShflUp, "__shfl_up_sync()", __LINE__, m, v, __VA_ARGS__)
#define __shfl_down_sync(m, v, ...) \
  tj_shfl(::tj::kShflDown, "__shfl_down_sync()", __LINE__, m, v, __VA_ARGS__)
#define __shfl_xor_sync(m, v, ...) \
  tj_shfl(::tj::kShflXor, "__shfl_xor_sync()", __LINE__, m, v, __VA_ARGS__)
#define __ballot_sync(m, p) \
  static_cast<unsigned>(::tj::warp_op(::tj::kBallot, m, 0, 0, 32, (p), "__ballot_sync()", __LINE__))
#define __any_sync(m, p) (__ballot_sync(m, p) != 0u)
#define __all_sync(m, p) (__ballot_sync(m, p) == ((m) & ::tj::lanes_alive_mask()))
// A call object rather than __VA_OPT__ (C++20): `__syncwarp()` and `__syncwarp(mask)` both
// compile under -std=c++17.
#define __syncwarp(...) ::tj::SyncWarpAt{__LINE__}(__VA_ARGS__)

namespace tj {
TJ_CORE unsigned lanes_alive_mask() {
  Thread& t = self("a warp operation");
  unsigned m = 0;
  int w = t.lin / 32;
  for (int l = 0; l < 32; ++l) {
    int i = w * 32 + l;
    if (i < g_block->n && g_block->th[i].st != St::Done) m |= 1u << l;
  }
  return m;
}
TJ_CORE void syncwarp(int line, unsigned mask = 0xffffffffu) {
  warp_op(kSyncWarp, mask, 0, 0, 32, 0, "__syncwarp()", line);
}
struct SyncWarpAt {
  int line;
  void operator()(unsigned mask = 0xffffffffu) const { syncwarp(line, mask); }
};
}  // namespace tj

inline unsigned __activemask() { return ::tj::lanes_alive_mask(); }
