// Run-time choice of the instruction set of hot kernels.
//
// The default build targets a portable baseline (x86-64-v2: SSE4.2, POPCNT; see CMakeLists.txt), so
// the compiler's own vector code is 128 bits wide. A hot kernel that gains from AVX2 or AVX-512 is
// compiled once per level and picks its version at run time from active_isa():
//
//   detected_isa()  the best level this CPU supports: Avx512 (AVX-512 F, BW, DQ, VL and AVX2+FMA),
//                   Avx2 (AVX2, FMA, F16C, BMI1/2), or Sse (the baseline);
//   active_isa()    detected_isa(), capped by the environment variable IRLITE_ISA=sse|avx2|avx512
//                   (read once; an unknown value is ignored with a warning on stderr) or by
//                   set_isa_cap_for_testing. A cap above what the CPU supports is no cap: the
//                   level never exceeds detected_isa(). IRLITE_ISA is how tests, benchmarks and
//                   users exercise every path on one machine.
//   IRLITE_CPU=sse|avx2|avx512 (read once) makes detection itself report a CPU of at most that
//                   level without VNNI or VBMI, so that every choice made from the CPU (the int8
//                   kernels' level, which layers run in int8) is the one such a CPU would get:
//                   how an AVX2 machine without VNNI is measured on a newer one.
//
// How to write a multi-versioned kernel: put its inner loops (plain C++ loops, or an Eigen
// expression evaluated element by element: eltwise.hpp's isa_loop) in a lambda and call
//
//   cpu::run([&] { for (int64_t i = 0; i < n; ++i) out[i] = std::max(a[i], b[i]); });
//
// or cpu::run_at(isa, ...) with a level chosen once (e.g. stored in a prepared plan). run_at calls
// the lambda through one of three function templates: the baseline one, and two carrying target
// attributes (AVX2+FMA, AVX-512) and `flatten`, so that everything the lambda calls is inlined into
// them and compiled, and auto-vectorised, for that level; no -m flag is needed and gcc and clang
// both accept it. Keep the lambda to the hot loops: calls that cannot be inlined (through function
// pointers, into other translation units, libm's exp) stay calls to baseline code. Code that names
// vector widths (GCC vector extensions, intrinsics) works the same way: 256/512-bit vector types
// are lowered to real AVX2/AVX-512 instructions inside the clones. Eigen's own vectorised
// evaluation is not multi-versioned this way (Eigen picks its packet type from the -m macros of
// the translation unit: its assignment loops stay at the baseline's 128 bits).
//
// Determinism: a multi-versioned kernel is bit-identical for every thread count at each level
// (as every kernel must be). Across levels it is bit-identical when each element is computed by
// the same IEEE operations in the same order: exact per-element math (add, subtract, multiply,
// divide, sqrt, min, max, compare, select, conversions) always is. The compiler never reorders a
// floating-point sum on its own (no -ffast-math), so a reduction loop stays in source order unless
// written with explicit lanes. irlite compiles with -ffp-contract=off (CMakeLists.txt), so a*b+c
// is never fused into an FMA behind the code's back: FMA only where a kernel asks for it (the
// GEMM's micro-kernels: sgemm.hpp), and there results depend on the level.
#pragma once

#include <cstdint>

#include "engine/isa_trace.hpp"

namespace irlite::cpu {

enum class Isa : uint8_t { Sse = 0, Avx2 = 1, Avx512 = 2 };
inline constexpr int kNumIsas = 3;

Isa detected_isa();
Isa active_isa();
bool isa_supported(Isa isa);  // isa <= detected_isa()
// Extensions the kernels choose by, on a CPU whose detected level has them: AVX-512 VNNI and
// AVX-VNNI (the int8 dot products), AVX-512 VBMI (byte permutes across a register).
bool has_avx512_vnni();
bool has_avx_vnni();
bool has_avx512_vbmi();
// Whether this CPU's AVX-512 executes 512-bit operations as two 256-bit halves (AMD Zen 4, family
// 0x19): no more multiply-adds per cycle than AVX2, only fewer instructions, so kernel families
// whose AVX-512 form costs extra instructions choose their AVX2 form there (sgemm.hpp:
// gemm_isa_for_conv). False on a CPU without AVX-512.
bool avx512_half_rate();
const char* isa_name(Isa isa);  // "sse", "avx2", "avx512"
// Parses "sse", "avx2", "avx512" (also "baseline", "avx512f"); false on anything else.
bool parse_isa(const char* text, Isa& out);

// Tests: cap active_isa() at `cap` (as IRLITE_ISA does) until reset; not thread-safe with running
// inferences (set it between runs). reset_* returns to the environment's cap.
void set_isa_cap_for_testing(Isa cap);
void reset_isa_cap_for_testing();

}  // namespace irlite::cpu

#if defined(__x86_64__) || defined(__i386__)
#define IRLITE_ISA_X86 1
// What each level's clones may use. Avx2 is x86-64-v3's set; Avx512 is x86-64-v4's.
#define IRLITE_TARGET_AVX2 __attribute__((target("avx2,fma,f16c,bmi,bmi2,lzcnt,movbe,popcnt")))
#define IRLITE_TARGET_AVX512 \
    __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,f16c,bmi,bmi2,lzcnt,movbe,popcnt")))
#else
#define IRLITE_ISA_X86 0
#define IRLITE_TARGET_AVX2
#define IRLITE_TARGET_AVX512
#endif
// For helpers called from run()'s lambdas (vec_math.hpp): always inlined into each clone.
#define IRLITE_ISA_INLINE inline __attribute__((always_inline))

namespace irlite::cpu {

// f() compiled for one level each (see above). noinline keeps each clone a function of its own,
// so its target attribute applies to everything flattened into it.
template <class F>
__attribute__((flatten, noinline)) void run_sse(const F& f) {
    f();
}
template <class F>
IRLITE_TARGET_AVX2 __attribute__((flatten, noinline)) void run_avx2(const F& f) {
    f();
}
template <class F>
IRLITE_TARGET_AVX512 __attribute__((flatten, noinline)) void run_avx512(const F& f) {
    f();
}

// Runs f compiled for `isa` (which must be supported: active_isa() always is).
template <class F>
void run_at(Isa isa, const F& f) {
    record_isa_level(static_cast<int>(isa));  // for profiles (engine/isa_trace.hpp)
#if IRLITE_ISA_X86
    switch (isa) {
        case Isa::Avx512: run_avx512(f); return;
        case Isa::Avx2: run_avx2(f); return;
        case Isa::Sse: break;
    }
#else
    (void)isa;
#endif
    run_sse(f);
}
template <class F>
void run(const F& f) {
    run_at(active_isa(), f);
}

}  // namespace irlite::cpu
