// .npy reading and writing (parser/npy.hpp): round trips of every dtype, hand-built headers of
// versions 1.0/2.0/3.0, malformed files, and the atomic write.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "irlite/error.hpp"
#include "parser/npy.hpp"
#include "temp_dir.hpp"

namespace irlite {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

// A .npy file built by hand: magic, version major.0, the header length (u16 for 1.0, u32 otherwise),
// the header text exactly as given, then the data bytes.
std::string npy_bytes(int major, const std::string& header, const std::string& data) {
    std::string out("\x93NUMPY", 6);
    out += static_cast<char>(major);
    out += '\0';
    const size_t length_bytes = major == 1 ? 2 : 4;
    for (size_t i = 0; i < length_bytes; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
    return out + header + data;
}

std::string bytes_of(const std::vector<float>& values) {
    return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
}


std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// A tensor whose bytes are a recognisable pattern (bools stay 0/1).
Tensor patterned(ElementType type, const Shape& shape) {
    Tensor t(type, shape);
    for (size_t i = 0; i < t.byte_size(); ++i)
        t.bytes()[i] = std::byte(type == ElementType::boolean ? (i % 3 == 0) : (i * 37 + 11) & 0xff);
    return t;
}

void expect_same(const Tensor& a, const Tensor& b, const std::string& label) {
    ASSERT_TRUE(b.valid()) << label;
    EXPECT_EQ(a.type(), b.type()) << label;
    EXPECT_EQ(a.shape(), b.shape()) << label;
    ASSERT_EQ(a.byte_size(), b.byte_size()) << label;
    if (a.byte_size()) {
        EXPECT_EQ(std::memcmp(a.data(), b.data(), a.byte_size()), 0) << label;
    }
}

const std::vector<ElementType> kNpyTypes = {
    ElementType::f16, ElementType::f32, ElementType::f64, ElementType::i8,  ElementType::i16,
    ElementType::i32, ElementType::i64, ElementType::u8,  ElementType::u16, ElementType::u32,
    ElementType::u64, ElementType::boolean};

const std::vector<Shape> kShapes = {{}, {0}, {5}, {2, 3}, {2, 0, 3}, {1, 2, 1, 3, 1}};

// ---- round trips ----------------------------------------------------------------------------

TEST(Npy, EncodeParseRoundTripEveryDtypeAndShape) {
    for (const ElementType type : kNpyTypes) {
        for (const Shape& shape : kShapes) {
            const std::string label = std::string(to_string(type)) + " " + to_string(shape);
            const Tensor t = patterned(type, shape);
            const std::string encoded = encode_npy(t);
            const uint16_t header_length = static_cast<uint16_t>(static_cast<unsigned char>(encoded[8]) |
                                                                 static_cast<unsigned char>(encoded[9]) << 8);
            EXPECT_EQ((10 + header_length) % 64, 0u) << label;
            EXPECT_EQ(encoded[7 + 2 + header_length], '\n') << label;
            EXPECT_EQ(encoded.size(), 10 + header_length + t.byte_size()) << label;
            expect_same(t, parse_npy(encoded.data(), encoded.size(), "x.npy"), label);
        }
    }
}

TEST(Npy, WriteReadRoundTripEveryDtypeThroughFiles) {
    TempDir dir;
    for (const ElementType type : kNpyTypes) {
        for (const Shape& shape : kShapes) {
            const std::string label = std::string(to_string(type)) + " " + to_string(shape);
            const Tensor t = patterned(type, shape);
            write_npy(dir.file("t.npy"), t);
            expect_same(t, read_npy(dir.file("t.npy")), label);
        }
    }
    EXPECT_EQ(dir.entries(), (std::vector<std::string>{"t.npy"}));  // no temporary files left
}

TEST(Npy, HeaderTextIsNumpys) {
    struct Row {
        const char* label;
        ElementType type;
        Shape shape;
        const char* header;
    };
    const std::vector<Row> rows = {
        {"matrix", ElementType::f32, {2, 3}, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"},
        {"vector", ElementType::i64, {5}, "{'descr': '<i8', 'fortran_order': False, 'shape': (5,), }"},
        {"scalar", ElementType::u8, {}, "{'descr': '|u1', 'fortran_order': False, 'shape': (), }"},
        {"bool", ElementType::boolean, {1, 0}, "{'descr': '|b1', 'fortran_order': False, 'shape': (1, 0), }"},
        {"half", ElementType::f16, {4}, "{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }"},
    };
    for (const Row& row : rows) {
        const std::string encoded = encode_npy(Tensor(row.type, row.shape));
        EXPECT_EQ(encoded.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8)) << row.label;
        const size_t header_length = static_cast<unsigned char>(encoded[8]) | static_cast<unsigned char>(encoded[9]) << 8;
        EXPECT_EQ((10 + header_length) % 64, 0u) << row.label;
        const std::string header = encoded.substr(10, header_length);
        EXPECT_EQ(header.substr(0, std::strlen(row.header)), row.header) << row.label;
        EXPECT_EQ(header.find_first_not_of(' ', std::strlen(row.header)), header.size() - 1) << row.label;
    }
}

TEST(Npy, BoolValuesAreNormalised) {
    const std::string file =
        npy_bytes(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }\n", std::string("\x00\x02\xff", 3));
    const Tensor t = parse_npy(file.data(), file.size(), "b.npy");
    ASSERT_EQ(t.type(), ElementType::boolean);
    EXPECT_EQ(t.data<uint8_t>()[0], 0);
    EXPECT_EQ(t.data<uint8_t>()[1], 1);
    EXPECT_EQ(t.data<uint8_t>()[2], 1);
}

TEST(Npy, FortranOrderIsReorderedToCOrder) {
    // numpy.asfortranarray([[0, 1, 2], [3, 4, 5]]) stores its columns one after another.
    const std::string header = "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }\n";
    const std::string file = npy_bytes(1, header, bytes_of({0, 3, 1, 4, 2, 5}));
    const Tensor t = parse_npy(file.data(), file.size(), "f.npy");
    ASSERT_EQ(t.shape(), (Shape{2, 3}));
    EXPECT_EQ(std::vector<float>(t.data<float>(), t.data<float>() + 6), (std::vector<float>{0, 1, 2, 3, 4, 5}));
    // Rank 3: element (i, j, k) sits at i + 2 j + 4 k in the file.
    std::vector<float> fortran(2 * 2 * 3);
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            for (int k = 0; k < 3; ++k) fortran[i + 2 * j + 4 * k] = static_cast<float>(100 * i + 10 * j + k);
    TempDir dir;
    const std::string path = dir.write(
        "f3.npy", npy_bytes(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2, 3), }\n", bytes_of(fortran)));
    const Tensor t3 = read_npy(path);
    ASSERT_EQ(t3.shape(), (Shape{2, 2, 3}));
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            for (int k = 0; k < 3; ++k)
                EXPECT_EQ(t3.data<float>()[6 * i + 3 * j + k], static_cast<float>(100 * i + 10 * j + k));
}

// ---- headers that must be accepted ---------------------------------------------------------

struct AcceptRow {
    const char* label;
    int major;
    std::string header;
    Shape shape;
};

TEST(Npy, AcceptsHandBuiltHeadersOfEveryVersionAndLayout) {
    const std::vector<AcceptRow> rows = {
        {"v1_numpy_layout", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }          \n", {2, 3}},
        {"v2", 2, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n", {2, 3}},
        {"v3_utf8", 3, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }\n", {6}},
        {"keys_reordered", 1, "{'shape': (3, 2), 'fortran_order': False, 'descr': '<f4'}\n", {3, 2}},
        {"no_spaces", 1, "{'descr':'<f4','fortran_order':False,'shape':(2,3)}", {2, 3}},
        {"trailing_comma_in_tuple", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,3,), }\n", {2, 3}},
        {"extra_whitespace", 1, "{ 'descr' :  '<f4' ,\n 'fortran_order' : False ,\t'shape' : ( 6 , ) }  \n", {6}},
        {"double_quotes", 1, "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (1, 6)}\n", {1, 6}},
        {"python2_long", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L), }\n", {2, 3}},
        {"native_order", 1, "{'descr': '=f4', 'fortran_order': False, 'shape': (6,), }\n", {6}},
        {"fortran_false_rank1", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,)}\n", {6}},
    };
    const std::vector<float> values = {1, 2, 3, 4, 5, 6};
    for (const AcceptRow& row : rows) {
        const std::string file = npy_bytes(row.major, row.header, bytes_of(values));
        try {
            const Tensor t = parse_npy(file.data(), file.size(), "ok.npy");
            EXPECT_EQ(t.type(), ElementType::f32) << row.label;
            EXPECT_EQ(t.shape(), row.shape) << row.label;
            for (int i = 0; i < 6; ++i) EXPECT_EQ(t.data<float>()[i], values[static_cast<size_t>(i)]) << row.label;
        } catch (const Error& e) {
            ADD_FAILURE() << row.label << ": " << e.what();
        }
    }
}

