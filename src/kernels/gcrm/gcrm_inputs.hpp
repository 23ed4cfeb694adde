#pragma once
// The three GCRM input formats, parsed into plain structs:
//   * the parameter file (zgrd.in): "key value" lines, '!'/'#' comments;
//   * the variable descriptions (ZGrd.desc): "property" lines and
//     "name ..." records of "key value" lines;
//   * the file configurations (*.fcfg): "file_prefix" then "field NAME [avg]".
// Parsing works on text so unit tests need no files; the *_file() variants
// read a path and name it in errors.
#include <string>
#include <vector>

namespace iok::gcrm {

enum class IoType { NonblockingCollective, NonblockingIndependent, BlockingCollective, BlockingIndependent };
const char* iotype_name(IoType t);
IoType iotype_from_name(const std::string& s);  // throws iok::Error listing the four names

enum class GridOption { NoGrid, AllFiles, SepGrid };
const char* grid_option_name(GridOption g);

struct RunParams {
    int level_max = 5;
    long end_seconds = 0;  // end_days/hours/minutes/seconds combined
    bool physics = true;   // physics_mode (disabled if it starts with "disable")
    IoType iotype = IoType::NonblockingCollective;
    std::string io_desc_file = "ZGrd.desc";
    std::string io_config_file = "ZGrd.CP.lyr.fcfg";
    std::string cdf_output_path = "./";
    double output_frequency = 0;  // cdf_output_frequency, s (0 = the model step)
    int nsamples = 8;             // cdf_output_nsamples: records per history file
    GridOption grid_option = GridOption::SepGrid;
    std::string sep_grid = "grid";
    double restart_interval = 0;  // s, 0 = no restart files
    std::string restart_output = "restart.nc";
    bool restart_overwrite = false;
};

// Throws iok::Error naming `source` and the line on a malformed value.
RunParams parse_params(const std::string& text, const std::string& source);
RunParams parse_params_file(const std::string& path);

struct DescAttr {
    std::string name, value;
};

// One "dimension" line as GCRM-IO's size check sees it: the keywords and the
// element size the descriptor had when the line was read (8 only after
// "type double"; GCRM-IO's default type is a 4-byte integer).
struct DimensionLine {
    std::vector<std::string> dims;
    int elem_bytes = 4;
};

struct Descriptor {
    std::string name;
    std::string type = "float";                  // float, double, integer
    std::vector<std::string> dims;               // keywords as written ("time cells layers nprog")
    std::vector<DimensionLine> dimension_lines;  // every "dimension" line read, in order
    std::vector<DescAttr> attrs;                 // every other "key value" in file order
    bool isgridvar = false;
    bool restart = false;
    bool index_all = false;  // "index all": keep the time-level dimension
    bool no_data = false;    // no_data "true": attribute-only variable

    const std::string* attr(const std::string& key) const;
};

struct Description {
    std::vector<DescAttr> properties;                       // global attributes, in order
    std::vector<Descriptor> vars;                           // in file order (duplicates kept)
    const Descriptor* find(const std::string& name) const;  // first with that name
};

Description parse_desc(const std::string& text, const std::string& source);
Description parse_desc_file(const std::string& path);

struct FieldRef {
    std::string name;
    bool avg = false;  // written as NAME_avg
    std::string file_name() const { return avg ? name + "_avg" : name; }
};

struct FileGroup {
    std::string prefix;
    std::vector<FieldRef> fields;  // "time" is implied and not listed here
};

std::vector<FileGroup> parse_fcfg(const std::string& text, const std::string& source);
std::vector<FileGroup> parse_fcfg_file(const std::string& path);

std::string read_text_file(const std::string& path, const std::string& role);

}  // namespace iok::gcrm
