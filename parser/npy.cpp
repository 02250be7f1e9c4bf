#include "parser/npy.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string_view>

#include "irlite/error.hpp"

namespace irlite {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
constexpr size_t kMaxPreamble = 12;  // magic, version (2 bytes), header length (u16 or u32)
constexpr size_t kMaxRank = 64;      // numpy's own limit (NPY_MAXDIMS)

[[noreturn]] void malformed(const std::string& name, const std::string& why) {
    throw Error(ErrorKind::Input, "npy-malformed", str(name, ": not a valid .npy file: ", why));
}

// Where the header dict lies: bytes [offset, offset + length); the data follows it.
struct Preamble {
    size_t header_offset = 0;
    size_t header_length = 0;
    size_t data_offset() const { return header_offset + header_length; }
};

// `p` holds the first min(file_size, kMaxPreamble) bytes of the file.
Preamble read_preamble(const unsigned char* p, size_t file_size, const std::string& name) {
    if (file_size < kMagicSize || std::memcmp(p, kMagic, kMagicSize) != 0)
        malformed(name, "it does not start with the \\x93NUMPY magic");
    if (file_size < 8) malformed(name, "the file ends inside the format version");
    const int major = p[6], minor = p[7];
    if (major < 1 || major > 3 || minor != 0)
        throw Error(ErrorKind::Input, "npy-unsupported-version",
                    str(name, ": .npy format version ", major, ".", minor, " is not supported (1.0, 2.0 and 3.0 are)"));
    // 1.0 stores the header length as a little-endian u16, 2.0 and 3.0 as a u32.
    const size_t length_bytes = major == 1 ? 2 : 4;
    Preamble pre;
    pre.header_offset = 8 + length_bytes;
    if (file_size < pre.header_offset) malformed(name, "the file ends inside the header length");
    for (size_t i = length_bytes; i-- > 0;) pre.header_length = (pre.header_length << 8) | p[8 + i];
    if (pre.header_length > file_size - pre.header_offset)
        malformed(name, str("the header claims ", pre.header_length, " bytes but the file has only ",
                            file_size - pre.header_offset, " after the preamble"));
    return pre;
}

// The header's Python dict literal, e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// parsed as a literal (keys in any order, any spacing, trailing commas), not matched as one layout.
struct HeaderFields {
    std::string descr;
    bool fortran_order = false;
    Shape shape;
};

class HeaderParser {
public:
    HeaderParser(std::string_view text, const std::string& name) : s_(text), name_(name) {}

