// Instruction-set detection and the IRLITE_ISA cap: see cpu_isa.hpp.
#include "kernels/detail/cpu_isa.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace irlite::cpu {
namespace {

struct Features {
    Isa isa = Isa::Sse;
    bool avx512_vnni = false, avx_vnni = false, avx512_vbmi = false;
    bool amd_family_19h = false;  // a fact of the CPU, not a feature: IRLITE_CPU leaves it
};

#if IRLITE_ISA_X86
// AMD's family 0x19 (Zen 3 and Zen 4): of these, only Zen 4 has AVX-512, and it executes each
// 512-bit operation as two 256-bit halves. Zen 5 (family 0x1A) and Intel's AVX-512 cores run them
// at full width.
bool amd_family_19h() {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return false;
    char vendor[13] = {};
    std::memcpy(vendor, &b, 4);
    std::memcpy(vendor + 4, &d, 4);
    std::memcpy(vendor + 8, &c, 4);
    if (std::strcmp(vendor, "AuthenticAMD") != 0 || !__get_cpuid(1, &a, &b, &c, &d)) return false;
    const unsigned base = (a >> 8) & 0xF, extended = (a >> 20) & 0xFF;
    return (base == 0xF ? base + extended : base) == 0x19;
}
#endif

Features detect() {
    Features f;
#if IRLITE_ISA_X86
    __builtin_cpu_init();
    const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                      __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
    const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
    f.isa = avx512 ? Isa::Avx512 : avx2 ? Isa::Avx2 : Isa::Sse;
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (avx512 && __get_cpuid_count(7, 0, &a, &b, &c, &d)) {
        f.avx512_vnni = ((c >> 11) & 1) != 0;
        f.avx512_vbmi = ((c >> 1) & 1) != 0;
    }
    if (avx2 && __get_cpuid_count(7, 1, &a, &b, &c, &d)) f.avx_vnni = ((a >> 4) & 1) != 0;
    f.amd_family_19h = amd_family_19h();
#endif
    // IRLITE_CPU=sse|avx2|avx512: this CPU taken for one of that level without VNNI or VBMI.
    const char* as = std::getenv("IRLITE_CPU");
    if (as != nullptr && *as != '\0') {
        Isa level;
        if (parse_isa(as, level)) {
            f.isa = static_cast<uint8_t>(level) < static_cast<uint8_t>(f.isa) ? level : f.isa;
            f.avx512_vnni = f.avx_vnni = f.avx512_vbmi = false;
        } else {
            std::fprintf(stderr, "irlite: ignoring IRLITE_CPU=%s (expected sse, avx2 or avx512)\n", as);
        }
    }
    return f;
}

const Features& features() {
    static const Features f = detect();
    return f;
}

Isa env_cap() {
    const char* v = std::getenv("IRLITE_ISA");
    if (v == nullptr || *v == '\0') return Isa::Avx512;
    Isa cap;
    if (parse_isa(v, cap)) return cap;
    std::fprintf(stderr, "irlite: ignoring IRLITE_ISA=%s (expected sse, avx2 or avx512)\n", v);
    return Isa::Avx512;
}

Isa min_isa(Isa a, Isa b) { return static_cast<uint8_t>(a) < static_cast<uint8_t>(b) ? a : b; }

std::atomic<int> g_test_cap{-1};

}  // namespace

Isa detected_isa() { return features().isa; }

Isa active_isa() {
    static const Isa from_env = min_isa(detected_isa(), env_cap());
    const int forced = g_test_cap.load(std::memory_order_relaxed);
    return forced < 0 ? from_env : min_isa(detected_isa(), static_cast<Isa>(forced));
}

bool has_avx512_vnni() { return features().avx512_vnni; }
bool has_avx_vnni() { return features().avx_vnni; }
bool has_avx512_vbmi() { return features().avx512_vbmi; }
// From the detected level, so that IRLITE_CPU below AVX-512 leaves no half-rate AVX-512 behind.
bool avx512_half_rate() { return features().isa == Isa::Avx512 && features().amd_family_19h; }

bool isa_supported(Isa isa) { return static_cast<uint8_t>(isa) <= static_cast<uint8_t>(detected_isa()); }

const char* isa_name(Isa isa) {
    switch (isa) {
        case Isa::Sse: return "sse";
        case Isa::Avx2: return "avx2";
        case Isa::Avx512: return "avx512";
    }
    return "?";
}

bool parse_isa(const char* text, Isa& out) {
    if (text == nullptr) return false;
    struct Name {
        const char* text;
        Isa isa;
    };
    static constexpr Name kNames[] = {{"sse", Isa::Sse},       {"baseline", Isa::Sse},   {"sse4.2", Isa::Sse},
                                      {"avx2", Isa::Avx2},     {"avx512", Isa::Avx512}, {"avx512f", Isa::Avx512},
                                      {"native", Isa::Avx512}};
    for (const Name& n : kNames)
        if (std::strcmp(text, n.text) == 0) {
            out = n.isa;
            return true;
        }
    return false;
}

void set_isa_cap_for_testing(Isa cap) { g_test_cap.store(static_cast<int>(cap), std::memory_order_relaxed); }
void reset_isa_cap_for_testing() { g_test_cap.store(-1, std::memory_order_relaxed); }

}  // namespace irlite::cpu
