// The compiled half of the Python package `irlite` (python/irlite/__init__.py is the other): the
// library's Model, CompiledModel, InferRequest, VariableState and check, with numpy arrays for
// tensors. Inputs are read in place (C-contiguous arrays of the exact dtype; anything else is an
// error, never a silent cast); outputs are copies the caller owns. The GIL is released while a
// model runs.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/compare.hpp"
#include "engine/log.hpp"
#include "irlite/irlite.hpp"
#include "tools/model_inputs.hpp"

namespace py = pybind11;
using namespace irlite;

namespace {

py::object g_error_type;  // irlite.Error, made in PYBIND11_MODULE

const char* severity_name(Severity s) { return s == Severity::Error ? "error" : "warning"; }

// The fields of `check --json`, on an irlite.Error or a finding.
void set_location(py::object& target, const Location& where) {
    target.attr("file") = where.file.empty() ? py::none() : py::cast(where.file);
    target.attr("line") = where.line > 0 ? py::cast(where.line) : py::none();
    target.attr("layer_id") = where.layer_id ? py::cast(*where.layer_id) : py::none();
    target.attr("layer_name") = where.layer_name.empty() ? py::none() : py::cast(where.layer_name);
    target.attr("layer_type") = where.layer_type.empty() ? py::none() : py::cast(where.layer_type);
    target.attr("port") = where.port >= 0 ? py::cast(where.port) : py::none();
}

std::vector<int64_t> dims_of(const PartialShape& shape) {
    std::vector<int64_t> dims;
    if (!shape.rank_known()) return dims;
    for (size_t i = 0; i < shape.rank(); ++i) dims.push_back(shape[i]);
    return dims;
}

py::dtype dtype_of(ElementType t) {
    if (t == ElementType::bf16) return py::dtype("<f4");  // numpy has no bfloat16: f32, as the CLI does
    return py::dtype(traits(t).npy_descr);
}

// A numpy array as a tensor over its own memory; the caller keeps `array` alive while it is used.
Tensor wrap_array(const py::array& array, const PortInfo& port) {
    const ElementType want = port.type == ElementType::bf16 ? ElementType::f32 : port.type;
    if (port.type == ElementType::bf16)
        throw Error(ErrorKind::Input, "input-type",
                    "input '" + port.name + "' is bf16, which numpy cannot hold: irlite's Python API does not take it");
    const py::dtype expected = dtype_of(want);
    if (!array.dtype().is(expected) && array.dtype().attr("str").cast<std::string>() != traits(want).npy_descr)
        throw Error(ErrorKind::Input, "input-type",
                    "input '" + port.name + "' is " + to_string(port.type) + " (numpy " +
                        expected.attr("name").cast<std::string>() + "), got an array of " +
                        array.dtype().attr("name").cast<std::string>() + ": convert it first (irlite never casts silently)");
    if (!(array.flags() & py::array::c_style))
        throw Error(ErrorKind::Input, "input-layout",
                    "input '" + port.name + "' must be a C-contiguous array (np.ascontiguousarray)");
    Shape shape;
    for (py::ssize_t i = 0; i < array.ndim(); ++i) shape.push_back(static_cast<int64_t>(array.shape(i)));
    return Tensor::wrap(want, shape, const_cast<void*>(array.data()));
}

py::array to_array(const Tensor& t) {
    if (!t.valid()) return py::none();
    std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
    if (t.type() == ElementType::bf16) {  // widened to f32
        py::array_t<float> out(shape);
        const auto* src = static_cast<const uint16_t*>(t.data());
        float* dst = out.mutable_data();
        for (int64_t i = 0; i < t.num_elements(); ++i) {
            const uint32_t bits = static_cast<uint32_t>(src[i]) << 16;
            std::memcpy(dst + i, &bits, 4);
        }
        return std::move(out);
    }
    py::array out(dtype_of(t.type()), shape);
    std::memcpy(out.mutable_data(), t.data(), t.byte_size());
    return out;
}

// A read-only array over the tensor's own memory (share_outputs=True): no copy; it keeps the
// buffer alive, but the request overwrites it at its next run. bf16 has no numpy type: copied.
py::array view_array(const Tensor& t) {
    if (!t.valid()) return py::none();
    if (t.type() == ElementType::bf16) return to_array(t);
    std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
    auto* keep = new Tensor(t);  // shares the buffer
    py::capsule owner(keep, [](void* p) { delete static_cast<Tensor*>(p); });
    py::array out(dtype_of(t.type()), shape, {}, keep->data(), owner);
    out.attr("setflags")(py::arg("write") = false);
    return out;
}

// A port as Python sees it (OpenVINO's ports have get_any_name(), names, element type and shape).
struct Port {
    std::string name;
    std::vector<std::string> names;
    std::string element_type;
    std::vector<int64_t> shape;  // -1 for a dynamic dim; empty for a scalar or an unknown rank
    bool rank_known = true;
    std::string numpy;  // the numpy dtype of its arrays ("<f4"); "" when there is none
};

Port port_of(const PortInfo& p) {
    const std::string numpy = is_storable(p.type) ? dtype_of(p.type).attr("str").cast<std::string>() : "";
    return {p.name, p.names, to_string(p.type), dims_of(p.shape), p.shape.rank_known(), numpy};
}
Port port_of(const PortInfoDeclared& p) {
    return {p.name, p.names, p.element_type, dims_of(p.shape), p.shape.rank_known(), ""};
}

template <class Info>
std::vector<Port> ports_of(const std::vector<Info>& infos) {
    std::vector<Port> ports;
    for (const Info& p : infos) ports.push_back(port_of(p));
    return ports;
}

// An infer request with the arrays it reads kept alive until the next run.
class PyRequest {
public:
    explicit PyRequest(const CompiledModel& compiled)
        : compiled_(compiled), request_(compiled.create_infer_request()) {}