    HeaderFields parse() {
        HeaderFields fields;
        bool have_descr = false, have_fortran = false, have_shape = false;
        expect('{');
        while (true) {
            skip_space();
            if (peek() == '}') break;
            const std::string key = string_literal("a key");
            expect(':');
            skip_space();
            if (key == "descr") {
                mark_once(have_descr, key);
                fields.descr = descr_value();
            } else if (key == "fortran_order") {
                mark_once(have_fortran, key);
                fields.fortran_order = boolean_literal();
            } else if (key == "shape") {
                mark_once(have_shape, key);
                fields.shape = shape_tuple();
            } else {
                fail(str("unexpected key '", key, "' (expected 'descr', 'fortran_order' and 'shape')"));
            }
            skip_space();
            if (peek() == ',') {
                ++i_;
                continue;
            }
            if (peek() != '}') fail("expected ',' or '}' after a value");
        }
        ++i_;
        skip_space();  // numpy pads the header with spaces and ends it with '\n'
        if (i_ != s_.size()) fail("unexpected characters after the closing '}'");
        if (!have_descr) fail("the header has no 'descr'");
        if (!have_fortran) fail("the header has no 'fortran_order'");
        if (!have_shape) fail("the header has no 'shape'");
        return fields;
    }

private:
    [[noreturn]] void fail(const std::string& why) const {
        malformed(name_, str("header ", why, " at header byte ", i_));
    }
    void mark_once(bool& seen, const std::string& key) const {
        if (seen) fail(str("repeats the key '", key, "'"));
        seen = true;
    }
    char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
    void skip_space() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
    }
    void expect(char c) {
        skip_space();
        if (peek() != c) fail(str("expected '", c, "'"));
        ++i_;
    }
    static bool is_digit(char c) { return c >= '0' && c <= '9'; }
    static bool is_identifier_char(char c) {
        return is_digit(c) || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    std::string string_literal(const char* what) {
        skip_space();
        const char quote = peek();
        if (quote != '\'' && quote != '"') fail(str("expected ", what, " as a quoted string"));
        const size_t end = s_.find(quote, i_ + 1);
        if (end == std::string_view::npos) fail("has an unterminated string");
        std::string out(s_.substr(i_ + 1, end - i_ - 1));
        if (out.find('\\') != std::string::npos) fail("has a string with escapes, which no numpy dtype needs");
        i_ = end + 1;
        return out;
    }
    std::string descr_value() {
        if (peek() == '[' || peek() == '{')
            throw Error(ErrorKind::Input, "npy-unsupported-dtype",
                        str(name_, ": structured .npy dtypes are not supported (only plain numeric and bool arrays)"));
        return string_literal("'descr'");
    }
    bool boolean_literal() {
        if (take_word("True")) return true;
        if (take_word("False")) return false;
        fail("'fortran_order' must be True or False");
    }
    bool take_word(std::string_view word) {
        const size_t end = i_ + word.size();
        if (s_.substr(i_, word.size()) != word || (end < s_.size() && is_identifier_char(s_[end]))) return false;
        i_ = end;
        return true;
    }
    int64_t integer_literal() {
        if (!is_digit(peek())) fail("'shape' must be a tuple of non-negative integers");
        int64_t value = 0;
        while (is_digit(peek())) {
            const int digit = peek() - '0';
            if (value > (std::numeric_limits<int64_t>::max() - digit) / 10) fail("has a shape dim larger than 2**63-1");
            value = value * 10 + digit;
            ++i_;
        }
        if (peek() == 'L') ++i_;  // Python 2 long literal, found in old files
        return value;
    }
    // "()", "(5,)", "(2, 3)", "(2,3,)"; "(5)" is an int in Python, not a tuple.
    Shape shape_tuple() {
        expect('(');
        Shape shape;
        bool trailing_comma = false;
        while (true) {
            skip_space();
            if (peek() == ')') break;
            shape.push_back(integer_literal());
            if (shape.size() > kMaxRank) fail(str("'shape' has more than ", kMaxRank, " dims"));
            skip_space();
            trailing_comma = peek() == ',';
            if (trailing_comma) ++i_;
            else if (peek() != ')') fail("expected ',' or ')' in 'shape'");
        }
        ++i_;
        if (shape.size() == 1 && !trailing_comma) fail("'shape' (n) is not a tuple; a 1-d shape is written (n,)");
        return shape;
    }

    std::string_view s_;
    const std::string& name_;
    size_t i_ = 0;
};

// What the header says about the data, checked against the bytes the file holds after it.
struct Layout {
    ElementType type = ElementType::f32;
    Shape shape;
    bool fortran_order = false;  // the first index varies fastest (numpy's a.T, np.asfortranarray)
    size_t data_bytes = 0;
};

Layout parse_header(std::string_view header, size_t data_bytes_in_file, const std::string& name) {
    const HeaderFields fields = HeaderParser(header, name).parse();
    Layout layout;
    try {
        layout.type = element_type_from_npy(fields.descr);
    } catch (const Error& e) {
        throw Error(ErrorKind::Input, e.code(), str(name, ": ", e.message()));
    }
    layout.fortran_order = fields.fortran_order;
    layout.shape = fields.shape;
    try {
        layout.data_bytes = checked_byte_size(layout.shape, element_size(layout.type));
    } catch (const Error& e) {
        throw Error(ErrorKind::Input, "npy-malformed", str(name, ": not a valid .npy file: ", e.message()));
    }
    if (layout.data_bytes != data_bytes_in_file)
        malformed(name, str("shape ", to_string(layout.shape), " of ", fields.descr, " needs ", layout.data_bytes,
                            " data bytes, the file has ", data_bytes_in_file,
                            data_bytes_in_file < layout.data_bytes ? " (truncated)" : " (trailing bytes)"));
    return layout;
}

// Fortran order stores the first index fastest. Walks the C-order result with an odometer and keeps
// the matching Fortran offset incrementally (no per-element index arithmetic over all dims).
Tensor fortran_to_c(const Tensor& raw) {
    const Shape& shape = raw.shape();
    const size_t rank = shape.size();
    const size_t elem = element_size(raw.type());
    std::vector<int64_t> f_stride(rank, 1);  // in elements
    for (size_t i = 1; i < rank; ++i) f_stride[i] = f_stride[i - 1] * shape[i - 1];
    std::vector<int64_t> index(rank, 0);
    Tensor out(raw.type(), shape);
    const std::byte* src = raw.bytes();
    std::byte* dst = out.bytes();
    int64_t f_offset = 0;
    for (int64_t n = 0; n < out.num_elements(); ++n) {
        std::memcpy(dst + static_cast<size_t>(n) * elem, src + static_cast<size_t>(f_offset) * elem, elem);
        for (size_t d = rank; d-- > 0;) {
            f_offset += f_stride[d];
            if (++index[d] < shape[d]) break;
            f_offset -= f_stride[d] * shape[d];
            index[d] = 0;
        }
    }
    return out;
}

// The tensor as the caller sees it: C order, and numpy bools as 0 or 1 (anything else is
// normalised so that kernels can rely on it).
Tensor finish(Tensor t, const Layout& layout) {
    if (layout.fortran_order && t.rank() > 1 && t.num_elements() > 1) t = fortran_to_c(t);
    if (t.type() == ElementType::boolean) {
        auto* b = t.data<uint8_t>();
        for (int64_t i = 0; i < t.num_elements(); ++i) b[i] = b[i] ? 1 : 0;
    }
    return t;
}

// ---- POSIX file helpers ----------------------------------------------------------------------
class FileDescriptor {
public:
    explicit FileDescriptor(int fd) : fd_(fd) {}
    ~FileDescriptor() {
        if (fd_ >= 0) ::close(fd_);
    }
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    int get() const { return fd_; }
    // Closes now and reports whether close succeeded (it can report a delayed write error).
    bool close() {
        const int fd = fd_;
        fd_ = -1;
        return ::close(fd) == 0;
    }

private:
    int fd_;
};

// Reads exactly `size` bytes; false (errno set, or 0 at a premature end of file) otherwise.
bool read_fully(int fd, void* buffer, size_t size) {
    auto* p = static_cast<char*>(buffer);
    while (size > 0) {
        const ssize_t n = ::read(fd, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = 0;
            return false;
        }
        p += n;
        size -= static_cast<size_t>(n);
    }
    return true;
}

bool write_fully(int fd, const void* buffer, size_t size) {
    const auto* p = static_cast<const char*>(buffer);
    while (size > 0) {
        const ssize_t n = ::write(fd, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = EIO;
            return false;
        }
        p += n;
        size -= static_cast<size_t>(n);
    }
    return true;
}

[[noreturn]] void unreadable(const std::string& path, int err) {
    throw Error(ErrorKind::Io, "npy-unreadable",
                str("cannot read '", path, "': ", err ? std::strerror(err) : "the file ended early (changed while read?)"));
}

std::string directory_of(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

Tensor parse_npy(const void* bytes, size_t size, const std::string& name) {
    const auto* p = static_cast<const unsigned char*>(bytes);
    const Preamble pre = read_preamble(p, size, name);
    const std::string_view header(reinterpret_cast<const char*>(p) + pre.header_offset, pre.header_length);
    const Layout layout = parse_header(header, size - pre.data_offset(), name);
    Tensor t(layout.type, layout.shape);
    if (layout.data_bytes) std::memcpy(t.data(), p + pre.data_offset(), layout.data_bytes);
    return finish(std::move(t), layout);
}

// Reads the preamble and header first, checks the data size against the file size, then reads the
// data straight into the tensor's buffer: no second copy, nothing allocated beyond the file.
Tensor read_npy(const std::string& path) {
    FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) throw Error(ErrorKind::Io, "npy-unreadable", str("cannot open '", path, "': ", std::strerror(errno)));
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) unreadable(path, errno);
    if (!S_ISREG(st.st_mode))
        throw Error(ErrorKind::Io, "npy-unreadable", str("cannot read '", path, "': not a regular file"));
    const size_t file_size = static_cast<size_t>(st.st_size);

