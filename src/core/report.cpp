#include "core/report.hpp"

#include <cstdio>
#include <sstream>

namespace iok {

void TextReport::section(const std::string& title) { rows_.push_back({"", title}); }

void TextReport::line(const std::string& label, const std::string& value) { rows_.push_back({label, value}); }

void TextReport::line(const std::string& label, double value, const char* unit, int precision) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f %s", precision, value, unit);
    rows_.push_back({label, buf});
}

void TextReport::count(const std::string& label, std::uint64_t value) { rows_.push_back({label, with_commas(value)}); }

std::string TextReport::str() const {
    std::size_t width = 0;
    for (const auto& r : rows_) width = std::max(width, r.first.size());
    std::ostringstream os;
    for (const auto& r : rows_) {
        if (r.first.empty()) {
            os << "==== " << r.second << ' ' << std::string(r.second.size() < 60 ? 60 - r.second.size() : 0, '=')
               << '\n';
        } else {
            os << "  " << r.first << std::string(width - r.first.size(), ' ') << " = " << r.second << '\n';
        }
    }
    return os.str();
}

void TextReport::print() const {
    std::fputs(str().c_str(), stdout);
    std::fflush(stdout);
}

std::string with_commas(std::uint64_t n) {
    std::string s = std::to_string(n);
    for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
    return s;
}

std::string format_bytes(double bytes) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f MiB (%s bytes)", bytes / MiB,
                  with_commas(static_cast<std::uint64_t>(bytes)).c_str());
    return buf;
}

}  // namespace iok