    void bind(const py::object& inputs) {
        bound_.clear();
        if (inputs.is_none()) return;
        const auto& ports = compiled_.inputs();
        if (py::isinstance<py::dict>(inputs)) {
            for (const auto& [key, value] : inputs.cast<py::dict>()) {
                const py::array array = py::reinterpret_borrow<py::array>(value);
                bind_one(key.cast<std::string>(), array);
            }
            return;
        }
        // A list or tuple: by position; a single array: the only input.
        std::vector<py::object> items;
        if (py::isinstance<py::list>(inputs) || py::isinstance<py::tuple>(inputs))
            for (const auto& v : inputs) items.push_back(py::reinterpret_borrow<py::object>(v));
        else
            items.push_back(inputs);
        if (items.size() > ports.size())
            throw Error(ErrorKind::Input, "input-count",
                        "got " + std::to_string(items.size()) + " inputs, the model has " + std::to_string(ports.size()));
        for (size_t i = 0; i < items.size(); ++i) bind_one(ports[i].name, py::array(items[i]));
    }

    py::dict infer(const py::object& inputs, bool share_outputs) {
        bind(inputs);
        {
            py::gil_scoped_release release;
            request_.infer();
        }
        return share_outputs ? shared_results() : results();
    }

    void start_async(const py::object& inputs) {
        bind(inputs);
        request_.start_async();
    }

    void wait() {
        py::gil_scoped_release release;
        request_.wait();
    }

    py::dict results() const {
        py::dict out;
        const auto& ports = compiled_.outputs();
        for (size_t i = 0; i < ports.size(); ++i) out[py::str(ports[i].name)] = to_array(request_.output(i));
        return out;
    }

    // The outputs as read-only views of the request's memory, valid until its next run.
    py::dict shared_results() const {
        py::dict out;
        const auto& ports = compiled_.outputs();
        for (size_t i = 0; i < ports.size(); ++i) out[py::str(ports[i].name)] = view_array(request_.output(i));
        return out;
    }

    InferRequest& request() { return request_; }

private:
    void bind_one(const std::string& name, const py::array& array) {
        const auto& ports = compiled_.inputs();
        const PortInfo* port = nullptr;
        for (const PortInfo& p : ports) {
            if (p.name == name) port = &p;
            for (const std::string& n : p.names)
                if (n == name && !port) port = &p;
        }
        if (!port) {
            request_.set_input(name, Tensor());  // the library's error lists the inputs
            return;
        }
        bound_.push_back(array);
        request_.set_input(name, wrap_array(array, *port));
    }