    unsigned char preamble_bytes[kMaxPreamble] = {};
    const size_t preamble_read = std::min(file_size, kMaxPreamble);
    if (!read_fully(fd.get(), preamble_bytes, preamble_read)) unreadable(path, errno);
    const Preamble pre = read_preamble(preamble_bytes, file_size, path);

    // The header starts inside the bytes already read (at 10 or 12); read the rest of it.
    std::string header(pre.header_length, '\0');
    const size_t already = preamble_read - std::min(preamble_read, pre.header_offset);
    const size_t from_preamble = std::min(already, pre.header_length);
    std::memcpy(header.data(), preamble_bytes + pre.header_offset, from_preamble);
    if (!read_fully(fd.get(), header.data() + from_preamble, pre.header_length - from_preamble))
        unreadable(path, errno);
    const Layout layout = parse_header(header, file_size - pre.data_offset(), path);

    Tensor t(layout.type, layout.shape);
    // Data bytes already consumed with the preamble (a tiny file whose data begins before byte 12).
    const size_t data_in_preamble = already - from_preamble;
    if (data_in_preamble) std::memcpy(t.data(), preamble_bytes + pre.data_offset(), data_in_preamble);
    if (!read_fully(fd.get(), t.bytes() + data_in_preamble, layout.data_bytes - data_in_preamble))
        unreadable(path, errno);
    return finish(std::move(t), layout);
}

