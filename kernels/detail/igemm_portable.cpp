// The int8 GEMM's portable micro-kernels (igemm_microkernels.inl on 4 int32 lanes of plain C++):
// the reference every SIMD level must match bit for bit.
#include <cstring>

#include <algorithm>

#include "kernels/detail/igemm.hpp"
#include "kernels/detail/transpose8.hpp"

#define IRLITE_INT8_TARGET

namespace irlite::nn::int8 {
namespace {

struct Vec {
    static constexpr int kLanes = 4;
    struct Reg {
        int32_t lane[kLanes];
    };
    static Reg zero() { return Reg{{0, 0, 0, 0}}; }
    static Reg load_i32(const int32_t* p) {
        Reg r;
        std::memcpy(r.lane, p, sizeof r.lane);
        return r;
    }
    static void to_float_store_rows(float* c, Reg acc, const float* alpha, const float* beta) {
        for (int j = 0; j < kLanes; ++j) c[j] = static_cast<float>(acc.lane[j]) * alpha[j] + beta[j];
    }
    static Reg set1(int32_t x) { return Reg{{x, x, x, x}}; }
    static Reg load_b(const uint8_t* p) {
        Reg r;
        for (int j = 0; j < kLanes; ++j)
            r.lane[j] = static_cast<int32_t>(p[4 * j]) | static_cast<int32_t>(p[4 * j + 1]) << 8 |
                        static_cast<int32_t>(p[4 * j + 2]) << 16 | static_cast<int32_t>(static_cast<uint32_t>(p[4 * j + 3]) << 24);
        return r;
    }
    static Reg broadcast_a(const int8_t* p) {
        uint32_t bits;
        std::memcpy(&bits, p, 4);
        Reg r;
        for (int j = 0; j < kLanes; ++j) r.lane[j] = static_cast<int32_t>(bits);
        return r;
    }
    static Reg dot(Reg acc, Reg b, Reg a) {
        for (int j = 0; j < kLanes; ++j) {
            const auto ub = static_cast<uint32_t>(b.lane[j]), ua = static_cast<uint32_t>(a.lane[j]);
            int32_t s = 0;
            for (int i = 0; i < 4; ++i)
                s += static_cast<int32_t>((ub >> (8 * i)) & 0xFF) * static_cast<int32_t>(static_cast<int8_t>((ua >> (8 * i)) & 0xFF));
            acc.lane[j] += s;
        }
        return acc;
    }
    static void to_float_store(float* c, Reg acc, float alpha, float beta) {
        for (int j = 0; j < kLanes; ++j) c[j] = static_cast<float>(acc.lane[j]) * alpha + beta;
    }
};

#include "kernels/detail/igemm_microkernels.inl"

}  // namespace

const Kernels& portable_kernels() {
    static const Kernels k = make_kernels();
    return k;
}

}  // namespace irlite::nn::int8
