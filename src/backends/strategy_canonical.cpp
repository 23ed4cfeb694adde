// The canonical strategy: the library itself, each variable in its logical
// layout.  Registered like the others so every list of strategies comes
// from one registry.
#include "backends/strategy.hpp"

namespace iok {
namespace {

std::unique_ptr<Backend> make(const std::string& library, const BackendConfig& cfg) {
    return make_backend(library, cfg);
}

StrategyInfo describe() {
    StrategyInfo s;
    s.name = "canonical";
    s.description = "each variable in its logical layout, as the library stores it (default)";
    s.make = make;
    s.library_alone = true;
    s.keeps_canonical_layout = true;
    s.read_back = "-i / --verify with any rank count";
    return s;
}

}  // namespace
}  // namespace iok

IOK_REGISTER_STRATEGY(canonical, iok::describe)
