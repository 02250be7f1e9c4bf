// Reads a model, binds its (f32) inputs from a buffer of ones, runs it twice with one request and
// prints each output's name and shape: the public API from an installed package.
#include <irlite/irlite.hpp>

#include <iostream>
#include <vector>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: run_model MODEL.xml\n";
        return 2;
    }
    try {
        const irlite::CompiledModel compiled(irlite::Model::read(argv[1]));
        irlite::InferRequest request = compiled.create_infer_request();
        std::vector<std::vector<float>> buffers;
        for (const irlite::PortInfo& in : compiled.inputs()) {
            const irlite::Shape shape = in.shape.to_shape();
            buffers.emplace_back(static_cast<size_t>(irlite::checked_num_elements(shape)), 1.0f);
            request.set_input(in.name, irlite::Tensor::wrap(irlite::ElementType::f32, shape, buffers.back().data()));
        }
        for (int run = 0; run < 2; ++run) request.infer();
        for (size_t i = 0; i < request.num_outputs(); ++i)
            std::cout << compiled.outputs()[i].name << " " << irlite::to_string(request.output(i).shape()) << "\n";
    } catch (const irlite::Error& e) {
        std::cerr << e.what() << "\n";
        return 1;
    }
    return 0;
}
