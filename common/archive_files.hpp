// Files of a memhier archive as they are stored (docs/formats.md, "Archive files"): a file may be
// plain or gzip-compressed (`name.gz`), and the traces of an archive may be one pack file
// (`traces.pack.gz` or `traces.pack`, format `memhier-pack 2`, or 1 as older archives hold) instead of a directory of files.
// Readers go through these functions so that plain, compressed and packed archives read the same.
// gzip is read with zlib where the build found it (MEMHIER_HAVE_ZLIB), otherwise through the
// `gzip -dc` command; neither present: one clear error.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace memhier {

// The whole file, decompressed when it starts with the gzip magic. Throws std::runtime_error
// naming the file on any problem.
std::string read_file_maybe_gz(const std::string& path);

// `path` when it exists, else `path + ".gz"` when that exists, else "" (e.g. bench.json).
std::string existing_maybe_gz(const std::string& path);

// Whether this build reads gzip without the gzip command.
bool have_zlib();

// A pack: every file of one directory, concatenated (docs/formats.md, "Archive files"); a trace
// whose data rows begin with an arithmetic progression (an index, an offset) is stored without that
// column and restored byte for byte. parse_pack reads versions 1 and 2 and throws on a malformed or
// truncated pack; `label` names it in messages. make_pack writes version 2.
std::map<std::string, std::string> parse_pack(const std::string& text, const std::string& label);
std::string make_pack(const std::map<std::string, std::string>& files);

// The pack that stands for directory `dir` (`dir.pack.gz`, `dir.pack`), or "" when none exists.
std::string pack_for_dir(const std::string& dir);

// Content of file `name` of directory `dir`: the plain file, its `.gz`, or its entry in the pack of
// `dir` (packs are read once and cached). nullopt when none holds it.
std::optional<std::string> read_archived_file(const std::string& dir, const std::string& name);

// The inputs of an archive directory in analysis order: bench.json(.gz), then refine-1.json(.gz),
// refine-2, ... (characterize.sh's refinement rounds). Other paths are returned as given.
std::vector<std::string> expand_archive_inputs(const std::vector<std::string>& paths);

}  // namespace memhier
