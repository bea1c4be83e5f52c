#include "common/streams.hpp"

namespace memhier {

namespace {
const char* const kNames[kStreamVariantCount] = {"fresh", "reread1", "reread2", "mid", "two_ages", "restream"};
}

const char* stream_variant_name(StreamVariant v) {
  const int i = static_cast<int>(v);
  return i >= 0 && i < kStreamVariantCount ? kNames[i] : "?";
}

bool parse_stream_variant(const std::string& s, StreamVariant* out) {
  for (int i = 0; i < kStreamVariantCount; ++i)
    if (s == kNames[i]) {
      *out = static_cast<StreamVariant>(i);
      return true;
    }
  return false;
}

}  // namespace memhier
