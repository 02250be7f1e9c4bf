#include "parser/npy.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>

#include "engine/error.hpp"

namespace irlite {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

[[noreturn]] void bad(const std::string& name, const std::string& why) {
    throw Error(ErrorKind::Input, "npy-malformed", str(name, ": not a valid .npy file: ", why));
}

// A tiny parser for the header's Python dict literal: {'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), } with keys in any order and any spacing.
class HeaderParser {
public:
    HeaderParser(std::string_view text, const std::string& name) : s_(text), name_(name) {}

    void parse(std::string& descr, bool& fortran, Shape& shape) {
        bool have_descr = false, have_fortran = false, have_shape = false;
        expect('{');
        while (true) {
            skip_space();
            if (peek() == '}') break;
            const std::string key = string_literal();
            expect(':');
            skip_space();
            if (key == "descr") {
                descr = string_literal();
                have_descr = true;
            } else if (key == "fortran_order") {
                fortran = boolean();
                have_fortran = true;
            } else if (key == "shape") {
                shape = tuple();
                have_shape = true;
            } else {
                bad(name_, "unexpected header key '" + key + "'");
            }
            skip_space();
            if (peek() == ',') {
                ++i_;
                continue;
            }
            skip_space();
            if (peek() != '}') bad(name_, "expected ',' or '}' in the header");
        }
        if (!have_descr || !have_fortran || !have_shape) bad(name_, "the header lacks 'descr', 'fortran_order' or 'shape'");
    }

private:
    char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
    void skip_space() {
        while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    void expect(char c) {
        skip_space();
        if (peek() != c) bad(name_, std::string("expected '") + c + "' in the header");
        ++i_;
    }
    std::string string_literal() {
        skip_space();
        const char q = peek();
        if (q != '\'' && q != '"') bad(name_, "expected a string in the header");
        const size_t end = s_.find(q, i_ + 1);
        if (end == std::string_view::npos) bad(name_, "unterminated string in the header");
        std::string out(s_.substr(i_ + 1, end - i_ - 1));
        i_ = end + 1;
        return out;
    }
    bool boolean() {
        if (s_.substr(i_, 4) == "True") {
            i_ += 4;
            return true;
        }
        if (s_.substr(i_, 5) == "False") {
            i_ += 5;
            return false;
        }
        bad(name_, "fortran_order must be True or False");
    }
    Shape tuple() {
        expect('(');
        Shape shape;
        while (true) {
            skip_space();
            if (peek() == ')') {
                ++i_;
                return shape;
            }
            if (!std::isdigit(static_cast<unsigned char>(peek()))) bad(name_, "shape must be a tuple of non-negative integers");
            int64_t v = 0;
            while (std::isdigit(static_cast<unsigned char>(peek()))) {
                const int digit = peek() - '0';
                if (v > (std::numeric_limits<int64_t>::max() - digit) / 10) bad(name_, "a shape dim is too large");
                v = v * 10 + digit;
                ++i_;
            }
            // numpy may write 3L in old Python 2 files.
            if (peek() == 'L') ++i_;
            shape.push_back(v);
            if (shape.size() > 64) bad(name_, "more than 64 dims");
            skip_space();
            if (peek() == ',') ++i_;
            else if (peek() != ')') bad(name_, "expected ',' or ')' in the shape");
        }
    }

    std::string_view s_;
    const std::string& name_;
    size_t i_ = 0;
};

uint32_t read_le(const unsigned char* p, int bytes) {
    uint32_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

// Fortran order stores the first index fastest. Walk the C-order output with an odometer and
// keep the matching Fortran offset incrementally (no per-element index arithmetic over all dims).
void copy_fortran_to_c(const unsigned char* src, Tensor& out) {
    const Shape& shape = out.shape();
    const size_t rank = shape.size();
    const size_t elem = element_size(out.type());
    std::vector<int64_t> f_stride(rank, 1);  // in elements
    for (size_t i = 1; i < rank; ++i) f_stride[i] = f_stride[i - 1] * shape[i - 1];
    std::vector<int64_t> index(rank, 0);
    int64_t f_offset = 0;
    unsigned char* dst = static_cast<unsigned char*>(out.data());
    for (int64_t n = 0; n < out.num_elements(); ++n) {
        std::memcpy(dst + static_cast<size_t>(n) * elem, src + static_cast<size_t>(f_offset) * elem, elem);
        for (size_t d = rank; d-- > 0;) {
            f_offset += f_stride[d];
            if (++index[d] < shape[d]) break;
            f_offset -= f_stride[d] * shape[d];
            index[d] = 0;
        }
    }
}

}  // namespace

Tensor parse_npy(const void* bytes, size_t size, const std::string& name) {
    const auto* p = static_cast<const unsigned char*>(bytes);
    if (size < 10 || std::memcmp(p, kMagic, 6) != 0) bad(name, "missing the \\x93NUMPY magic");
    const int major = p[6];
    if (major < 1 || major > 3) bad(name, str("format version ", major, ".", int(p[7]), " is not supported (1.0 to 3.0 are)"));
    const int len_bytes = major == 1 ? 2 : 4;
    if (size < static_cast<size_t>(8 + len_bytes)) bad(name, "truncated header");
    const size_t header_len = read_le(p + 8, len_bytes);
    const size_t data_start = 8 + static_cast<size_t>(len_bytes) + header_len;
    if (header_len > size || data_start > size) bad(name, "the header is longer than the file");
    std::string descr;
    bool fortran = false;
    Shape shape;
    HeaderParser(std::string_view(reinterpret_cast<const char*>(p) + 8 + len_bytes, header_len), name)
        .parse(descr, fortran, shape);
    ElementType type;
    try {
        type = element_type_from_npy(descr);
    } catch (const Error& e) {
        throw Error(e.kind(), e.code(), str(name, ": ", e.message()));
    }
    size_t bytes_needed;
    try {
        bytes_needed = checked_byte_size(shape, element_size(type));
    } catch (const Error& e) {
        throw Error(ErrorKind::Input, "npy-malformed", str(name, ": ", e.message()));
    }
    const size_t have = size - data_start;
    if (have != bytes_needed)
        bad(name, str("shape ", to_string(shape), " of ", descr, " needs ", bytes_needed, " data bytes, the file has ", have));
    Tensor t(type, shape);
    if (fortran && shape.size() > 1) copy_fortran_to_c(p + data_start, t);
    else if (bytes_needed) std::memcpy(t.data(), p + data_start, bytes_needed);
    if (type == ElementType::boolean) {
        // numpy bools are 0 or 1; normalise anything else so kernels can rely on it.
        auto* b = t.data<uint8_t>();
        for (int64_t i = 0; i < t.num_elements(); ++i) b[i] = b[i] ? 1 : 0;
    }
    return t;
}

Tensor read_npy(const std::string& path) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw Error(ErrorKind::Io, "npy-unreadable", str("cannot open '", path, "': ", std::strerror(errno)));
    std::string data;
    char buf[1 << 16];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
        if (data.size() + n > max_tensor_bytes() + (1u << 20)) {
            std::fclose(f);
            throw Error(ErrorKind::Limit, "tensor-too-large", str(path, ": the file is larger than the tensor size limit"));
        }
        data.append(buf, n);
    }
    const bool failed = std::ferror(f);
    std::fclose(f);
    if (failed) throw Error(ErrorKind::Io, "npy-unreadable", str("cannot read '", path, "'"));
    return parse_npy(data.data(), data.size(), path);
}

