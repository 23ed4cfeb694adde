#pragma once
// On-disk layout of a blob output, shared by the blob strategy (writer and
// same-count reader) and the replay tool (any process count).
//
// A blob output is a DIRECTORY named like the canonical file would be
// (`out.nc/`), holding
//   blob.json          the canonical FileSpec, the writer count, the record
//                      count and, per subfile, which writer ranks it holds and
//                      how many blocks/elements each of them owns
//   subfile_<k><ext>   one file per process group, written by the inner
//                      library (pnetcdf, hdf5, netcdf4, adios, ...)
// In a subfile every canonical variable with data in the group is a 1-D
// variable (record variables keep the record dimension) holding the group's
// ranks' elements back to back in rank order, each rank's in the order of its
// selection blocks.  For every distinct selection ("sel") of the group, an
// int64 variable blob_blocks_<s> holds each rank's blocks back to back as
// (start[ndims], count[ndims]) pairs, so the canonical layout can be rebuilt
// without the decomposition map.  Canonical attributes are copied onto the
// 1-D variables, plus blob_canonical_dims naming the canonical dimensions.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/file_spec.hpp"
#include "model/selection.hpp"

namespace iok {

struct BlobSel {
    int ndims = 0;                      // of the canonical variable (without the record dim)
    std::vector<std::int64_t> nblocks;  // per group rank
    std::vector<std::int64_t> nelems;   // per group rank (per record for record variables)
};

struct BlobSubfile {
    std::vector<int> ranks;  // writer ranks held, in group order
    std::vector<BlobSel> sels;
    std::vector<int> var_sel;  // per canonical variable: index into sels
};

struct BlobIndex {
    FileSpec spec;          // canonical
    std::string library;    // inner backend name the subfiles were written with
    std::string extension;  // subfile extension (".nc", ".h5", ".bp")
    int writers = 0;        // writer process count
    std::int64_t nrecords = 0;
    std::vector<BlobSubfile> subfiles;
};

constexpr const char* kBlobIndexName = "blob.json";

std::string blob_subfile_path(const std::string& dir, std::size_t k, const std::string& ext);
std::string blob_blocks_var(std::size_t sel);

// Subfile k's FileSpec and, per canonical variable, its index in it (-1 when
// the group holds none of it: a zero-length variable cannot be declared).
struct BlobSubfileSpec {
    FileSpec spec;
    std::vector<int> var_index;             // canonical var -> subfile var
    std::vector<int> blocks_index;          // sel -> subfile var (-1 when it has no block ints)
    std::vector<std::uint64_t> var_length;  // canonical var -> elements per record in the subfile
};
BlobSubfileSpec blob_subfile_spec(const FileSpec& canonical, const BlobSubfile& sf, std::size_t k,
                                  std::size_t nsubfiles);

// Where group rank i's data / block ints start inside subfile variables.
std::int64_t blob_elem_offset(const BlobSel& s, std::size_t i);
std::int64_t blob_block_offset(const BlobSel& s, std::size_t i);

// A selection's blocks as (start, count) int64 pairs, and back.
std::vector<std::int64_t> blocks_to_ints(const Selection& sel);
void append_blocks_as_ints(const Selection& sel, std::vector<std::int64_t>& out);  // the same, appended
void add_blocks_from_ints(Selection& sel, const std::int64_t* ints, std::int64_t nblocks);

// A FileSpec as JSON and back (dims, variables, attributes; not the path).
nlohmann::json file_spec_to_json(const FileSpec& f);
FileSpec file_spec_from_json(const nlohmann::json& j);

std::string blob_index_to_json(const BlobIndex& index);
BlobIndex blob_index_from_json(const std::string& text, const std::string& where);
std::string blob_subfile_to_json(const BlobSubfile& s);
BlobSubfile blob_subfile_from_json(const std::string& text);

// Reads dir/blob.json (rank 0) and broadcasts it; throws iok::Error on every
// rank when missing or malformed.  Collective.
BlobIndex read_blob_index(const std::string& dir, MPI_Comm comm);

// Process groups of the blob and log strategies: `requested` groups of
// consecutive ranks, or one per compute node when 0.  Collective.
struct ProcessGroups {
    MPI_Comm comm = MPI_COMM_NULL;  // this rank's group (caller frees)
    std::size_t index = 0;          // which group, 0..count-1
    std::size_t count = 1;
};
ProcessGroups split_into_groups(MPI_Comm comm, int requested);

// Rank 0 only: creates the output directory of a blob/log output.  An old
// output of the same kind there (its `marker` file exists; --overwrite was
// checked by the caller) is replaced, any other directory refused.
void make_output_directory(const std::string& dir, const char* marker);

}  // namespace iok
