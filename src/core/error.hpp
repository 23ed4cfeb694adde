#pragma once
// One exception type for everything a user can get wrong or the system can
// refuse.  `what()` names the problem; `hint()` says what to do next.
#include <stdexcept>
#include <string>

namespace iok {

class Error : public std::runtime_error {
public:
    explicit Error(const std::string& what, std::string hint = {}, int exit_code = 1)
        : std::runtime_error(what),
          hint_(std::move(hint)),
          exit_code_(exit_code) {}
    const std::string& hint() const { return hint_; }
    int exit_code() const { return exit_code_; }

private:
    std::string hint_;
    int exit_code_;
};

// A combination the suite cannot express (a kernel's need that the chosen
// library or strategy lacks): exit status 2, so a matrix run can tell "not
// expressible" from "failed".
class Unsupported : public Error {
public:
    explicit Unsupported(const std::string& what, std::string hint = {}) : Error(what, std::move(hint), 2) {}
};

}  // namespace iok