std::string encode_npy(const Tensor& t) {
    if (!t.valid()) throw Error(ErrorKind::Usage, "npy-empty-tensor", "cannot encode an empty (invalid) tensor as .npy");
    const char* descr = traits(t.type()).npy_descr;
    if (!*descr)
        throw Error(ErrorKind::Unsupported, "npy-unsupported-dtype",
                    str(to_string(t.type()), " cannot be stored in .npy (numpy has no such dtype); ",
                        t.type() == ElementType::bf16 ? "convert it with convert_bf16_to_f32 first" : ""));
    // Python's tuple repr: (), (5,), (2, 3).
    std::string shape = "(";
    for (size_t i = 0; i < t.rank(); ++i) shape += (i ? ", " : "") + std::to_string(t.shape()[i]);
    shape += t.rank() == 1 ? ",)" : ")";
    std::string header = str("{'descr': '", descr, "', 'fortran_order': False, 'shape': ", shape, ", }");

    // Pad with spaces and end with '\n' so that the data starts at a multiple of 64, as numpy does.
    // Version 1.0 unless the header does not fit its u16 length (2.0 then).
    const bool v2 = header.size() + 1 + 63 > std::numeric_limits<uint16_t>::max();
    const size_t preamble = v2 ? 12 : 10;
    header.append((64 - (preamble + header.size() + 1) % 64) % 64, ' ');
    header += '\n';

    std::string out(kMagic, kMagicSize);
    out += static_cast<char>(v2 ? 2 : 1);
    out += '\0';
    for (size_t i = 0; i < preamble - 8; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
    out += header;
    out.append(reinterpret_cast<const char*>(t.data()), t.byte_size());
    return out;
}

void write_npy(const std::string& path, const Tensor& t) { write_file_atomically(path, encode_npy(t)); }

void write_file_atomically(const std::string& path, const std::string& bytes) {
    // A unique name in the same directory (so that rename is atomic); O_EXCL never reuses a file.
    static std::atomic<unsigned> counter{0};
    std::string tmp;
    int raw_fd = -1;
    for (int attempt = 0; attempt < 100 && raw_fd < 0; ++attempt) {
        tmp = str(path, ".tmp.", ::getpid(), ".", counter.fetch_add(1));
        raw_fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);  // umask applies
        if (raw_fd < 0 && errno != EEXIST) break;
    }
    if (raw_fd < 0)
        throw Error(ErrorKind::Io, "output-unwritable",
                    str("cannot write '", path, "': cannot create a temporary file beside it: ", std::strerror(errno)));
    FileDescriptor fd(raw_fd);
    bool ok = write_fully(fd.get(), bytes.data(), bytes.size()) && ::fsync(fd.get()) == 0;
    int err = ok ? 0 : errno;
    ok = fd.close() && ok;
    if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) ok = false;
    if (!ok) {
        if (err == 0) err = errno;
        ::unlink(tmp.c_str());
        throw Error(ErrorKind::Io, "output-unwritable", str("cannot write '", path, "': ", std::strerror(err)));
    }
    // Make the rename itself durable; failing here leaves a complete file, so it is not an error.
    FileDescriptor dir(::open(directory_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir.get() >= 0) ::fsync(dir.get());
}

Tensor convert_f32_to_bf16(const Tensor& t) {
    IRLITE_CHECK(t.valid() && t.type() == ElementType::f32, ErrorKind::Usage, "convert-wrong-type",
                 "convert_f32_to_bf16 needs an f32 tensor, got ", t.valid() ? to_string(t.type()) : "an empty tensor");
    Tensor out(ElementType::bf16, t.shape());
    const float* src = t.data<float>();
    auto* dst = out.data<uint16_t>();
    for (int64_t i = 0; i < t.num_elements(); ++i) dst[i] = f32_to_bf16(src[i]);
    return out;
}

Tensor convert_bf16_to_f32(const Tensor& t) {
    IRLITE_CHECK(t.valid() && t.type() == ElementType::bf16, ErrorKind::Usage, "convert-wrong-type",
                 "convert_bf16_to_f32 needs a bf16 tensor, got ", t.valid() ? to_string(t.type()) : "an empty tensor");
    Tensor out(ElementType::f32, t.shape());
    const auto* src = t.data<uint16_t>();
    float* dst = out.data<float>();
    for (int64_t i = 0; i < t.num_elements(); ++i) dst[i] = bf16_to_f32(src[i]);
    return out;
}

}  // namespace irlite
