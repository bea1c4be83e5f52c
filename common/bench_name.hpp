// Benchmark names ↔ parameters. A name is `family/key:value/key:value...`, e.g.
// `pchase/path:global_ca/mode:fine/bytes:65536/stride:32`. Google Benchmark may append
// `/manual_time`, `/iterations:N`, `/repeats:N`, `/threads:N` and aggregate suffixes (`_mean`);
// parsing drops those and keeps the parameters.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace memhier {

class BenchName {
 public:
  BenchName() = default;
  explicit BenchName(std::string family) : family_(std::move(family)) {}

  BenchName& add(const std::string& key, const std::string& value);
  BenchName& add(const std::string& key, std::int64_t value);

  const std::string& family() const { return family_; }
  const std::vector<std::pair<std::string, std::string>>& params() const { return params_; }

  bool has(const std::string& key) const;
  std::optional<std::string> get(const std::string& key) const;
  std::optional<std::int64_t> get_int(const std::string& key) const;
  std::string get_or(const std::string& key, const std::string& fallback) const;
  std::int64_t get_int_or(const std::string& key, std::int64_t fallback) const;

  std::string str() const;
  // Parses a benchmark name (run_name or name from the JSON). Returns nullopt for an empty name.
  static std::optional<BenchName> parse(const std::string& name);

  bool operator==(const BenchName& o) const { return family_ == o.family_ && params_ == o.params_; }

 private:
  std::string family_;
  std::vector<std::pair<std::string, std::string>> params_;
};

// A file-name-safe form of a benchmark name (used for trace files): '/' -> "__", ':' -> "-".
std::string sanitize_for_file(const std::string& name);

}  // namespace memhier
