// E3SM case descriptions: CDL parsing, variables per decomposition, types and
// fill values, dimensions from the map, the spec's byte counts (its request
// counts need the real F map: test_real_data.cpp), and the listing orders.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/error.hpp"
#include "formats/cdf_classic.hpp"
#include "formats/cdl_header.hpp"
#include "formats/map_synth.hpp"
#include "kernels/e3sm/case_cdl.hpp"
#include "kernels/e3sm/case_spec.hpp"
#include "kernels/e3sm/case_stats.hpp"

using namespace iok;
using namespace iok::e3sm;

namespace {

VarSpec var(const FileSpec& f, const std::string& name) {
    int i = f.find_var(name);
    if (i < 0) throw std::runtime_error("no variable " + name);
    return f.vars[i];
}
const Attr* att(const VarSpec& v, const std::string& name) {
    for (const auto& a : v.attrs)
        if (a.name == name) return &a;
    return nullptr;
}

// An in-memory map with the given decomposition shapes, each fully owned by
// one process in one run per row (enough to size a case).
DecompMap synthetic_map(const std::vector<std::vector<std::int64_t>>& shapes) {
    DecompMap m;
    m.path = "synthetic";
    m.nprocs = 1;
    for (std::size_t k = 0; k < shapes.size(); ++k) {
        Decomp d;
        d.name = "D" + std::to_string(k + 1);
        d.dims = shapes[k];
        for (std::int64_t off = 0; off < d.elements(); off += d.row_length()) {
            d.offsets.push_back(off);
            d.lengths.push_back(d.row_length());
        }
        d.nreqs = {static_cast<std::int64_t>(d.offsets.size())};
        d.fill_starts = d.nreqs;
        d.first = {0};
        m.decomps.push_back(d);
    }
    validate_decomp_map(m);
    return m;
}

DecompMap f_map() { return synthetic_map({{866}, {866}, {72, 866}}); }

}  // namespace

TEST(CdlHeader, ParsesTypesStringsAndUnlimited) {
    const char* text = R"(netcdf x {
dimensions:
	time = UNLIMITED ; // (3 currently)
	n = 4, m = 2 ;
variables:
	float a(time, n) ;
		a:_FillValue = 1.e+20f ;
		a:list = 72, 866 ;
		a:s = -5s ;
		a:big = 7LL ;
		a:d = 6371229. ;
	int b, c(m) ;
	char t(time, n) ;

// global attributes:
		:parent_id = "one\n",
    "two" ;
		:q = "say \"hi\"" ;
}
)";
    FileSpec f = parse_cdl_header(text, "inline");
    ASSERT_EQ(f.dims.size(), 3u);
    EXPECT_TRUE(f.dims[0].unlimited);
    EXPECT_EQ(f.dims[2].length, 2u);
    ASSERT_EQ(f.vars.size(), 4u);
    const VarSpec& a = f.vars[0];
    EXPECT_TRUE(a.is_record(f));
    EXPECT_EQ(a.attrs[0].type, DType::Float);
    EXPECT_EQ(a.attrs[0].values[0], static_cast<double>(1e20f));
    EXPECT_EQ(a.attrs[1].type, DType::Int);
    EXPECT_EQ(a.attrs[1].values, (std::vector<double>{72, 866}));
    EXPECT_EQ(a.attrs[2].type, DType::Short);
    EXPECT_EQ(a.attrs[3].type, DType::Int64);
    EXPECT_EQ(a.attrs[4].type, DType::Double);
    EXPECT_EQ(f.vars[1].name, "b");
    EXPECT_TRUE(f.vars[1].dims.empty());
    EXPECT_EQ(f.global_attrs[0].text, "one\ntwo");
    EXPECT_EQ(f.global_attrs[1].text, "say \"hi\"");
}

// The lexer hands out views of the text; escapes (in strings and in names)
// are undone into a store of their own, which must outlive the tokens.
TEST(CdlHeader, EscapesInNamesAndLongStringsSurviveTheLexer) {
    std::string text = "netcdf y {\ndimensions:\n n = 2 ;\nvariables:\n double x\\:y(n), plain(n) ;\n";
    for (int i = 0; i < 200; ++i)  // enough escaped strings that their store grows many times
        text += "  x\\:y:a" + std::to_string(i) + " = \"value \\\"" + std::to_string(i) + "\\\" of a long string\" ;\n";
    text += "  plain:b = \"verbatim, no escape, longer than fifteen\" ;\n}\n";
    FileSpec f = parse_cdl_header(text, "inline");
    ASSERT_EQ(f.vars.size(), 2u);
    EXPECT_EQ(f.vars[0].name, "x:y");
    ASSERT_EQ(f.vars[0].attrs.size(), 200u);
    EXPECT_EQ(f.vars[0].attrs[0].text, "value \"0\" of a long string");
    EXPECT_EQ(f.vars[0].attrs[199].text, "value \"199\" of a long string");
    EXPECT_EQ(f.vars[1].attrs.at(0).text, "verbatim, no escape, longer than fifteen");
}