TEST(Npy, ScalarAndEmptyHandBuilt) {
    const std::string scalar = npy_bytes(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (), }\n",
                                         std::string("\x2a\x00\x00\x00", 4));
    const Tensor s = parse_npy(scalar.data(), scalar.size(), "s.npy");
    EXPECT_EQ(s.shape(), Shape{});
    EXPECT_EQ(s.data<int32_t>()[0], 42);
    const std::string empty = npy_bytes(2, "{'descr': '<i8', 'fortran_order': False, 'shape': (3, 0), }\n", "");
    const Tensor e = parse_npy(empty.data(), empty.size(), "e.npy");
    EXPECT_EQ(e.shape(), (Shape{3, 0}));
    EXPECT_EQ(e.num_elements(), 0);
}

// ---- malformed files -------------------------------------------------------------------------

struct RejectRow {
    const char* label;
    std::string bytes;
    const char* code;
    const char* message_part;
};

std::string repeat(const std::string& piece, int times) {
    std::string out;
    for (int i = 0; i < times; ++i) out += piece;
    return out;
}

std::string f32_file(const std::string& header_dict, size_t data_bytes = 24, int major = 1) {
    return npy_bytes(major, header_dict + "\n", std::string(data_bytes, '\0'));
}

const std::vector<RejectRow>& reject_rows() {
    static const std::vector<RejectRow> rows = {
        {"empty_file", "", "npy-malformed", "magic"},
        {"bad_magic", std::string("\x93NUMPX\x01\x00\x02\x00{}", 12), "npy-malformed", "magic"},
        {"ends_in_version", std::string("\x93NUMPY\x01", 7), "npy-malformed", "version"},
        {"ends_in_length", std::string("\x93NUMPY\x02\x00\x10\x00", 10), "npy-malformed", "header length"},
        {"version_4", npy_bytes(4, "{}", ""), "npy-unsupported-version", "4.0"},
        {"version_0", npy_bytes(0, "{}", ""), "npy-unsupported-version", "0.0"},
        {"version_1_1", std::string("\x93NUMPY\x01\x01\x02\x00{}", 12), "npy-unsupported-version", "1.1"},
        {"header_longer_than_file", std::string("\x93NUMPY\x01\x00\xff\x00{'descr'", 17), "npy-malformed",
         "the header claims 255 bytes"},
        {"v2_huge_header_length", std::string("\x93NUMPY\x02\x00\xff\xff\xff\xff{}", 14), "npy-malformed",
         "header claims"},
        {"not_a_dict", f32_file("['<f4', False, (6,)]"), "npy-malformed", "expected '{'"},
        {"missing_descr", f32_file("{'fortran_order': False, 'shape': (6,), }"), "npy-malformed", "no 'descr'"},
        {"missing_shape", f32_file("{'descr': '<f4', 'fortran_order': False, }"), "npy-malformed", "no 'shape'"},
        {"missing_fortran", f32_file("{'descr': '<f4', 'shape': (6,), }"), "npy-malformed", "no 'fortran_order'"},
        {"unknown_key", f32_file("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'x': 1}"), "npy-malformed",
         "unexpected key 'x'"},
        {"duplicate_key", f32_file("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (6,)}"),
         "npy-malformed", "repeats the key 'descr'"},
        {"unquoted_key", f32_file("{descr: '<f4', 'fortran_order': False, 'shape': (6,)}"), "npy-malformed",
         "quoted string"},
        {"unterminated_string", f32_file("{'descr: '<f4}"), "npy-malformed", ""},
        {"missing_comma", f32_file("{'descr': '<f4' 'fortran_order': False, 'shape': (6,)}"), "npy-malformed",
         "expected ',' or '}'"},
        {"unclosed_dict", f32_file("{'descr': '<f4', 'fortran_order': False, 'shape': (6,)"), "npy-malformed",
         "expected ',' or '}'"},
        {"junk_after_dict", f32_file("{'descr': '<f4', 'fortran_order': False, 'shape': (6,)} x"), "npy-malformed",
         "after the closing"},
        {"fortran_not_bool", f32_file("{'descr': '<f4', 'fortran_order': 0, 'shape': (6,)}"), "npy-malformed",
         "True or False"},
        {"fortran_prefix_word", f32_file("{'descr': '<f4', 'fortran_order': Falsey, 'shape': (6,)}"), "npy-malformed",
         "True or False"},
        {"shape_not_tuple", f32_file("{'descr': '<f4', 'fortran_order': False, 'shape': (6)}"), "npy-malformed",
         "not a tuple"},
        {"shape_list", f32_file("{'descr': '<f4', 'fortran_order': False, 'shape': [6]}"), "npy-malformed",
         "expected '('"},
        {"negative_dim", f32_file("{'descr': '<f4', 'fortran_order': False, 'shape': (-1, 6)}"), "npy-malformed",
         "non-negative integers"},
        {"double_comma", f32_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2,,3)}"), "npy-malformed",
         "non-negative integers"},
        {"lone_comma", f32_file("{'descr': '<f4', 'fortran_order': False, 'shape': (,)}"), "npy-malformed",
         "non-negative integers"},
        {"float_dim", f32_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2.0, 3)}"), "npy-malformed",
         "expected ',' or ')'"},
        {"dim_overflows_int64", f32_file("{'descr': '<f4', 'fortran_order': False, 'shape': (9223372036854775808,)}"),
         "npy-malformed", "larger than 2**63-1"},
        {"shape_product_overflows", f32_file("{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4)}"),
         "npy-malformed", "64 bits"},
        {"byte_size_overflows", f32_file("{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904,)}"),
         "npy-malformed", "64 bits"},
        {"too_many_dims", f32_file("{'descr': '<f4', 'fortran_order': False, 'shape': (" + repeat("1, ", 65) + ")}", 4),
         "npy-malformed", "more than 64 dims"},
        {"truncated_data", f32_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 23), "npy-malformed",
         "needs 24 data bytes, the file has 23 (truncated)"},
        {"trailing_data", f32_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 25), "npy-malformed",
         "the file has 25 (trailing bytes)"},
        {"no_data_at_all", f32_file("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 0), "npy-malformed",
         "needs 4 data bytes"},
        {"big_endian", f32_file("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }"), "npy-unsupported-dtype",
         "big-endian"},
        {"complex", f32_file("{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }"), "npy-unsupported-dtype",
         "'<c8'"},
        {"unicode_strings", f32_file("{'descr': '<U3', 'fortran_order': False, 'shape': (2,), }"),
         "npy-unsupported-dtype", "'<U3'"},
        {"object", f32_file("{'descr': '|O', 'fortran_order': False, 'shape': (3,), }"), "npy-unsupported-dtype", "|O"},
        {"structured", f32_file("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (6,), }"),
         "npy-unsupported-dtype", "structured"},
    };
    return rows;
}

