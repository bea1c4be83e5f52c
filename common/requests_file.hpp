// The extra-requests file (--memhier_extra, format memhier-requests/1, docs/formats.md) read and
// checked without a device: the format, every key and the range of every value of the families
// memhier knows (pchase, tlb). A family this file does not know is read generically (flat objects
// of integers and strings); memhier-bench refuses requests no registered family takes. The
// device's limits (array sizes, shared memory, the time budget) are checked where the requests
// are registered (bench/families/). Every problem is one line naming the file, the item and the key.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace memhier {

struct RequestItem {
  std::map<std::string, std::string> str;
  std::map<std::string, std::int64_t> num;
  std::int64_t get(const std::string& k, std::int64_t fallback) const {
    auto it = num.find(k);
    return it == num.end() ? fallback : it->second;
  }
};
using RequestFile = std::map<std::string, std::vector<RequestItem>>;

// Largest array a request may name (1 TiB: beyond any device memory; the device's own limit is
// checked at registration) and largest iteration count (the time budget decides below that).
constexpr std::int64_t kRequestMaxBytes = std::int64_t(1) << 40;
constexpr std::int64_t kRequestMaxIters = std::int64_t(1) << 40;
constexpr std::int64_t kRequestMaxRecords = std::int64_t(1) << 20;

// Throws std::runtime_error with one line on anything wrong.
RequestFile parse_requests(const std::string& json_text, const std::string& origin);
RequestFile load_requests(const std::string& path);

}  // namespace memhier