// What a backend keeps once define() has written the attributes.
TEST(FileSpecLayout, KeepsShapesTypesAndNamesNotAttributes) {
    const FileSpec f = case_file("f_h0", f_map());
    ASSERT_GT(f.attribute_count(), 1000u);
    const FileSpec l = f.layout();
    EXPECT_EQ(l.attribute_count(), 0u);
    EXPECT_EQ(l.label, f.label);
    ASSERT_EQ(l.dims.size(), f.dims.size());
    ASSERT_EQ(l.vars.size(), f.vars.size());
    for (std::size_t v = 0; v < f.vars.size(); ++v) {
        EXPECT_EQ(l.vars[v].name, f.vars[v].name);
        EXPECT_EQ(l.vars[v].type, f.vars[v].type);
        EXPECT_EQ(l.vars[v].dims, f.vars[v].dims);
        EXPECT_EQ(l.vars[v].decomp, f.vars[v].decomp);
        EXPECT_EQ(l.vars[v].fill_value, f.vars[v].fill_value);
        EXPECT_EQ(l.fixed_shape(l.vars[v]), f.fixed_shape(f.vars[v]));
    }
}

TEST(CdlHeader, ErrorsNameTheLine) {
    try {
        parse_cdl_header("netcdf x {\ndimensions:\n n = 4 ;\nvariables:\n float a(q) ;\n}\n", "t.cdl");
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("t.cdl:5: variable 'a' uses undeclared dimension 'q'"), std::string::npos)
            << e.what();
    }
    EXPECT_THROW(parse_cdl_header("netcdf x {\nvariables:\n blob a ;\n}\n", "t"), Error);
    EXPECT_THROW(parse_cdl_header("netcdf x {\ndimensions:\n n = 4 ;\n", "t"), Error);
}

struct CaseExpect {
    const char* stem;
    std::vector<std::vector<std::int64_t>> shapes;
    std::vector<int> per_decomp;
    int partitioned, not_partitioned, total;
};

class CaseCounts : public ::testing::TestWithParam<CaseExpect> {};

TEST_P(CaseCounts, VariablesPerDecompositionAsInTheSpec) {
    const CaseExpect& e = GetParam();
    FileSpec f = case_file(e.stem, synthetic_map(e.shapes));
    VarCounts c = count_vars(f, static_cast<int>(e.shapes.size()));
    EXPECT_EQ(c.per_decomp, e.per_decomp);
    EXPECT_EQ(c.total - c.not_partitioned, e.partitioned);
    EXPECT_EQ(c.not_partitioned, e.not_partitioned);
    EXPECT_EQ(c.total, e.total);
}

const std::vector<std::vector<std::int64_t>> kG = {{285}, {879}, {285, 100}, {879, 100}, {593, 100}, {285, 101}};
const std::vector<std::vector<std::int64_t>> kI = {
    {96, 144}, {15, 96, 144}, {10, 96, 144}, {9, 96, 144}, {17, 96, 144}};

INSTANTIATE_TEST_SUITE_P(AllCases, CaseCounts,
                         ::testing::Values(CaseExpect{"f_h0", {{866}, {866}, {72, 866}}, {1, 323, 63}, 387, 27, 414},
                                           CaseExpect{"f_h1", {{866}, {866}, {72, 866}}, {1, 22, 1}, 24, 27, 51},
                                           CaseExpect{"g_hist", kG, {6, 2, 25, 2, 2, 4}, 41, 11, 52},
                                           CaseExpect{"i_h0", kI, {465, 75, 4, 1, 1}, 546, 14, 560},
                                           CaseExpect{"i_h1", kI, {465, 69, 2, 1, 1}, 538, 14, 552}));

