#include "bench/backend_sim.hpp"

#include <stdexcept>

namespace memhier {

std::unique_ptr<Backend> make_sim_backend(const std::string& config_path) {
  throw std::runtime_error("the simulated device is not built yet (config " + config_path + ")");
}

}  // namespace memhier
