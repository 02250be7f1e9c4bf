// Steady-state infer() of a model with static shapes performs no heap allocation (the property
// that keeps small models fast). Counted at the lowest level: this binary interposes malloc and
// its siblings, so that allocations inside Eigen or the C++ runtime count too, as an LD_PRELOAD
// shim would count them. Not built with sanitizers, which own malloc themselves.
#include <gtest/gtest.h>
#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "engine/irlite.hpp"
#include "parser/npy.hpp"

extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
}

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};
void count() {
    if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

extern "C" {
void* malloc(size_t n) {
    count();
    return __libc_malloc(n);
}
void* calloc(size_t n, size_t m) {
    count();
    return __libc_calloc(n, m);
}
void* realloc(void* p, size_t n) {
    count();
    return __libc_realloc(p, n);
}
void* memalign(size_t a, size_t n) {
    count();
    return __libc_memalign(a, n);
}
void* aligned_alloc(size_t a, size_t n) {
    count();
    return __libc_memalign(a, n);
}
int posix_memalign(void** p, size_t a, size_t n) {
    count();
    *p = __libc_memalign(a, n);
    return *p ? 0 : ENOMEM;
}
}

namespace irlite {
namespace {

namespace fs = std::filesystem;

// Allocations made by `runs` inferences after two warm-up runs.
long allocations_per_run(const std::string& xml, int runs = 5) {
    const Model model = Model::read(xml);
    const CompiledModel compiled(model);
    InferRequest request = compiled.create_infer_request();
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < compiled.inputs().size(); ++i) {
        const PortInfo& p = compiled.inputs()[i];
        inputs.push_back(Tensor(p.type, p.shape.to_shape()));
        request.set_input(i, inputs.back());
    }
    request.infer();
    request.infer();
    allocations = 0;
    counting = true;
    for (int r = 0; r < runs; ++r) request.infer();
    counting = false;
    return allocations.load() / runs;
}

TEST(ZeroAllocation, CounterSeesAllocations) {
    allocations = 0;
    counting = true;
    void* volatile p = std::malloc(16);
    int* volatile q = new int[4];
    counting = false;
    std::free(p);
    delete[] q;
    EXPECT_GE(allocations.load(), 2) << "the counter must be able to fail";
}

TEST(ZeroAllocation, DemoModel) {
    EXPECT_EQ(allocations_per_run(std::string(IRLITE_SOURCE_DIR) + "/models/demo/model.xml"), 0);
}

TEST(ZeroAllocation, RealModels) {
    const fs::path shared = fs::path(IRLITE_SOURCE_DIR) / ".." / "shared" / "models-real";
    if (!fs::exists(shared)) GTEST_SKIP() << "the shared corpora are not beside this clone";
    for (const char* name : {"mlp", "lenet5", "resnet18", "mobilenet_v2", "squeezenet1_1", "transformer"}) {
        SCOPED_TRACE(name);
        EXPECT_EQ(allocations_per_run((shared / name / "model.xml").string()), 0) << name;
    }
}

}  // namespace
}  // namespace irlite