TEST(E3smCases, FH0AttributesTypesAndFillValues) {
    FileSpec f = case_file("f_h0", f_map());
    EXPECT_EQ(f.label, "h0");
    EXPECT_EQ(f.attribute_count(), 1421u);
    EXPECT_EQ(f.global_attrs.size(), 19u);
    EXPECT_EQ(var(f, "area").decomp, 0);
    EXPECT_EQ(var(f, "lat").decomp, 1);
    EXPECT_EQ(var(f, "ANRAIN").decomp, 2);
    EXPECT_EQ(var(f, "P0").decomp, -1);
    EXPECT_EQ(var(f, "time_bnds").decomp, -1);
    // Float record variables are double by default; _FillValue follows as
    // the widened float constant, missing_value stays float.
    const VarSpec v = var(f, "AEROD_v");
    EXPECT_EQ(v.type, DType::Double);
    EXPECT_EQ(att(v, "_FillValue")->type, DType::Double);
    // Exactly the float 1e20f widened, which ncdump prints as 1.00000002004088e+20.
    EXPECT_EQ(att(v, "_FillValue")->values[0], static_cast<double>(1e20f));
    char printed[32];
    std::snprintf(printed, sizeof printed, "%.15g", att(v, "_FillValue")->values[0]);
    EXPECT_STREQ(printed, "1.00000002004088e+20");
    EXPECT_EQ(att(v, "missing_value")->type, DType::Float);
    ASSERT_TRUE(v.fill_value.has_value());
    EXPECT_EQ(*v.fill_value, static_cast<double>(1e20f));
    EXPECT_EQ(var(f, "ANRAIN").fill_value, default_fill_value(DType::Double));
    EXPECT_EQ(var(f, "date").type, DType::Int);
    EXPECT_EQ(var(f, "date_written").type, DType::Char);
    // The float option keeps the listing's types.
    CaseOptions fl;
    fl.float_vars = true;
    FileSpec g = case_file("f_h0", f_map(), fl);
    EXPECT_EQ(var(g, "AEROD_v").type, DType::Float);
    EXPECT_EQ(att(var(g, "AEROD_v"), "_FillValue")->type, DType::Float);
}

TEST(E3smCases, ICasePromotesEveryFloat) {
    FileSpec f = case_file("i_h0", synthetic_map(kI));
    for (const auto& v : f.vars) EXPECT_NE(v.type, DType::Float) << v.name;
    const VarSpec lat = var(f, "lat");  // fixed-size 1-D, not partitioned
    EXPECT_EQ(lat.decomp, -1);
    EXPECT_EQ(lat.type, DType::Double);
    int n36 = 0;
    for (const auto& v : f.vars)
        if (const Attr* a = att(v, "_FillValue"); a && a->type == DType::Double) {
            EXPECT_EQ(a->values[0], static_cast<double>(1e36f)) << v.name;  // 9.99999961690316e+35
            EXPECT_EQ(att(v, "missing_value")->type, DType::Float);
            ++n36;
        }
    EXPECT_GT(n36, 500);
    EXPECT_EQ(var(f, "landmask").fill_value, -9999);
    EXPECT_EQ(var(f, "landmask").type, DType::Int);
}

TEST(E3smCases, DimensionsComeFromTheMap) {
    FileSpec f = case_file("f_h0", synthetic_map({{48602}, {48602}, {30, 48602}}));
    EXPECT_EQ(f.dims[f.find_dim("ncol")].length, 48602u);
    EXPECT_EQ(f.dims[f.find_dim("lev")].length, 30u);
    EXPECT_EQ(f.dims[f.find_dim("ilev")].length, 31u);
    EXPECT_TRUE(f.dims[f.find_dim("time")].unlimited);
    EXPECT_EQ(f.fixed_elements(var(f, "hyai")), 31u);
    FileSpec i = case_file("i_h1", synthetic_map({{4, 5}, {3, 4, 5}, {2, 4, 5}, {6, 4, 5}, {7, 4, 5}}));
    EXPECT_EQ(i.dims[i.find_dim("lat")].length, 4u);
    EXPECT_EQ(i.dims[i.find_dim("lon")].length, 5u);
    EXPECT_EQ(i.dims[i.find_dim("levdcmp")].length, 3u);
    EXPECT_EQ(i.dims[i.find_dim("natpft")].length, 7u);
}

TEST(E3smCases, MapsThatDoNotFitAreErrors) {
    // D3 with one dimension cannot hold (lev, ncol) variables.
    EXPECT_THROW(case_file("f_h0", synthetic_map({{866}, {866}, {866}})), Error);
    // D1 and D2 disagree on ncol.
    try {
        case_file("f_h0", synthetic_map({{866}, {865}, {72, 866}}));
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("dimension ncol"), std::string::npos) << e.what();
    }
    // A G case file needs 6 decompositions.
    EXPECT_THROW(case_file("g_hist", f_map()), Error);
    EXPECT_EQ(case_for_map(f_map()), CaseKind::F);
    EXPECT_EQ(case_for_map(synthetic_map(kG)), CaseKind::G);
    EXPECT_EQ(case_for_map(synthetic_map(kI)), CaseKind::I);
    EXPECT_THROW(case_for_map(synthetic_map({{4}})), Error);
    EXPECT_EQ(case_from_name("g"), CaseKind::G);
    EXPECT_THROW(case_from_name("X"), Error);
    EXPECT_EQ(case_files(CaseKind::F, f_map()).size(), 2u);
}