void expect_reject(const Error& e, const RejectRow& row, const std::string& name, const char* how) {
    EXPECT_EQ(e.kind(), ErrorKind::Input) << how << " " << row.label << ": " << e.what();
    EXPECT_EQ(e.code(), row.code) << how << " " << row.label << ": " << e.what();
    EXPECT_EQ(e.message().rfind(name + ": ", 0), 0u) << how << " " << row.label << ": " << e.what();
    EXPECT_NE(e.message().find(row.message_part), std::string::npos) << how << " " << row.label << ": " << e.what();
}

TEST(Npy, RejectsMalformedBytes) {
    for (const RejectRow& row : reject_rows()) {
        try {
            parse_npy(row.bytes.data(), row.bytes.size(), "bad.npy");
            ADD_FAILURE() << row.label << ": accepted";
        } catch (const Error& e) {
            expect_reject(e, row, "bad.npy", "parse_npy");
        }
    }
}

TEST(Npy, RejectsMalformedFilesTheSameWay) {
    TempDir dir;
    for (const RejectRow& row : reject_rows()) {
        const std::string path = dir.write("bad.npy", row.bytes);
        try {
            read_npy(path);
            ADD_FAILURE() << row.label << ": accepted";
        } catch (const Error& e) {
            expect_reject(e, row, path, "read_npy");
        }
    }
}

