// `netcdf4` backend on one rank: round trip (collective and independent),
// file contents checked with the serial NetCDF API, corruption found.
#ifdef IOK_HAVE_NETCDF4
#include <netcdf.h>

#include "backend_roundtrip.hpp"
#include "core/error.hpp"

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
    EXPECT_EQ(iok::backend_info(b->name()).library_version().rfind("NetCDF-C 4.", 0), 0u) << iok::backend_info(b->name()).library_version();
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

}  // namespace
#endif
