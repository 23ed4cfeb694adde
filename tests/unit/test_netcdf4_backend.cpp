// `netcdf4` backend on one rank: round trip (collective and independent),
// file contents checked with the serial NetCDF API, corruption found.
#ifdef IOK_HAVE_NETCDF4
#include <netcdf.h>

#include "core/error.hpp"
#include "library_roundtrip_case.hpp"

namespace {

using namespace iok_test;

iok::BackendConfig config(bool collective = true) {
    iok::BackendConfig cfg;
    cfg.collective = collective;
    return cfg;
}

std::vector<double> raw_read(const std::string& path, const std::string& var, std::vector<size_t>* dims = nullptr) {
    int nc = -1, id = -1, nd = 0;
    EXPECT_EQ(nc_open(path.c_str(), NC_NOWRITE, &nc), NC_NOERR);
    EXPECT_EQ(nc_inq_varid(nc, var.c_str(), &id), NC_NOERR);
    nc_inq_varndims(nc, id, &nd);
    std::vector<int> dimids(nd);
    nc_inq_vardimid(nc, id, dimids.data());
    size_t n = 1;
    if (dims) dims->clear();
    for (int d : dimids) {
        size_t len = 0;
        nc_inq_dimlen(nc, d, &len);
        n *= len;
        if (dims) dims->push_back(len);
    }
    std::vector<double> out(n);
    EXPECT_EQ(nc_get_var_double(nc, id, out.data()), NC_NOERR);
    nc_close(nc);
    return out;
}

void expect_file_contents(const Case& c, const std::string& path) {
    const int tv = c.spec.find_var("T");
    std::vector<size_t> dims;
    auto t = raw_read(path, "T", &dims);
    ASSERT_EQ(dims, (std::vector<size_t>{kRecords, kLev, kCol}));
    for (int r = 0; r < kRecords; ++r)
        for (std::int64_t i = 0; i < static_cast<std::int64_t>(kLev * kCol); ++i)
            ASSERT_EQ(t[r * kLev * kCol + i], static_cast<float>(value_of(tv, r, i, DType::Float)))
                << "T record " << r << " element " << i;
    const int av = c.spec.find_var("area");
    auto area = raw_read(path, "area");
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(kCol); ++i)
        EXPECT_EQ(area[i], value_of(av, 0, i, DType::Double));
    EXPECT_EQ(raw_read(path, "P0").at(0), value_of(c.spec.find_var("P0"), 0, 0, DType::Double));
}

void round_trip(bool collective) {
    const std::string path = output_dir() + "/rt_netcdf4" + (collective ? "" : "_indep") + ".nc";
    Case c = make_case(path);
    auto w = iok::make_backend("netcdf4", config(collective));
    const iok::BackendStats w_stats = write_case(*w, c);
    EXPECT_EQ(w_stats.bytes_put, expected_bytes(c));
    expect_file_contents(c, path);
    auto r = iok::make_backend("netcdf4", config(collective));
    iok::BackendStats r_stats;
    EXPECT_EQ(read_mismatches(*r, c, &r_stats), 0u);
    EXPECT_EQ(r_stats.bytes_get, expected_bytes(c));
}

TEST(Netcdf4Backend, RoundTripCollective) { round_trip(true); }
TEST(Netcdf4Backend, RoundTripIndependent) { round_trip(false); }