TEST(Npy, EveryTruncationOfAValidFileIsRejected) {
    const std::string good = encode_npy(patterned(ElementType::i16, {3, 5}));
    for (size_t size = 0; size < good.size(); ++size) {
        try {
            parse_npy(good.data(), size, "cut.npy");
            ADD_FAILURE() << "accepted a file cut at " << size;
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::Input) << size << ": " << e.what();
        }
    }
}

TEST(Npy, ReadErrorsAreIo) {
    TempDir dir;
    fs::create_directory(dir.file("sub"));
    for (const std::string& path : {dir.file("missing.npy"), dir.file("sub")}) {
        try {
            read_npy(path);
            ADD_FAILURE() << path << ": no error";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::Io) << e.what();
            EXPECT_EQ(e.code(), "npy-unreadable") << e.what();
            EXPECT_NE(e.message().find(path), std::string::npos) << e.what();
        }
    }
}

// ---- the atomic write -----------------------------------------------------------------------

Error write_error(const std::string& path, const Tensor& t) {
    try {
        write_npy(path, t);
    } catch (const Error& e) {
        return e;
    }
    ADD_FAILURE() << "no error writing " << path;
    return Error(ErrorKind::Usage, "none", "none");
}

TEST(NpyWrite, ReplacesAnExistingFile) {
    TempDir dir;
    const std::string path = dir.write("out.npy", "old contents");
    const Tensor t = patterned(ElementType::f64, {4});
    write_npy(path, t);
    EXPECT_EQ(read_file(path), encode_npy(t));
    EXPECT_EQ(dir.entries(), (std::vector<std::string>{"out.npy"}));
}

