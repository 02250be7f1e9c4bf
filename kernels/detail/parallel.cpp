#include "kernels/detail/parallel.hpp"

#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace irlite::detail {

void stream_copy(void* dst, const void* src, size_t bytes) {
    stream_copy_unfenced(dst, src, bytes);
    stream_fence();
}

void stream_fence() {
#if defined(__SSE2__)
    _mm_sfence();  // streamed lines are visible before anyone reads the output
#endif
}

void stream_copy_unfenced(void* dst, const void* src, size_t bytes) {
#if defined(__SSE2__)
    auto* d = static_cast<std::byte*>(dst);
    const auto* s = static_cast<const std::byte*>(src);
    // Up to the first 16-byte boundary of the destination with ordinary stores.
    const size_t head = std::min(bytes, (16 - reinterpret_cast<uintptr_t>(d) % 16) % 16);
    std::memcpy(d, s, head);
    d += head;
    s += head;
    bytes -= head;
    for (; bytes >= 64; bytes -= 64, d += 64, s += 64) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16));
        const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 32));
        const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 48));
        _mm_stream_si128(reinterpret_cast<__m128i*>(d), a);
        _mm_stream_si128(reinterpret_cast<__m128i*>(d + 16), b);
        _mm_stream_si128(reinterpret_cast<__m128i*>(d + 32), c);
        _mm_stream_si128(reinterpret_cast<__m128i*>(d + 48), e);
    }
    std::memcpy(d, s, bytes);
#else
    std::memcpy(dst, src, bytes);
#endif
}

}  // namespace irlite::detail
