#pragma once
// The I/O stack of a run: a strategy wrapped around a backend, configured by
// prefixed --param keys that are checked here, in one place, against the
// option tables the backend and strategy publish.
#include <mpi.h>

#include <map>
#include <memory>
#include <string>

#include "backends/backend.hpp"
#include "backends/strategy.hpp"

namespace iok {

// Checks every key of `params` against backend `library`'s and strategy
// `strategy`'s option tables and returns them with defaults filled in.
// Older unprefixed keys (api, flush, sync, aggregate, aggregators, subfiles)
// are accepted and renamed to the owner's prefix.  Throws iok::Error for an
// unknown key (listing the valid ones), a value outside the choices, or an
// unknown backend/strategy.
std::map<std::string, std::string> validated_params(const std::string& library, const std::string& strategy,
                                                    const std::map<std::string, std::string>& params);

// The valid keys for this pair, for messages and --help.
std::string valid_param_keys(const std::string& library, const std::string& strategy);

// Builds `strategy` around `library` with an already validated config.
std::unique_ptr<Backend> make_io_stack(const std::string& library, const std::string& strategy,
                                       const BackendConfig& cfg);

// The whole registry (backends, strategies, options, capabilities) as JSON
// and as aligned text: `iokernels backends [--json]`.
std::string describe_io_stacks_text();
std::string describe_io_stacks_json();

}  // namespace iok