    CompiledModel compiled_;
    InferRequest request_;
    std::vector<py::array> bound_;  // the arrays the request reads, alive until the next bind
};

LogLevel log_level_named(const std::string& name) {
    LogLevel level = LogLevel::Default;
    if (!name.empty() && !detail::parse_log_level(name, level))
        throw Error(ErrorKind::Usage, "log-level",
                    "unknown log level '" + name + "' (off, error, warning, info, debug, trace)");
    return level;
}

CompiledModel compile(const Model& model, std::optional<int> threads, bool profiling, bool fusion,
                      const std::string& log_level, const std::string& precision, bool int8) {
    CompileOptions options;
    if (precision == "f16") options.precision = InferencePrecision::Declared;
    else if (precision != "f32")
        throw Error(ErrorKind::Usage, "precision", "precision must be \"f32\" or \"f16\", got '" + precision + "'");
    options.log_level = log_level_named(log_level);
    options.threads = threads.value_or(0);
    options.profiling = profiling;
    options.fusion = fusion;
    options.int8 = int8;
    py::gil_scoped_release release;
    return CompiledModel(model, options);
}

// A comparison as the JSON of `irlite compare --json` (non-finite measures as None).
py::dict comparison_dict(const Comparison& c, const std::vector<NamedInput>& inputs) {
    const auto finite = [](double v) -> py::object { return std::isfinite(v) ? py::cast(v) : py::none(); };
    const auto tensor = [&](const MatchedTensor& t) {
        return py::dict(py::arg("name") = t.name, py::arg("layer_a") = t.layer_a, py::arg("layer_b") = t.layer_b,
                        py::arg("port") = t.port, py::arg("cosine") = finite(t.difference.cosine),
                        py::arg("max_abs") = finite(t.difference.max_abs), py::arg("max_rel") = finite(t.difference.max_rel),
                        py::arg("nonfinite_differs") = t.difference.nonfinite_differs);
    };
    py::list in_list, tensors;
    for (const NamedInput& in : inputs)
        in_list.append(py::dict(py::arg("name") = in.names.front(), py::arg("source") = in.source,
                                py::arg("element_type") = to_string(in.tensor.type()),
                                py::arg("shape") = std::vector<int64_t>(in.tensor.shape().begin(), in.tensor.shape().end())));
    for (const MatchedTensor& t : c.tensors) tensors.append(tensor(t));
    py::object first = py::none();
    if (c.first_divergent >= 0) {
        py::dict d = tensor(c.tensors[static_cast<size_t>(c.first_divergent)]);
        d["index"] = c.first_divergent;
        first = d;
    }
    py::dict out;
    out["inputs"] = in_list;
    out["threshold"] = c.threshold;
    out["atol"] = c.atol;
    out["tensors"] = tensors;
    out["first_divergent"] = first;
    out["unmatched_a"] = c.unmatched_a;
    out["unmatched_b"] = c.unmatched_b;
    return out;
}

// irlite.compare: A against B (or A run another way, `vs`) on `inputs` ({name: array}), the
// inputs not given filled as `irlite compare --fill` fills them.
py::dict compare_py(const Model& a, const std::optional<Model>& b, const py::object& inputs, const std::string& fill,
                    uint64_t seed, double threshold, bool fused, const std::string& vs, int threads, double atol) {
    cli::FillMode mode = cli::FillMode::Random;
    if (fill == "zeros") mode = cli::FillMode::Zeros;
    else if (fill == "ones") mode = cli::FillMode::Ones;
    else if (fill != "random")
        throw Error(ErrorKind::Usage, "fill-invalid", "fill expects 'random', 'zeros' or 'ones', got '" + fill + "'");
    CompareSide side_a;
    side_a.model = &a;
    side_a.options.threads = threads;
    side_a.options.fusion = fused || !vs.empty();
    CompareSide side_b = side_a;
    if (!vs.empty()) side_b = side_run_another_way(side_a, vs);
    else if (b) side_b.model = &*b;
    else throw Error(ErrorKind::Usage, "compare-usage", "compare needs a second model b, or vs=...");
    std::map<std::string, py::array> given;
    if (!inputs.is_none())
        for (const auto& [key, value] : inputs.cast<py::dict>())
            given[key.cast<std::string>()] = py::reinterpret_borrow<py::array>(value);
    const auto make_inputs = [&](const CompiledModel& compiled) {
        std::vector<NamedInput> list;
        std::map<std::string, bool> used;
        const std::vector<PortInfo>& ports = compiled.inputs();
        for (size_t i = 0; i < ports.size(); ++i) {
            NamedInput in;
            in.names.push_back(ports[i].name);
            in.names.insert(in.names.end(), ports[i].names.begin(), ports[i].names.end());
            for (const std::string& n : in.names) {
                auto it = given.find(n);
                if (it == given.end() || in.tensor.valid()) continue;
                in.tensor = wrap_array(it->second, ports[i]).clone();
                in.source = "array";
                used[n] = true;
            }
            if (!in.tensor.valid()) {
                in.tensor = cli::filled_input(ports[i], mode, seed, i);
                in.source = str(fill, " fill, seed ", seed);
            }
            list.push_back(std::move(in));
        }
        for (const auto& entry : given)
            if (!used.count(entry.first))
                throw Error(ErrorKind::Input, "input-unknown",
                            "the model has no input named '" + entry.first + "'; its inputs are " + cli::describe_inputs(compiled));
        return list;
    };
    std::vector<NamedInput> used;
    const Comparison c = compare_models(side_a, side_b, make_inputs, threshold, &used, atol);
    py::dict out = comparison_dict(c, used);
    out["vs"] = vs.empty() ? py::object(py::none()) : py::cast(vs);
    return out;
}

// The module's parts, bound by PYBIND11_MODULE in this order.

// irlite.Error: an irlite Error raised in Python, with its code, kind, message and location.
void bind_error(py::module_& m) {
    static py::exception<Error> error_type(m, "Error", PyExc_RuntimeError);
    g_error_type = error_type;
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const Error& e) {
            py::object instance = g_error_type(e.what());
            instance.attr("code") = e.code();
            instance.attr("kind") = to_string(e.kind());
            instance.attr("message") = e.message();
            instance.attr("severity") = "error";
            set_location(instance, e.location());
            PyErr_SetObject(g_error_type.ptr(), instance.ptr());
        }
    });
}

