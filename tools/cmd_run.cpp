// irlite run: run a model on .npy inputs and write or print its outputs.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <map>
#include <set>

#include "irlite/irlite.hpp"
#include "parser/npy.hpp"
#include "tools/shape_overrides.hpp"
#include "tools/cli.hpp"
#include "api/compare.hpp"
#include "tools/command_line.hpp"
#include "tools/json.hpp"
#include "tools/model_inputs.hpp"

namespace irlite::cli {
namespace {

const char* kRunHelp =
    "usage: irlite run MODEL.xml [-w MODEL.bin] [-i NAME=FILE.npy]... [--fill MODE [--seed N]]\n"
    "                  [--shape NAME=[dims]]... [-o OUTDIR] [-t THREADS] [-q] [--no-fusion]\n"
    "                  [--no-int8] [--precision f32|f16]\n"
    "                  [--dump DIR [--dump-layers NAME,...]]\n"
    "\n"
    "Runs the model once and writes every output as OUTDIR/<name>.npy (OUTDIR is created if\n"
    "needed; each file is written atomically). Without -o, prints every input and output.\n"
    "\n"
    "  -w, --weights FILE   the weights (.bin); default: MODEL.xml with the extension .bin\n"
    "  -i, --input NAME=FILE.npy\n"
    "                       binds a model input: NAME is a Parameter's layer name or any of its\n"
    "                       tensor names. The .npy must match the Parameter's element type and\n"
    "                       shape exactly (no implicit casts; a bf16 input takes an f32 .npy).\n"
    "  --fill MODE          fill every input not given with -i: random (floats uniform in [0,1),\n"
    "                       integers in [0,10), booleans 0/1), zeros or ones; such an input needs\n"
    "                       a static shape\n"
    "  --seed N             the random fill's seed (default 0): the same values on every machine\n"
    "  --shape NAME=[d0,d1,...]\n"
    "                       fixes a Parameter's dims before the model is compiled (Model::reshape):\n"
    "                       a dynamic batch or image size, or another fixed one\n"
    "  -o, --output DIR     where to write the outputs\n"
    "  -t, --threads N      intra-op threads (default: IRLITE_NUM_THREADS, else every core\n"
    "                       available); results are the same for every count\n"
    "  -q, --quiet          print nothing on success\n"
    "      --no-fusion      run every op as its own node (graph fusion off; results may differ\n"
    "                       from the fused ones in the last bits)\n"
    "      --no-int8        run every FakeQuantize in float, as the graph says (the int8 layers\n"
    "                       off: README, INT8)\n"
    "      --precision P    what an f16/bf16 model computes in: f32 (default, as OpenVINO's CPU\n"
    "                       plugin: weights converted once, inputs and outputs converted at the\n"
    "                       boundary, so their types are the declared ones) or f16 (every op in\n"
    "                       the types the file declares: bit-level f16 arithmetic, slower)\n"
    "      --dump DIR       also write the output of every layer (every output port) as\n"
    "                       DIR/<layer name>[.<port>].npy (names as for outputs), and\n"
    "                       DIR/index.json listing them in topological order; the model then runs\n"
    "                       unfused, so that every layer's own output exists. Nothing is written\n"
    "                       for Consts (nor for layers folded into constants when loading)\n"
    "      --dump-layers NAME,...\n"
    "                       dump only these layers (layer names)\n"
    "\n"
    "Output file names: the first tensor name of the port feeding each Result; for IR v10 (no\n"
    "tensor names) the producing layer's name, with .N appended when it has several outputs;\n"
    "otherwise the Result layer's name. Characters outside [A-Za-z0-9._-] become '_'.\n"
    "\n"
    ".npy support: format versions 1.0-3.0, little-endian, C order; dtypes float16/32/64,\n"
    "int8/16/32/64, uint8/16/32/64 and bool. A bf16 output is written as float32.\n";

void make_dirs(const std::string& dir) {
    std::string path;
    for (size_t i = 0; i <= dir.size(); ++i) {
        if (i == dir.size() || dir[i] == '/') {
            if (!path.empty() && ::mkdir(path.c_str(), 0777) != 0 && errno != EEXIST)
                throw Error(ErrorKind::Io, "output-dir", str("cannot create directory '", path, "': ", std::strerror(errno)));
        }
        if (i < dir.size()) path += dir[i];
    }
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        throw Error(ErrorKind::Io, "output-dir", str("'", dir, "' is not a directory"));
}

// The same file, by device and inode (so that -o never overwrites an input).
bool same_file(const std::string& a, const std::string& b) {
    struct stat sa {}, sb {};
    return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

// safe_file_name(name), with _1, _2, ... appended when `used` has it already; recorded in `used`.
std::string unique_file_name(const std::string& name, std::set<std::string>& used) {
    std::string base = safe_file_name(name);
    for (int k = 1; used.count(base); ++k) base = safe_file_name(name) + "_" + std::to_string(k);
    used.insert(base);
    return base;
}

// Writes t as the .npy file at path (a bf16 tensor as float32), unless that file is one of the
// inputs read (`what` names the tensor in the error).
Tensor write_npy_output(const std::string& path, const Tensor& value, const std::vector<BoundInput>& bound,
                        const std::string& what) {
    for (const BoundInput& b : bound)
        if (!b.path.empty() && same_file(path, b.path))
            throw Error(ErrorKind::Io, "output-overwrites-input",
                        str(what, " would overwrite the input file '", b.path, "'"));
    Tensor t = value;
    if (t.type() == ElementType::bf16) t = convert_bf16_to_f32(t);
    write_npy(path, t);
    return t;
}

// --dump: every layer's outputs as DIR/<layer>[.<port>].npy and DIR/index.json, in topological
// order. `only`: the layer names to dump (all when empty); each must name a dumped layer.
void dump_layers(const InferRequest& request, const std::string& dir, const std::vector<std::string>& only,
                 const std::vector<BoundInput>& bound, bool quiet) {
    const std::vector<NodeOutput> outputs = request.node_outputs();
    for (const std::string& name : only) {
        bool found = false;
        for (const NodeOutput& o : outputs) found = found || o.name == name || o.layer == name;
        if (!found)
            throw UsageError(str("run: --dump-layers: the model has no layer named '", name,
                                 "' that runs (Consts are not dumped)"));
    }
    make_dirs(dir);
    Json layers = Json::array();
    std::set<std::string> used = {"index"};
    for (const NodeOutput& o : outputs) {
        bool wanted = only.empty();
        for (const std::string& name : only) wanted = wanted || o.name == name || o.layer == name;
        if (!wanted) continue;
        const std::string label = output_label(o);
        const std::string file = unique_file_name(label, used) + ".npy", path = dir + "/" + file;
        write_npy_output(path, o.value, bound, str("layer '", label, "'"));
        layers.push_back({{"name", o.name}, {"type", o.type}, {"port", o.port}, {"file", file},
                          {"element_type", to_string(o.value.type())}, {"shape", o.value.shape()}});
    }
    const size_t count = layers.size();
    write_file_atomically(dir + "/index.json", dump_json(Json{{"layers", std::move(layers)}}) + "\n");
    if (!quiet) std::cout << "dumped " << count << " layer outputs to " << dir << "/\n";
}

// The run command line, parsed and checked.
struct RunOptions {
    std::string model_path, bin_path, out_dir;
    std::vector<std::string> input_specs;
    bool quiet = false;
    CompileOptions compile;
    FillMode fill = FillMode::None;
    uint64_t seed = 0;
    std::vector<ShapeOverride> shapes;
    std::string dump_dir;
    std::vector<std::string> dump_only;  // --dump-layers, split at commas
};

// "a,b,,c" -> {"a", "b", "c"}.
std::vector<std::string> split_names(const std::string& list) {
    std::vector<std::string> names;
    for (size_t at = 0; at <= list.size() && !list.empty();) {
        const size_t comma = std::min(list.find(',', at), list.size());
        if (comma > at) names.push_back(list.substr(at, comma - at));
        at = comma + 1;
    }
    return names;
}

// Parses args into o; false when there is nothing to run (--help was printed).
bool parse_run_options(const std::vector<std::string>& args, RunOptions& o) {
    std::string fill_text, seed_text, threads_text, precision_text, dump_only;
    std::vector<std::string> shape_specs;
    bool no_fusion = false, no_int8 = false;
    CommandLine line("run", kRunHelp);
    line.add_model(o.model_path);
    line.app().add_option("-w,--weights", o.bin_path);
    line.add_repeated("-i,--input", o.input_specs, "NAME=FILE.npy");
    line.app().add_option("-o,--output", o.out_dir);
    line.app().add_option("--fill", fill_text);
    line.app().add_option("--seed", seed_text);
    line.app().add_option("-t,--threads", threads_text);
    line.add_repeated("--shape", shape_specs, "NAME=[dims]");
    line.app().add_flag("-q,--quiet", o.quiet);
    line.app().add_flag("--no-fusion", no_fusion);
    line.app().add_flag("--no-int8", no_int8);
    line.app().add_option("--precision", precision_text);
    line.app().add_option("--dump", o.dump_dir);
    line.app().add_option("--dump-layers", dump_only);
    if (!line.parse(args)) return false;
    o.compile.fusion = !no_fusion;
    o.compile.int8 = !no_int8;
    if (!precision_text.empty()) o.compile.precision = parse_precision(precision_text);
    if (!dump_only.empty() && o.dump_dir.empty()) throw UsageError("run: --dump-layers needs --dump DIR");
    if (!o.dump_dir.empty()) {
        o.compile.fusion = false;  // every layer's own output
        o.compile.keep_intermediates = true;
    }
    if (!threads_text.empty()) o.compile.threads = static_cast<int>(parse_count(threads_text, "-t", 1, 1024));
    if (!fill_text.empty()) o.fill = parse_fill_mode(fill_text);
    if (!seed_text.empty()) o.seed = parse_seed(seed_text);
    for (const std::string& spec : shape_specs) o.shapes.push_back(parse_shape_override(spec));
    o.dump_only = split_names(dump_only);
    return true;
}

// Without -o: every input and output printed.
void print_tensors(const CompiledModel& compiled, const InferRequest& request, const std::vector<BoundInput>& bound,
                   FillMode fill) {
    for (const BoundInput& b : bound) {
        const PortInfo& p = compiled.inputs()[b.index];
        std::cout << "input  " << p.name << ": " << to_string(b.tensor.type()) << " "
                  << to_string(b.tensor.shape()) << (b.path.empty() ? str(" (", fill_mode_name(fill), " fill)") : "")
                  << "\n" << format_tensor(b.tensor) << "\n";
    }
    const auto& outputs = compiled.outputs();
    for (size_t i = 0; i < outputs.size(); ++i) {
        const Tensor& t = request.output(i);
        std::cout << "output " << outputs[i].name << ": " << to_string(t.type()) << " " << to_string(t.shape())
                  << "\n" << format_tensor(t) << "\n";
    }
}

// -o DIR: every output as DIR/<name>.npy.
void write_outputs(const CompiledModel& compiled, const InferRequest& request, const std::vector<BoundInput>& bound,
                   const std::string& out_dir, bool quiet) {
    make_dirs(out_dir);
    std::set<std::string> used;
    const auto& outputs = compiled.outputs();
    for (size_t i = 0; i < outputs.size(); ++i) {
        const std::string path = out_dir + "/" + unique_file_name(outputs[i].name, used) + ".npy";
        const Tensor t = write_npy_output(path, request.output(i), bound, str("output '", outputs[i].name, "'"));
        if (!quiet) std::cout << "wrote " << path << ": " << to_string(t.type()) << " " << to_string(t.shape()) << "\n";
    }
}

}  // namespace

int run_command(const std::vector<std::string>& args) {
    RunOptions o;
    if (!parse_run_options(args, o)) return kExitOk;
    Model model = Model::read(o.model_path, o.bin_path);
    reshape_for_cli(model, o.shapes);
    const CompiledModel compiled(model, o.compile);
    InferRequest request = compiled.create_infer_request();
    const std::vector<BoundInput> bound = load_inputs(compiled, o.input_specs, o.fill, o.seed);
    for (const BoundInput& b : bound) request.set_input(b.index, b.tensor);
    request.infer();
    if (!o.dump_dir.empty()) dump_layers(request, o.dump_dir, o.dump_only, bound, o.quiet);
    if (o.out_dir.empty()) {
        if (!o.quiet) print_tensors(compiled, request, bound, o.fill);
        return kExitOk;
    }
    write_outputs(compiled, request, bound, o.out_dir, o.quiet);
    return kExitOk;
}

}  // namespace irlite::cli
