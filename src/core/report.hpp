#pragma once
// Human-readable report lines: "  Label ........ = value", aligned, greppable.
#include <cstdint>
#include <string>
#include <vector>

namespace iok {

class TextReport {
public:
    void section(const std::string& title);
    void line(const std::string& label, const std::string& value);
    void line(const std::string& label, double value, const char* unit, int precision = 4);
    void count(const std::string& label, std::uint64_t value);
    std::string str() const;
    void print() const;  // to stdout; call on rank 0

private:
    std::vector<std::pair<std::string, std::string>> rows_;  // label empty = section header
};

std::string format_bytes(double bytes);    // "33.65 MB (32.09 MiB)"
std::string with_commas(std::uint64_t n);  // 1,977,687
constexpr double MiB = 1024.0 * 1024.0;

}  // namespace iok
