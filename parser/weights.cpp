#include "parser/weights.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "irlite/error.hpp"

namespace irlite {
namespace {

[[noreturn]] void fail(const std::string& path, const char* what) {
    throw Error(ErrorKind::Io, "bin-unreadable",
                str("cannot ", what, " weights file '", path, "': ", std::strerror(errno)));
}

struct Mapping {
    void* addr = nullptr;
    size_t size = 0;
    ~Mapping() {
        if (addr) ::munmap(addr, size);
    }
};

}  // namespace

std::shared_ptr<WeightsBlob> map_weights_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail(path, "open");
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int saved = errno;
        ::close(fd);
        errno = saved;
        fail(path, "stat");
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        throw Error(ErrorKind::Io, "bin-unreadable", str("weights file '", path, "' is not a regular file"));
    }
    auto mapping = std::make_shared<Mapping>();
    mapping->size = static_cast<size_t>(st.st_size);
    if (mapping->size > 0) {
        void* addr = ::mmap(nullptr, mapping->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (addr == MAP_FAILED) {
            const int saved = errno;
            ::close(fd);
            errno = saved;
            fail(path, "map");
        }
        mapping->addr = addr;
    }
    ::close(fd);
    auto blob = std::make_shared<WeightsBlob>();
    blob->data = static_cast<const std::byte*>(mapping->addr);
    blob->size = mapping->size;
    blob->owner = mapping;
    blob->path = path;
    return blob;
}

std::shared_ptr<WeightsBlob> weights_from_memory(const void* data, size_t size, std::shared_ptr<const void> owner) {
    auto blob = std::make_shared<WeightsBlob>();
    blob->data = static_cast<const std::byte*>(data);
    blob->size = size;
    blob->owner = std::move(owner);
    return blob;
}

std::shared_ptr<WeightsBlob> weights_from_memory(std::vector<std::byte> bytes) {
    auto holder = std::make_shared<std::vector<std::byte>>(std::move(bytes));
    return weights_from_memory(holder->data(), holder->size(), holder);
}

}  // namespace irlite
