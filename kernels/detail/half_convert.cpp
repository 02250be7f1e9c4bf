#include "kernels/detail/half_convert.hpp"

#include "irlite/element_type.hpp"
#include "kernels/detail/cpu_isa.hpp"
#include "kernels/detail/parallel.hpp"

#if IRLITE_ISA_X86
#include <immintrin.h>
#endif

namespace irlite::detail {
namespace {

// Elements per chunk: 256 KiB of f32 output, as the other memory-bound kernels cut their work.
constexpr int64_t kGrain = kCopyGrainBytes / 4;

void widen_scalar(const uint16_t* in, float* out, int64_t n) {
    for (int64_t i = 0; i < n; ++i) out[i] = f16_to_f32(in[i]);
}
void narrow_scalar(const float* in, uint16_t* out, int64_t n) {
    for (int64_t i = 0; i < n; ++i) out[i] = f32_to_f16(in[i]);
}

#if IRLITE_ISA_X86
IRLITE_TARGET_AVX2 void widen_f16c(const uint16_t* in, float* out, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
    widen_scalar(in + i, out + i, n - i);
}
IRLITE_TARGET_AVX2 void narrow_f16c(const float* in, uint16_t* out, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    narrow_scalar(in + i, out + i, n - i);
}
#else
void widen_f16c(const uint16_t* in, float* out, int64_t n) { widen_scalar(in, out, n); }
void narrow_f16c(const float* in, uint16_t* out, int64_t n) { narrow_scalar(in, out, n); }
#endif

// `n` elements in chunks across the pool, each by the F16C loop when the active level has it (the
// Avx2 level includes F16C), else by the scalar one.
template <class In, class Out>
void convert_in_chunks(ThreadPool* pool, const In* in, Out* out, int64_t n, void (*f16c)(const In*, Out*, int64_t),
                       void (*scalar)(const In*, Out*, int64_t)) {
    const auto convert = IRLITE_ISA_X86 && cpu::active_isa() >= cpu::Isa::Avx2 ? f16c : scalar;
    for_chunks(pool, n, kGrain, [&](int64_t begin, int64_t end) { convert(in + begin, out + begin, end - begin); });
}

}  // namespace

void f16_to_f32_buffer(ThreadPool* pool, const uint16_t* in, float* out, int64_t n) {
    convert_in_chunks(pool, in, out, n, widen_f16c, widen_scalar);
}

void f32_to_f16_buffer(ThreadPool* pool, const float* in, uint16_t* out, int64_t n) {
    convert_in_chunks(pool, in, out, n, narrow_f16c, narrow_scalar);
}

}  // namespace irlite::detail