TEST(Netcdf4Backend, FileIsNetcdf4WithAttributes) {
    const std::string path = output_dir() + "/attrs_netcdf4.nc";
    Case c = make_case(path);
    auto w = iok::make_backend("netcdf4", config());
    write_case(*w, c);
    int nc = -1, fmt = 0, id = -1, storage = -1;
    ASSERT_EQ(nc_open(path.c_str(), NC_NOWRITE, &nc), NC_NOERR);
    nc_inq_format(nc, &fmt);
    EXPECT_EQ(fmt, NC_FORMAT_NETCDF4);
    char title[64] = {0};
    ASSERT_EQ(nc_get_att_text(nc, NC_GLOBAL, "title", title), NC_NOERR);
    EXPECT_STREQ(title, "iokernels backend round trip");
    nc_inq_varid(nc, "T", &id);
    size_t chunk[3] = {0, 0, 0};
    nc_inq_var_chunking(nc, id, &storage, chunk);
    EXPECT_EQ(storage, NC_CHUNKED);
    EXPECT_EQ(chunk[0], 1u);
    EXPECT_EQ(chunk[2], kCol);
    nc_inq_varid(nc, "area", &id);
    nc_inq_var_chunking(nc, id, &storage, nullptr);
    EXPECT_EQ(storage, NC_CONTIGUOUS);
    float vr[2] = {0, 0};
    nc_inq_varid(nc, "lev", &id);
    ASSERT_EQ(nc_get_att_float(nc, id, "valid_range", vr), NC_NOERR);
    EXPECT_EQ(vr[1], 1000.0f);
    nc_close(nc);
}

TEST(Netcdf4Backend, CorruptedElementIsFound) {
    const std::string path = output_dir() + "/corrupt_netcdf4.nc";
    Case c = make_case(path);
    auto w = iok::make_backend("netcdf4", config());
    write_case(*w, c);
    int nc = -1, id = -1;
    ASSERT_EQ(nc_open(path.c_str(), NC_WRITE, &nc), NC_NOERR);
    nc_inq_varid(nc, "PS", &id);
    size_t idx[2] = {1, 5};
    double bad = -12345.0;
    ASSERT_EQ(nc_put_var1_double(nc, id, idx, &bad), NC_NOERR);
    nc_close(nc);
    auto r = iok::make_backend("netcdf4", config());
    EXPECT_EQ(read_mismatches(*r, c), 1u);
}

TEST(Netcdf4Backend, ErrorsNameTheFileAndLibrary) {
    auto b = iok::make_backend("netcdf4", config());
    EXPECT_EQ(iok::backend_info(b->name()).library_version().rfind("NetCDF-C 4.", 0), 0u)
        << iok::backend_info(b->name()).library_version();
    Case c = make_case("/nonexistent-dir/x.nc");
    try {
        auto bf = b->open("/nonexistent-dir/x.nc", c.spec, MPI_COMM_WORLD);
        FAIL() << "open of a missing file succeeded";
    } catch (const iok::Error& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/x.nc"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("NetCDF-4: opening"), std::string::npos) << e.what();
        EXPECT_FALSE(e.hint().empty());
    }
}

// Every way of moving the blocks: pure collective calls, reads without
// sieving, and the default (first call collective) with sieving.
TEST(Netcdf4Backend, RoundTripEveryCallMode) {
    for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
             {"netcdf4.collective", "all"}, {"netcdf4.read_sieve", "0"}, {"netcdf4.read_sieve", "8"}}) {
        const std::string path = output_dir() + "/modes_netcdf4_" + value + ".nc";
        Case c = make_case(path);
        iok::BackendConfig cfg = config();
        cfg.params[key] = value;
        auto w = iok::make_backend("netcdf4", cfg);
        write_case(*w, c);
        expect_file_contents(c, path);
        auto r = iok::make_backend("netcdf4", cfg);
        EXPECT_EQ(read_mismatches(*r, c), 0u) << key << "=" << value;
    }
}

TEST(Netcdf4Backend, BadParametersAreRefused) {
    for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
             {"netcdf4.collective", "some"}, {"netcdf4.read_sieve", "-1"}, {"netcdf4.read_sieve", "4k"}}) {
        iok::BackendConfig cfg = config();
        cfg.params[key] = value;
        try {
            iok::make_backend("netcdf4", cfg);
            FAIL() << key << "=" << value << " accepted";
        } catch (const iok::Error& e) {
            EXPECT_NE(std::string(e.what()).find(key + "=" + value), std::string::npos) << e.what();
            EXPECT_FALSE(e.hint().empty());
        }
    }
}

