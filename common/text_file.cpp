#include "common/text_file.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace memhier {

std::string read_text_file(const std::string& path, const std::string& cannot_open) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error(path + ": " + cannot_open);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace memhier