// Port: an input or output of a model.
void bind_port(py::module_& m) {
    py::class_<Port>(m, "Port")
        .def_readonly("name", &Port::name)
        .def_readonly("names", &Port::names)
        .def_readonly("element_type", &Port::element_type)
        .def_property_readonly("shape", [](const Port& p) -> py::object {
            if (!p.rank_known) return py::none();
            return py::cast(p.shape);
        })
        .def_property_readonly("dtype", [](const Port& p) -> py::object {
            if (p.numpy.empty()) return py::none();
            return py::dtype(p.numpy);
        })
        .def("get_any_name", [](const Port& p) { return p.names.empty() ? p.name : p.names.front(); })
        .def("__repr__", [](const Port& p) { return "<Port '" + p.name + "' " + p.element_type + ">"; });
}

// Model, and reading and compiling one.
void bind_model(py::module_& m) {
    py::class_<Model>(m, "Model")
        .def_property_readonly("inputs", [](const Model& model) { return ports_of(model.inputs()); })
        .def_property_readonly("outputs", [](const Model& model) { return ports_of(model.outputs()); })
        .def("ops", &Model::ops)
        .def("reshape", [](Model& model, const std::map<std::string, std::vector<int64_t>>& shapes) {
            std::vector<std::pair<std::string, PartialShape>> list;
            for (const auto& [name, dims] : shapes) list.emplace_back(name, PartialShape(dims));
            model.reshape(list);
        });

    m.def("_read_model", [](const std::string& path, const std::string& weights) {
        py::gil_scoped_release release;
        return Model::read(path, weights);
    });
    m.def("_compile", &compile);
}

// CompiledModel.
void bind_compiled_model(py::module_& m) {
    py::class_<CompiledModel>(m, "CompiledModel")
        .def_property_readonly("inputs", [](const CompiledModel& c) { return ports_of(c.inputs()); })
        .def_property_readonly("outputs", [](const CompiledModel& c) { return ports_of(c.outputs()); })
        .def("create_infer_request", [](const CompiledModel& c) { return PyRequest(c); })
        .def("__call__", [](const CompiledModel& c, const py::object& inputs) { return PyRequest(c).infer(inputs, false); },
             py::arg("inputs") = py::none());
}