// VarSpec::storage (e3sm -c/-z): chunk shapes and deflate as given, values
// read back through the backend and through the serial API.
TEST(Netcdf4Backend, StorageHintsAreHonoured) {
    const std::string path = output_dir() + "/storage_netcdf4.nc";
    Case c = make_case(path);
    auto& vars = c.spec.vars;
    vars[c.spec.find_var("T")].storage = {{1, 4}, 6, {}};
    vars[c.spec.find_var("area")].storage = {{4}, 2, {}};
    vars[c.spec.find_var("PS")].storage = {{}, 1, {}};    // record variable: one record per chunk
    vars[c.spec.find_var("gid")].storage = {{6}, 0, {}};  // chunked, not compressed
    auto w = iok::make_backend("netcdf4", config());
    write_case(*w, c);
    expect_file_contents(c, path);
    auto r = iok::make_backend("netcdf4", config());
    EXPECT_EQ(read_mismatches(*r, c), 0u);

    int nc = -1;
    ASSERT_EQ(nc_open(path.c_str(), NC_NOWRITE, &nc), NC_NOERR);
    auto layout = [&](const char* name, std::vector<size_t> want_chunk, int want_level) {
        int id = -1, storage = -1, shuffle = -1, deflate = -1, level = -1;
        ASSERT_EQ(nc_inq_varid(nc, name, &id), NC_NOERR);
        std::vector<size_t> chunk(want_chunk.size() + 1, 0);
        ASSERT_EQ(nc_inq_var_chunking(nc, id, &storage, chunk.data()), NC_NOERR);
        chunk.resize(want_chunk.size());
        if (want_chunk.empty()) {
            EXPECT_EQ(storage, NC_CONTIGUOUS) << name;
        } else {
            EXPECT_EQ(storage, NC_CHUNKED) << name;
            EXPECT_EQ(chunk, want_chunk) << name;
        }
        ASSERT_EQ(nc_inq_var_deflate(nc, id, &shuffle, &deflate, &level), NC_NOERR);
        EXPECT_EQ(shuffle, 0) << name;
        EXPECT_EQ(deflate ? level : 0, want_level) << name;
    };
    layout("T", {1, 1, 4}, 6);
    layout("area", {4}, 2);
    layout("PS", {1, kCol}, 1);
    layout("gid", {6}, 0);
    layout("mask", {}, 0);  // no hint: contiguous, as before
    nc_close(nc);
}

TEST(Netcdf4Backend, BadStorageHintsAreRefused) {
    struct Bad {
        const char* var;
        iok::StorageHint hint;
        const char* says;
    };
    for (const Bad& b : std::vector<Bad>{{"T", {{4}, 0, {}}, "1 lengths for 2 fixed dimensions"},
                                         {"area", {{0}, 0, {}}, "chunk length 0"},
                                         {"area", {{kCol + 1}, 0, {}}, "is not in 1..12"},
                                         {"area", {{}, 6, {}}, "needs a chunk shape"},
                                         {"PS", {{}, 10, {}}, "deflate level 10"}}) {
        const std::string path = output_dir() + "/bad_storage_netcdf4.nc";
        Case c = make_case(path);
        c.spec.vars[c.spec.find_var(b.var)].storage = b.hint;
        auto w = iok::make_backend("netcdf4", config());
        try {
            auto f = w->create(path, c.spec, MPI_COMM_WORLD);
            f->define(c.spec);
            FAIL() << b.var << ": bad storage hint accepted (" << b.says << ")";
        } catch (const iok::Error& e) {
            const std::string m = e.what();
            EXPECT_NE(m.find(b.says), std::string::npos) << m;
            EXPECT_NE(m.find(std::string("variable '") + b.var + "'"), std::string::npos) << m;
            EXPECT_FALSE(e.hint().empty());
        }
    }
}

}  // namespace
#endif
