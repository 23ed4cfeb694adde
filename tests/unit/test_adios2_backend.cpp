// `adios` backend (ADIOS2 BP5) on one rank: round trip, file contents checked
// with the raw ADIOS2 API (records are steps), parameters passed through,
// corruption of the data file found.
#ifdef IOK_HAVE_ADIOS2
#include <adios2.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/error.hpp"
#include "library_roundtrip_case.hpp"

namespace {

using namespace iok_test;

iok::BackendConfig config() { return iok::BackendConfig{}; }

void expect_file_contents(const Case& c, const std::string& path) {
    adios2::ADIOS ad(MPI_COMM_SELF);
    adios2::IO io = ad.DeclareIO("raw");
    adios2::Engine e = io.Open(path, adios2::Mode::ReadRandomAccess);
    auto t = io.InquireVariable<float>("T");
    ASSERT_TRUE(t);
    EXPECT_EQ(t.Steps(), static_cast<std::size_t>(kRecords));
    EXPECT_EQ(t.Shape(), (adios2::Dims{kLev, kCol}));
    const int tv = c.spec.find_var("T");
    for (int r = 0; r < kRecords; ++r) {
        std::vector<float> data(kLev * kCol);
        t.SetStepSelection({static_cast<std::size_t>(r), 1});
        t.SetSelection({{0, 0}, {kLev, kCol}});
        e.Get(t, data.data(), adios2::Mode::Sync);
        for (std::size_t i = 0; i < data.size(); ++i)
            ASSERT_EQ(data[i], static_cast<float>(value_of(tv, r, i, DType::Float))) << "record " << r << " elem " << i;
    }
    auto units = io.InquireAttribute<std::string>("units", "T", "/");
    ASSERT_TRUE(units);
    EXPECT_EQ(units.Data().at(0), "K");
    auto version = io.InquireAttribute<std::int32_t>("version");
    ASSERT_TRUE(version);
    EXPECT_EQ(version.Data().at(0), 3);
    e.Close();
}

TEST(Adios2Backend, RoundTrip) {
    const std::string path = output_dir() + "/rt_adios.bp";
    Case c = make_case(path);
    auto w = iok::make_backend("adios", config());
    EXPECT_EQ(iok::backend_info(w->name()).library_version().rfind("ADIOS2 2.", 0), 0u)
        << iok::backend_info(w->name()).library_version();
    const iok::BackendStats w_stats = write_case(*w, c);
    EXPECT_EQ(w_stats.bytes_put, expected_bytes(c));
    expect_file_contents(c, path);
    auto r = iok::make_backend("adios", config());
    iok::BackendStats r_stats;
    EXPECT_EQ(read_mismatches(*r, c, &r_stats), 0u);
    EXPECT_EQ(r_stats.bytes_get, expected_bytes(c));
}

TEST(Adios2Backend, ParametersReachTheEngine) {
    iok::BackendConfig cfg;
    cfg.params["adios.NumAggregators"] = "1";
    cfg.params["adios.engine"] = "BP4";
    const std::string path = output_dir() + "/params_adios.bp";
    Case c = make_case(path);
    auto w = iok::make_backend("adios", cfg);
    write_case(*w, c);
    // BP4 leaves md.idx/data.0 but no mmd.0 (a BP5 file's metadata index).
    EXPECT_TRUE(std::filesystem::exists(path + "/data.0"));
    EXPECT_FALSE(std::filesystem::exists(path + "/mmd.0"));
    auto r = iok::make_backend("adios", cfg);
    EXPECT_EQ(read_mismatches(*r, c), 0u);

    iok::BackendConfig bad;
    bad.params["adios.NoSuchEngineKnob"] = "x";
    bad.params["adios.engine"] = "NoSuchEngine";
    auto b = iok::make_backend("adios", bad);
    try {
        auto bf = b->create(output_dir() + "/bad.bp", c.spec, MPI_COMM_WORLD);
        FAIL() << "an unknown engine was accepted";
    } catch (const iok::Error& e) {
        EXPECT_NE(std::string(e.what()).find("ADIOS2: creating"), std::string::npos) << e.what();
        EXPECT_FALSE(e.hint().empty());
    }
}

TEST(Adios2Backend, CorruptedElementIsFound) {
    const std::string path = output_dir() + "/corrupt_adios.bp";
    Case c = make_case(path);
    auto w = iok::make_backend("adios", config());
    write_case(*w, c);
    // Overwrite PS(record 1, col 5) in the data file: its value is unique there.
    const double want = value_of(c.spec.find_var("PS"), 1, 5, DType::Double), bad = -12345.0;
    std::fstream f(path + "/data.0", std::ios::in | std::ios::out | std::ios::binary);
    ASSERT_TRUE(f.good());
    std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const std::string needle(reinterpret_cast<const char*>(&want), sizeof want);
    auto pos = bytes.find(needle);
    ASSERT_NE(pos, std::string::npos);
    ASSERT_EQ(bytes.find(needle, pos + 1), std::string::npos);
    f.seekp(static_cast<std::streamoff>(pos));
    f.write(reinterpret_cast<const char*>(&bad), sizeof bad);
    f.close();
    auto r = iok::make_backend("adios", config());
    EXPECT_EQ(read_mismatches(*r, c), 1u);
}

TEST(Adios2Backend, MissingFileAndRecordFail) {
    Case c = make_case("/nonexistent-dir/x.bp");
    auto b = iok::make_backend("adios", config());
    EXPECT_THROW(b->open("/nonexistent-dir/x.bp", c.spec, MPI_COMM_WORLD), iok::Error);

    const std::string path = output_dir() + "/records_adios.bp";
    Case c2 = make_case(path);
    auto w = iok::make_backend("adios", config());
    write_case(*w, c2);
    auto r = iok::make_backend("adios", config());
    auto rf = r->open(path, c2.spec, MPI_COMM_WORLD);
    std::vector<double> buf(kCol);
    const int ps = c2.spec.find_var("PS");
    EXPECT_THROW(rf->get(ps, c2.sel[ps], kRecords, buf.data()), iok::Error);
    rf->close();
}

}  // namespace
#endif
