// Placeholder until the host and peer kernels land: nothing offered.
#include "bench/levels/levels_cuda.hpp"

namespace memhier::levels {
void offer_links(const DeviceDescription&, LevelOffer*) {}
LevelResult run_host(const DeviceDescription&, const LevelRequest&) { return {"host: not built yet", {}, 0}; }
LevelResult run_peer(const DeviceDescription&, const LevelRequest&) { return {"peer: not built yet", {}, 0}; }
std::map<std::string, std::string> link_context(const DeviceDescription&) { return {}; }
}  // namespace memhier::levels
