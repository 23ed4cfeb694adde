#pragma once
// Command-line parsing shared by kernels and tools: CLI11 on every rank,
// --help on rank 0 only, errors as iok::Error so every rank fails alike.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <string>
#include <utility>

namespace iok {

// Parses argv with CLI11 on every rank; --help prints on rank 0 only.
// Returns true when the program should exit now (help shown) with *exit_code.
// Parse errors become iok::Error (so every rank fails alike).
bool parse_command_line(CLI::App& app, int argc, char** argv, MPI_Comm comm, int* exit_code);

// "KEY=VALUE" -> pair; throws iok::Error naming `what` on malformed input.
std::pair<std::string, std::string> split_key_value(const std::string& kv, const std::string& what);

// Sets an MPI-IO hint unless one is already set (a --hint wins over a
// kernel's default).
void set_default_hint(MPI_Info info, const std::string& key, const std::string& value);

// `s` in lower case (ASCII): for option values a library takes in any case.
std::string lowercase(std::string s);

}  // namespace iok