// VariableState: a ReadValue/Assign variable of a request.
void bind_variable_state(py::module_& m) {
    py::class_<VariableState>(m, "VariableState")
        .def_property_readonly("name", &VariableState::name)
        .def_property_readonly("state", [](const VariableState& v) { return to_array(v.state()); })
        .def("set_state", [](VariableState& v, const py::array& value) {
            const py::array dense = py::array::ensure(value, py::array::c_style);
            PortInfo port;
            port.name = v.name();
            port.type = ElementType::f32;
            bool known = false;
            for (int t = 0; t < kNumElementTypes && !known; ++t)
                if (traits(static_cast<ElementType>(t)).npy_descr == dense.dtype().attr("str").cast<std::string>()) {
                    port.type = static_cast<ElementType>(t);
                    known = true;
                }
            if (!known) throw Error(ErrorKind::Input, "input-type", "set_state: an array of an unsupported dtype");
            v.set_state(wrap_array(dense, port));  // copied by the library
        })
        .def("reset", &VariableState::reset);
}

// InferRequest.
void bind_infer_request(py::module_& m) {
    py::class_<PyRequest>(m, "InferRequest")
        .def("infer", &PyRequest::infer, py::arg("inputs") = py::none(), py::arg("share_outputs") = false)
        .def("start_async", &PyRequest::start_async, py::arg("inputs") = py::none())
        .def("wait", &PyRequest::wait)
        .def_property_readonly("results", &PyRequest::results)
        .def("query_state", [](PyRequest& r) { return r.request().query_state(); })
        .def("reset_state", [](PyRequest& r) { r.request().reset_state(); })
        .def("profiling", [](PyRequest& r) {
            py::list rows;
            for (const ProfileEntry& e : r.request().profiling())
                rows.append(py::dict(py::arg("name") = e.name, py::arg("body") = e.body, py::arg("type") = e.type,
                                     py::arg("method") = e.method, py::arg("precision") = e.precision,
                                     py::arg("isa") = e.isa, py::arg("ms") = e.ms, py::arg("runs") = e.runs));
            return rows;
        });
}

// check(): the findings, each a types.SimpleNamespace with the Diagnostic's fields.
py::list check_py(const std::string& path, bool no_weights, const std::string& weights) {
    CheckOptions options;
    options.no_weights = no_weights;
    options.weights = weights;
    CheckResult result;
    {
        py::gil_scoped_release release;
        result = check(path, options);
    }
    py::list findings;
    py::object finding_type = py::module_::import("types").attr("SimpleNamespace");
    for (const Diagnostic& d : result.findings) {
        py::object f = finding_type();
        f.attr("code") = d.code;
        f.attr("severity") = severity_name(d.severity);
        f.attr("message") = d.message;
        set_location(f, d.where);
        f.attr("declared") = d.declared.empty() ? py::none() : py::cast(d.declared);
        f.attr("inferred") = d.inferred.empty() ? py::none() : py::cast(d.inferred);
        findings.append(f);
    }
    return findings;
}

// The module's functions: the op list, the log level, compare and check.
void bind_functions(py::module_& m) {
    m.def("supported_ops", [] {
        py::list ops;
        for (const SupportedOp& op : supported_ops())
            ops.append(py::make_tuple(op.type, op.version, op.first_opset, op.last_opset));
        return ops;
    });
    m.def("set_log_level", [](const std::string& name) { set_log_level(log_level_named(name)); });
    m.def("_compare", &compare_py);
    m.def("_check", &check_py);
}

}  // namespace

PYBIND11_MODULE(_irlite, m) {
    m.doc() = "irlite: a small, fast engine for OpenVINO IR (model.xml + model.bin)";
    m.attr("__version__") = version();
    bind_error(m);
    bind_port(m);
    bind_model(m);
    bind_compiled_model(m);
    bind_variable_state(m);
    bind_infer_request(m);
    bind_functions(m);
}