std::string encode_npy(const Tensor& t) {
    const char* descr = traits(t.type()).npy_descr;
    if (!*descr) throw Error(ErrorKind::Unsupported, "npy-unsupported-dtype", str(to_string(t.type()), " cannot be stored in .npy"));
    std::string shape = "(";
    for (size_t i = 0; i < t.rank(); ++i) shape += std::to_string(t.shape()[i]) + (t.rank() == 1 ? "," : (i + 1 < t.rank() ? ", " : ""));
    shape += ")";
    std::string header = str("{'descr': '", descr, "', 'fortran_order': False, 'shape': ", shape, ", }");
    const bool v2 = header.size() + 11 > 65535;
    const size_t prefix = v2 ? 12 : 10;
    header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
    header += '\n';
    std::string out(kMagic, 6);
    out += static_cast<char>(v2 ? 2 : 1);
    out += '\0';
    const size_t len = header.size();
    for (int i = 0; i < (v2 ? 4 : 2); ++i) out += static_cast<char>((len >> (8 * i)) & 0xff);
    out += header;
    out.append(reinterpret_cast<const char*>(t.data()), t.byte_size());
    return out;
}

void write_npy(const std::string& path, const Tensor& t) {
    const std::string bytes = encode_npy(t);
    std::string tmp = path + ".tmp.XXXXXX";
    const int fd = ::mkstemp(tmp.data());
    if (fd < 0) throw Error(ErrorKind::Io, "output-unwritable", str("cannot create a file next to '", path, "': ", std::strerror(errno)));
    size_t done = 0;
    bool ok = true;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            ok = false;
            break;
        }
        done += static_cast<size_t>(n);
    }
    const int saved = errno;
    ok = ok && ::fchmod(fd, 0644) == 0 && ::fsync(fd) == 0;
    ok = (::close(fd) == 0) && ok;
    if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
        const int err = ok ? errno : saved;
        ::unlink(tmp.c_str());
        throw Error(ErrorKind::Io, "output-unwritable", str("cannot write '", path, "': ", std::strerror(err)));
    }
}

Tensor convert_f32_to_bf16(const Tensor& t) {
    Tensor out(ElementType::bf16, t.shape());
    for (int64_t i = 0; i < t.num_elements(); ++i) out.data<uint16_t>()[i] = f32_to_bf16(t.data<float>()[i]);
    return out;
}

Tensor convert_bf16_to_f32(const Tensor& t) {
    Tensor out(ElementType::f32, t.shape());
    for (int64_t i = 0; i < t.num_elements(); ++i) out.data<float>()[i] = bf16_to_f32(t.data<uint16_t>()[i]);
    return out;
}

}  // namespace irlite
