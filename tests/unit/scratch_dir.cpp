#include "scratch_dir.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>  // mkdtemp

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <system_error>
#include <vector>

namespace fs = std::filesystem;

namespace iok_test {

namespace {

struct Made {
    std::string dir;  // empty: none made in this test
    MPI_Comm comm = MPI_COMM_NULL;
    bool owner = false;  // this rank made it, so removes it
};

Made& made() {
    static Made m;
    return m;
}

int rank_in(MPI_Comm comm) {
    int r = 0;
    MPI_Comm_rank(comm, &r);
    return r;
}

// "Suite.Name" with anything but letters, digits, '.', '-' and '_' replaced
// (parameterised tests have '/' in their names).
std::string test_label() {
    const testing::TestInfo* t = testing::UnitTest::GetInstance()->current_test_info();
    std::string s = t ? std::string(t->test_suite_name()) + "." + t->name() : "no_test";
    for (char& c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
    return s;
}

// Rank 0's string on every rank of comm.
std::string share(std::string s, MPI_Comm comm) {
    int n = static_cast<int>(s.size());
    MPI_Bcast(&n, 1, MPI_INT, 0, comm);
    s.resize(static_cast<std::size_t>(n));
    MPI_Bcast(s.data(), n, MPI_CHAR, 0, comm);
    return s;
}

}  // namespace

std::string scratch_dir(MPI_Comm comm) {
    if (const char* keep = std::getenv("IOK_TEST_OUTDIR"); keep && *keep) {
        if (rank_in(comm) == 0) fs::create_directories(keep);
        MPI_Barrier(comm);
        return keep;
    }
    Made& m = made();
    if (!m.dir.empty()) return m.dir;
    const bool root = rank_in(comm) == 0;
    std::string dir;
    if (root) {
        std::string tmpl = (fs::temp_directory_path() / ("iok_" + test_label() + "_XXXXXX")).string();
        std::vector<char> buf(tmpl.begin(), tmpl.end());
        buf.push_back('\0');
        if (mkdtemp(buf.data())) dir = buf.data();
    }
    dir = share(dir, comm);
    if (dir.empty())  // on every rank, so none waits for the others
        throw std::runtime_error("cannot create a scratch directory under " + fs::temp_directory_path().string() +
                                 " (set TMPDIR to a writable directory)");
    m = {dir, comm, root};
    return dir;
}

std::string scratch_path(const std::string& name, MPI_Comm comm) { return scratch_dir(comm) + "/" + name; }

void remove_scratch_dir() {
    Made& m = made();
    if (m.dir.empty()) return;
    int size = 1;
    MPI_Comm_size(m.comm, &size);
    if (size > 1) MPI_Barrier(m.comm);  // every rank is done with the files
    if (m.owner) {
        std::error_code ec;
        fs::remove_all(m.dir, ec);
    }
    m = {};
}

}  // namespace iok_test
