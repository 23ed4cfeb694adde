#pragma once
// One CSV row per file of a result, for spreadsheets and plotting scripts:
// the same figures as the JSON `files` entries, flattened.
#include <nlohmann/json.hpp>
#include <string>

namespace iok {

// Writes the header and one row per entry of `files`; throws iok::Error when
// `path` cannot be written.
void write_result_csv(const std::string& path, const std::string& kernel, const nlohmann::json& params,
                      const nlohmann::json& files, int processes);

}  // namespace iok
