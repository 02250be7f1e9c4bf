// The instruction-set cap of the public API (irlite.hpp: active_isa, set_isa_cap) over
// kernels/detail/cpu_isa.hpp.
#include "irlite/irlite.hpp"
#include "kernels/detail/cpu_isa.hpp"

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

}  // namespace irlite
