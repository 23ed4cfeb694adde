#pragma once
// On-disk layout of a log output (strategy `log`, like E3SM-IO's hdf5_log),
// shared by the strategy and log_replay.  A log output is a DIRECTORY:
//   log.json          canonical FileSpec, writer count, record count, and per
//                     process group its writer ranks and where each rank's
//                     index lies in index_<k>.bin
//   log_<k>.bin       group k's log: every put's bytes appended in arrival
//                     order (per flush, the group's ranks back to back)
//   index_<k>.bin     per writer rank, int64 values:
//                       nsels, then per selection: ndims nblocks (start[ndims]
//                       count[ndims])*nblocks
//                       nentries, then per put: var record sel offset nbytes
// Nothing is rearranged at write time; the replay (or a same-count read)
// finds each put through the index.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "model/file_spec.hpp"
#include "model/selection.hpp"

namespace iok {

constexpr const char* kLogIndexName = "log.json";

struct LogEntry {
    std::int64_t var, record, sel, offset, nbytes;
};

struct LogSel {
    std::int64_t ndims = 0, nblocks = 0;
    std::vector<std::int64_t> ints;  // (start, count) per block
};

struct LogWriterIndex {
    std::vector<LogSel> sels;
    std::vector<LogEntry> entries;
};

struct LogGroup {
    std::vector<int> ranks;                                // writer ranks, group order
    std::vector<std::int64_t> index_offset, index_length;  // per rank, int64 units in index_<k>.bin
};

struct LogIndex {
    FileSpec spec;
    int writers = 0;
    std::int64_t nrecords = 0;
    std::vector<LogGroup> groups;
};

std::string log_data_path(const std::string& dir, std::size_t k);
std::string log_index_path(const std::string& dir, std::size_t k);

std::vector<std::int64_t> log_serialize(const LogWriterIndex& w);
LogWriterIndex log_parse(const std::vector<std::int64_t>& v, const std::string& where);

std::string log_index_to_json(const LogIndex& x);
// Reads dir/log.json on rank 0 and broadcasts it; throws iok::Error on every
// rank when missing or malformed.  Collective.
LogIndex read_log_index(const std::string& dir, MPI_Comm comm);

}  // namespace iok
