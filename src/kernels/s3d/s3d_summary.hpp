#pragma once
// What an s3d run tells when it is done (rank 0): the result's params and
// summary (the JSON keys the tests and bench scripts read) and the S3D-IO
// report (s3d_report.hpp), both from the totals and the run's own notes.
// Kept out of the main so the main reads as the run itself.
#include <string>

#include "driver/driver.hpp"
#include "kernels/s3d/s3d_decomp.hpp"
#include "kernels/s3d/s3d_options.hpp"
#include "kernels/s3d/s3d_report.hpp"

namespace iok::s3d {

struct RestartNote {
    bool read = false;           // checkpoint 0 of a previous run was read and verified
    std::string text = "False";  // the report's "restart" line
};

// The verification verdict comes from the driver's mismatch count.
void summarize(Driver& d, const Options& opt, const Grid& grid, const Block& blk, const Totals& totals,
               const RestartNote& restart);

}  // namespace iok::s3d
