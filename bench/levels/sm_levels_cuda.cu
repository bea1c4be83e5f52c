// Placeholder until the dsmem and async_copy kernels land: nothing offered.
#include "bench/levels/levels_cuda.hpp"

namespace memhier::levels {
void offer_sm(const DeviceDescription&, LevelOffer*) {}
LevelResult run_dsmem(const DeviceDescription&, const LevelRequest&) { return {"dsmem: not built yet", {}, 0}; }
LevelResult run_async_copy(const DeviceDescription&, const LevelRequest&) { return {"async_copy: not built yet", {}, 0}; }
}  // namespace memhier::levels