TEST(E3smCases, FCaseBytesAsInTheSpec) {
    DecompMap m = f_map();
    ByteCounts h0 = byte_counts(case_file("f_h0", m), m);
    EXPECT_EQ(h0.fixed, 24292u);
    EXPECT_EQ(h0.per_record, 33649404u);
    CaseOptions fl;
    fl.float_vars = true;
    ByteCounts h0f = byte_counts(case_file("f_h0", m, fl), m);
    EXPECT_EQ(h0f.fixed, 24292u);
    EXPECT_EQ(h0f.per_record, 16824756u);
    ByteCounts h1 = byte_counts(case_file("f_h1", m), m);
    EXPECT_EQ(h1.fixed, 24292u);
    EXPECT_EQ(h1.per_record, 637484u);
}

TEST(E3smCases, ICaseCoversPartOfEachArray) {
    // A generated I map (the real one's shapes and partial land coverage;
    // the real map's figures are in test_real_data.cpp).
    DecompMap m = synth_i_map(IMapOptions{});
    FileSpec f = case_file("i_h0", m);
    ByteCounts holes = byte_counts(f, m), fill = byte_counts(f, m, true);
    EXPECT_LT(holes.per_record, fill.per_record);
    // With fill runs every partitioned array is written whole.
    std::uint64_t whole = 0;
    for (const auto& v : f.vars)
        if (v.is_record(f)) whole += f.fixed_elements(v) * dtype_size(v.type);
    EXPECT_EQ(fill.per_record, whole);
}

std::vector<std::string> var_names(const FileSpec& f) {
    std::vector<std::string> names;
    for (const auto& v : f.vars) names.push_back(v.name);
    return names;
}

bool same_attrs(const std::vector<Attr>& a, const std::vector<Attr>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].name != b[i].name || a[i].type != b[i].type || a[i].text != b[i].text || a[i].values != b[i].values)
            return false;
    return true;
}

struct ListingExpect {
    const char* stem;
    std::vector<std::vector<std::int64_t>> shapes;
    std::vector<std::string> first, last;  // of the listing order
};

class ListingOrder : public ::testing::TestWithParam<ListingExpect> {};

// --define-order listing: the case description's header (cases/<stem>.cdl,
// kept once) with its variables in the listing's order
// (cases/<stem>.listing-order): the same dimensions, variables, types,
// attributes in their order, global attributes and decompositions.
TEST_P(ListingOrder, SameHeaderInTheListingsVariableOrder) {
    const ListingExpect& e = GetParam();
    const DecompMap m = synthetic_map(e.shapes);
    CaseOptions lo;
    lo.listing_order = true;
    const FileSpec seed = case_file(e.stem, m), listing = case_file(e.stem, m, lo);
    const auto names = var_names(listing);
    ASSERT_GE(names.size(), e.first.size() + e.last.size());
    EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + e.first.size()), e.first);
    EXPECT_EQ(std::vector<std::string>(names.end() - e.last.size(), names.end()), e.last);
    auto sorted = names, seed_sorted = var_names(seed);
    EXPECT_NE(names, seed_sorted);
    std::sort(sorted.begin(), sorted.end());
    std::sort(seed_sorted.begin(), seed_sorted.end());
    EXPECT_EQ(sorted, seed_sorted);
    EXPECT_EQ(listing.label, seed.label);
    ASSERT_EQ(listing.dims.size(), seed.dims.size());
    for (std::size_t i = 0; i < seed.dims.size(); ++i) {
        EXPECT_EQ(listing.dims[i].name, seed.dims[i].name);
        EXPECT_EQ(listing.dims[i].length, seed.dims[i].length);
        EXPECT_EQ(listing.dims[i].unlimited, seed.dims[i].unlimited);
    }
    EXPECT_TRUE(same_attrs(listing.global_attrs, seed.global_attrs));
    EXPECT_EQ(listing.attribute_count(), seed.attribute_count());
    for (const auto& v : listing.vars) {
        const VarSpec s = var(seed, v.name);
        EXPECT_EQ(v.type, s.type) << v.name;
        EXPECT_EQ(v.dims, s.dims) << v.name;
        EXPECT_EQ(v.decomp, s.decomp) << v.name;
        EXPECT_EQ(v.fill_value, s.fill_value) << v.name;
        EXPECT_TRUE(same_attrs(v.attrs, s.attrs)) << v.name;
    }
}