TEST(NpyWrite, FailedRenameLeavesNoTemporaryFile) {
    TempDir dir;
    fs::create_directory(dir.file("target"));
    fs::create_directory(dir.file("target/inside"));  // a non-empty directory cannot be replaced
    const Error e = write_error(dir.file("target"), patterned(ElementType::f32, {2}));
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_EQ(e.code(), "output-unwritable");
    EXPECT_NE(e.message().find(dir.file("target")), std::string::npos) << e.what();
    EXPECT_EQ(dir.entries(), (std::vector<std::string>{"target"}));
}

TEST(NpyWrite, MissingDirectoryIsAnIoError) {
    TempDir dir;
    const Error e = write_error(dir.file("no/such/dir/out.npy"), patterned(ElementType::f32, {2}));
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_NE(e.message().find("No such file"), std::string::npos) << e.what();
    EXPECT_TRUE(dir.entries().empty());
}

TEST(NpyWrite, Bf16IsRefusedBeforeAnythingIsWritten) {
    TempDir dir;
    const Error e = write_error(dir.file("out.npy"), Tensor(ElementType::bf16, {2}));
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_EQ(e.code(), "npy-unsupported-dtype");
    EXPECT_NE(e.message().find("convert_bf16_to_f32"), std::string::npos) << e.what();
    EXPECT_TRUE(dir.entries().empty());
}

// ---- bf16 conversions -----------------------------------------------------------------------

TEST(NpyBf16, ConvertsBothWays) {
    Tensor f32(ElementType::f32, {5});
    const float values[] = {1.0f, -2.5f, 3.140625f, 1.00390625f /* ties to even: 1.0 */, INFINITY};
    std::memcpy(f32.data(), values, sizeof values);
    const Tensor bf16 = convert_f32_to_bf16(f32);
    EXPECT_EQ(bf16.type(), ElementType::bf16);
    EXPECT_EQ(bf16.shape(), Shape{5});
    const Tensor back = convert_bf16_to_f32(bf16);
    EXPECT_EQ(back.type(), ElementType::f32);
    const float expected[] = {1.0f, -2.5f, 3.140625f, 1.0f, INFINITY};
    for (int i = 0; i < 5; ++i) EXPECT_EQ(back.data<float>()[i], expected[i]) << i;
    // A bf16 output is written as f32 and reads back as f32.
    const std::string encoded = encode_npy(convert_bf16_to_f32(bf16));
    EXPECT_EQ(parse_npy(encoded.data(), encoded.size(), "o.npy").type(), ElementType::f32);
}

TEST(NpyBf16, WrongSourceTypeIsAUsageError) {
    for (const Tensor& t : {Tensor(ElementType::f64, {1}), Tensor()}) {
        try {
            convert_f32_to_bf16(t);
            ADD_FAILURE() << "accepted";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::Usage);
            EXPECT_EQ(e.code(), "convert-wrong-type");
        }
    }
    EXPECT_THROW(convert_bf16_to_f32(Tensor(ElementType::f32, {1})), Error);
}

}  // namespace
}  // namespace irlite
