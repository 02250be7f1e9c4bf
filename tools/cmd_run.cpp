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
        std::string base = safe_file_name(label);
        for (int k = 1; used.count(base); ++k) base = safe_file_name(label) + "_" + std::to_string(k);
        used.insert(base);
        const std::string file = base + ".npy", path = dir + "/" + file;
        for (const BoundInput& b : bound)
            if (!b.path.empty() && same_file(path, b.path))
                throw Error(ErrorKind::Io, "output-overwrites-input",
                            str("layer '", label, "' would overwrite the input file '", b.path, "'"));
        Tensor t = o.value;
        if (t.type() == ElementType::bf16) t = convert_bf16_to_f32(t);
        write_npy(path, t);
        layers.push_back({{"name", o.name}, {"type", o.type}, {"port", o.port}, {"file", file},
                          {"element_type", to_string(o.value.type())}, {"shape", o.value.shape()}});
    }
    const size_t count = layers.size();
    write_file_atomically(dir + "/index.json", dump_json(Json{{"layers", std::move(layers)}}) + "\n");
    if (!quiet) std::cout << "dumped " << count << " layer outputs to " << dir << "/\n";
}

}  // namespace

int run_command(const std::vector<std::string>& args) {
    std::string model_path, bin_path, out_dir, fill_text, seed_text, threads_text;
    std::vector<std::string> input_specs, shape_specs;
    bool quiet = false, no_fusion = false, no_int8 = false;
    std::string precision_text;
    CommandLine line("run", kRunHelp);
    line.add_model(model_path);
    line.app().add_option("-w,--weights", bin_path);
    line.add_repeated("-i,--input", input_specs, "NAME=FILE.npy");
    line.app().add_option("-o,--output", out_dir);
    line.app().add_option("--fill", fill_text);
    line.app().add_option("--seed", seed_text);
    line.app().add_option("-t,--threads", threads_text);
    line.add_repeated("--shape", shape_specs, "NAME=[dims]");
    line.app().add_flag("-q,--quiet", quiet);
    line.app().add_flag("--no-fusion", no_fusion);
    line.app().add_flag("--no-int8", no_int8);
    line.app().add_option("--precision", precision_text);
    std::string dump_dir, dump_only;
    line.app().add_option("--dump", dump_dir);
    line.app().add_option("--dump-layers", dump_only);
    if (!line.parse(args)) return kExitOk;
    CompileOptions options;
    options.fusion = !no_fusion;
    options.int8 = !no_int8;
    if (!precision_text.empty()) options.precision = parse_precision(precision_text);
    if (!dump_only.empty() && dump_dir.empty()) throw UsageError("run: --dump-layers needs --dump DIR");
    if (!dump_dir.empty()) {
        options.fusion = false;  // every layer's own output
        options.keep_intermediates = true;
    }
    if (!threads_text.empty()) options.threads = static_cast<int>(parse_count(threads_text, "-t", 1, 1024));
    const FillMode fill = fill_text.empty() ? FillMode::None : parse_fill_mode(fill_text);
    const uint64_t seed = seed_text.empty() ? 0 : parse_seed(seed_text);
    std::vector<ShapeOverride> shapes;
    for (const std::string& spec : shape_specs) shapes.push_back(parse_shape_override(spec));

    Model model = Model::read(model_path, bin_path);
    reshape_for_cli(model, shapes);
    const CompiledModel compiled(model, options);
    InferRequest request = compiled.create_infer_request();
    const std::vector<BoundInput> bound = load_inputs(compiled, input_specs, fill, seed);
    for (const BoundInput& b : bound) request.set_input(b.index, b.tensor);
    request.infer();
    if (!dump_dir.empty()) {
        std::vector<std::string> only;
        for (size_t at = 0; at <= dump_only.size() && !dump_only.empty();) {
            const size_t comma = std::min(dump_only.find(',', at), dump_only.size());
            if (comma > at) only.push_back(dump_only.substr(at, comma - at));
            at = comma + 1;
        }
        dump_layers(request, dump_dir, only, bound, quiet);
    }

    const auto& outputs = compiled.outputs();
    if (out_dir.empty()) {
        if (!quiet) {
            for (const BoundInput& b : bound) {
                const PortInfo& p = compiled.inputs()[b.index];
                std::cout << "input  " << p.name << ": " << to_string(b.tensor.type()) << " "
                          << to_string(b.tensor.shape()) << (b.path.empty() ? str(" (", fill_mode_name(fill), " fill)") : "")
                          << "\n" << format_tensor(b.tensor) << "\n";
            }
            for (size_t i = 0; i < outputs.size(); ++i) {
                const Tensor& t = request.output(i);
                std::cout << "output " << outputs[i].name << ": " << to_string(t.type()) << " " << to_string(t.shape())
                          << "\n" << format_tensor(t) << "\n";
            }
        }
        return kExitOk;
    }
    make_dirs(out_dir);
    std::set<std::string> used;
    for (size_t i = 0; i < outputs.size(); ++i) {
        std::string base = safe_file_name(outputs[i].name);
        for (int k = 1; used.count(base); ++k) base = safe_file_name(outputs[i].name) + "_" + std::to_string(k);
        used.insert(base);
        const std::string path = out_dir + "/" + base + ".npy";
        for (const BoundInput& b : bound)
            if (!b.path.empty() && same_file(path, b.path))
                throw Error(ErrorKind::Io, "output-overwrites-input",
                            str("output '", outputs[i].name, "' would overwrite the input file '", b.path, "'"));
        Tensor t = request.output(i);
        if (t.type() == ElementType::bf16) t = convert_bf16_to_f32(t);
        write_npy(path, t);
        if (!quiet) std::cout << "wrote " << path << ": " << to_string(t.type()) << " " << to_string(t.shape()) << "\n";
    }
    return kExitOk;
}

}  // namespace irlite::cli