INSTANTIATE_TEST_SUITE_P(AllCases, ListingOrder,
                         ::testing::Values(ListingExpect{"f_h0",
                                                         {{866}, {866}, {72, 866}},
                                                         {"lat", "lon", "area", "lev", "hyam", "hybm", "P0", "ilev"},
                                                         {"soa_c2SFWET", "soa_c3DDF", "soa_c3SFWET"}},
                                           ListingExpect{"f_h1",
                                                         {{866}, {866}, {72, 866}},
                                                         {"lat", "lon", "area", "lev", "hyam", "hybm", "P0", "ilev"},
                                                         {"V850", "VBOT", "Z500"}},
                                           ListingExpect{"g_hist",
                                                         kG,
                                                         {"salinitySurfaceRestoringTendency",
                                                          "vertTransportVelocityTop", "vertGMBolusVelocityTop",
                                                          "vertAleTransportTop", "tendSSH", "layerThickness"},
                                                         {"salinityNonLocalTendency", "temperature", "salinity"}},
                                           ListingExpect{"i_h0",
                                                         kI,
                                                         {"levgrnd", "levlak", "levdcmp", "time", "mcdate", "mcsec"},
                                                         {"nlim_m", "o2_decomp_depth_unsat", "plim_m"}},
                                           ListingExpect{"i_h1",
                                                         kI,
                                                         {"levgrnd", "levlak", "levdcmp", "time", "mcdate", "mcsec"},
                                                         {"nlim_m", "o2_decomp_depth_unsat", "plim_m"}}),
                         [](const auto& p) { return std::string(p.param.stem); });

// An order list that names an unknown variable, names one twice, puts two
// names on a line or leaves variables out is rejected, naming the list and line.
TEST(ListingOrders, BadOrderListsAreErrors) {
    const std::string cdl =
        "netcdf x {\ndimensions:\n n = 4 ;\nvariables:\n int a(n) ;\n int b(n) ;\n"
        " int c(n) ;\n int d ;\n}\n";
    auto message = [&](const std::string& order) -> std::string {
        FileSpec f = parse_cdl_header(cdl, "t.cdl");
        try {
            order_variables(f, order, "t.listing-order");
        } catch (const Error& e) {
            return e.what();
        }
        return "(accepted: " + ::testing::PrintToString(var_names(f)) + ")";
    };
    auto contains = [](const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; };
    std::string m = message("# comment\nd\na\nz\nb\nc\n");
    EXPECT_TRUE(contains(m, "t.listing-order:4: 'z' is no variable")) << m;
    m = message("d\na\nb\n");
    EXPECT_TRUE(contains(m, "t.listing-order: 1 variable of the case description not listed: c")) << m;
    m = message("d\n");
    EXPECT_TRUE(contains(m, "3 variables of the case description not listed: a, b, c")) << m;
    m = message("d\na\nb\nd\nc\n");
    EXPECT_TRUE(contains(m, "t.listing-order:4: variable 'd' is listed twice (first at line 1)")) << m;
    m = message("d\na b\nc\n");
    EXPECT_TRUE(contains(m, "t.listing-order:2: 'a b' is not one variable name")) << m;
    // A good list: comments, blank lines and surrounding blanks are ignored.
    FileSpec f = parse_cdl_header(cdl, "t.cdl");
    order_variables(f, "# order\n\n  c\nd\t\na\r\nb", "t.listing-order");
    EXPECT_EQ(var_names(f), (std::vector<std::string>{"c", "d", "a", "b"}));
    EXPECT_EQ(f.vars[0].dims, std::vector<int>{0});
    EXPECT_TRUE(f.vars[1].dims.empty());
}

// Every case description has its listing order, and nothing else does.
TEST(ListingOrders, OneForEachCaseDescription) {
    std::vector<std::string> cdls, orders;
    for (const auto& e : embedded_case_cdls()) cdls.emplace_back(e.name);
    for (const auto& e : embedded_listing_orders()) orders.emplace_back(e.name);
    EXPECT_EQ(cdls, (std::vector<std::string>{"f_h0", "f_h1", "g_hist", "i_h0", "i_h1"}));
    EXPECT_EQ(orders, cdls);
}
