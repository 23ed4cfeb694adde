#pragma once
// A Backend for unit tests whose files are a test double: every create and
// open returns a new File from the given function, so a test writes only
// the File it watches with (buffer addresses, values at the flush, ...).
#include <mpi.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "backends/backend.hpp"

namespace iok_test {

class DoubleBackend final : public iok::Backend {
public:
    using MakeFile = std::function<std::unique_ptr<iok::File>()>;
    DoubleBackend(std::string name, MakeFile make) : name_(std::move(name)), make_(std::move(make)) {}
    std::string name() const override { return name_; }
    std::string extension() const override { return ".none"; }
    std::unique_ptr<iok::File> create(const std::string&, const iok::FileSpec&, MPI_Comm) override { return make_(); }
    std::unique_ptr<iok::File> open(const std::string&, const iok::FileSpec&, MPI_Comm, iok::Access) override {
        return make_();
    }

private:
    std::string name_;
    MakeFile make_;
};

}  // namespace iok_test
