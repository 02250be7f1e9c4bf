// The instruction-set cap of the public API (irlite.hpp: active_isa, set_isa_cap) over
// kernels/detail/cpu_isa.hpp.
#include <fstream>

#include "irlite/irlite.hpp"
#include "kernels/detail/cpu_isa.hpp"
#include "kernels/detail/sgemm.hpp"

namespace irlite {

std::string active_isa() { return cpu::isa_name(cpu::active_isa()); }

void set_isa_cap(const std::string& name) {
    if (name.empty()) {
        cpu::reset_isa_cap_for_testing();
        return;
    }
    cpu::Isa isa;
    if (!cpu::parse_isa(name.c_str(), isa))
        throw Error(ErrorKind::Usage, "isa-unknown", str("unknown instruction set '", name, "' (sse, avx2 or avx512)"));
    cpu::set_isa_cap_for_testing(isa);
}

namespace {

std::string processor_name() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("model name", 0) != 0) continue;
        const size_t colon = line.find(':');
        if (colon == std::string::npos) break;
        const size_t begin = line.find_first_not_of(" \t", colon + 1);
        return begin == std::string::npos ? std::string() : line.substr(begin);
    }
    return {};
}

std::vector<std::string> kernel_features() {
    std::vector<std::string> out;
#if IRLITE_ISA_X86
    __builtin_cpu_init();
    // As the kernels see them: those of the detected level (IRLITE_CPU may lower it).
    const auto level = static_cast<int>(cpu::detected_isa());
#define IRLITE_FEATURE(name, min_level) \
    if (level >= static_cast<int>(min_level) && __builtin_cpu_supports(name)) out.push_back(name);
    IRLITE_FEATURE("sse4.2", cpu::Isa::Sse)
    IRLITE_FEATURE("avx2", cpu::Isa::Avx2)
    IRLITE_FEATURE("fma", cpu::Isa::Avx2)
    IRLITE_FEATURE("avx512f", cpu::Isa::Avx512)
    IRLITE_FEATURE("avx512bw", cpu::Isa::Avx512)
    IRLITE_FEATURE("avx512dq", cpu::Isa::Avx512)
    IRLITE_FEATURE("avx512vl", cpu::Isa::Avx512)
#undef IRLITE_FEATURE
    if (cpu::has_avx512_vnni()) out.push_back("avx512vnni");
    if (cpu::has_avx_vnni()) out.push_back("avxvnni");
    if (cpu::has_avx512_vbmi()) out.push_back("avx512vbmi");
#endif
    return out;
}

}  // namespace

CpuInfo cpu_info() {
    CpuInfo info;
    info.model = processor_name();
    info.features = kernel_features();
    info.detected_isa = cpu::isa_name(cpu::detected_isa());
    info.active_isa = cpu::isa_name(cpu::active_isa());
    // sgemm.hpp: gemm_isa_for, gemm_isa_for_conv (its forms differ only where AVX-512 runs at half rate).
    const nn::GemmIsa indexed = nn::gemm_isa_for_conv(nn::ConvGemmForm::IndexedB);
    const bool split = indexed != nn::gemm_isa_for_conv(nn::ConvGemmForm::PackedB);
    info.families = {
        {split ? "GEMM: convolutions reading B packed, MatMul with constant weights or of 64+ columns"
               : "GEMM: convolutions, MatMul with constant weights or of 64+ columns",
         nn::gemm_isa_name(nn::gemm_default_isa())},
        {"GEMM: MatMul of two run-time operands with < 64 columns", nn::gemm_isa_name(nn::gemm_isa_for(0))},
    };
    if (split)
        info.families.push_back(
            {"GEMM: convolutions reading B indexed or on < 16 pixels (AVX-512 at half rate)", nn::gemm_isa_name(indexed)});
    return info;
}

}  // namespace irlite
