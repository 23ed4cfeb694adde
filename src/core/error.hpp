#pragma once
// One exception type for everything a user can get wrong or the system can
// refuse.  `what()` names the problem; `hint()` says what to do next.
#include <stdexcept>
#include <string>

namespace iok {

class Error : public std::runtime_error {
public:
    explicit Error(const std::string& what, std::string hint = {})
        : std::runtime_error(what), hint_(std::move(hint)) {}
    const std::string& hint() const { return hint_; }

private:
    std::string hint_;
};

}  // namespace iok
