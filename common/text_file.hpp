// A whole text file into a string, for the readers that parse text (bench JSON, requests files).
#pragma once
#include <string>

namespace memhier {

// Throws std::runtime_error "<path>: <cannot_open>" when the file cannot be opened.
std::string read_text_file(const std::string& path, const std::string& cannot_open);

}  // namespace memhier
